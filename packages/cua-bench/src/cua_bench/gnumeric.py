"""Gnumeric's file format, read and rewritten without the app: typed cells on every sheet, and the
mutations the platform's adversary applies to a saved workbook.

A ``.gnumeric`` file is XML in Gnumeric's namespace, gzip'd unless the user picked "Gnumeric XML
uncompressed". Its format is what parses, never its name: a CSV saved under ``book.gnumeric`` is
not a workbook, and ``parse`` says so. Each cell keeps its type, because a number typed as text
(``'75``) shows the same digits and exports the same CSV, but is not the number the task asked for.
Formulas keep their text; what they compute is Gnumeric's to say (the desktop taskset's ``read_workbook`` asks
ssconvert), as no Python reimplementation of its functions would agree with it everywhere.

Pure functions of bytes: no session, no app. The mutations' outputs are files Gnumeric loads (the
tests load each with ssconvert), so each is a state an agent could really leave.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from typing import Literal

__all__ = [
    "NS",
    "Sheet",
    "Value",
    "Workbook",
    "as_csv",
    "csv_rows",
    "number_text",
    "numbers_as_text",
    "parse",
    "with_extra_sheet",
]

NS = "http://www.gnumeric.org/v10.dtd"
G = f"{{{NS}}}"
ET.register_namespace("gnm", NS)  # rewritten files keep Gnumeric's own prefix (it reads by URI either way)

Kind = Literal["number", "text", "bool", "error", "formula", "other"]
# Gnumeric's GnmValueType numbers, the ValueType attribute of a constant cell (30 is the integer
# type of old files). A cell holding a formula has no ValueType: its value is never saved.
KINDS: dict[str, Kind] = {"20": "bool", "30": "number", "40": "number", "50": "error", "60": "text"}
EMPTY = "10"
NUMBER = "40"
TEXT = "60"


@dataclass(frozen=True)
class Value:
    """One cell as saved: its kind, its text in the file (the number's digits, the string, TRUE or
    FALSE, the error, or the formula as it reads at this cell), and for a formula the value Gnumeric
    computes (None until the desktop taskset's ``read_workbook`` asks it)."""

    kind: Kind
    text: str
    result: str | None = None


@dataclass(frozen=True)
class Sheet:
    """A sheet's cells by 0-based (row, col), and the kinds of drawn objects on it (comments,
    charts, text boxes): content too, so an evaluator that expects none sees one."""

    cells: dict[tuple[int, int], Value]
    objects: tuple[str, ...] = ()


@dataclass(frozen=True)
class Workbook:
    """Every sheet by name, in the workbook's order."""

    sheets: dict[str, Sheet] = field(default_factory=dict)

    def with_results(self, results: dict[str, dict[tuple[int, int], str]]) -> Workbook:
        """The same workbook with each formula's computed value filled in from ``results``."""
        return Workbook(
            {
                name: replace(
                    sheet,
                    cells={
                        place: replace(value, result=results.get(name, {}).get(place, ""))
                        if value.kind == "formula"
                        else value
                        for place, value in sheet.cells.items()
                    },
                )
                for name, sheet in self.sheets.items()
            }
        )


# --- reading -----------------------------------------------------------------------------------


def _root(data: bytes) -> tuple[ET.Element, bool] | None:
    """The workbook's XML root and whether the file was gzip'd; None when it is not Gnumeric's XML."""
    packed = data[:2] == b"\x1f\x8b"
    if packed:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError):
            return None
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return None
    return (root, packed) if root.tag == f"{G}Workbook" else None


def parse(data: bytes) -> Workbook | None:
    """Every sheet's typed cells in a Gnumeric file's bytes; None when they are not a Gnumeric
    workbook (a CSV, another format, a broken file), whatever the file is called."""
    found = _root(data)
    if found is None:
        return None
    sheets: dict[str, Sheet] = {}
    shared: dict[str, tuple[tuple[int, int], str]] = {}  # ExprID -> where its text was written, the text
    for node in found[0].iterfind(f"{G}Sheets/{G}Sheet"):
        name = node.findtext(f"{G}Name") or ""
        if name in sheets:
            return None  # Gnumeric never writes two sheets of one name
        cells = _cells(node, shared)
        if cells is None:
            return None
        objects = tuple(child.tag.rpartition("}")[2] for child in node.iterfind(f"{G}Objects/*"))
        sheets[name] = Sheet(cells, objects)
    return Workbook(sheets)


def _cells(sheet: ET.Element, shared: dict[str, tuple[tuple[int, int], str]]) -> dict[tuple[int, int], Value] | None:
    """A sheet's non-empty cells; None when one is malformed (no place, two at one place, a shared
    formula never written). ``shared`` holds the workbook's shared formulas seen so far."""
    cells: dict[tuple[int, int], Value] = {}
    for cell in sheet.iterfind(f"{G}Cells/{G}Cell"):
        try:
            place = (int(cell.get("Row", "")), int(cell.get("Col", "")))
        except ValueError:
            return None
        if place in cells:
            return None
        text = cell.text or ""
        kind = cell.get("ValueType")
        expr = cell.get("ExprID")
        if expr is not None:
            # A formula several cells share is written once, at the first of them, and its
            # references are relative: at another cell it reads shifted by the distance.
            if text:
                shared[expr] = (place, text)
            elif expr in shared:
                (row, col), first = shared[expr]
                text = shift(first, place[0] - row, place[1] - col)
            else:
                return None
            cells[place] = Value("formula", text)
        elif kind is None and text.startswith("="):
            cells[place] = Value("formula", text)
        elif kind == EMPTY:
            continue
        else:
            cells[place] = _constant(kind, text)
    return cells


