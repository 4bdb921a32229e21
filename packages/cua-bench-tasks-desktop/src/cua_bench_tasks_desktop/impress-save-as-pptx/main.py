"""impress-save-as-pptx: save the ``.odp`` presentation open in LibreOffice Impress as a PowerPoint
``.pptx`` under a new name (File > Save As; Impress takes the format from the name and asks to keep
it), leaving the ``.odp`` as it was.

The evaluator reads the new file as a ``.pptx`` by content (``_impress.scored``: an ``.odp`` or a
``.ppt`` under that name is no ``.pptx``): every slide of the original in order with its layout,
title, bullet lines, notes and visibility, no other shape, and no other file under home changed (the
original ``.odp`` byte for byte).
Wrong ways: ``saved_as_odp`` (Save As under the new name with ``.odp``: Impress's own format),
``saved_as_ppt`` (PowerPoint 97's ``.ppt``), ``edited_before_saving`` (the first slide's title
changed, then saved as asked) and ``original_saved_too`` (the first slide hidden and saved with Ctrl+S
into the ``.odp``, shown again, then saved as asked: the copy is right, the original is not).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, file_name, loaders
from cua_bench_tasks_desktop._impress import edit_box, open_deck, scored, seed_deck, slide_menu, slides_of, to_slide
from cua_bench_tasks_desktop._office import save, save_as

NAME = "impress-save-as-pptx"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, slides, fresh = seed_deck(rng, rng.randint(3, 5), ".odp")
    folder, name = path.rsplit("/", 1)
    stem = name.removesuffix(".odp")
    target = file_name(rng, "")
    while target == stem:
        target = file_name(rng, "")
    return cb.Task(
        description=f"The presentation ~/{path} is open in LibreOffice Impress. Save it in PowerPoint format as "
        f"~/{folder}/{target}.pptx, and leave ~/{path} as it is.",
        metadata={"path": path, "slides": slides, "target": f"{folder}/{target}.pptx", "title": fresh[0]},
        max_steps=12,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_deck(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, slides_of(meta["slides"]), meta["target"])]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save_as(session, task.metadata["target"], "impress")


@cb.wrong_way
async def saved_as_odp(task: cb.Task, session: cb.Session) -> None:
    """Saved as asked but with the ``.odp`` extension: Impress's own format, beside the original."""
    await save_as(session, task.metadata["target"].removesuffix(".pptx") + ".odp", "impress")


@cb.wrong_way
async def saved_as_ppt(task: cb.Task, session: cb.Session) -> None:
    """Saved under the name with ``.ppt``: PowerPoint 97's format, not the ``.pptx`` asked."""
    await save_as(session, task.metadata["target"].removesuffix(".pptx") + ".ppt", "impress")


@cb.wrong_way
async def edited_before_saving(task: cb.Task, session: cb.Session) -> None:
    """The first slide's title changed, then saved as asked: the copy is not the presentation."""
    await to_slide(session, 1)
    await edit_box(session, 1, task.metadata["title"])
    await save_as(session, task.metadata["target"], "impress")


@cb.wrong_way
async def original_saved_too(task: cb.Task, session: cb.Session) -> None:
    """The first slide hidden and saved into the ``.odp`` (Ctrl+S), shown again, then saved as asked."""
    meta = task.metadata
    await to_slide(session, 1)
    await slide_menu(session, "h")
    await save(session, meta["path"])
    await slide_menu(session, "w")
    await save_as(session, meta["target"], "impress")
