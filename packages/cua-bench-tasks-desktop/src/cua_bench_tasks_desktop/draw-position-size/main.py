"""draw-position-size: move and resize one named shape of a drawing open in LibreOffice Draw to an exact
position and size in cm (Format > Position and Size, F4), then save the drawing (``.odg``).

The drawing has two to four named pages of two to four named shapes (rectangles and ellipses with a fill, a line and
maybe a word). The oracle shows the shape's page (a click in the view's margin, Home, Page Down), selects the shape
with Tab (z-order), opens Position and Size with F4, types each value with its unit into Position X, Position Y,
Width and Height, clicks OK and saves (Ctrl+S). Setup sets Draw's unit of measure to cm (``_draw.CENTIMETRES``): in
inches, which the C locale gives, the dialog rounds a length typed in cm to 1/100 inch (0.25 mm).
The evaluator reads the saved ``.odg`` with lxml (``_draw.scored``): every page in order with its name, every shape
in z-order with its kind, name, box (within 0.1 mm), fill, line, text, rotation, title, description and other style
properties; the shape's box the one asked, everything else as seeded; no other file under home changed.
Wrong ways: ``never_saved`` (changed on screen only), ``resizes_the_neighbour`` (the next shape on the page gets the
values), ``width_and_height_swapped`` and ``position_only`` (moved, its size left).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders, press
from cua_bench_tasks_desktop._draw import PAGE, Page, edited, fill_in, open_seeded, scored, seed, select
from cua_bench_tasks_desktop._office import save

NAME = "draw-position-size"
WAIVED = OUTPUT_IS_THE_WORK
DIALOG = "Position and Size"
FIELDS = {"x": (141, 111), "y": (141, 151), "width": (141, 256), "height": (141, 296)}
"""The dialog's Position X, Position Y, Width and Height fields, and its OK button (pixels in the dialog)."""
OK = (485, 470)


def build(rng: random.Random) -> cb.Task:
    path, pages, _ = seed(rng)
    page = rng.randrange(len(pages))
    index = rng.randrange(len(pages[page]["shapes"]))
    shape = pages[page]["shapes"][index]
    width, height = rng.randint(20, 90) / 10, rng.randint(20, 90) / 10
    while abs(width - height) < 0.5 or abs(width - shape["width"]) < 0.5 or abs(height - shape["height"]) < 0.5:
        width, height = rng.randint(20, 90) / 10, rng.randint(20, 90) / 10
    x = rng.randint(5, int((PAGE[0] - width) * 10) - 5) / 10
    y = rng.randint(5, int((PAGE[1] - height) * 10) - 5) / 10
    box = {"x": x, "y": y, "width": width, "height": height}
    return cb.Task(
        description=f'The drawing ~/{path} is open in LibreOffice Draw. On the page "{pages[page]["name"]}", give '
        f'the shape named "{shape["name"]}" the position X = {x:g} cm, Y = {y:g} cm (its top-left corner on the '
        f"page) and the size width {width:g} cm by height {height:g} cm. Change nothing else, then save the drawing "
        "in its current format.",
        metadata={"path": path, "pages": pages, "page": page, "index": index, "box": box},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Page]:
    box = meta["box"]
    return edited(meta["pages"], meta["page"], meta["index"], box=(box["x"], box["y"], box["width"], box["height"]))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, expected(task.metadata))


async def place(session: cb.Session, meta: dict[str, Any], values: dict[str, float], index: int | None = None) -> None:
    """The shape (or the page's ``index``-th) selected, F4, and ``values`` typed in cm into their fields."""
    await select(session, meta["page"] + 1, meta["index"] if index is None else index)
    await press(session, "F4")
    fields = [(FIELDS[name], f"{value:g} cm") for name, value in values.items()]
    await fill_in(session, DIALOG, fields, OK)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await place(session, meta, meta["box"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Moved and resized on screen, never saved."""
    await place(session, task.metadata, task.metadata["box"])


@cb.wrong_way
async def resizes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next shape on the page (the one before, for the last) gets the position and size."""
    meta = task.metadata
    count = len(meta["pages"][meta["page"]]["shapes"])
    await place(session, meta, meta["box"], index=(meta["index"] + 1) % count)
    await save(session, meta["path"])


@cb.wrong_way
async def width_and_height_swapped(task: cb.Task, session: cb.Session) -> None:
    """The right position, the width typed as the height and the height as the width."""
    meta = task.metadata
    box = meta["box"]
    await place(session, meta, {**box, "width": box["height"], "height": box["width"]})
    await save(session, meta["path"])


@cb.wrong_way
async def position_only(task: cb.Task, session: cb.Session) -> None:
    """Moved to the position asked; its size left as it was."""
    meta = task.metadata
    await place(session, meta, {"x": meta["box"]["x"], "y": meta["box"]["y"]})
    await save(session, meta["path"])
