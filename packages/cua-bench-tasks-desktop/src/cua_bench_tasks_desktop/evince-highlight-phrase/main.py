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
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, unchanged_but
from cua_bench_tasks_desktop._evince import (
    annotation_problems,
    as_pages,
    highlight,
    highlight_problems,
    open_pdf,
    pdf_bytes,
    pdf_text_problems,
    read_saved,
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


def _line(meta: Meta) -> str:
    return as_pages(meta["pages"])[meta["page"]][1][meta["row"]]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_pdf(task, session, meta["path"], pdf_bytes(as_pages(meta["pages"])))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    pdf = await read_saved(task, session, meta["copy"])
    if pdf is None:
        return [0.0]
    problems = pdf_text_problems(pdf, pdf_bytes(as_pages(meta["pages"])))
    problems += annotation_problems(pdf, {meta["page"]: ["/Highlight"]})
    if not problems:
        (_, mark), *_ = pdf.markup()
        problems = highlight_problems(mark.quads, _line(meta), meta["row"], meta["start"], meta["end"])
    for problem in problems:
        task.explain(f"{meta['copy']}: {problem}")
    return [1.0 if not problems and await unchanged_but(task, session, [meta["copy"]]) else 0.0]


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
    line = _line(meta)
    await _marked(task, session, end=line.index(" ", meta["end"] + 1) if " " in line[meta["end"] + 1 :] else len(line))


@cb.wrong_way
async def first_word_only(task: cb.Task, session: cb.Session) -> None:
    """Only the phrase's first word highlighted."""
    meta = task.metadata
    await _marked(task, session, end=_line(meta).index(" ", meta["start"]))


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The phrase highlighted, no copy saved."""
    await _marked(task, session, saved=False)
