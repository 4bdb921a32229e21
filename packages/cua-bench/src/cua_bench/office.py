"""Spreadsheets in OpenDocument (``.ods``, LibreOffice Calc's own) and Office Open XML (``.xlsx``)
formats, read as typed cells with maintained libraries (odfpy, openpyxl), and the adversary's
mutations of them.

The model is ``cua_bench.gnumeric``'s (``Workbook`` of ``Sheet`` of ``Value``), so the evaluators that
judge a Gnumeric workbook judge these the same way. The format is what parses, never the name: a CSV or
an ``.ods`` saved under ``book.xlsx`` is not an ``.xlsx`` workbook, and ``parse_as`` says so. Both
formats keep each formula's last computed value beside its text (LibreOffice writes it on save), so a
formula's ``result`` is the app's own figure, read without recomputing it.

Formulas are given in one notation whatever the format: ``=SUM(B2:B4,B6)`` (ODF's ``of:=SUM([.B2:.B4];[.B6])``
is rewritten; a reference to another sheet keeps its sheet, ``Sheet2!A1``), so ``refers_to`` reads both.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from typing import Any, Literal

from cua_bench.gnumeric import Sheet, Value, Workbook, number_text

__all__ = [
    "DocumentFormat",
    "Format",
    "as_csv",
    "document_format",
    "format_of",
    "numbers_as_text",
    "parse",
    "parse_as",
    "with_extra_sheet",
]

Format = Literal["ods", "xlsx"]
DocumentFormat = Literal["ods", "xlsx", "odt", "docx", "odp", "pptx"]
_MAX_REPEAT = 10_000  # a non-empty cell or row repeated more than this is junk, not a table to expand


# ODF by the ``mimetype`` entry its zip holds first; OOXML by its main part.
_ODF_MIMES: dict[bytes, DocumentFormat] = {
    b"application/vnd.oasis.opendocument.spreadsheet": "ods",
    b"application/vnd.oasis.opendocument.text": "odt",
    b"application/vnd.oasis.opendocument.presentation": "odp",
}
_OOXML_PARTS: dict[str, DocumentFormat] = {
    "xl/workbook.xml": "xlsx",
    "word/document.xml": "docx",
    "ppt/presentation.xml": "pptx",
}


def document_format(data: bytes) -> DocumentFormat | None:
    """An office file's format by content: ``ods``, ``odt``, ``odp`` (the zip's ``mimetype``), ``xlsx``,
    ``docx``, ``pptx`` (its main part); None for anything else, whatever the file is called."""
    if data[:2] != b"PK":
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "mimetype" in names:
                found = _ODF_MIMES.get(archive.read("mimetype").strip())
                if found is not None:
                    return found
            return next((kind for part, kind in _OOXML_PARTS.items() if part in names), None)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError):
        return None


def format_of(data: bytes) -> Format | None:
    """``ods`` or ``xlsx`` by content (``document_format``, spreadsheets only)."""
    kind = document_format(data)
    if kind == "ods":
        return "ods"
    return "xlsx" if kind == "xlsx" else None


def parse(data: bytes) -> Workbook | None:
    """Every sheet's typed cells, for an ``.ods`` or ``.xlsx`` workbook by content; None for anything else."""
    kind = format_of(data)
    if kind is None:
        return None
    try:
        return _parse_ods(data) if kind == "ods" else _parse_xlsx(data)
    except Exception:
        return None


def parse_as(data: bytes, wanted: Format) -> Workbook | None:
    """``parse``, but only a workbook of the ``wanted`` format: an ``.ods`` under ``.xlsx`` is None."""
    return parse(data) if format_of(data) == wanted else None


# --- OpenDocument -----------------------------------------------------------------------------

_ODF_REF = re.compile(r"\[\$?'?([^.\]']*)'?\.\$?([A-Z]+)\$?(\d+)(?::\$?'?([^.\]']*)'?\.\$?([A-Z]+)\$?(\d+))?\]")


def odf_formula(text: str) -> str:
    """ODF's ``of:=SUM([.B2:.B4];[.B6])`` as ``=SUM(B2:B4,B6)``; another sheet's cells keep it (``Sheet2!A1``)."""
    body = re.sub(r"^[a-z]+:", "", text)

    def ref(match: re.Match[str]) -> str:
        sheet, col, row, _sheet2, col2, row2 = match.groups()
        start = f"{sheet}!{col}{row}" if sheet else f"{col}{row}"
        return f"{start}:{col2}{row2}" if col2 else start

    return _ODF_REF.sub(ref, body).replace(";", ",")


