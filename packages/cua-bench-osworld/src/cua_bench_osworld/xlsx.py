"""Just enough of an .xlsx reader for ``compare_table`` on the base install (no pandas, no openpyxl).

OSWorld compares sheets with ``pd.read_excel(...).round(p).equals(...)``; pandas reads through
openpyxl in read-only, data-only mode. This module reproduces what that pipeline yields for
the values tables hold (numbers, text, booleans, dates, blanks, errors, cached formula results):
openpyxl's cell typing, pandas' padding and trimming of rows, its header row and column names,
its missing-value strings, its numeric and boolean inference per column, numpy's rounding and
``DataFrame.equals``. The differential tests hold it to pandas on the same files.
"""

from __future__ import annotations

import datetime as dt
import math
import posixpath
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

import numpy as np

__all__ = ["Frame", "Workbook", "read_workbook"]

_NS = {
    "m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "rel": "http://schemas.openxmlformats.org/package/2006/relationships",
}
_M = "{" + _NS["m"] + "}"
_R_ID = "{" + _NS["r"] + "}id"

# pandas' default missing-value strings (pandas._libs.parsers.STR_NA_VALUES).
NA_STRINGS = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)
_TRUE = frozenset({"True", "TRUE", "true"})
_FALSE = frozenset({"False", "FALSE", "false"})

# openpyxl's built-in number formats that are dates, times or durations (ids 14-22, 45-47).
_BUILTIN_FORMATS = {
    14: "mm-dd-yy",
    15: "d-mmm-yy",
    16: "d-mmm",
    17: "mmm-yy",
    18: "h:mm AM/PM",
    19: "h:mm:ss AM/PM",
    20: "h:mm",
    21: "h:mm:ss",
    22: "m/d/yy h:mm",
    45: "mm:ss",
    46: "[h]:mm:ss",
    47: "mmss.0",
}
# openpyxl.styles.numbers: quoted text and [...] sections other than [h], [mm], [ss] do not count.
_STRIP_FORMAT = re.compile(r'".*?"|\[(?!hh?\]|mm?\]|ss?\])[^\]]*\]')
_TIMEDELTA_FORMAT = re.compile(r"\[hh?\](:mm(:ss(\.0*)?)?)?|\[mm?\](:ss(\.0*)?)?|\[ss?\](\.0*)?", re.IGNORECASE)


@dataclass
class Workbook:
    sheet_names: list[str]
    sheets: dict[str, list[list[Any]]]  # rows as pandas' openpyxl reader builds them


def read_workbook(path: str) -> Workbook:
    """Raises on anything that is not a readable .xlsx (OSWorld scores those 0)."""
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        rels = _relationships(archive, "xl/_rels/workbook.xml.rels") if "xl/_rels/workbook.xml.rels" in names else {}
        shared = _shared_strings(archive) if "xl/sharedStrings.xml" in names else []
        styles = _styles(archive) if "xl/styles.xml" in names else []
        pr = workbook.find("m:workbookPr", _NS)
        date1904 = pr is not None and pr.get("date1904", "0").lower() in ("1", "true")
        epoch = dt.datetime(1904, 1, 1) if date1904 else dt.datetime(1899, 12, 30)
        sheet_names: list[str] = []
        sheets: dict[str, list[list[Any]]] = {}
        for sheet in workbook.iterfind("m:sheets/m:sheet", _NS):
            name = sheet.get("name", "")
            kind, target = rels.get(sheet.get(_R_ID, ""), ("", ""))
            if not kind.endswith("/worksheet"):
                continue  # chartsheets are not in pandas' sheet_names
            sheet_names.append(name)
            if target in names:
                sheets[name] = _rows(ElementTree.fromstring(archive.read(target)), shared, styles, epoch)
        return Workbook(sheet_names, sheets)


def _relationships(archive: zipfile.ZipFile, path: str) -> dict[str, tuple[str, str]]:
    base = posixpath.dirname(posixpath.dirname(path))
    out = {}
    for rel in ElementTree.fromstring(archive.read(path)).iterfind("rel:Relationship", _NS):
        target = rel.get("Target", "")
        full = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(base, target))
        out[rel.get("Id", "")] = (rel.get("Type", ""), full)
    return out


def _text(node: ElementTree.Element) -> str:
    """A string item: its own <t>, or its runs' <t>s; phonetic runs (<rPh>) are not text."""
    own = node.find("m:t", _NS)
    if own is not None:
        return own.text or ""
    return "".join(t.text or "" for t in node.iterfind("m:r/m:t", _NS))


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    root = ElementTree.fromstring(archive.read("xl/sharedStrings.xml"))
    return [_text(si) for si in root.iterfind("m:si", _NS)]


