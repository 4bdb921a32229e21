"""The gnumeric tasks' plumbing: workbooks made with ssconvert, the saved file judged cell by cell
with types on every sheet, and the moves the oracles and wrong ways make in Gnumeric.

An evaluator reads the saved file as a workbook (``cua_bench.gnumeric.parse``: its real format, whatever its
name) and compares it whole with what the task asks for: the same sheets, each cell of the kind
asked (a number, not its digits as text; a formula over the cells asked, with the right result),
nothing else on any sheet, and no other file under home changed. ``refers_to`` / ``product_of``
read which cells a formula is over: a value is not enough, since ``=SUM(31.5)`` or
``=MAX(B2:B40)`` gives the same number as the asked-for formula.

``numbers_as_text``, ``with_extra_sheet`` and ``as_csv`` are the adversary's workbook mutations
(``cua-bench check`` applies them to every task's oracle result); they live in ``cua_bench.gnumeric``.
"""

from __future__ import annotations

import csv
import io
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench.gnumeric import (
    Sheet,
    Value,
    Workbook,
    as_csv,
    csv_rows,
    numbers_as_text,
    parse,
    with_extra_sheet,
)
from cua_bench_tasks_desktop._common import (
    act,
    file_title,
    key,
    no_window,
    nothing_else_changed,
    shell,
    snapshot_files,
    start,
    submit_dialog,
    window,
    write_files,
)
from cua_core import CuaError, TypeText, Wait

__all__ = [
    "ITEMS",
    "SHEET",
    "Cell",
    "Formula",
    "Want",
    "as_csv",
    "call",
    "cell_name",
    "cells",
    "csv_rows",
    "export_csv",
    "goto",
    "make_workbook",
    "matches",
    "numbers_as_text",
    "one_cell_edit",
    "open_workbook",
    "others_unchanged",
    "price",
    "product_of",
    "read_workbook",
    "refers_to",
    "same_value",
    "scored",
    "to_csv",
    "type_at",
    "with_extra_sheet",
    "workbook_differences",
]

Cell = str | int | float
"""A value a task writes or expects: text, or a number ("" is an empty cell)."""

SHEET = "Sheet1"
"""The one sheet of every gnumeric task's workbook: setup's, and the one a new Gnumeric workbook has."""

SEED_FOLDER = ".cua-seed"
ITEMS = (
    "apples", "bread", "coffee", "dates", "eggs", "flour", "grapes", "honey", "jam", "kale", "lemons", "milk",
    "noodles", "olives", "pasta", "quinoa", "rice", "salt", "tea", "vinegar", "walnuts", "yogurt", "butter",
    "cheese", "mangoes", "oats", "peppers", "sugar", "tomatoes", "carrots",
)  # fmt: skip
"""Row labels: none is a prefix of another, so Gnumeric's autocomplete never changes a typed one."""


def price(rng: random.Random) -> float:
    """A price in quarters (exact in binary, printed the same by every tool)."""
    return rng.randint(2, 80) / 4


def one_cell_edit(rng: random.Random) -> tuple[dict[str, Any], str]:
    """An "edit one value" variant's table and its instruction: an item/qty/price table of 3-8 rows, one
    number to change (qty to 51-99, or price to a new one 25 higher at least). The metadata (``rows``,
    ``expected``, ``row``, ``col``, ``value``) and the words "Change the qty of eggs to 75"."""
    columns = ("qty", "price")
    rows: list[list[Cell]] = [["item", *columns]]
    rows += [[item, rng.randint(1, 50), price(rng)] for item in rng.sample(ITEMS, rng.randint(3, 8))]
    row = rng.randint(1, len(rows) - 1)
    col = rng.randint(1, 2)
    value: Cell = rng.randint(51, 99) if col == 1 else price(rng) + 25
    expected = [list(r) for r in rows]
    expected[row][col] = value
    meta = {"rows": rows, "expected": expected, "row": row, "col": col, "value": value}
    return meta, f"Change the {columns[col - 1]} of {rows[row][0]} to {value}"


def cell_name(row: int, col: int) -> str:
    """0-based (row, col) to ``B7``."""
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}{row + 1}"


