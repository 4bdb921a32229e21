"""A small task folder of a user's, written where a test needs it."""

from __future__ import annotations

import textwrap
from pathlib import Path

# A task that reads a file of its own folder in its evaluator, as Cua's tasks read their gui/ pages.
TASK = """
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
    return [1.0 if Path(__file__).with_name("answer.txt").read_text() == "42" else 0.0]


@cb.solve_task
async def solve(task, session):
    pass
"""


def task_folder(where: Path, name: str = "hello") -> Path:
    folder = where / name
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(textwrap.dedent(TASK))
    (folder / "answer.txt").write_text("42")
    return folder
