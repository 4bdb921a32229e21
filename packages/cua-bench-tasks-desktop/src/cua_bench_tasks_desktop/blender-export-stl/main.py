"""blender-export-stl: export one object of the Blender scene open on the screen as a binary STL.

The oracle clicks the object's row in the Outliner (``_blender.pick``: selected alone), opens File >
Export > Stl (.stl) from F3's menu search, ticks File View's Selection Only, types the file's name
over the one offered (File View opens in the .blend's folder) and Enter, and waits for File View to
close and the file to be there (``_blender.export_to``).

The evaluator reads the export with ``struct`` (``_blender.read_stl``): a plain file with one link, a
binary STL (not ASCII: its header does not begin ``solid``) of exactly 84 + 50 bytes per triangle;
as many triangles as the seed object's faces make (``_blender.triangles``) and their corners, as a
set, the seed object's world-space vertices (to 2 mm; the exporter keeps Blender's Z-up axes). No
other file under home changed but Blender's file browser's lists (``_blender.ALLOWED``); the .blend
untouched.
Wrong ways: ``exports_every_object`` (Selection Only left off: every mesh in the file),
``exports_ascii`` (Ascii ticked: a text STL) and ``exports_the_next_object``.
Waived: ``forged-write`` (the STL is the output asked for) and ``trailing-blank-lines`` (the output is
binary; the only text file an export changes is Blender's file browser list ``bookmarks.txt``, which
File View rewrites whenever it closes and the evaluator lets change).
"""

from __future__ import annotations

import cua_bench as cb
from cua_bench_tasks_desktop._blender import (
    STL_ASCII,
    STL_SELECTED,
    WAIVERS,
    Dump,
    Spot,
    export_task,
    export_to,
    exported_scored,
    next_object,
    open_in_blender,
    pick,
    read_stl,
    same_points,
    seed_of,
    triangles,
    world_vertices,
)
from cua_bench_tasks_desktop._common import loaders

NAME = "blender-export-stl"
WAIVED = WAIVERS


load_train, load_test = loaders(
    NAME, lambda rng: export_task(rng, "a binary STL file", ".stl", ["", "_print", "-part", "_v1"])
)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_in_blender(task, session)


def problem_of(seed: Dump, name: str, data: bytes | None) -> str | None:
    found = read_stl(data)
    if isinstance(found, str):
        return found
    if len(found.triangles) != triangles(seed, name):
        return f"{len(found.triangles)} triangles, not the {triangles(seed, name)} of {name}"
    if not same_points([p for t in found.triangles for p in t], world_vertices(seed, name)):
        return f"the triangles' corners are not {name}'s vertices where it stands in the scene"
    return None


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await exported_scored(task, session, [], lambda data: problem_of(seed_of(task), meta["name"], data))


async def _export(task: cb.Task, session: cb.Session, name: str, options: list[Spot], *, text: bool = False) -> None:
    await pick(task, session, name)
    # A text STL is whole once its last line is there; waiting for one also makes the wrong way fail loudly when
    # its click on Ascii missed (a binary file never becomes one), instead of playing the oracle and "passing".
    whole = (lambda data: data.startswith(b"solid") and b"endsolid" in data[-300:]) if text else None
    await export_to(session, "export stl", task.metadata["out"], options, done=whole)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _export(task, session, task.metadata["name"], [STL_SELECTED])


@cb.wrong_way
async def exports_every_object(task: cb.Task, session: cb.Session) -> None:
    """Selection Only left off: every mesh of the scene in the file."""
    await _export(task, session, task.metadata["name"], [])


@cb.wrong_way
async def exports_ascii(task: cb.Task, session: cb.Session) -> None:
    """Ascii ticked: a text STL."""
    await _export(task, session, task.metadata["name"], [STL_SELECTED, STL_ASCII], text=True)


@cb.wrong_way
async def exports_the_next_object(task: cb.Task, session: cb.Session) -> None:
    """The object after the asked one in the Outliner (the one before, for the last)."""
    await _export(task, session, next_object(task.metadata, task.metadata["name"]), [STL_SELECTED])