def _constant(kind: str | None, text: str) -> Value:
    found = KINDS.get(kind or "", "other")
    if found == "number" and _number(text) is None:
        found = "other"
    return Value(found, text)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# An A1 reference outside quotes: not part of a name (LOG10, a sheet or function name), not a call.
REFERENCE = re.compile(r"(?<![A-Za-z0-9_.$])(\$?)([A-Za-z]{1,3})(\$?)([1-9][0-9]*)(?![A-Za-z0-9_(])")


def shift(formula: str, rows: int, cols: int) -> str:
    """``formula`` moved by ``rows`` and ``cols``: its relative references (no ``$``) follow."""

    def moved(match: re.Match[str]) -> str:
        col_fixed, letters, row_fixed, number = match.groups()
        col = _column(letters) + (0 if col_fixed else cols)
        row = int(number) + (0 if row_fixed else rows)
        return f"{col_fixed}{_letters(col)}{row_fixed}{row}"

    parts = formula.split('"')  # even parts are outside string literals
    return '"'.join(REFERENCE.sub(moved, part) if index % 2 == 0 else part for index, part in enumerate(parts))


def _column(letters: str) -> int:
    col = 0
    for letter in letters.upper():
        col = col * 26 + ord(letter) - ord("A") + 1
    return col - 1


def _letters(col: int) -> str:
    letters = ""
    col += 1
    while col > 0:
        col, rest = divmod(col - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def csv_rows(data: bytes | None) -> list[list[str]] | None:
    """The rows of a CSV file; None when the bytes are not text (a gzip'd workbook renamed ``.csv``)."""
    if data is None or b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return list(csv.reader(io.StringIO(text)))


def number_text(value: float) -> str:
    """A number as a person types it: ``59``, ``2.25``."""
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


# --- the adversary's mutations: a saved workbook made wrong in ways that look right ---------------


def _dump(root: ET.Element, packed: bool) -> bytes:
    xml = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    return gzip.compress(xml, mtime=0) if packed else xml


def _workbook_root(data: bytes) -> tuple[ET.Element, bool]:
    found = _root(data)
    if found is None:
        raise ValueError("not a Gnumeric workbook")
    return found


def numbers_as_text(data: bytes) -> bytes | None:
    """The same workbook with every number that is not a formula stored as text, as ``'75`` typed
    into each cell would leave it: the same digits on screen and in a CSV export. None when the
    workbook holds no such number. Raises ValueError for bytes that are not a workbook."""
    root, packed = _workbook_root(data)
    changed = False
    for cell in root.iterfind(f"{G}Sheets/{G}Sheet/{G}Cells/{G}Cell"):
        value = _number(cell.text or "")
        if KINDS.get(cell.get("ValueType", "")) == "number" and cell.get("ExprID") is None and value is not None:
            cell.set("ValueType", TEXT)
            cell.text = number_text(value)
            changed = True
    return _dump(root, packed) if changed else None


def with_extra_sheet(data: bytes) -> bytes:
    """The workbook plus a sheet at the end holding some junk, as Edit > Sheet > Append and typing
    would leave it. Raises ValueError for bytes that are not a workbook."""
    root, packed = _workbook_root(data)
    sheets = root.find(f"{G}Sheets")
    if sheets is None:
        sheets = ET.SubElement(root, f"{G}Sheets")
    taken = {node.findtext(f"{G}Name") for node in sheets.iterfind(f"{G}Sheet")}
    name = next(f"Sheet{n}" for n in range(1, len(taken) + 2) if f"Sheet{n}" not in taken)
    index = root.find(f"{G}SheetNameIndex")
    if index is not None:  # Gnumeric makes the sheets it lists here first; keep it complete
        ET.SubElement(index, f"{G}SheetName").text = name
    sheet = ET.SubElement(sheets, f"{G}Sheet")
    ET.SubElement(sheet, f"{G}Name").text = name
    ET.SubElement(sheet, f"{G}MaxCol").text = "1"
    ET.SubElement(sheet, f"{G}MaxRow").text = "0"
    cells = ET.SubElement(sheet, f"{G}Cells")
    for col, (kind, text) in enumerate([(TEXT, "junk"), (NUMBER, "123")]):
        ET.SubElement(cells, f"{G}Cell", {"Row": "0", "Col": str(col), "ValueType": kind}).text = text
    return _dump(root, packed)


def as_csv(data: bytes) -> bytes:
    """The first sheet as CSV text, from A1, as Data > Export as CSV would write it: the right
    content in the wrong format. A formula is written as its text, which Gnumeric's CSV import
    reads back as that formula (the values it computes are not in the file to copy). Raises
    ValueError for bytes that are not a workbook."""
    book = parse(data)
    if book is None:
        raise ValueError("not a Gnumeric workbook")
    cells = next(iter(book.sheets.values()), Sheet({})).cells
    rows = max((row for row, _ in cells), default=-1) + 1
    cols = max((col for _, col in cells), default=-1) + 1
    grid = [[_shown(cells.get((row, col))) for col in range(cols)] for row in range(rows)]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(grid)
    return out.getvalue().encode()


def _shown(value: Value | None) -> str:
    if value is None:
        return ""
    number = _number(value.text) if value.kind == "number" else None
    return value.text if number is None else number_text(number)