def _ods_text(cell: Any) -> str:
    from odf import teletype
    from odf.text import P

    return "\n".join(teletype.extractText(p) for p in cell.getElementsByType(P))


def _ods_value(cell: Any) -> Value | None:
    from odf.namespaces import OFFICENS, TABLENS

    attrs = cell.attributes
    kind = attrs.get((OFFICENS, "value-type"))
    formula = attrs.get((TABLENS, "formula"))
    text = _ods_text(cell)
    if kind in ("float", "percentage", "currency"):
        shown = attrs.get((OFFICENS, "value"), text)
    elif kind == "boolean":
        shown = "TRUE" if attrs.get((OFFICENS, "boolean-value")) == "true" else "FALSE"
    elif kind in ("date", "time"):
        shown = attrs.get((OFFICENS, f"{kind}-value"), text)
    else:
        shown = text
    if formula:
        return Value("formula", odf_formula(formula), shown)
    if kind is None:
        return None if not text else Value("text", text)
    names = {"float": "number", "percentage": "number", "currency": "number", "string": "text", "boolean": "bool"}
    return Value(names.get(kind, "other"), shown)  # type: ignore[arg-type]


def _parse_ods(data: bytes) -> Workbook:
    from odf.namespaces import TABLENS
    from odf.opendocument import load
    from odf.table import Table

    doc = load(io.BytesIO(data))
    sheets: dict[str, Sheet] = {}
    for table in doc.spreadsheet.getElementsByType(Table):
        name = table.getAttribute("name") or ""
        if name in sheets:
            raise ValueError("two sheets of one name")
        cells: dict[tuple[int, int], Value] = {}
        objects: list[str] = []
        row = 0
        for node in _rows(table):
            repeat = int(node.attributes.get((TABLENS, "number-rows-repeated"), "1"))
            placed = _ods_row(node, row, cells, objects)
            if placed and repeat > 1:
                if repeat > _MAX_REPEAT:
                    raise ValueError("a row repeated beyond any real table")
                for offset in range(1, repeat):
                    for (r, c), value in list(placed.items()):
                        cells[(r + offset, c)] = value
            row += repeat
        objects += [child.qname[1] for child in table.childNodes if child.qname[1] == "shapes"]
        sheets[name] = Sheet(cells, tuple(objects))
    return Workbook(sheets)


def _rows(table: Any) -> list[Any]:
    """A table's rows in order, through row groups and header rows."""
    found: list[Any] = []
    for child in table.childNodes:
        local = child.qname[1] if hasattr(child, "qname") else ""
        if local == "table-row":
            found.append(child)
        elif local in ("table-rows", "table-header-rows", "table-row-group"):
            found += _rows(child)
    return found


def _ods_row(node: Any, row: int, cells: dict[tuple[int, int], Value], objects: list[str]) -> dict[Any, Value]:
    from odf.namespaces import TABLENS

    placed: dict[tuple[int, int], Value] = {}
    col = 0
    for cell in node.childNodes:
        local = cell.qname[1] if hasattr(cell, "qname") else ""
        if local not in ("table-cell", "covered-table-cell"):
            continue
        repeat = int(cell.attributes.get((TABLENS, "number-columns-repeated"), "1"))
        value = _ods_value(cell)
        objects += [child.qname[1] for child in cell.childNodes if child.qname[1] in ("annotation", "frame")]
        if value is not None:
            if repeat > _MAX_REPEAT:
                raise ValueError("a cell repeated beyond any real table")
            for offset in range(repeat):
                placed[(row, col + offset)] = value
        col += repeat
    cells.update(placed)
    return placed


# --- Office Open XML ----------------------------------------------------------------------------


def _parse_xlsx(data: bytes) -> Workbook:
    import openpyxl

    formulas = openpyxl.load_workbook(io.BytesIO(data), data_only=False)
    values = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    sheets: dict[str, Sheet] = {}
    for sheet in formulas.worksheets:
        computed = values[sheet.title]
        cells: dict[tuple[int, int], Value] = {}
        objects: list[str] = []
        for row in sheet.iter_rows():
            for cell in row:
                if cell.value is None:
                    continue
                place = (cell.row - 1, cell.column - 1)
                cells[place] = _xlsx_value(cell, computed.cell(row=cell.row, column=cell.column).value)
                if cell.comment is not None:
                    objects.append("comment")
        objects += ["chart"] * len(getattr(sheet, "_charts", [])) + ["image"] * len(getattr(sheet, "_images", []))
        sheets[sheet.title] = Sheet(cells, tuple(objects))
    return Workbook(sheets)


