"""The builder of the Gnumeric tasks that type into the open workbook and save it (not a task: no ``main.py``).

gnumeric-sum-formula, -stat-formula, -product-column, -add-row and -edit-cell differ in the
workbook they seed, the cells their oracle types and the sheet their evaluator expects. The rest
is the same in each, so it lives here: setup opens the seeded workbook, the evaluator reads the
saved one cell by cell with types (``_sheets.scored``), the oracle types one block from one cell
(Tab moves right, a newline down) and saves, and each declares a wrong way that does the work and
then clears one cell the instruction never named. A task's ``main.py`` describes its
``WorkbookEdit`` and binds what the builders make, marked, to module names (see ``cua_bench.builders``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cua_bench import Session, Task, evaluate_task, setup_task, solve_task
from cua_bench.builders import Evaluator, Meta, TaskFn, wrong_way
from cua_bench_tasks_desktop._common import act, key, save_and_wait
from cua_bench_tasks_desktop._sheets import Want, goto, open_workbook, scored, type_at

__all__ = ["Entry", "WorkbookEdit", "enter"]

# What the oracle types: from the cell at (row, column), this text.
Entry = tuple[int, int, str]


async def enter(task: Task, session: Session, entry: Entry) -> None:
    """Type ``entry`` into the workbook and save it (ctrl+s), waiting for the clean title."""
    await type_at(session, *entry)
    await save_and_wait(session, task.metadata["path"], "Gnumeric")


@dataclass(frozen=True)
class WorkbookEdit:
    """A task's edit: ``wanted``, the sheet its evaluator expects for a variant's metadata (cells,
    numbers or ``Formula``), and ``typed``, what its oracle types (an ``Entry``)."""

    wanted: Callable[[Meta], list[list[Want]]]
    typed: Callable[[Meta], Entry]

    def functions(self) -> tuple[TaskFn, Evaluator, TaskFn]:
        """The task's setup, evaluator and oracle, marked: the seeded workbook open in Gnumeric and every
        file under home remembered; 1 when the saved workbook holds exactly ``wanted`` and nothing else
        under home changed; ``typed`` entered, and the workbook saved."""

        async def setup(task: Task, session: Session) -> None:
            await open_workbook(task, session)

        async def evaluate(task: Task, session: Session) -> list[float]:
            return await scored(task, session, self.wanted(task.metadata))

        async def solve(task: Task, session: Session) -> None:
            await enter(task, session, self.typed(task.metadata))

        return setup_task(setup), evaluate_task(evaluate), solve_task(solve)

    def oracle_then_clears(self, name: str, doc: str, cell: Callable[[Meta], tuple[int, int]]) -> TaskFn:
        """A wrong way: the oracle's edit, then the cell at ``cell(metadata)`` deleted and the workbook
        saved again."""

        async def way(task: Task, session: Session) -> None:
            await enter(task, session, self.typed(task.metadata))
            await goto(session, *cell(task.metadata))
            await act(session, key("delete"))
            await save_and_wait(session, task.metadata["path"], "Gnumeric")

        return wrong_way(way, name, doc)
