"""evince-highlight-comment: highlight a phrase on a given page of the PDF open in Evince and write a
comment on the highlight itself (in the window Evince opens for it), then save a copy under a new name.

The oracle shows the page (Fit Page, ctrl+l and its number), finds the page on the screen, picks
Highlight text and drags across the phrase's words; it clicks the highlight to open its window,
types the comment there and closes the window; then it saves a copy (ctrl+s).
The evaluator reads the copy whole (``_evince.read_saved``): the seed's pages and text, one
Highlight on the asked page and no other annotation (its popup aside), its QuadPoints covering
exactly the phrase's words (``_evince.highlight_problems``) and its contents exactly the comment
(``same_text``); and no other file under home changed (the original among them).
Wrong ways: ``comment_as_a_separate_note`` (the highlight bare, the comment in a note beside it),
``comment_on_the_first_word`` (the comment right, the highlight on the first word only),
``highlight_without_comment`` (its window closed empty) and ``never_saved``.
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
    highlight,
    open_highlight,
    open_seeded,
    phrase_line,
    phrase_problems,
    save_copy,
    seed_pages,
    title_of,
    type_in_note,
)

NAME = "evince-highlight-comment"
WAIVED = OUTPUT_IS_THE_WORK


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    path = f"{folder}/{file_name(rng, '.pdf')}"
    copy = f"{folder}/{path.rsplit('/', 1)[1].removesuffix('.pdf')}_reviewed.pdf"
    pages = seed_pages(rng, rng.randint(1, 3))
    page = rng.randrange(len(pages))
    row = rng.randrange(len(pages[page][1]))
    words = pages[page][1][row].split(" ")
    first = rng.randint(1, len(words) - 2)
    phrase = " ".join(words[first : first + 2])
    start = len(" ".join(words[:first])) + 1
    comment = rng.choice(["check this: ", "is this right? ", "ask about "]) + sentence(rng).removeprefix("the ")
    return cb.Task(
        description=f"The PDF ~/{path} is open in Evince. On page {page + 1}, line {row + 1} under the heading, "
        f"highlight the words '{phrase}' (Evince's Highlight text tool) and give that highlight the comment "
        f"'{comment}'; then save a copy of the document as ~/{copy}.",
        metadata={"path": path, "copy": copy, "pages": pages, "page": page, "row": row, "start": start,
                  "end": start + len(phrase), "comment": comment},
        max_steps=20,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def commented(pdf: Pdf) -> list[str]:
        (_, mark), *_ = pdf.markup()
        problems = phrase_problems(pdf, meta)
        if not same_text(mark.contents, meta["comment"]):
            problems.append(f"the highlight's comment is {mark.contents!r}, not {meta['comment']!r}")
        return problems

    return await annotated_copy_score(task, session, {meta["page"]: ["/Highlight"]}, commented)


async def _marked(task: cb.Task, session: cb.Session, comment: str, *, end: int | None = None) -> None:
    """The highlight made, and ``comment`` typed into the window Evince opens for it."""
    meta = task.metadata
    before = {str(info["id"]) for info in await session.windows()}
    title = title_of(meta["path"])
    await highlight(session, title, meta["page"] + 1, phrase_line(meta), meta["row"], meta["start"], end or meta["end"])
    note = await open_highlight(
        session, title, before, phrase_line(meta), meta["row"], meta["start"], end or meta["end"]
    )
    await type_in_note(session, note, comment)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _marked(task, session, task.metadata["comment"])
    await save_copy(session, task.metadata["copy"])


@cb.wrong_way
async def comment_as_a_separate_note(task: cb.Task, session: cb.Session) -> None:
    """The phrase highlighted with no comment, and the comment in a note beside the heading."""
    meta = task.metadata
    await _marked(task, session, "")
    await add_note(session, title_of(meta["path"]), meta["page"] + 1, LAYOUT.width - 90, 30, meta["comment"])
    await save_copy(session, meta["copy"])


@cb.wrong_way
async def comment_on_the_first_word(task: cb.Task, session: cb.Session) -> None:
    """The comment right, on a highlight of the phrase's first word only."""
    meta = task.metadata
    await _marked(task, session, meta["comment"], end=phrase_line(meta).index(" ", meta["start"]))
    await save_copy(session, meta["copy"])


@cb.wrong_way
async def highlight_without_comment(task: cb.Task, session: cb.Session) -> None:
    """The phrase highlighted, its window closed with nothing typed."""
    await _marked(task, session, "")
    await save_copy(session, task.metadata["copy"])


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The highlight and its comment made, no copy saved."""
    await _marked(task, session, task.metadata["comment"])