def to_csv(rows: list[list[Cell]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


# --- setup -------------------------------------------------------------------------------------


async def make_workbook(session: Session, path: str, rows: list[list[Cell]], sheet: str = SHEET) -> None:
    """A workbook at ``path`` (its format from the extension: .gnumeric, .xlsx, .csv) holding ``rows``
    on one sheet named ``sheet``."""
    # ssconvert names the sheet after the file it imports, extension and all: a seed with no
    # extension (its importer named instead) gives the sheet exactly ``sheet``.
    seed = f"{SEED_FOLDER}/{sheet}"
    await write_files(session, {seed: to_csv(rows)})
    folder = path.rsplit("/", 1)[0] if "/" in path else "."
    command = (
        f"mkdir -p {shell(folder)} && ssconvert -I Gnumeric_stf:stf_csvtab {shell(seed)} {shell(path)} "
        f"&& rm -rf {SEED_FOLDER}"
    )
    result = await session.run_command(command, timeout=60)
    if result.returncode != 0:
        raise TaskError(f"ssconvert could not make {path}: {result.stderr.strip()}")


async def open_workbook(task: Task, session: Session) -> None:
    """Setup of a task on an existing workbook: ``metadata["rows"]`` saved at ``metadata["path"]``,
    open in Gnumeric, and every file under home remembered for ``scored``."""
    meta = task.metadata
    await make_workbook(session, meta["path"], meta["rows"])
    await start(session, "gnumeric", meta["path"], title=file_title(meta["path"], "Gnumeric"))
    task.scratch["before"] = await snapshot_files(session)


# --- reading the saved workbook -------------------------------------------------------------------


async def read_workbook(session: Session, path: str) -> Workbook | None:
    """The workbook saved at ``path``, formulas' results included; None when there is no file or it
    is not a Gnumeric workbook."""
    try:
        book = parse(await session.read_bytes(path))
    except (OSError, CuaError):
        return None
    if book is None or not any(v.kind == "formula" for s in book.sheets.values() for v in s.cells.values()):
        return book
    return book.with_results(await _results(session, path, book))


async def _results(session: Session, path: str, book: Workbook) -> dict[str, dict[tuple[int, int], str]]:
    """What each formula computes, as Gnumeric itself computes it: ssconvert recalculates the file
    and writes each sheet's raw values (no display format) as CSV, one file per sheet. A file our
    parser read that ssconvert cannot is the platform's failure, not the agent's: it raises (an
    error, never a silent 0), after a second try for a machine too loaded to answer in time."""
    command = (
        "out=$(mktemp -d) && ssconvert --recalc -S -I Gnumeric_XmlIO:sax -T Gnumeric_stf:stf_assistant "
        f'-O "separator=, format=raw" {shell(path)} "$out/%n.csv" >/dev/null 2>"$out/err"; status=$?; '
        f'for n in $(seq 0 {len(book.sheets) - 1}); do cat "$out/$n.csv" 2>/dev/null; printf "\\0"; done; '
        'cat "$out/err" >&2; rm -rf "$out"; exit $status'
    )
    for _ in range(2):
        result = await session.run_command(command, timeout=60)
        if result.returncode == 0:
            texts = result.stdout.split("\0")
            return {name: _placed(sheet, text) for (name, sheet), text in zip(book.sheets.items(), texts, strict=False)}
    raise TaskError(
        f"ssconvert could not compute the formulas of {path} (exit code {result.returncode}"
        f"{', killed after 60 s' if result.returncode == 124 else ''}): {result.stderr.strip()[-500:]}"
    )


def _placed(sheet: Sheet, text: str) -> dict[tuple[int, int], str]:
    """A sheet's CSV values by cell. The CSV starts at the sheet's first used row and column, which
    the file's cells give."""
    if not sheet.cells:
        return {}
    top = min(row for row, _ in sheet.cells)
    left = min(col for _, col in sheet.cells)
    rows = list(csv.reader(io.StringIO(text)))
    return {(top + r, left + c): value for r, row in enumerate(rows) for c, value in enumerate(row)}


# --- judging it ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Formula:
    """An expected formula cell: ``accepts`` its text (what it is over) and it computes ``result``."""

    accepts: Callable[[str], bool]
    result: float


Want = Cell | Formula
"""One expected cell: text, a number (stored as a number), a formula, or "" for an empty cell."""


def _close(text: str | None, number: float) -> bool:
    try:
        return text is not None and math.isclose(float(text), number, rel_tol=1e-9, abs_tol=1e-9)
    except ValueError:
        return False


def _same(value: Value, want: Want) -> bool:
    if isinstance(want, Formula):
        return value.kind == "formula" and want.accepts(value.text) and _close(value.result, want.result)
    if isinstance(want, int | float):
        return value.kind == "number" and _close(value.text, want)
    return value.kind == "text" and value.text == want


def _described(value: Value | Want) -> str:
    """A cell as ``workbook_differences`` names it: what is there, or what was wanted."""
    if isinstance(value, Value):
        return f"the {value.kind} {value.text!r}" + (f" = {value.result}" if value.kind == "formula" else "")
    if isinstance(value, Formula):
        return f"a formula giving {value.result:g}"
    return f"the number {value:g}" if isinstance(value, int | float) else f"the text {value!r}"


def workbook_differences(book: Workbook | None, sheets: dict[str, list[list[Want]]]) -> list[str]:
    """How the workbook falls short of exactly ``sheets`` (names and order: an extra, renamed or
    missing sheet is a change), each holding exactly its rows from A1, every cell of the kind asked,
    and nothing else (no other cell, no comment or drawing); [] when it holds them."""
    if book is None:
        return ["no Gnumeric workbook there"]
    if list(book.sheets) != list(sheets):
        return [f"sheets {list(book.sheets)}, not {list(sheets)}"]
    found = []
    for name, rows in sheets.items():
        sheet = book.sheets[name]
        want = {(r, c): value for r, row in enumerate(rows) for c, value in enumerate(row) if value != ""}
        if sheet.objects:
            found.append(f"{name} has objects (comments or drawings)")
        for place in sorted(set(sheet.cells) ^ set(want)):
            found.append(f"{name}!{cell_name(*place)} is {'not expected' if place in sheet.cells else 'empty'}")
        for place in sorted(set(sheet.cells) & set(want)):
            value, wanted = sheet.cells[place], want[place]
            if not _same(value, wanted):
                found.append(f"{name}!{cell_name(*place)} holds {_described(value)}, not {_described(wanted)}")
    return found


async def others_unchanged(task: Task, session: Session, expect: list[str]) -> bool:
    """No file under home changed besides ``expect`` since setup's ``task.scratch["before"]``."""
    return nothing_else_changed(task, task.scratch["before"], await snapshot_files(session), expect=expect)


async def scored(task: Task, session: Session, rows: list[list[Want]]) -> list[float]:
    """The evaluation of a task that saves a workbook at ``metadata["path"]``: its one sheet holds
    exactly ``rows`` (``workbook_differences``), and no other file under home changed since setup."""
    path = task.metadata["path"]
    differences = workbook_differences(await read_workbook(session, path), {SHEET: rows})
    for difference in differences:
        task.explain(f"{path}: {difference}")
    return [1.0 if not differences and await others_unchanged(task, session, [path]) else 0.0]


NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def same_value(actual: str | None, expected: Cell) -> bool:
    """A CSV field against the expected value: numbers within rounding, text exactly (CSV has no types)."""
    if actual is None:
        return False
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        if not NUMBER.match(actual.strip()):
            return False
        return math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=1e-9)
    return actual == expected


def matches(rows: list[list[str]] | None, expected: list[list[Cell]]) -> bool:
    """CSV rows (``csv_rows``) are exactly ``expected``: no blank line or empty field more (a
    missing final newline reads the same, and is the one slack)."""
    return (
        rows is not None
        and len(rows) == len(expected)
        and all(
            len(row) == len(want) and all(same_value(got, value) for got, value in zip(row, want, strict=True))
            for row, want in zip(rows, expected, strict=True)
        )
    )


# --- what a formula is over -----------------------------------------------------------------

REF = re.compile(r"^\$?([A-Z]{1,3})\$?([1-9][0-9]*)$")
CALL = re.compile(r"^=([A-Z][A-Z0-9.]*)\((.*)\)$")


def _column(letters: str) -> int:
    col = 0
    for letter in letters:
        col = col * 26 + ord(letter) - ord("A") + 1
    return col - 1


def cells(reference: str) -> set[str] | None:
    """``B2:C3`` (``$`` allowed) -> ``{"B2", "B3", "C2", "C3"}``; None when it is not a cell or a range."""
    ends = [REF.match(part) for part in reference.upper().split(":")]
    if not 1 <= len(ends) <= 2 or not all(ends):
        return None
    (c1, r1), (c2, r2) = ((_column(m[1]), int(m[2]) - 1) for m in (ends[0], ends[-1]) if m)
    if (r2 - r1 + 1) * (c2 - c1 + 1) > 10_000:
        return None
    return {cell_name(r, c) for r in range(min(r1, r2), max(r1, r2) + 1) for c in range(min(c1, c2), max(c1, c2) + 1)}


def call(formula: str) -> tuple[str, list[str]] | None:
    """``=sum(B2:B4, B6)`` -> ``("SUM", ["B2:B4", "B6"])``: one function call with plain arguments, else None."""
    match = CALL.match(formula.upper().replace(" ", ""))
    if match is None or "(" in match[2] or ")" in match[2]:
        return None
    return match[1], match[2].split(",") if match[2] else []


def refers_to(formula: str, function: str, over: set[str]) -> bool:
    """The formula is ``function`` over exactly the cells ``over`` (any split into cells and ranges), and
    nothing else: no typed numbers, no cells beyond them, even empty ones that change no value."""
    found = call(formula)
    if found is None or found[0] != function.upper() or not found[1]:
        return False
    covered: set[str] = set()
    for argument in found[1]:
        part = cells(argument)
        if part is None:
            return False
        covered |= part
    return covered == over


def product_of(formula: str, over: set[str]) -> bool:
    """``=B2*C2`` (either order, ``$`` allowed) or ``=PRODUCT(...)`` over exactly the cells ``over``."""
    if refers_to(formula, "PRODUCT", over):
        return True
    factors = formula.upper().replace(" ", "").removeprefix("=").split("*")
    if not formula.lstrip().startswith("=") or len(factors) != len(over):
        return False
    covered: set[str] = set()
    for factor in factors:
        part = cells(factor)
        if part is None or len(part) != 1:
            return False
        covered |= part
    return covered == over


# --- the oracle's and wrong ways' moves ------------------------------------------------------------


async def goto(session: Session, row: int, col: int) -> None:
    """Select the cell at 0-based (row, col) from A1 with the arrow keys."""
    await act(session, key("ctrl+home"), *[key("down")] * row, *[key("right")] * col)


async def type_at(session: Session, row: int, col: int, text: str) -> None:
    """Go to the cell at ``row``, ``col`` and type ``text`` and Enter, unsaved (Gnumeric and Calc alike)."""
    await goto(session, row, col)
    await act(session, TypeText(text, press_enter=True))


EXPORT_DIALOG = "Export the current workbook or sheet to"


async def export_csv(session: Session, target: str, *, replace: bool = False) -> None:
    """Data > Export Data > Export as CSV File, saved as ``~/target`` (over a file there with ``replace``).

    A name whose extension is not ``.csv`` makes Gnumeric ask whether to keep it, and an existing
    file whether to save over it (dialogs with no title): a wrong way answers as a person who wants
    that name would, Yes (focused) and then OK (next to the focused Cancel).
    """
    # Data menu, up to its last item (Export Data), into the submenu, "Export as _CSV File...".
    await act(session, key("alt+d"))
    await act(session, key("up"))
    await act(session, key("right"))
    await act(session, key("c"))
    if target.endswith(".csv") and not replace:
        await submit_dialog(session, EXPORT_DIALOG, f"~/{target}")
        return
    await window(session, EXPORT_DIALOG)
    await act(session, key("ctrl+a"), TypeText(f"~/{target}"), key("delete"), Wait(0.3), key("enter"))
    if not target.endswith(".csv"):
        await window(session, "")
        await act(session, key("enter"), Wait(1.0))
    if replace:
        await window(session, "")
        await act(session, key("tab"), key("enter"))
    await no_window(session, EXPORT_DIALOG)
