"""A small task folder of a user's, written where a test needs it."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

# A task that reads a file of its own folder in its evaluator, as Cua's tasks read their gui/ pages.
TASK = """
import time
from pathlib import Path

import cua_bench as cb


@cb.tasks_config
def load():
    return [cb.Task(description="Nothing to do.")]


@cb.setup_task
async def setup(task, session):
    pass


@cb.evaluate_task
async def evaluate(task, session):
    time.sleep({pause})
    return [1.0 if Path(__file__).with_name("answer.txt").read_text() == {scores!r} else 0.0]


@cb.solve_task
async def solve(task, session):
    pass
"""


def task_folder(where: Path, name: str = "hello", *, scores: str = "42", pause: float = 0) -> Path:
    """The task, whose evaluator scores 1 when its ``answer.txt`` (written "42") holds ``scores``, read
    ``pause`` seconds into the evaluation."""
    folder = where / name
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(textwrap.dedent(TASK).format(scores=scores, pause=pause))
    (folder / "answer.txt").write_text("42")
    return folder


# Cua's style on a whole machine: the setup stages a file in /tmp with a file call and copies it with the
# shell, the oracle copies again, the evaluator reads back with file calls; each episode starts with an
# empty /tmp. It scores 1 only where run_command and the file calls see one filesystem.
COPY_THROUGH_TMP = """
import cua_bench as cb

MARK = {mark!r}


@cb.tasks_config(split="train")
def load():
    return [cb.Task(description="Copy the staged file.", metadata={{"n": n}}) for n in range(2)]


@cb.setup_task(split="train")
async def start(task_cfg, session):
    leftover = await session.file_exists("/tmp/out.txt")  # an earlier episode's output must be gone
    await session.write_file("/tmp/src.txt", MARK)
    await session.run_command("cp /tmp/src.txt /tmp/staged.txt && echo made > ~/made.txt", check=True)
    await session.write_file("/tmp/leftover", "yes" if leftover else "no")


@cb.solve_task(split="train")
async def solve(task_cfg, session):
    await session.run_command("cp /tmp/staged.txt /tmp/out.txt", check=True)


@cb.evaluate_task(split="train")
async def check(task_cfg, session):
    copied = await session.file_exists("/tmp/out.txt") and await session.read_file("/tmp/out.txt") == MARK
    made = await session.read_file("~/made.txt") == "made\\n"
    clean = await session.read_file("/tmp/leftover") == "no"
    return [1.0 if copied and made and clean else 0.0]
"""


def copy_through_tmp(where: Path) -> tuple[Path, str]:
    """A dataset folder holding the copy-through-/tmp task (two variants), and the mark its files carry."""
    mark = uuid.uuid4().hex
    task = where / "tasks" / "copy-through-tmp"
    task.mkdir(parents=True)
    (task / "main.py").write_text(COPY_THROUGH_TMP.format(mark=mark))
    return task.parent, mark
