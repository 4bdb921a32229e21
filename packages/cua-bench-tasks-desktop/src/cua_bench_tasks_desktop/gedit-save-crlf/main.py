"""gedit-save-crlf: save a copy of the file open in gedit under a new name with Windows (CRLF) line endings.

The oracle opens Save As (ctrl+shift+s), picks "Windows" in the dialog's Line Ending list (found in the
accessibility tree: the list is named after its current choice), types ``~/folder/name`` into the name
field and presses Enter, and waits for gedit's title to show the new file.

The evaluator checks the copy's exact bytes (every line ending CRLF, the last one's optional), that the
copy is a plain file of its own (one link), the original's bytes unchanged, and that no other file under
home appeared or changed.
Wrong ways: ``saves_with_unix_endings`` (Save As with the list left alone) and ``saves_with_mac_endings``
("Mac OS Classic": CR only).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    WORDS,
    distinct,
    file_name,
    files_since_setup,
    loaders,
    nothing_else_changed,
    output_text,
    sentence,
)
from cua_bench_tasks_desktop._gedit import open_in_gedit, save_as

NAME = "gedit-save-crlf"
WAIVED = OUTPUT_IS_THE_WORK
TARGETS = ("windows", "shared", "export", "outbox", "review")


def build(rng: random.Random) -> cb.Task:
    folder = rng.choice(WORDS)
    old, new = distinct(rng, 2, lambda r: file_name(r, r.choice([".txt", ".csv", ".md"])))
    target = rng.choice([folder, rng.choice(TARGETS)])
    text = "\n".join(sentence(rng) for _ in range(rng.randint(2, 7))) + "\n"
    return cb.Task(
        description=f"The file ~/{folder}/{old} is open in gedit. Save a copy of it as ~/{target}/{new} with "
        "Windows (CRLF) line endings, using gedit's Save As dialog; the original file must stay as it is.",
        metadata={"path": f"{folder}/{old}", "copy": f"{target}/{new}", "text": text, "target": target},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_gedit(task, session, {meta["path"]: meta["text"], f"{meta['target']}/.keep": ""}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    before, after = await files_since_setup(task, session)
    meta = task.metadata
    copy, original = await output_text(session, after, meta["copy"]), await output_text(session, after, meta["path"])
    want = meta["text"].replace("\n", "\r\n")
    ok = copy in (want, want.removesuffix("\r\n")) and original == meta["text"]
    if not ok:
        task.explain(f"{meta['copy']} holds {copy!r:.120}, the original {original!r:.60}")
    return [1.0 if ok and nothing_else_changed(task, before, after, expect=[meta["copy"]]) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save_as(session, task.metadata["copy"], line_ending="Windows")


@cb.wrong_way
async def saves_with_unix_endings(task: cb.Task, session: cb.Session) -> None:
    """Save As under the right name, the Line Ending list left at Unix/Linux."""
    await save_as(session, task.metadata["copy"])


@cb.wrong_way
async def saves_with_mac_endings(task: cb.Task, session: cb.Session) -> None:
    """Save As under the right name with "Mac OS Classic" (CR) line endings."""
    await save_as(session, task.metadata["copy"], line_ending="Mac OS Classic")
