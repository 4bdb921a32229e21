"""multi-pdf-to-notes: copy one line of a PDF open in Evince (left half of the screen) into a note
open in Mousepad (right half), under the note's first line, and save the note.

The oracle shows the page in Evince (Fit Page, ctrl+l and its number), finds the page on the
screen, drags across the line to select it and presses ctrl+c; it clicks into Mousepad, pastes at
the end (ctrl+end, ctrl+v), ends the line with Enter where the paste did not, and saves (ctrl+s).
The evaluator checks the note's whole saved text (``saved_text_is``): its first line as it was, then
that line of the PDF exactly; the PDF unchanged, and no other file under home changed.
Wrong ways: ``the_line_below``, ``last_word_missing`` (the line typed without its last word) and
``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._a11y import nodes
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    act,
    click_at,
    file_name,
    file_title,
    key,
    loaders,
    remember_files,
    save_and_wait,
    saved_text_is,
    start,
    wait_for,
    window,
    write_files,
)
from cua_bench_tasks_desktop._evince import (
    LAYOUT,
    as_pages,
    drag,
    open_pdf,
    page_box,
    pdf_bytes,
    seed_pages,
    show_page,
    text_width,
    title_of,
    to_screen,
)
from cua_core import TypeText

NAME = "multi-pdf-to-notes"
WAIVED = OUTPUT_IS_THE_WORK
HEADER = "from the report:\n"


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    pdf = f"{folder}/{file_name(rng, '.pdf')}"
    path = f"{folder}/{rng.choice(['quotes', 'excerpt', 'clippings'])}_{rng.randint(1, 99)}.txt"
    while True:
        pages = seed_pages(rng, rng.randint(1, 3))
        page = rng.randrange(len(pages))
        row = rng.randrange(len(pages[page][1]))
        lines = pages[page][1]
        start = " ".join(lines[row].split(" ")[:3])
        if sum(line.startswith(start) for _, body in pages for line in body) == 1:
            break
    return cb.Task(
        description=f"The PDF ~/{pdf} is open in Evince (left) and the note ~/{path} in Mousepad (right). Copy the "
        f"whole line on page {page + 1} of the PDF that begins with '{start}' into the note, as a line of its own "
        "under the note's first line; then save the note.",
        metadata={"path": path, "pdf": pdf, "pages": pages, "page": page, "row": row},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def _line(meta: Meta, row: int | None = None) -> str:
    return as_pages(meta["pages"])[meta["page"]][1][meta["row"] if row is None else row]


async def _place(session: cb.Session, title: str, x: int) -> None:
    """The window titled ``title`` moved to the screen's left (``x`` 0) or right half, full height."""
    wid = (await window(session, title))["id"]
    half = session.width // 2
    await session.run_command(f"xdotool windowsize {wid} {half} {session.height} windowmove {wid} {x} 0", timeout=10)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {meta["path"]: HEADER})
    mousepad = file_title(meta["path"], "Mousepad")
    await start(session, "mousepad", meta["path"], title=mousepad)
    info = await window(session, mousepad)
    await _place(session, info["title"], session.width // 2)
    await open_pdf(task, session, meta["pdf"], pdf_bytes(as_pages(meta["pages"])), remember=False, maximise=False)
    await _place(session, title_of(meta["pdf"]), 0)
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await saved_text_is(task, session, HEADER + _line(task.metadata) + "\n")


async def _note_text(session: cb.Session, meta: Meta) -> str | None:
    """What Mousepad's text view shows now (its accessible text)."""
    title = file_title(meta["path"], "Mousepad", clean=False)
    for top in await session.accessibility_tree():
        if title(str(top.get("name") or "")):
            views = [n for n in nodes(top) if n.get("role") == "text" and "editable" in (n.get("states") or [])]
            if views:
                return str(views[0].get("value") or "")
    return None


async def _into_mousepad(session: cb.Session, meta: Meta, *, paste: bool = True, typed: str = "") -> None:
    info = await window(session, file_title(meta["path"], "Mousepad"))
    await act(session, click_at(session, info["bounds"], 200, 200))
    await act(session, key("ctrl+end"), *([key("ctrl+v")] if paste else []), TypeText(typed))
    await wait_for(lambda: _grown(session, meta), "the note to show the pasted text")
    if not (await _note_text(session, meta) or "").endswith("\n"):
        await act(session, key("Return"))


async def _grown(session: cb.Session, meta: Meta) -> bool:
    return len(await _note_text(session, meta) or "") > len(HEADER)


async def _copied(task: cb.Task, session: cb.Session, row: int | None = None, *, saved: bool = True) -> None:
    meta = task.metadata
    title = title_of(meta["pdf"])
    line = _line(meta, row)
    row = meta["row"] if row is None else row
    await show_page(session, title, meta["page"] + 1)
    box = await page_box(session, title)
    y = LAYOUT.baseline(row) - 0.3 * LAYOUT.size
    # From the margin left of the line to just inside its last glyph: the line's text and nothing more.
    end = LAYOUT.left + text_width(line) - 1.0
    await act(session, *drag(to_screen(session, box, LAYOUT.left - 6, y), to_screen(session, box, end, y)))
    await act(session, key("ctrl+c"))
    await _into_mousepad(session, meta)
    if saved:
        await save_and_wait(session, meta["path"], "Mousepad")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _copied(task, session)


@cb.wrong_way
async def the_line_below(task: cb.Task, session: cb.Session) -> None:
    """The line below the asked one copied (the one above, on the page's last line)."""
    meta = task.metadata
    count = len(as_pages(meta["pages"])[meta["page"]][1])
    await _copied(task, session, meta["row"] + 1 if meta["row"] + 1 < count else meta["row"] - 1)


@cb.wrong_way
async def last_word_missing(task: cb.Task, session: cb.Session) -> None:
    """The line typed into the note without its last word."""
    meta = task.metadata
    await _into_mousepad(session, meta, paste=False, typed=_line(meta).rsplit(" ", 1)[0] + "\n")
    await save_and_wait(session, meta["path"], "Mousepad")


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The line copied in, the note never saved."""
    await _copied(task, session, saved=False)
