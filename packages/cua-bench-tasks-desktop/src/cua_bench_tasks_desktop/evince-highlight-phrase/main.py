"""evince-highlight-phrase: highlight a phrase on a given page of the PDF open in Evince (the
Highlight text tool), then save a copy under a new name. The same line stands on another page too,
so the page matters.

The oracle shows the page (Fit Page, ctrl+l and its number), finds the page on the screen, picks
Highlight text and drags across the phrase's words, then saves a copy (ctrl+s).
The evaluator reads the copy whole (``_evince.read_saved``): the seed's pages and text, one
Highlight on the asked page and no other annotation (popups of it aside), its QuadPoints on the
phrase's line covering exactly the phrase's words (``_evince.highlight_problems``); and no other
file under home changed (the original among them).
Wrong ways: ``on_the_other_page`` (the same words on the other page), ``one_word_more``,
``first_word_only`` and ``never_saved``.
"""

from __future__ import annotations

import random
import re

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders
from cua_bench_tasks_desktop._evince import (
    annotated_copy_score,
    as_pages,
    highlight,
    open_seeded,
    phrase_line,
    phrase_problems,
    save_copy,
    seed_pages,
    title_of,
)

NAME = "evince-highlight-phrase"
WAIVED = OUTPUT_IS_THE_WORK


def _count(text: str, phrase: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(phrase)}(?!\w)", text))


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    path = f"{folder}/{file_name(rng, '.pdf')}"
    copy = f"{folder}/{path.rsplit('/', 1)[1].removesuffix('.pdf')}_marked.pdf"
    while True:
        pages = seed_pages(rng, rng.randint(2, 3))
        page, other = rng.sample(range(len(pages)), 2)
        row = rng.randrange(len(pages[page][1]))
        line = pages[page][1][row]
        decoy = rng.randrange(len(pages[other][1]))
        pages[other][1][decoy] = line
        words = line.split(" ")
        size = rng.randint(2, 3)
        first = rng.randint(1, len(words) - size - 1)  # a word after it, for one_word_more
        phrase = " ".join(words[first : first + size])
        texts = ["\n".join(lines) for _, lines in pages]
        if _count(texts[page], phrase) == 1 and _count(texts[other], phrase) == 1:
            break
    start = len(" ".join(words[:first])) + 1
    return cb.Task(
        description=f"The PDF ~/{path} is open in Evince. On page {page + 1}, highlight the words '{phrase}' "
        f"(Evince's Highlight text tool; nothing more), then save a copy of the document as ~/{copy}.",
        metadata={"path": path, "copy": copy, "pages": pages, "page": page, "other": other, "decoy": decoy,
                  "row": row, "start": start, "end": start + len(phrase)},
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
    return await annotated_copy_score(
        task, session, {meta["page"]: ["/Highlight"]}, lambda pdf: phrase_problems(pdf, meta)
    )


async def _marked(task: cb.Task, session: cb.Session, *, page: int | None = None, row: int | None = None,
                  end: int | None = None, saved: bool = True) -> None:  # fmt: skip
    meta = task.metadata
    page = meta["page"] if page is None else page
    row = meta["row"] if row is None else row
    line = as_pages(meta["pages"])[page][1][row]
    await highlight(session, title_of(meta["path"]), page + 1, line, row, meta["start"], end or meta["end"])
    if saved:
        await save_copy(session, meta["copy"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _marked(task, session)


@cb.wrong_way
async def on_the_other_page(task: cb.Task, session: cb.Session) -> None:
    """The same words highlighted on the page that repeats the line."""
    await _marked(task, session, page=task.metadata["other"], row=task.metadata["decoy"])


@cb.wrong_way
async def one_word_more(task: cb.Task, session: cb.Session) -> None:
    """The phrase and the word after it highlighted."""
    meta = task.metadata
    line = phrase_line(meta)
    await _marked(task, session, end=line.index(" ", meta["end"] + 1) if " " in line[meta["end"] + 1 :] else len(line))


@cb.wrong_way
async def first_word_only(task: cb.Task, session: cb.Session) -> None:
    """Only the phrase's first word highlighted."""
    meta = task.metadata
    await _marked(task, session, end=phrase_line(meta).index(" ", meta["start"]))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The phrase highlighted, no copy saved."""
    await _marked(task, session, saved=False)
