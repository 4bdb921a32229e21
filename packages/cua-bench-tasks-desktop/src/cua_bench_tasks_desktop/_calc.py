"""The builder of the LibreOffice Calc tasks that type into a seeded workbook and save it (not a task: no
``main.py``).

Each task seeds a workbook (``.ods``, Calc's own format, or ``.xlsx``) and describes the sheets its
evaluator expects and the cells its oracle types. Setup opens it in Calc ready for keys; the evaluator
reads the saved file in the format its name asks for (``cua_bench.office``: a workbook of another
format under that name is no workbook) and compares it whole with ``_sheets.workbook_differences``:
the same sheets in order, each cell of the kind asked (a number, not its digits as text; a formula
over the cells asked, with Calc's own result), nothing else on any sheet, and no other file under home
changed. The oracle moves with the arrow keys from A1, types, and saves with ctrl+s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cua_bench import Session, Task, evaluate_task, setup_task, solve_task
from cua_bench.builders import Evaluator, Meta, TaskFn, wrong_way
from cua_bench.office import Format
from cua_bench_tasks_desktop._common import act, key, unchanged_but
from cua_bench_tasks_desktop._office import book_bytes, open_document, save, workbook
from cua_bench_tasks_desktop._sheets import SHEET, Want, goto, type_at, workbook_differences

__all__ = ["CalcEdit", "Entry", "fmt", "open_book", "scored", "type_entries"]

Entry = tuple[int, int, str]
"""What the oracle types: from the cell at 0-based (row, column), this text (a tab moves right)."""


def fmt(path: str) -> Format:
    return "xlsx" if path.endswith(".xlsx") else "ods"


async def open_book(task: Task, session: Session) -> None:
    """Setup: ``metadata["rows"]`` on one sheet at ``metadata["path"]``, open in Calc, ready for keys."""
    meta = task.metadata
    await open_document(task, session, "calc", meta["path"], book_bytes({SHEET: meta["rows"]}, fmt(meta["path"])))


async def scored(task: Task, session: Session, sheets: dict[str, list[list[Want]]], path: str | None = None) -> float:
    """1.0 when the workbook saved at ``path`` (``metadata["path"]``) holds exactly ``sheets`` in its
    name's format, and nothing else under home changed."""
    path = path or task.metadata["path"]
    differences = workbook_differences(await workbook(session, path, fmt(path)), sheets)
    for difference in differences:
        task.explain(f"{path}: {difference}")
    return 1.0 if not differences and await unchanged_but(task, session, [path]) else 0.0


async def type_entries(session: Session, entries: list[Entry]) -> None:
    """Each entry typed from its cell (arrow keys from A1), with Enter, unsaved."""
    for entry in entries:
        await type_at(session, *entry)


@dataclass(frozen=True)
class CalcEdit:
    """A task's edit: ``wanted``, the sheets its evaluator expects for a variant's metadata, and
    ``typed``, what its oracle types."""

    wanted: Callable[[Meta], dict[str, list[list[Want]]]]
    typed: Callable[[Meta], list[Entry]]

    def functions(self) -> tuple[TaskFn, Evaluator, TaskFn]:
        """The task's setup, evaluator and oracle, marked (see the module's docstring)."""

        async def setup(task: Task, session: Session) -> None:
            await open_book(task, session)

        async def evaluate(task: Task, session: Session) -> list[float]:
            return [await scored(task, session, self.wanted(task.metadata))]

        async def solve(task: Task, session: Session) -> None:
            await type_entries(session, self.typed(task.metadata))
            await save(session, task.metadata["path"])

        return setup_task(setup), evaluate_task(evaluate), solve_task(solve)

    def oracle_then_clears(self, name: str, doc: str, cell: Callable[[Meta], tuple[int, int]]) -> TaskFn:
        """A wrong way: the oracle's edit, then the cell at ``cell(metadata)`` deleted, and saved."""

        async def way(task: Task, session: Session) -> None:
            await type_entries(session, self.typed(task.metadata))
            await goto(session, *cell(task.metadata))
            await act(session, key("delete"))
            await save(session, task.metadata["path"])

        return wrong_way(way, name, doc)

    def unsaved(self, name: str, doc: str) -> TaskFn:
        """A wrong way: the oracle's edit, typed and never saved."""

        async def way(task: Task, session: Session) -> None:
            await type_entries(session, self.typed(task.metadata))

        return wrong_way(way, name, doc)