def _date_kind(code: str | None) -> str | None:
    """'timedelta', 'date' or None for a number format, as openpyxl's is_date_format and
    is_timedelta_format decide."""
    if code is None:
        return None
    first = code.split(";", maxsplit=1)[0]
    if _TIMEDELTA_FORMAT.search(first):
        return "timedelta"
    if re.search(r"(?<![_\\])[dmhysDMHYS]", _STRIP_FORMAT.sub("", first)):
        return "date"
    return None


def _styles(archive: zipfile.ZipFile) -> list[str | None]:
    """Per cell style index: 'date', 'timedelta' or None."""
    root = ElementTree.fromstring(archive.read("xl/styles.xml"))
    custom = {int(f.get("numFmtId", "0")): f.get("formatCode", "") for f in root.iterfind("m:numFmts/m:numFmt", _NS)}
    kinds: list[str | None] = []
    for xf in root.iterfind("m:cellXfs/m:xf", _NS):
        fmt = int(xf.get("numFmtId", "0"))
        kinds.append(_date_kind(custom[fmt] if fmt in custom else _BUILTIN_FORMATS.get(fmt)))
    return kinds


def _column(ref: str) -> int:
    n = 0
    for ch in ref:
        if not ch.isalpha():
            break
        n = n * 26 + ord(ch.upper()) - 64
    return n


def _number(text: str) -> int | float:
    # openpyxl: a float when the text has '.', 'E' or 'e'; pandas then makes integral floats ints.
    value = float(text) if any(c in text for c in ".Ee") else int(text)
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    return value


