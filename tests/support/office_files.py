"""Small office files (.ods, .xlsx, .odt, .docx, .odp, .pptx) built with odfpy, openpyxl, python-docx and
python-pptx, for the office readers' and mutations' tests."""

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


def odt(lines: list[str]) -> bytes:
    """A text document of one paragraph per line, the first a heading."""
    from odf.opendocument import OpenDocumentText
    from odf.text import H

    doc = OpenDocumentText()
    for number, line in enumerate(lines):
        doc.text.addElement(H(outlinelevel=1, text=line) if number == 0 else P(text=line))
    return _written(doc)


def docx_doc(lines: list[str]) -> bytes:
    import docx

    document = docx.Document()
    for line in lines:
        document.add_paragraph(line)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def odp(titles: list[str]) -> bytes:
    """A presentation of one slide per title, each a text box holding it, on one master page."""
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import OpenDocumentPresentation
    from odf.style import MasterPage, PageLayout

    doc = OpenDocumentPresentation()
    layout = PageLayout(name="PM1")
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="Default", pagelayoutname=layout)
    doc.masterstyles.addElement(master)
    for number, title in enumerate(titles, start=1):
        page = Page(name=f"page{number}", masterpagename=master)
        frame = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
        box = TextBox()
        box.addElement(P(text=title))
        frame.addElement(box)
        page.addElement(frame)
        doc.presentation.addElement(page)
    return _written(doc)


def pptx_deck(titles: list[str]) -> bytes:
    import pptx

    deck = pptx.Presentation()
    for title in titles:
        deck.slides.add_slide(deck.slide_layouts[5]).shapes.title.text = title
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _written(doc: object) -> bytes:
    out = io.BytesIO()
    doc.write(out)  # type: ignore[attr-defined]
    return out.getvalue()
