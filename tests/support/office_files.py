"""Small .ods and .xlsx workbooks built with odfpy and openpyxl, for the office readers' and mutations' tests."""

from __future__ import annotations

import io

import openpyxl
from odf.opendocument import OpenDocumentSpreadsheet
from odf.table import Table, TableCell, TableRow
from odf.text import P


def ods(*, repeated: int = 1) -> bytes:
    """Sheet1: a header, two items (text, number), a formula with LibreOffice's saved result, an empty
    cell repeated across the row, and a row repeated ``repeated`` times; then an empty Sheet2."""
    doc = OpenDocumentSpreadsheet()
    table = Table(name="Sheet1")
    for values in (["item", "qty"], ["apples", 3], ["pears", 4.5]):
        row = TableRow()
        for value in values:
            cell = (
                TableCell(valuetype="float", value=value)
                if not isinstance(value, str)
                else TableCell(valuetype="string")
            )
            cell.addElement(P(text=str(value)))
            row.addElement(cell)
        row.addElement(TableCell(numbercolumnsrepeated=1000))
        table.addElement(row)
    total = TableRow(numberrowsrepeated=repeated)
    label = TableCell(valuetype="string")
    label.addElement(P(text="total"))
    formula = TableCell(valuetype="float", value=7.5, formula="of:=SUM([.B2:.B3])")
    formula.addElement(P(text="7.5"))
    total.addElement(label)
    total.addElement(formula)
    table.addElement(total)
    table.addElement(TableRow(numberrowsrepeated=1048000))
    doc.spreadsheet.addElement(table)
    doc.spreadsheet.addElement(Table(name="Sheet2"))
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


def xlsx() -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet1"
    for row in (["item", "qty"], ["apples", 3], ["pears", 4.5], ["total", "=SUM(B2:B3)"]):
        sheet.append(row)
    book.create_sheet("Sheet2")
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
