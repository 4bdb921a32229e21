"""blender-export-obj: export one object of the Blender scene open on the screen as a Wavefront OBJ.

The oracle clicks the object's row in the Outliner (``_blender.pick``: selected alone), opens File >
Export > Wavefront (.obj) from F3's menu search, ticks File View's Limit to Selected Only, types the
file's name over the one offered (File View opens in the .blend's folder) and Enter, and waits for
File View to close and the file to be there (``_blender.export_to``).

The evaluator reads the export with the stdlib (``_blender.read_obj``): a plain file with one link,
UTF-8 text of OBJ statements only, ending with one newline; exactly one object, of the asked name,
whose vertices, turned back from the exporter's Y-up axes (OBJ x, y, z is Blender's x, z, -y), are
the seed object's world-space vertices (to 2 mm; ``_blender.same_points``) and whose faces are as
many as its mesh has. No other file under home changed but the material library the exporter writes
beside it (``NAME.mtl``) and Blender's file browser's lists (``_blender.ALLOWED``); the .blend untouched.
Wrong ways: ``exports_every_object`` (Selected Only left off: four objects), ``exports_the_next_object``
and ``exports_an_stl`` (File > Export > Stl under the .stl name: no OBJ).
Waived: ``forged-write`` (the OBJ is the output asked for).
"""

from __future__ import annotations

import cua_bench as cb
from cua_bench_tasks_desktop._blender import (
    OBJ_SELECTED,
    STL_SELECTED,
    Dump,
    export_task,
    export_to,
    exported_scored,
    next_object,
    open_in_blender,
    pick,
    read_obj,
    same_points,
    seed_of,
    world_vertices,
)
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders

NAME = "blender-export-obj"
WAIVED = OUTPUT_IS_THE_WORK


load_train, load_test = loaders(
    NAME, lambda rng: export_task(rng, "a Wavefront OBJ file", ".obj", ["", "_mesh", "-export", "_v2"])
)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_in_blender(task, session)


def problem_of(seed: Dump, name: str, data: bytes | None) -> str | None:
    found = read_obj(data)
    if isinstance(found, str):
        return found
    if list(found.objects) != [name]:
        return f"objects {sorted(found.objects)}, not only {name!r}"
    points, faces = found.objects[name]
    item = next(o for o in seed["objects"] if o["name"] == name)
    if faces != len(item["mesh"]["faces"]):
        return f"{faces} faces, not {len(item['mesh']['faces'])}"
    if not same_points([(x, -z, y) for x, y, z in points], world_vertices(seed, name)):
        return f"the vertices are not {name}'s where it stands in the scene"
    return None


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await exported_scored(
        task,
        session,
        [meta["out"].removesuffix(".obj") + ".mtl"],
        lambda data: problem_of(seed_of(task), meta["name"], data),
    )


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await pick(task, session, meta["name"])
    await export_to(session, "export wavefront", meta["out"], [OBJ_SELECTED])


@cb.wrong_way
async def exports_every_object(task: cb.Task, session: cb.Session) -> None:
    """Limit to Selected Only left off: every object of the scene in the file."""
    meta = task.metadata
    await pick(task, session, meta["name"])
    await export_to(session, "export wavefront", meta["out"])


@cb.wrong_way
async def exports_the_next_object(task: cb.Task, session: cb.Session) -> None:
    """The object after the asked one in the Outliner (the one before, for the last)."""
    meta = task.metadata
    await pick(task, session, next_object(meta, meta["name"]))
    await export_to(session, "export wavefront", meta["out"], [OBJ_SELECTED])


@cb.wrong_way
async def exports_an_stl(task: cb.Task, session: cb.Session) -> None:
    """File > Export > Stl: a binary STL under the .stl name, no OBJ."""
    meta = task.metadata
    await pick(task, session, meta["name"])
    await export_to(session, "export stl", meta["out"].removesuffix(".obj") + ".stl", [STL_SELECTED])
