"""The builder of the LibreOffice Calc tasks that type into a seeded workbook and save it (not a task: no
``main.py``).

Each task seeds a workbook (``.ods``, Calc's own format, or ``.xlsx``) and describes the sheets its
evaluator expects and the cells its oracle types. Setup opens it in Calc ready for keys; the evaluator
reads the saved file in the format its name asks for (``cua_bench.office``: a workbook of another
format under that name is no workbook) and compares it whole with ``_sheets.workbook_differences``:
the same sheets in order, each cell of the kind asked (a number, not its digits as text; a formula
over the cells asked, with Calc's own result), nothing else on any sheet, and no other file under home
changed. The oracle goes to each cell by its name in the Name Box (``goto``), types, and saves with ctrl+s.

**Number formats.** ``number_formats`` reads how chosen cells of a sheet are shown, as a format code:
an ``.xlsx`` cell's own code (openpyxl), an ``.ods`` cell's data style (odfpy: the cell's style, else
its row's or column's default cell style, through the parent styles, to its ``number:*-style``),
written as the same code (``0.0%`` for a percentage style with one decimal, ``General`` for none).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cua_bench import Session, Task, evaluate_task, setup_task, solve_task
from cua_bench.builders import Evaluator, Meta, TaskFn, wrong_way
from cua_bench.office import Format, format_of
from cua_bench_tasks_desktop._common import act, key, unchanged_but
from cua_bench_tasks_desktop._office import book_bytes, open_document, read_bytes, save, workbook
from cua_bench_tasks_desktop._sheets import SHEET, Want, cell_name, workbook_differences
from cua_core import TypeText, Wait

__all__ = [
    "DELETE_DECIMAL",
    "GENERAL",
    "CalcEdit",
    "Entry",
    "fmt",
    "format_differences",
    "goto",
    "number_formats",
    "open_book",
    "read_number_formats",
    "scored",
    "type_at",
    "type_entries",
]

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


async def goto(session: Session, row: int, col: int) -> None:
    """Select the cell at 0-based (row, col) by its name in the Name Box (ctrl+shift+F5 focuses it), as a person
    who knows the cell does. Not the arrow keys: LibreOffice drops repeated arrow presses that queue up while it is
    busy (CI saw a goto to B7 land on A5)."""
    await act(session, key("ctrl+shift+F5"), Wait(0.3), key("ctrl+a"), TypeText(cell_name(row, col), press_enter=True))


async def type_at(session: Session, row: int, col: int, text: str) -> None:
    """Go to the cell at ``row``, ``col`` and type ``text`` and Enter, unsaved."""
    await goto(session, row, col)
    await act(session, TypeText(text, press_enter=True))


async def type_entries(session: Session, entries: list[Entry]) -> None:
    """Each entry typed from its cell, with Enter, unsaved."""
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


DELETE_DECIMAL = (1104, 101)
"""The Formatting toolbar's Delete Decimal Place button, in pixels from the top-left corner of Calc's
window (1280x800, maximised, as it opens): a toolbar command no menu holds, so Search Commands cannot
run it."""


# --- number formats ----------------------------------------------------------------------------------

GENERAL = "General"
"""The code of a cell with no number format of its own."""
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_NUMBER = "urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"
_MAX_REPEAT = 1_048_576


def number_formats(data: bytes, sheet: str, places: Iterable[tuple[int, int]]) -> dict[tuple[int, int], str] | None:
    """The format code of each cell at 0-based (row, column) ``places`` on ``sheet`` of a workbook (``.ods``
    or ``.xlsx`` by content); None when it is neither or has no such sheet."""
    wanted = set(places)
    try:
        kind = format_of(data)
        if kind == "xlsx":
            return _xlsx_formats(data, sheet, wanted)
        return _ods_formats(data, sheet, wanted) if kind == "ods" else None
    except Exception:  # a broken file of the right signature is no workbook
        return None


def format_differences(formats: dict[tuple[int, int], str] | None, wanted: dict[tuple[int, int], str]) -> list[str]:
    """How the cells' format codes (``number_formats``) differ from ``wanted``; [] when each is as wanted."""
    if formats is None:
        return ["no workbook of that format to read the number formats of"]
    return [
        f"{cell_name(*place)} is shown as {formats.get(place)!r}, not {code!r}"
        for place, code in sorted(wanted.items())
        if _ungrouped(formats.get(place)) != _ungrouped(code)
    ]


