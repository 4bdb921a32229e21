"""evince-add-note: add a note (a text annotation) with a given text on a given page of the PDF open
in Evince, then save a copy under a new name.

The oracle shows the page (Fit Page, ctrl+l and its number), picks Note text and clicks beside the
page's heading; in the note's window it types the text and closes it; then it saves a copy (ctrl+s).
The evaluator reads the copy whole (``_evince.read_saved``): the seed's pages and text, one Text
annotation on the asked page and no other annotation anywhere (its popup aside), holding exactly
the text (``same_text``); and no other file under home changed (the original among them).
Wrong ways: ``on_the_wrong_page``, ``text_cut_short`` (the last letter left out) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, same_text, sentence
from cua_bench_tasks_desktop._evince import (
    LAYOUT,
    Pdf,
    add_note,
    annotated_copy_score,
    open_seeded,
    save_copy,
    seed_pages,
    title_of,
)

NAME = "evince-add-note"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    path = f"{folder}/{file_name(rng, '.pdf')}"
    copy = f"{folder}/{path.rsplit('/', 1)[1].removesuffix('.pdf')}_noted.pdf"
    pages = seed_pages(rng, rng.randint(2, 3))
    page = rng.randrange(len(pages))
    text = sentence(rng).removeprefix("the ")
    return cb.Task(
        description=f"The PDF ~/{path} is open in Evince. Add a note (Evince's Note text tool) on page {page + 1} "
        f"that says '{text}', then save a copy of the document as ~/{copy}.",
        metadata={"path": path, "copy": copy, "pages": pages, "page": page, "text": text},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def says(pdf: Pdf) -> list[str]:
        (_, note), *_ = pdf.markup()
        return (
            [] if same_text(note.contents, meta["text"]) else [f"the note says {note.contents!r}, not {meta['text']!r}"]
        )

    return await annotated_copy_score(task, session, {meta["page"]: ["/Text"]}, says)


async def _noted(task: cb.Task, session: cb.Session, *, page: int | None = None, text: str | None = None,
                 saved: bool = True) -> None:  # fmt: skip
    meta = task.metadata
    page = meta["page"] if page is None else page
    # Right of the heading, in the page's top margin: a note there covers no text.
    await add_note(session, title_of(meta["path"]), page + 1, LAYOUT.width - 90, 30, text or meta["text"])
    if saved:
        await save_copy(session, meta["copy"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _noted(task, session)


@cb.wrong_way
async def on_the_wrong_page(task: cb.Task, session: cb.Session) -> None:
    """The note on the page after the asked one (or before, on the last)."""
    meta = task.metadata
    await _noted(task, session, page=meta["page"] + 1 if meta["page"] + 1 < len(meta["pages"]) else meta["page"] - 1)


@cb.wrong_way
async def text_cut_short(task: cb.Task, session: cb.Session) -> None:
    """The note's text without its last letter."""
    await _noted(task, session, text=task.metadata["text"][:-1])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The note added, no copy saved."""
    await _noted(task, session, saved=False)
