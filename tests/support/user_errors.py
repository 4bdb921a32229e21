"""Task folders and agents with a user's mistakes in them, for the tests of how those mistakes are shown."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from cua_bench import Agent

# A task whose setup or evaluator (``FAIL_IN``) fails two calls deep in the author's own code, and that
# declares its own screen size (1024x768, not the run's 1280x800).
FAULTY = """
import cua_bench as cb

FAIL_IN = {fail_in!r}


@cb.tasks_config
def load():
    computer = {{"provider": "sim", "setup_config": {{"width": 1024, "height": 768}}}}
    return [cb.Task(description="Nothing to do.", computer=computer)]


def expected(task):
    return task.metadata["expected"]


@cb.setup_task
async def setup(task, session):
    if FAIL_IN == "setup":
        expected(task)


@cb.evaluate_task
async def evaluate(task, session):
    if FAIL_IN == "evaluate":
        expected(task)
    return [1.0]


@cb.solve_task
async def solve(task, session):
    pass
"""


def faulty_task(where: Path, fail_in: str, name: str = "faulty") -> Path:
    """A task folder whose ``fail_in`` (setup, evaluate, or nowhere) raises KeyError in ``expected``."""
    folder = where / name
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(textwrap.dedent(FAULTY.format(fail_in=fail_in)))
    return folder


def failing_line(folder: Path) -> int:
    """The line of ``return task.metadata["expected"]`` in the folder's main.py."""
    lines = (folder / "main.py").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if 'task.metadata["expected"]' in line)


class TextAgent(Agent):
    """Returns what a model said, unparsed: a string where a list of actions belongs."""

    def act(self, observation: dict[str, Any]) -> Any:
        return "click(500, 300)"
