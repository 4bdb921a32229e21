"""draw-save-as-fodg: save the ``.odg`` drawing open in LibreOffice Draw as a Flat XML drawing (``.fodg``)
under a new name (File > Save As; Draw takes the format from the name), leaving the ``.odg`` as it was.

The evaluator reads the new file with lxml by content (``_draw.scored``): a flat ``.fodg`` (one XML
document whose root says it is a drawing; a zipped ``.odg`` under that name is not one), every page in
order with its name and every shape as seeded (kind, name, box, fill, line, text, rotation, title,
description, z-order); and no other file under home changed (the ``.odg`` byte for byte).
Wrong ways: ``saved_as_odg`` (Save As under the new name with ``.odg``: Draw's zipped format),
``edited_before_saving`` (the first page's first shape nudged with an arrow key, then saved as asked)
and ``original_saved_too`` (the same nudge saved into the ``.odg`` with Ctrl+S, undone, then saved as
asked: the copy is right, the original is not).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, file_name, loaders, press
from cua_bench_tasks_desktop._draw import expected_pages, open_seeded, save_as, scored, seed, select
from cua_bench_tasks_desktop._impress import settled
from cua_bench_tasks_desktop._office import save

NAME = "draw-save-as-fodg"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, pages, _ = seed(rng)
    folder, name = path.rsplit("/", 1)
    stem = name.removesuffix(".odg")
    target = file_name(rng, "")
    while target == stem:
        target = file_name(rng, "")
    return cb.Task(
        description=f"The drawing ~/{path} is open in LibreOffice Draw. Save it as a Flat XML ODF drawing "
        f"(.fodg) ~/{folder}/{target}.fodg, and leave ~/{path} as it is.",
        metadata={"path": path, "pages": pages, "target": f"{folder}/{target}.fodg"},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await scored(task, session, expected_pages(meta["pages"]), meta["target"])


async def nudge(session: cb.Session) -> None:
    """The first page's first shape selected and moved one step right (the arrow key)."""
    await select(session, 1, 0)
    await press(session, "right")
    await settled(session)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save_as(session, task.metadata["target"])


@cb.wrong_way
async def saved_as_odg(task: cb.Task, session: cb.Session) -> None:
    """Saved under the new name with ``.odg``: Draw's own zipped format, not the flat one."""
    await save_as(session, task.metadata["target"].removesuffix(".fodg") + ".odg")


@cb.wrong_way
async def edited_before_saving(task: cb.Task, session: cb.Session) -> None:
    """A shape nudged right, then saved as asked: the copy is not the drawing."""
    await nudge(session)
    await save_as(session, task.metadata["target"])


@cb.wrong_way
async def original_saved_too(task: cb.Task, session: cb.Session) -> None:
    """The nudge saved into the ``.odg`` (Ctrl+S), undone (Ctrl+Z), then saved as asked."""
    meta = task.metadata
    await nudge(session)
    await save(session, meta["path"])
    await press(session, "ctrl+z")
    await settled(session)
    await save_as(session, meta["target"])
