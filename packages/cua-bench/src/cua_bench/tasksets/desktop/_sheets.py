"""The gnumeric tasks' plumbing: workbooks made with ssconvert, and cells read back from the saved file.

Values come from ``ssconvert`` (Gnumeric's own engine recalculates every formula, exactly as the app
shows it); formulas come from the workbook's XML, so an evaluator can tell ``=SUM(B2:B6)`` from a
typed-in total, and ``refers_to`` / ``product_of`` read which cells a formula is over: a value is
not enough, since ``=SUM(31.5)`` or ``=MAX(B2:B40)`` gives the same number as the asked-for formula.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import random
import re
import xml.etree.ElementTree as ET

from cua_bench.session import Session
from cua_bench.tasks import TaskError
from cua_bench.tasksets.desktop._common import act, file_changes, key, shell, snapshot_files, write_files
from cua_core.errors import CuaError

__all__ = [
    "ITEMS",
    "Cell",
    "call",
    "cell_name",
    "cells",
    "formulas",
    "goto",
    "make_workbook",
    "matches",
    "others_unchanged",
    "price",
    "product_of",
    "refers_to",
    "same_value",
    "sheet_rows",
    "to_csv",
]

Cell = str | int | float
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


async def make_workbook(session: Session, path: str, rows: list[list[Cell]], sheet: str = "Sheet1") -> None:
    """A workbook at ``path`` (its format from the extension: .gnumeric, .xlsx, .csv) holding ``rows``."""
    seed = f"{SEED_FOLDER}/{sheet}.csv"  # the sheet is named after the file ssconvert imports
    await write_files(session, {seed: to_csv(rows)})
    folder = path.rsplit("/", 1)[0] if "/" in path else "."
    command = f"mkdir -p {shell(folder)} && ssconvert {shell(seed)} {shell(path)} && rm -rf {SEED_FOLDER}"
    result = await session.run_command(command, timeout=60)
    if result.returncode != 0:
        raise TaskError(f"ssconvert could not make {path}: {result.stderr.strip()}")


async def sheet_rows(session: Session, path: str) -> list[list[str]] | None:
    """The first sheet's values as text, formulas computed; None when the file is missing or unreadable."""
    out = "$TMPDIR/cua-sheet-values.csv"
    command = (
        f'ssconvert -T Gnumeric_stf:stf_csv {shell(path)} "{out}" >/dev/null 2>&1 && cat "{out}"; '
        f'status=$?; rm -f "{out}"; exit $status'
    )
    result = await session.run_command(command, timeout=60)
    if result.returncode != 0:
        return None
    rows = list(csv.reader(io.StringIO(result.stdout)))
    # The CSV starts at the first used row and column: a table typed one row too low would read
    # the same as one typed from A1. The workbook's XML has the cells' places; put the blanks back.
    places = [(int(cell.get("Row", "0")), int(cell.get("Col", "0"))) for cell in await _cells(session, path)]
    if places:
        top, left = min(row for row, _ in places), min(col for _, col in places)
        rows = [[] for _ in range(top)] + [[""] * left + row for row in rows]
    return rows


async def _cells(session: Session, path: str) -> list[ET.Element]:
    """The first sheet's cells in a Gnumeric file's XML (empty for other formats or a broken file)."""
    try:
        data = await session.read_bytes(path)
    except (OSError, CuaError):
        return []
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            return []
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return []
    sheet = next((node for node in root.iter() if node.tag.endswith("}Sheet")), None)
    return [] if sheet is None else [node for node in sheet.iter() if node.tag.endswith("}Cell")]


async def formulas(session: Session, path: str) -> dict[str, str]:
    """``{"B7": "=SUM(B2:B6)"}`` for every formula cell of the first sheet of a Gnumeric file.

    A formula shared by several cells is written once; the others carry only its ExprID and get the
    first cell's text (enough to know that they hold a formula).
    """
    shared: dict[str, str] = {}
    found: dict[str, str] = {}
    for cell in await _cells(session, path):
        text = (cell.text or "").strip()
        expr = cell.get("ExprID")
        if expr is not None:
            text = shared.setdefault(expr, text) if text else shared.get(expr, "=")
        if text.startswith("="):
            found[cell_name(int(cell.get("Row", "0")), int(cell.get("Col", "0")))] = text
    return found


NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def same_value(actual: str | None, expected: Cell) -> bool:
    """A cell's text against the expected value: numbers within rounding, text exactly."""
    if actual is None:
        return False
    if isinstance(expected, int | float) and not isinstance(expected, bool):
        if not NUMBER.match(actual.strip()):
            return False
        return math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=1e-9)
    return actual == expected


def matches(rows: list[list[str]] | None, expected: list[list[Cell]]) -> bool:
    """The sheet holds exactly ``expected`` (trailing empty cells and rows ignored)."""
    if rows is None:
        return False
    trimmed = [row[: max((i + 1 for i, v in enumerate(row) if v != ""), default=0)] for row in rows]
    while trimmed and not trimmed[-1]:
        trimmed.pop()
    if len(trimmed) != len(expected):
        return False
    return all(
        len(row) == len(want) and all(same_value(got, value) for got, value in zip(row, want, strict=True))
        for row, want in zip(trimmed, expected, strict=True)
    )


async def goto(session: Session, row: int, col: int) -> None:
    """Oracle move: select the cell at 0-based (row, col) from A1 with the arrow keys."""
    await act(session, key("ctrl+home"), *[key("down")] * row, *[key("right")] * col)


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


async def others_unchanged(session: Session, before: dict[str, str], expect: list[str]) -> bool:
    """No file under home changed besides ``expect`` since ``before`` (a ``snapshot``)."""
    return not file_changes(before, await snapshot_files(session), expect=expect)
