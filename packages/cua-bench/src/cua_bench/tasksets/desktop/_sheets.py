"""The gnumeric tasks' plumbing: workbooks made with ssconvert, and cells read back from the saved file.

Values come from ``ssconvert`` (Gnumeric's own engine recalculates every formula, exactly as the app
shows it); formulas come from the workbook's XML, so an evaluator can tell ``=SUM(B2:B6)`` from a
typed-in total.
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
from cua_bench.tasksets.desktop._common import act, key, shell, write_files

__all__ = [
    "ITEMS",
    "Cell",
    "cell_name",
    "formulas",
    "goto",
    "make_workbook",
    "matches",
    "price",
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
    return list(csv.reader(io.StringIO(result.stdout)))


async def formulas(session: Session, path: str) -> dict[str, str]:
    """``{"B7": "=SUM(B2:B6)"}`` for every formula cell of the first sheet of a Gnumeric file.

    A formula shared by several cells is written once; the others carry only its ExprID and get the
    first cell's text (enough to know that they hold a formula).
    """
    try:
        data = await session.read_file(path)
    except OSError:
        return {}
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return {}
    sheet = next((node for node in root.iter() if node.tag.endswith("}Sheet")), None)
    if sheet is None:
        return {}
    shared: dict[str, str] = {}
    found: dict[str, str] = {}
    for cell in sheet.iter():
        if not cell.tag.endswith("}Cell"):
            continue
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