def _ungrouped(code: str | None) -> str | None:
    """A format code without its thousands separator (``#,##0.0%`` is ``0.0%``): Format Cells' "Thousands
    separator" box, which shows nothing on values under a thousand, as the tasks' values are."""
    return None if code is None else code.replace("#,##0", "0")


async def read_number_formats(
    session: Session, path: str, places: Iterable[tuple[int, int]], sheet: str = SHEET
) -> dict[tuple[int, int], str] | None:
    """``number_formats`` of the workbook saved at ``~/path``."""
    data = await read_bytes(session, path)
    return None if data is None else number_formats(data, sheet, places)


def _xlsx_formats(data: bytes, sheet: str, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], str] | None:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data))
    if sheet not in book.sheetnames:
        return None
    found = book[sheet]
    return {(r, c): str(found.cell(row=r + 1, column=c + 1).number_format or GENERAL) for r, c in wanted}


def _attr(node: Any, ns: str, name: str, default: str = "") -> str:
    value = node.attributes.get((ns, name))
    return default if value is None else str(value)


def _children(node: Any, local: str | None = None) -> list[Any]:
    return [c for c in node.childNodes if hasattr(c, "qname") and (local is None or c.qname[1] == local)]


def _ods_formats(data: bytes, sheet: str, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], str] | None:
    from odf.opendocument import load

    doc = load(io.BytesIO(data))
    tables = [t for t in _children(doc.spreadsheet, "table") if _attr(t, _TABLE, "name") == sheet]
    if not tables:
        return None
    styles: dict[str, Any] = {}
    codes: dict[str, str] = {}
    for container in (doc.styles, doc.automaticstyles):
        for node in _children(container):
            name = _attr(node, _STYLE, "name")
            if node.qname[1] == "style" and _attr(node, _STYLE, "family") == "table-cell":
                styles[name] = node
            elif node.qname[0] == _NUMBER and node.qname[1].endswith("-style"):
                codes[name] = _ods_code(node)

    def code(style: str) -> str:
        seen: set[str] = set()
        while style and style not in seen and style in styles:
            seen.add(style)
            data_style = _attr(styles[style], _STYLE, "data-style-name")
            if data_style:
                return codes.get(data_style, f"unknown style {data_style}")
            style = _attr(styles[style], _STYLE, "parent-style-name")
        return GENERAL

    columns: list[str] = []
    rows: list[Any] = []
    pending = [*_children(tables[0])]
    while pending:
        node = pending.pop(0)
        local = node.qname[1]
        if local in ("table-columns", "table-header-columns", "table-column-group"):
            pending = [*_children(node), *pending]
        elif local == "table-column":
            repeat = min(int(_attr(node, _TABLE, "number-columns-repeated", "1")), _MAX_REPEAT)
            columns += [_attr(node, _TABLE, "default-cell-style-name")] * min(repeat, 1024)
        elif local in ("table-rows", "table-header-rows", "table-row-group"):
            pending = [*_children(node), *pending]
        elif local == "table-row":
            rows.append(node)
    found: dict[tuple[int, int], str] = {}
    row = 0
    for node in rows:
        repeat = int(_attr(node, _TABLE, "number-rows-repeated", "1"))
        row_style = _attr(node, _TABLE, "default-cell-style-name")
        col = 0
        for cell in _children(node):
            if cell.qname[1] not in ("table-cell", "covered-table-cell"):
                continue
            span = int(_attr(cell, _TABLE, "number-columns-repeated", "1"))
            for r, c in wanted:
                if row <= r < row + repeat and col <= c < col + span:
                    style = _attr(cell, _TABLE, "style-name") or row_style
                    style = style or (columns[c] if c < len(columns) else "")
                    found[(r, c)] = code(style)
            col += span
        row += repeat
    for r, c in wanted - set(found):
        found[(r, c)] = code(columns[c] if c < len(columns) else "")
    return found


def _ods_code(node: Any) -> str:
    """A data style as a format code: ``0.0%``, ``#,##0.00``; General for a number style of no fixed decimals."""
    kind = str(node.qname[1])
    numbers = _children(node, "number")
    if kind not in ("number-style", "percentage-style") or len(numbers) != 1:
        return kind
    number = numbers[0]
    places = _attr(number, _NUMBER, "decimal-places")
    if kind == "number-style" and not places:
        return GENERAL
    digits = "#,##0" if _attr(number, _NUMBER, "grouping") == "true" else "0"
    decimals = int(places or "0")
    return digits + ("." + "0" * decimals if decimals else "") + ("%" if kind == "percentage-style" else "")
