"""draw-fill-color: give one named shape of a drawing open in LibreOffice Draw a new solid fill colour, given
as a hex code (Format > Area), then save the drawing (``.odg``).

The oracle shows the shape's page, selects the shape with Tab (z-order), runs Format > Area from LibreOffice's Search
Commands (Shift+Esc), types the code into the Area tab's Hex field (the tab opens on Color for a solid fill), clicks
OK and saves (Ctrl+S).
The evaluator reads the saved ``.odg`` with lxml (``_draw.scored``): every page and shape as seeded (kind, name, box,
line, text, rotation, title, description, other style properties, z-order), the shape's fill, resolved through its
style's parents as Draw shows it, solid and exactly the colour asked; no other file under home changed.
Wrong ways: ``never_saved``, ``recolours_the_neighbour`` (the next shape on the page) and ``near_colour`` (a colour
one step off in its blue channel: a code typed wrong by one digit).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._draw import COLOURS, Page, command, edited, fill_in, open_seeded, scored, seed, select
from cua_bench_tasks_desktop._office import save

NAME = "draw-fill-color"
WAIVED = OUTPUT_IS_THE_WORK
DIALOG = "Area"
HEX = (684, 346)
"""The Area tab's Hex field (Color page), and the dialog's OK button, in pixels from the dialog's corner."""
OK = (776, 601)


def build(rng: random.Random) -> cb.Task:
    path, pages, _ = seed(rng)
    page = rng.randrange(len(pages))
    index = rng.randrange(len(pages[page]["shapes"]))
    colour = f"#{rng.randrange(1 << 24):06x}"
    while colour in COLOURS:
        colour = f"#{rng.randrange(1 << 24):06x}"
    name = pages[page]["shapes"][index]["name"]
    return cb.Task(
        description=f'The drawing ~/{path} is open in LibreOffice Draw. On the page "{pages[page]["name"]}", '
        f'change the fill of the shape named "{name}" to the solid colour {colour} (hex RGB). Change nothing '
        "else, then save the drawing in its current format.",
        metadata={"path": path, "pages": pages, "page": page, "index": index, "colour": colour},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Page]:
    return edited(meta["pages"], meta["page"], meta["index"], fill=meta["colour"])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, expected(task.metadata))


async def paint(session: cb.Session, meta: dict[str, Any], colour: str, index: int | None = None) -> None:
    """The shape (or the page's ``index``-th) selected, Format > Area, ``colour`` in the Hex field, OK."""
    await select(session, meta["page"] + 1, meta["index"] if index is None else index)
    await command(session, "Area", DIALOG)
    await fill_in(session, DIALOG, [(HEX, colour.removeprefix("#"))], OK)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await paint(session, meta, meta["colour"])
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The fill changed on screen, never saved."""
    await paint(session, task.metadata, task.metadata["colour"])


@cb.wrong_way
async def recolours_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The next shape on the page (the first, after the last) gets the colour."""
    meta = task.metadata
    await paint(session, meta, meta["colour"], index=(meta["index"] + 1) % len(meta["pages"][meta["page"]]["shapes"]))
    await save(session, meta["path"])


@cb.wrong_way
async def near_colour(task: cb.Task, session: cb.Session) -> None:
    """The colour with its blue channel one step off (a digit typed wrong)."""
    meta = task.metadata
    value = int(meta["colour"][1:], 16)
    await paint(session, meta, f"#{value ^ 1:06x}")
    await save(session, meta["path"])