def _xlsx_value(cell: Any, computed: Any) -> Value:
    kind = cell.data_type
    if kind == "f":
        text = cell.value if isinstance(cell.value, str) else str(getattr(cell.value, "text", cell.value))
        return Value("formula", text, None if computed is None else _shown(computed))
    if kind == "n":
        return Value("number", number_text(float(cell.value)))
    if kind == "b":
        return Value("bool", "TRUE" if cell.value else "FALSE")
    if kind in ("s", "inlineStr"):
        return Value("text", str(cell.value))
    if kind == "e":
        return Value("error", str(cell.value))
    return Value("other", str(cell.value))


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return number_text(float(value))
    return str(value)


# --- the adversary's mutations ----------------------------------------------------------------------


def _kind(data: bytes) -> Format:
    kind = format_of(data)
    if kind is None:
        raise ValueError("not an .ods or .xlsx workbook")
    return kind


def numbers_as_text(data: bytes) -> bytes | None:
    """The same workbook with every number that is not a formula stored as text (``'75`` typed into each
    cell): the same digits on screen and in a CSV export. None when it holds no such number."""
    if _kind(data) == "xlsx":
        import openpyxl

        book = openpyxl.load_workbook(io.BytesIO(data))
        changed = False
        for sheet in book.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    if cell.data_type == "n" and isinstance(cell.value, int | float):
                        cell.value = number_text(float(cell.value))
                        changed = True
        return _saved(book) if changed else None
    from odf import teletype
    from odf.namespaces import OFFICENS, TABLENS
    from odf.opendocument import load
    from odf.table import TableCell
    from odf.text import P

    doc = load(io.BytesIO(data))
    changed = False
    for cell in doc.spreadsheet.getElementsByType(TableCell):
        attrs = cell.attributes
        if attrs.get((OFFICENS, "value-type")) in ("float", "percentage", "currency") and not attrs.get(
            (TABLENS, "formula")
        ):
            digits = number_text(float(attrs[(OFFICENS, "value")]))
            for key in [key for key in attrs if key[1] in ("value", "value-type", "currency")]:
                del attrs[key]
            cell.setAttrNS(OFFICENS, "value-type", "string")
            for p in cell.getElementsByType(P):
                cell.removeChild(p)
            paragraph = P()
            teletype.addTextToElement(paragraph, digits)
            cell.addElement(paragraph)
            changed = True
    return _odf_saved(doc) if changed else None


def with_extra_sheet(data: bytes) -> bytes:
    """The workbook plus a sheet at the end holding some junk (Sheet > Insert Sheet at End, and typing)."""
    if _kind(data) == "xlsx":
        import openpyxl

        book = openpyxl.load_workbook(io.BytesIO(data))
        sheet = book.create_sheet(_free_name(set(book.sheetnames)))
        sheet["A1"] = "junk"
        return _saved(book)
    from odf.opendocument import load
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = load(io.BytesIO(data))
    table = Table(name=_free_name({t.getAttribute("name") for t in doc.spreadsheet.getElementsByType(Table)}))
    row, cell = TableRow(), TableCell(valuetype="string")
    cell.addElement(P(text="junk"))
    row.addElement(cell)
    table.addElement(row)
    doc.spreadsheet.addElement(table)
    return _odf_saved(doc)


def as_csv(data: bytes) -> bytes:
    """The first sheet as CSV text from A1 (File > Save As, Text CSV): the right content, the wrong format."""
    book = parse(data)
    if book is None:
        raise ValueError("not an .ods or .xlsx workbook")
    cells = next(iter(book.sheets.values()), Sheet({})).cells
    rows = max((row for row, _ in cells), default=-1) + 1
    cols = max((col for _, col in cells), default=-1) + 1
    out = io.StringIO()
    for r in range(rows):
        row = []
        for c in range(cols):
            value = cells.get((r, c))
            row.append("" if value is None else (value.result or "") if value.kind == "formula" else value.text)
        csv.writer(out, lineterminator="\n").writerow(row)
    return out.getvalue().encode()


def _free_name(taken: set[str]) -> str:
    return next(f"Sheet{n}" for n in range(1, len(taken) + 2) if f"Sheet{n}" not in taken)


def _saved(book: Any) -> bytes:
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _odf_saved(doc: Any) -> bytes:
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()