def _from_excel(value: float, kind: str, epoch: dt.datetime) -> Any:
    """openpyxl's ``from_excel``: durations, times of day (values in [0, 1)) and datetimes."""
    if kind == "timedelta":
        delta = dt.timedelta(days=value)
        if delta.microseconds:
            delta = dt.timedelta(seconds=delta.total_seconds() // 1, microseconds=round(delta.microseconds, -3))
        return delta
    day, fraction = divmod(value, 1)
    diff = dt.timedelta(milliseconds=round(fraction * 86400 * 1000))
    if 0 <= value < 1 and diff.days == 0:
        return (dt.datetime.min + diff).time()
    if 0 < value < 60 and epoch.year == 1899:
        day += 1  # Excel's phantom 1900-02-29
    return epoch + dt.timedelta(days=day) + diff


def _cell(c: ElementTree.Element, shared: Sequence[str], styles: Sequence[str | None], epoch: dt.datetime) -> Any:
    kind = c.get("t", "n")
    if kind == "inlineStr":
        inline = c.find("m:is", _NS)
        return _text(inline) if inline is not None else None
    v = c.find("m:v", _NS)
    if v is None or v.text is None:
        return None
    text = v.text
    if kind == "s":
        return shared[int(text)]
    if kind in ("str", "inlineStr"):
        return text
    if kind == "b":
        return bool(int(text))
    if kind == "e":
        return math.nan  # an error cell (#DIV/0! ...): pandas reads NaN
    if kind == "d":
        return dt.datetime.fromisoformat(text.rstrip("Z"))
    number = _number(text)
    style = int(c.get("s", "0"))
    date_kind = styles[style] if style < len(styles) else None
    if date_kind is not None:
        return _from_excel(float(number), date_kind, epoch)
    return number


def _rows(
    sheet: ElementTree.Element, shared: Sequence[str], styles: Sequence[str | None], epoch: dt.datetime
) -> list[list[Any]]:
    """Rows as pandas' openpyxl reader returns them: '' for blanks, trailing blanks trimmed, padded."""
    data: list[list[Any]] = []
    expected_row = 1
    for row in sheet.iterfind("m:sheetData/m:row", _NS):
        index = int(row.get("r", expected_row))
        while expected_row < index:  # rows missing from the file
            data.append([])
            expected_row += 1
        expected_row = index + 1
        cells: dict[int, Any] = {}
        next_column = 1
        for c in row.iterfind("m:c", _NS):
            ref = c.get("r")
            column = _column(ref) if ref else next_column
            next_column = column + 1
            cells[column] = _cell(c, shared, styles, epoch)
        width = max(cells, default=0)
        values = ["" if cells.get(i) is None else cells[i] for i in range(1, width + 1)]
        while values and isinstance(values[-1], str) and values[-1] == "":
            values.pop()
        data.append(values)
    while data and not data[-1]:
        data.pop()
    if data:
        width = max(len(r) for r in data)
        data = [r + [""] * (width - len(r)) for r in data]
    return data


# -- the DataFrame pandas would build --------------------------------------------------------


@dataclass
class Frame:
    columns: list[Any]
    kinds: list[str]  # dtype per column: int64, float64, bool, object, datetime64, timedelta64
    data: list[list[Any]]  # per column

    def round(self, digits: int) -> Frame:
        data = [
            [float(np.round(v, digits)) if isinstance(v, float) else v for v in col]
            if kind in ("float64", "int64")
            else col
            for kind, col in zip(self.kinds, self.data, strict=True)
        ]
        return Frame(self.columns, self.kinds, data)

    def equals(self, other: Frame) -> bool:
        if len(self.columns) != len(other.columns):
            return False
        if any(not _same(a, b) for a, b in zip(self.columns, other.columns, strict=True)):
            return False
        if self.kinds != other.kinds:
            return False
        return all(
            len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
            for a, b in zip(self.data, other.data, strict=True)
        )


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _same(a: Any, b: Any) -> bool:
    if _is_nan(a) or _is_nan(b):
        return _is_nan(a) and _is_nan(b)
    try:
        return bool(a == b)
    except Exception:
        return False


def _header(values: Sequence[Any]) -> list[Any]:
    names: list[Any] = []
    counts: dict[Any, int] = {}
    for i, value in enumerate(values):
        name: Any = f"Unnamed: {i}" if isinstance(value, str) and value == "" else value
        if name in counts:
            counts[name] += 1
            mangled = f"{name}.{counts[name]}"
            while mangled in counts:
                counts[name] += 1
                mangled = f"{name}.{counts[name]}"
            counts[mangled] = 0
            name = mangled
        else:
            counts[name] = 0
        names.append(name)
    return names


_INT_TEXT = re.compile(r"\s*[-+]?\d+\s*")


def _as_number(value: Any) -> int | float | None:
    """What pandas' numeric conversion makes of one value; None if it cannot."""
    if isinstance(value, int | float):  # bools too: pandas counts them as numbers
        return value
    if isinstance(value, str):
        if value in NA_STRINGS:
            return math.nan
        if _INT_TEXT.fullmatch(value):
            return int(value)
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _as_bool(value: Any) -> bool | None:
    """pandas' boolean conversion of one value: bools and the strings True/False (three spellings)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return True if value in _TRUE else False if value in _FALSE else None
    return None


def _sanitize(values: list[Any]) -> list[Any]:
    """pandas' ``sanitize_objects``: missing-value strings become NaN, and equal values become the
    first one seen (so a 0 after a False is False, and a False after a 0 is 0)."""
    memo: dict[Any, Any] = {}
    out = []
    for value in values:
        if isinstance(value, str) and value in NA_STRINGS:
            out.append(math.nan)
        else:
            out.append(memo.setdefault(value, value))
    return out


def _infer(values: list[Any]) -> tuple[str, list[Any]]:
    """One column's dtype and values, as pandas' python parser infers them."""
    if not values:
        return "object", []
    numbers = [_as_number(v) for v in values]
    if all(n is not None for n in numbers):
        if all(isinstance(n, bool) for n in numbers):
            return "bool", numbers
        if all(isinstance(n, int) for n in numbers):
            return "int64", [int(n) for n in numbers if n is not None]
        return "float64", [float(n) for n in numbers if n is not None]
    cleaned = _sanitize(values)
    flags = [_as_bool(v) for v in cleaned]
    if all(f is not None for f in flags):
        return "bool", flags
    present = [v for v in cleaned if not _is_nan(v)]
    if present and all(isinstance(v, dt.datetime) for v in present):
        return "datetime64", cleaned
    if present and all(isinstance(v, dt.timedelta) for v in present):
        return "timedelta64", cleaned
    return "object", cleaned


def to_frame(rows: list[list[Any]]) -> Frame:
    """``pd.read_excel(book, sheet)`` with its defaults (header=0), for rows from ``read_workbook``."""
    if not rows:
        return Frame([], [], [])
    columns = _header(rows[0])
    body = rows[1:]
    kinds, data = [], []
    for i in range(len(columns)):
        kind, values = _infer([r[i] for r in body])
        kinds.append(kind)
        data.append(values)
    return Frame(columns, kinds, data)
