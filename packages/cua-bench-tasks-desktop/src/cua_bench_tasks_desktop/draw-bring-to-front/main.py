"""draw-bring-to-front: bring one named shape of a drawing open in LibreOffice Draw in front of every other
shape on its page (Shape > Arrange > Bring to Front), then save the drawing (``.odg``).

The page's three or four shapes lie in a cascade, each overlapping every other, so their order shows (and Bring
Forward, which passes only the shapes it overlaps, takes one step); the shape starts at least two places under the
top of the stack. The oracle shows the page, selects the shape with Tab (z-order), runs Bring to Front from
LibreOffice's Search Commands (Shift+Esc) and saves (Ctrl+S).
The evaluator reads the saved ``.odg`` with lxml (``_draw.scored``): each page's shapes in document order, which is
Draw's z-order: on the shape's page the others in their seeded order and the shape last; every shape as seeded (kind,
name, box, fill, line, text, rotation, title, description, other style properties); no other file under home changed.
Wrong ways: ``never_saved``, ``brought_forward_once`` (Bring Forward: one step up), ``brings_the_neighbour_forward``
(the next shape up brought to the front) and ``sent_to_back`` (Send to Back).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, loaders
from cua_bench_tasks_desktop._draw import Page, command, open_seeded, reordered, scored, seed, select
from cua_bench_tasks_desktop._office import save

NAME = "draw-bring-to-front"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path, pages, _ = seed(rng, least=3)
    page = rng.randrange(len(pages))
    count = len(pages[page]["shapes"])
    # The page's shapes in a cascade, each overlapping every other: the stack's order shows.
    left, top = rng.randint(20, 120) / 10, rng.randint(10, 50) / 10
    for number, shape in enumerate(pages[page]["shapes"]):
        shape["width"], shape["height"] = rng.randint(50, 70) / 10, rng.randint(50, 70) / 10
        shape["x"], shape["y"] = round(left + 1.5 * number, 1), round(top + 1.2 * number, 1)
    index = rng.randrange(count - 2)  # at least two shapes above it
    name = pages[page]["shapes"][index]["name"]
    return cb.Task(
        description=f'The drawing ~/{path} is open in LibreOffice Draw. On the page "{pages[page]["name"]}", '
        f'bring the shape named "{name}" to the front, in front of every other shape on that page. Change '
        "nothing else, then save the drawing in its current format.",
        metadata={"path": path, "pages": pages, "page": page, "index": index},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, Any]) -> list[Page]:
    order = [i for i in range(len(meta["pages"][meta["page"]]["shapes"])) if i != meta["index"]]
    return reordered(meta["pages"], meta["page"], [*order, meta["index"]])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, expected(task.metadata))


async def arrange(session: cb.Session, meta: dict[str, Any], words: str, index: int | None = None) -> None:
    """The shape (or the page's ``index``-th) selected and the Arrange command ``words`` run."""
    await select(session, meta["page"] + 1, meta["index"] if index is None else index)
    await command(session, words)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await arrange(session, task.metadata, "Bring to Front")
    await save(session, task.metadata["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """Brought to the front on screen, never saved."""
    await arrange(session, task.metadata, "Bring to Front")


@cb.wrong_way
async def brought_forward_once(task: cb.Task, session: cb.Session) -> None:
    """Bring Forward: one step up the stack (past the next shape it overlaps), not to its top."""
    await arrange(session, task.metadata, "Bring Forward")
    await save(session, task.metadata["path"])


@cb.wrong_way
async def brings_the_neighbour_forward(task: cb.Task, session: cb.Session) -> None:
    """The next shape up brought to the front instead."""
    await arrange(session, task.metadata, "Bring to Front", index=task.metadata["index"] + 1)
    await save(session, task.metadata["path"])


@cb.wrong_way
async def sent_to_back(task: cb.Task, session: cb.Session) -> None:
    """Send to Back: the bottom of the stack."""
    await arrange(session, task.metadata, "Send to Back")
    await save(session, task.metadata["path"])
