"""The builder of the sim widget families that are one form with a Submit button (not a task: no ``main.py``).

choose-radio, choose-dropdown, set-slider, enter-text and click-checkboxes differ in the inputs the
form shows and in how the oracle sets the one asked for. The rest is the same in each, so it lives
here: setup (the form on a fresh desktop, its inputs remembered), the evaluator (exactly one
submission holding what setup left with the asked-for change, and the window still holding it),
the oracle's press of Submit, and the wrong ways every one of them declares: the oracle's work,
then one more change (``disturb``) or Submit once more. A family's ``main.py`` describes its
``Form`` and binds what the builders make, marked, to module names (see ``cua_bench.builders``); the wrong ways
keep the names and docstrings ``main.py`` gives them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import cua_bench as cb
from cua_bench.builders import Evaluator, Meta, TaskFn, wrong_way
from cua_bench_tasks_sim._widgets_common import (
    click_in,
    disturb,
    launch_form,
    press,
    remember,
    score,
    submitted_once,
)

__all__ = ["Choose", "Form", "choice", "target_answer"]

# How an option is picked in a named input: (session, input name, option).
Choose = Callable[[cb.Session, str, str], Awaitable[None]]


@dataclass(frozen=True)
class Form:
    """A family's form: the window's ``title``; ``inputs``, the widgets above Submit for a variant's
    metadata; ``asked``, the inputs the instruction changes and their values; ``fill``, the oracle's
    work before Submit; the window's ``width`` (or a function of the metadata); and, for a form whose
    asked-for change is a choice, ``choose`` (see ``choice``)."""

    title: str
    inputs: Callable[[Meta], list[dict[str, Any]]]
    asked: Callable[[Meta], dict[str, Any]]
    fill: TaskFn
    width: int | Callable[[Meta], int] = 480
    choose: Choose | None = None

    def functions(self) -> tuple[TaskFn, Evaluator, TaskFn]:
        """The family's setup, evaluator and oracle, marked: a fresh desktop with the form where the
        variant says and its inputs remembered; 1 for exactly one submission holding the asked-for
        change and nothing changed since; ``fill``, then a click on Submit."""

        async def setup(task: cb.Task, session: cb.Session) -> None:
            meta = task.metadata
            width = self.width if isinstance(self.width, int) else self.width(meta)
            widgets = [*self.inputs(meta), {"type": "button", "name": "Submit"}]
            await launch_form(session, task, self.title, widgets, width=width)
            remember(task, session)

        async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
            return score(submitted_once(task, session, self.title, self.asked(task.metadata)))

        async def solve(task: cb.Task, session: cb.Session) -> None:
            await self.submit(task, session)

        return cb.setup_task(setup), cb.evaluate_task(evaluate), cb.solve_task(solve)

    async def submit(self, task: cb.Task, session: cb.Session) -> None:
        """The oracle's work: what the wrong ways that start from it do first."""
        await self.fill(task, session)
        await click_in(session, "button", "Submit", within=("window", self.title))

    def oracle_then_disturbs(self, name: str, doc: str) -> TaskFn:
        """A wrong way: the oracle's submission, then the form's first input changed (``disturb``)."""

        async def way(task: cb.Task, session: cb.Session) -> None:
            await self.submit(task, session)
            await disturb(session, self.title)

        return wrong_way(way, name, doc)

    def oracle_then_submits_again(self, name: str, doc: str) -> TaskFn:
        """A wrong way: the oracle's submission, then Submit pressed once more."""

        async def way(task: cb.Task, session: cb.Session) -> None:
            await self.submit(task, session)
            await press(session, self.title, "Submit")

        return wrong_way(way, name, doc)

    def picks_a_neighbour(self, name: str, doc: str) -> TaskFn:
        """A wrong way of a ``choice``: the option before the answer in its input (the second when the
        answer is first) picked, then Submit."""
        choose = self.choose
        if choose is None:
            raise TypeError(f"the form {self.title!r} is not a choice: it has no way to pick an option")

        async def way(task: cb.Task, session: cb.Session) -> None:
            meta = task.metadata
            options = next(spec["options"] for spec in self.inputs(meta) if spec.get("name") == meta["target"])
            index = options.index(meta["answer"])
            await choose(session, meta["target"], options[index - 1 if index else 1])
            await press(session, self.title, "Submit")

        return wrong_way(way, name, doc)


def target_answer(meta: Meta) -> dict[str, Any]:
    """``asked`` of a form whose one asked-for change is the input ``target`` set to ``answer`` (metadata)."""
    return {meta["target"]: meta["answer"]}


def choice(title: str, inputs: str, choose: Choose, width: int = 480) -> Form:
    """A form whose asked-for change is picking the option ``answer`` in the input named ``target``
    (the variant's metadata), among the inputs listed under ``inputs`` in the metadata, each with its
    ``options``; ``choose(session, input, option)`` picks one (a radio group, a drop-down list)."""

    def listed(meta: Meta) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = meta[inputs]
        return found

    async def fill(task: cb.Task, session: cb.Session) -> None:
        await choose(session, task.metadata["target"], task.metadata["answer"])

    return Form(title, listed, target_answer, fill, width=width, choose=choose)
