"""inkscape-add-text: add a text object with given words on the page of a drawing open in
Inkscape (the Text tool), then save the drawing.

The oracle fits the page in view (Zoom Page), picks the Text tool (``t``), clicks the middle of the
page, types the words, leaves the text (Escape) and saves (File > Save), waiting for the title to lose
its ``*``; the status bar says when the tool is on and how many characters were typed.
The evaluator reads the saved file with lxml (``_inkscape.read_saved``): saved by Inkscape as
Inkscape SVG, the page and every seed element as they were, and exactly one element more: a
``text`` in the layer (its ``tspan`` lines aside) whose text is the words exactly, anchored on the
page; and no other file under home changed
(Inkscape's profile aside; the drawing's previous version beside it included).
Wrong ways: ``one_word_short`` (the last word left out), ``typed_twice`` (two text objects with the
words) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import ADJECTIVES, NOUNS, OUTPUT_IS_THE_WORK, VERBS, loaders
from cua_bench_tasks_desktop._inkscape import (
    LAYER,
    PAGES,
    SVG,
    Drawing,
    Element,
    add_text,
    as_shapes,
    drawing_problems,
    expected_elements,
    folder_and_name,
    open_seeded,
    save,
    saved_drawing_score,
    seed_root,
    seed_shapes,
)

NAME = "inkscape-add-text"
WAIVED = OUTPUT_IS_THE_WORK
TEXT = f"{{{SVG}}}text"
TSPAN = f"{{{SVG}}}tspan"


def build(rng: random.Random) -> cb.Task:
    path = folder_and_name(rng)
    width, height = rng.choice(PAGES)
    shapes = seed_shapes(rng, width, height, rng.randint(2, 4))
    words = f"{rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS)} {rng.choice(VERBS)} {rng.randint(2, 99)}"
    return cb.Task(
        description=f"The drawing ~/{path} is open in Inkscape. Add one text object reading exactly '{words}' "
        "somewhere on the page (Inkscape's Text tool: click on the page and type; no flowed text), leave everything "
        "else as it is, and save the drawing (Inkscape SVG, same file).",
        metadata={"path": path, "width": width, "height": height, "shapes": [s.as_json() for s in shapes],
                  "words": words},
        max_steps=15,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def text_problems(drawing: Drawing, words: str, width: int, height: int) -> list[str]:
    """How the drawing's text objects miss one text in the layer reading ``words``, anchored on the page."""
    texts = [e for e in drawing.elements if e.tag == TEXT]
    if len(texts) != 1:
        return [f"{len(texts)} text objects, not 1"]
    (text,) = texts
    problems = []
    if text.parent != LAYER:
        problems.append(f"the text is in {text.parent or 'the root'}, not in the layer")
    found = drawing.text_of(text.id)
    if found != words:
        problems.append(f"the text reads {found[:80]!r}, not {words!r}")
    x, y = _number(text.attrs.get("x")), _number(text.attrs.get("y"))
    if x is None or y is None or not (0 <= x <= width and 0 <= y <= height) or "transform" in text.attrs:
        problems.append(f"the text is anchored at {text.attrs.get('x')}, {text.attrs.get('y')}: not on the page")
    return problems


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def problems(drawing: Drawing) -> list[str]:
        texts = {e.id for e in drawing.elements if e.tag == TEXT}

        def added(element: Element) -> bool:
            return element.tag == TEXT or (element.tag == TSPAN and element.parent in texts)

        found = drawing_problems(drawing, seed_root(meta["width"], meta["height"]),
                                 expected_elements(as_shapes(meta["shapes"])), extra=added)  # fmt: skip
        return found + text_problems(drawing, meta["words"], meta["width"], meta["height"])

    return await saved_drawing_score(task, session, problems)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await add_text(session, meta["words"])
    await save(session, meta["path"])


@cb.wrong_way
async def one_word_short(task: cb.Task, session: cb.Session) -> None:
    """The words but the last typed."""
    meta = task.metadata
    await add_text(session, meta["words"].rsplit(" ", 1)[0])
    await save(session, meta["path"])


@cb.wrong_way
async def typed_twice(task: cb.Task, session: cb.Session) -> None:
    """Two text objects with the words (one above the other)."""
    meta = task.metadata
    await add_text(session, meta["words"])
    await add_text(session, meta["words"], lower=True)
    await save(session, meta["path"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The text added on the canvas, the drawing never saved."""
    await add_text(session, task.metadata["words"])
