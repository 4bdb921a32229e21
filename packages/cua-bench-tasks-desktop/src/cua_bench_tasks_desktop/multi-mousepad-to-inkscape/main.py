"""multi-mousepad-to-inkscape: carry a colour from a note open in Mousepad into a drawing open in
Inkscape (two apps: the note behind, the drawing in front), then save the drawing.

The note lists colour changes asked for two drawings, one line each: ``FILE: the LABEL (id ID)
becomes #RRGGBB``. The line for the open drawing names one of its objects; the other line names
another object of it (for another file). The task does not say the colour: it is in the note. The
oracle selects the object in Inkscape's Layers and Objects dialog, types the note's colour into Fill
and Stroke's RGBA field and saves (File > Save).
The evaluator reads the saved drawing with lxml (``_inkscape.read_saved``) as inkscape-fill-color
does: Inkscape SVG, the page as it was, that object's fill the note's colour and every other element
as it was, no element more; the note unchanged, and no other file under home changed
(Inkscape's profile aside; the drawing's previous version beside it included).
Wrong ways: ``the_other_line`` (the other line's object and colour), ``colour_on_the_other_object``
(the right colour on the other line's object) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, file_title, loaders, start, write_files
from cua_bench_tasks_desktop._inkscape import (
    COLOURS,
    PAGES,
    as_shapes,
    folder_and_name,
    open_seeded,
    save,
    saved_drawing_score,
    seed_shapes,
    seeded_problems,
    select,
    set_paint,
    target_changed,
)

NAME = "multi-mousepad-to-inkscape"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    path = folder_and_name(rng)
    other_path = folder_and_name(rng)
    while other_path.rsplit("/", 1)[-1] == path.rsplit("/", 1)[-1]:
        other_path = folder_and_name(rng)
    width, height = rng.choice(PAGES)
    shapes = seed_shapes(rng, width, height, rng.randint(3, 5))
    target, other = rng.sample(range(len(shapes)), 2)
    colour, other_colour = rng.sample(sorted(set(COLOURS) - {shape.fill for shape in shapes}), 2)
    note = f"notes/{rng.choice(['client', 'changes', 'feedback', 'review'])}_{rng.randint(1, 99)}.txt"
    lines = [
        f"{path.rsplit('/', 1)[-1]}: the {shapes[target].label} (id {shapes[target].id}) becomes {colour}",
        f"{other_path.rsplit('/', 1)[-1]}: the {shapes[other].label} (id {shapes[other].id}) becomes {other_colour}",
    ]
    rng.shuffle(lines)
    text = "Colour changes asked for:\n" + "\n".join(lines) + "\n"
    return cb.Task(
        description=f"The note ~/{note} (open in Mousepad, behind) lists colour changes asked for some drawings. "
        f"Make the change it lists for the drawing ~/{path} (open in Inkscape): give that object the note's "
        "colour as its flat fill, leave everything else as it is, and save the drawing (Inkscape SVG, same file).",
        metadata={"path": path, "width": width, "height": height, "shapes": [s.as_json() for s in shapes],
                  "target": target, "other": other, "colour": colour, "other_colour": other_colour,
                  "note": note, "text": text},
        max_steps=20,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["note"]: meta["text"]})
    await start(session, "mousepad", meta["note"], title=file_title(meta["note"], "Mousepad"))
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    recoloured = target_changed(meta, style=f"fill:{meta['colour']};stroke:none")
    return await saved_drawing_score(task, session, lambda drawing: seeded_problems(drawing, meta, recoloured))


async def _paint(task: cb.Task, session: cb.Session, index: int, colour: str, *, saved: bool = True) -> None:
    meta = task.metadata
    await select(session, as_shapes(meta["shapes"])[index])
    await set_paint(session, colour)
    if saved:
        await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _paint(task, session, meta["target"], meta["colour"])


@cb.wrong_way
async def the_other_line(task: cb.Task, session: cb.Session) -> None:
    """The other line's change: its object gets its colour (the line for another drawing)."""
    meta = task.metadata
    await _paint(task, session, meta["other"], meta["other_colour"])


@cb.wrong_way
async def colour_on_the_other_object(task: cb.Task, session: cb.Session) -> None:
    """The note's colour for this drawing, on the object the other line names."""
    meta = task.metadata
    await _paint(task, session, meta["other"], meta["colour"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The object recoloured on the canvas, the drawing never saved."""
    meta = task.metadata
    await _paint(task, session, meta["target"], meta["colour"], saved=False)
