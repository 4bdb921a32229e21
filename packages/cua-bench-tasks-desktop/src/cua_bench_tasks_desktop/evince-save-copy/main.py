"""evince-save-copy: save a copy of the PDF open in Evince under a new name (File > Save a Copy).

The oracle presses ctrl+s and saves under the name asked in the file dialog.
The evaluator reads the copy whole (``_evince.read_saved``): a plain file with one link (a hard or
symbolic link to the original is no copy), a PDF with the seed's pages and text and no annotations;
and no other file under home changed (the original among them).
Wrong ways: ``highlights_then_saves`` (a word highlighted first: the copy is not a copy),
``saves_under_a_misspelt_name`` and ``saves_a_stray_copy_first`` (a misspelt copy, then the right one).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    file_name,
    loaders,
    unchanged_but,
    write_files,
)
from cua_bench_tasks_desktop._evince import (
    annotation_problems,
    as_pages,
    highlight,
    open_pdf,
    pdf_bytes,
    pdf_text_problems,
    read_saved,
    save_copy,
    seed_pages,
    title_of,
)

NAME = "evince-save-copy"
WAIVED = OUTPUT_IS_THE_WORK
TARGETS = ("backup", "archive", "shared", "copies", "review")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    old, new = distinct(rng, 2, lambda r: file_name(r, ".pdf"))
    target = rng.choice([folder, rng.choice(TARGETS)])
    return cb.Task(
        description=f"The PDF ~/{folder}/{old} is open in Evince. Save a copy of it as ~/{target}/{new}; "
        "the original must stay as it is.",
        metadata={"path": f"{folder}/{old}", "copy": f"{target}/{new}", "target": target,
                  "pages": seed_pages(rng, rng.randint(1, 3))},
        max_steps=12,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {f"{meta['target']}/.keep": ""})
    await open_pdf(task, session, meta["path"], pdf_bytes(as_pages(meta["pages"])))


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    pdf = await read_saved(task, session, meta["copy"])
    if pdf is None:
        return [0.0]
    problems = pdf_text_problems(pdf, pdf_bytes(as_pages(meta["pages"]))) + annotation_problems(pdf, {})
    for problem in problems:
        task.explain(f"{meta['copy']}: {problem}")
    return [1.0 if not problems and await unchanged_but(task, session, [meta["copy"]]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save_copy(session, task.metadata["copy"])


@cb.wrong_way
async def highlights_then_saves(task: cb.Task, session: cb.Session) -> None:
    """The first word of the first page highlighted, then a copy saved: it is not the original's copy."""
    meta = task.metadata
    line = as_pages(meta["pages"])[0][1][0]
    await highlight(session, title_of(meta["path"]), 1, line, 0, 0, line.index(" "))
    await save_copy(session, meta["copy"])


@cb.wrong_way
async def saves_under_a_misspelt_name(task: cb.Task, session: cb.Session) -> None:
    """A copy saved under the name with its second letter left out."""
    folder, name = task.metadata["copy"].rsplit("/", 1)
    await save_copy(session, f"{folder}/{name[:1]}{name[2:]}")


@cb.wrong_way
async def saves_a_stray_copy_first(task: cb.Task, session: cb.Session) -> None:
    """A copy under a misspelt name, then one under the right name: a stray copy is left."""
    folder, name = task.metadata["copy"].rsplit("/", 1)
    await save_copy(session, f"{folder}/{name[:2]}{name[3:]}")
    await save_copy(session, task.metadata["copy"])
