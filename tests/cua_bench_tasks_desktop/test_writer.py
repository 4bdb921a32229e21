"""The Writer tasks' typed reading of a saved document (``_writer``): paragraphs in order with their
style, outline level and bold, italic and underlined runs, read by content in ``.odt`` (odfpy) and
``.docx`` (python-docx), and the objects an evaluator expecting none must see.

The documents are built here the way LibreOffice writes them: an ``.odt``'s formatting in automatic
styles (a ``text:span`` of style ``T1`` whose ``fo:font-weight`` is bold, a paragraph style ``P1``
whose parent is Heading 1), a ``.docx``'s in run properties and styles. No desktop is needed.
"""

from __future__ import annotations

import io
from typing import Any

import docx
import pytest
from docx.enum.text import WD_UNDERLINE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from odf.opendocument import OpenDocumentSpreadsheet, OpenDocumentText
from odf.style import Style, TextProperties
from odf.table import Table, TableCell, TableRow
from odf.text import H, LineBreak, P, S, Span, Tab

from cua_bench.documents import as_text, with_extra_paragraph
from cua_bench_tasks_desktop._writer import (
    DEFAULT_STYLE,
    Document,
    Format,
    Paragraph,
    Run,
    differences,
    document_bytes,
    format_of,
    markup,
    parse,
    parse_as,
    parse_markup,
    plain,
    seed_lines,
    writer_format,
)
from cua_bench_tasks_desktop._writer import Table as WriterTable

LINES = [
    "# Budget review",
    "The quiet server checks the <b>bridge</b> today.",
    "The green rocket moves the <i>tunnel</i> again.",
    "[Text body] The heavy lantern finds the <u>castle</u> at noon.",
]


def odt(build: Any) -> bytes:
    """An ``.odt`` with Writer's named styles (Standard, Heading 1 in bold) and what ``build(doc)`` adds."""
    doc = OpenDocumentText()
    doc.styles.addElement(Style(name="Standard", family="paragraph"))
    heading = Style(name="Heading_20_1", displayname="Heading 1", family="paragraph", parentstylename="Standard")
    heading.setAttribute("defaultoutlinelevel", "1")
    heading.addElement(TextProperties(fontweight="bold", fontsize="130%"))
    doc.styles.addElement(heading)
    build(doc)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


def auto(doc: Any, name: str, family: str, parent: str | None = None, **props: str) -> Any:
    """An automatic style, as Writer writes one for formatting done by hand."""
    style = Style(name=name, family=family, **({"parentstylename": parent} if parent else {}))
    if props:
        style.addElement(TextProperties(**props))
    doc.automaticstyles.addElement(style)
    return style


def docx_bytes(doc: Any) -> bytes:
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def read(data: bytes) -> Document:
    document = parse(data)
    assert document is not None
    return document


# --- reading: by content, in order, typed ------------------------------------------------------------


def test_a_seed_reads_back_as_its_markup_in_either_format() -> None:
    for fmt in ("odt", "docx"):
        document = parse_as(document_bytes(LINES, fmt), fmt)
        assert document is not None and document.format == fmt
        assert [markup(p) for p in document.paragraphs] == LINES
        assert document.objects == () and differences(document, LINES) == []
        heading, bold = document.paragraphs[0], document.paragraphs[1]
        assert (heading.style, heading.level, heading.text) == ("Heading 1", 1, "Budget review")
        assert (bold.style, bold.level) == (DEFAULT_STYLE, 0)
        assert bold.runs == (
            Run("The quiet server checks the "),
            Run("bridge", bold=True),
            Run(" today."),
        )


def test_the_format_is_what_parses_not_the_name() -> None:
    as_odt = document_bytes(LINES, "odt")
    as_docx = document_bytes(LINES, "docx")
    assert format_of(as_odt) == "odt" and format_of(as_docx) == "docx"
    assert parse_as(as_odt, "docx") is None  # an .odt saved under report.docx is no .docx
    assert parse_as(as_docx, "odt") is None
    assert parse(b"The quiet server checks the bridge today.\n") is None  # plain text under the name
    assert parse(b"{\\rtf1\\ansi The quiet server}") is None
    assert parse(b"PK\x03\x04 not really a zip") is None
    spreadsheet = io.BytesIO()
    OpenDocumentSpreadsheet().write(spreadsheet)
    assert parse(spreadsheet.getvalue()) is None  # an OpenDocument file, but not a text document
    assert writer_format("a/b.DOCX") == "docx" and writer_format("a/b.odt") == "odt"


def test_odt_resolves_automatic_styles_as_writer_saves_them() -> None:
    def build(doc: Any) -> None:
        bold = auto(doc, "T1", "text", fontweight="bold")
        heavy = auto(doc, "T2", "text", fontweight="700")
        slanted = auto(doc, "T3", "text", fontstyle="italic", textunderlinestyle="solid")
        auto(doc, "P1", "paragraph", "Heading_20_1")
        auto(doc, "P2", "paragraph", "Standard", fontweight="bold")  # a whole paragraph made bold by hand
        doc.text.addElement(H(outlinelevel=1, stylename="P1", text="Budget review"))
        p = P(stylename="Standard", text="The quiet ")
        p.addElement(Span(stylename=bold, text="server"))
        p.addElement(S(c=2))
        p.addElement(Span(stylename=heavy, text="checks"))
        p.addElement(Tab())
        p.addElement(Span(stylename=slanted, text="the bridge"))
        p.addElement(LineBreak())
        p.addText("today.")
        doc.text.addElement(p)
        doc.text.addElement(P(stylename="P2", text="All of it bold."))

    document = read(odt(build))
    heading, body, whole = document.paragraphs
    assert (heading.style, heading.level, heading.base) == ("Heading 1", 1, frozenset({"b"}))
    assert heading.runs == (Run("Budget review", bold=True),) and markup(heading) == "# Budget review"
    assert body.text == "The quiet server  checks\tthe bridge\ntoday."
    assert [(r.text, r.marks) for r in body.runs] == [
        ("The quiet ", frozenset()),
        ("server", {"b"}),
        ("  ", frozenset()),
        ("checks", {"b"}),  # font-weight 700 is bold
        ("\t", frozenset()),
        ("the bridge", {"i", "u"}),
        ("\ntoday.", frozenset()),
    ]
    # Bold from the paragraph's automatic style is formatting by hand: the named style is Standard.
    assert (whole.style, whole.base) == (DEFAULT_STYLE, frozenset())
    assert markup(whole) == "<b>All of it bold.</b>"


def test_odt_heading_levels_come_from_the_outline_level() -> None:
    def build(doc: Any) -> None:
        doc.text.addElement(H(outlinelevel=2, stylename="Heading_20_1", text="Two"))
        doc.text.addElement(P(stylename="Heading_20_1", text="A paragraph of a heading style"))
        doc.text.addElement(P(text="No style at all"))

    two, styled, bare = read(odt(build)).paragraphs
    assert (two.level, two.style) == (2, "Heading 1") and markup(two) == "[Heading 1] ## Two"
    assert styled.level == 1  # the style's default outline level
    assert (bare.level, bare.style) == (0, DEFAULT_STYLE)


def test_docx_resolves_run_character_and_paragraph_styles() -> None:
    doc = docx.Document()
    doc.add_heading("Budget review", 2)
    p = doc.add_paragraph("The quiet ")
    p.add_run("server").bold = True
    p.add_run(" checks ")
    p.add_run("the", style="Strong")  # bold through a character style
    p.add_run(" ")
    p.add_run("bridge").italic = True
    p.add_run(" ")
    p.add_run("today").underline = WD_UNDERLINE.DOUBLE
    p.add_run(".").underline = WD_UNDERLINE.NONE
    plain_heading = doc.add_heading("", 1)
    plain_heading.add_run("Not bold").bold = False
    heading, body, unbold = read(docx_bytes(doc)).paragraphs
    assert (heading.style, heading.level, heading.text) == ("Heading 2", 2, "Budget review")
    assert markup(heading) == "## Budget review"
    assert markup(body) == "The quiet <b>server</b> checks <b>the</b> <i>bridge</i> <u>today</u>."
    assert (body.style, body.level, body.base) == (DEFAULT_STYLE, 0, frozenset())
    assert markup(unbold) == "# <not-b>Not bold</not-b>"


def test_paragraphs_keep_their_order_and_runs_their_types() -> None:
    for fmt in ("odt", "docx"):
        document = read(document_bytes(LINES, fmt))
        assert document.texts == [plain(line) for line in LINES]
        for paragraph in document.paragraphs:
            assert isinstance(paragraph, Paragraph) and isinstance(paragraph.level, int)
            assert all(isinstance(run.bold, bool) and isinstance(run.underline, bool) for run in paragraph.runs)
            assert "".join(run.text for run in paragraph.runs) == paragraph.text


# --- objects an evaluator expecting none sees -----------------------------------------------------------


def test_odt_tables_comments_and_lists_are_objects() -> None:
    from odf.office import Annotation
    from odf.text import List, ListItem

    def build(doc: Any) -> None:
        doc.text.addElement(P(text="Before"))
        table, row, cell = Table(name="Table1"), TableRow(), TableCell()
        cell.addElement(P(text="in a cell"))
        row.addElement(cell)
        table.addElement(row)
        doc.text.addElement(table)
        noted = P(text="With a comment")
        note = Annotation()
        note.addElement(P(text="a remark"))
        noted.addElement(note)
        doc.text.addElement(noted)
        items, item = List(), ListItem()
        item.addElement(P(text="A bullet"))
        items.addElement(item)
        doc.text.addElement(items)

    document = read(odt(build))
    assert document.texts == ["Before", "With a comment", "A bullet"]  # no cell's, no comment's text
    assert sorted(document.objects) == ["comment", "list", "table"]
    assert differences(document, ["Before", "With a comment", "A bullet"]) == [
        "the document holds comment, list, table"
    ]


def test_docx_tables_comments_and_lists_are_objects() -> None:
    doc = docx.Document()
    doc.add_paragraph("Before")
    doc.add_table(rows=1, cols=1).cell(0, 0).text = "in a cell"
    noted = doc.add_paragraph("With a comment")
    doc.add_comment(noted.runs, text="a remark", author="someone")
    bullet = doc.add_paragraph("A bullet")
    numbering = OxmlElement("w:numPr")
    for tag, value in (("w:ilvl", "0"), ("w:numId", "1")):
        child = OxmlElement(tag)
        child.set(qn("w:val"), value)
        numbering.append(child)
    bullet._p.get_or_add_pPr().append(numbering)
    document = read(docx_bytes(doc))
    assert document.texts == ["Before", "With a comment", "A bullet"]
    assert set(document.objects) == {"comment", "list", "table"}


def _odt_table(doc: Any, rows: list[list[str]], *, heading: bool = True, merged: bool = False) -> None:
    """A table as Writer saves one: its first row in a heading-row group, each cell one paragraph."""
    from odf.table import TableColumn, TableHeaderRows

    table = Table(name="Table1")
    table.addElement(TableColumn(numbercolumnsrepeated=len(rows[0])))
    for index, texts in enumerate(rows):
        row = TableRow()
        for number, text in enumerate(texts):
            cell = TableCell(numbercolumnsspanned=2) if merged and index == 1 and number == 0 else TableCell()
            cell.addElement(P(text=text))
            row.addElement(cell)
        if heading and index == 0:
            group = TableHeaderRows()
            group.addElement(row)
            table.addElement(group)
        else:
            table.addElement(row)
    doc.text.addElement(table)


TABLE_LINES = ["# Budget review", "The quiet server checks the bridge today."]
HEADED = WriterTable(2, (("Name", "Owner", "Date"), ("", "", "")))


@pytest.mark.parametrize("kind", ["odt", "docx"])
def test_a_table_is_read_with_its_place_and_cells(kind: Format) -> None:
    def build(rows: list[list[str]], *, before: int = 2, merged: bool = False, trailing: int = 1) -> Document:
        if kind == "odt":

            def odt_build(doc: Any) -> None:
                head = H(outlinelevel=1, stylename="Heading_20_1", text="Budget review")
                body = [head, P(text="The quiet server checks the bridge today.")]
                for element in body[:before]:
                    doc.text.addElement(element)
                _odt_table(doc, rows, merged=merged)
                for element in body[before:]:
                    doc.text.addElement(element)
                for _ in range(trailing):
                    doc.text.addElement(P())

            return read(odt(odt_build))
        doc = docx.Document()
        doc.add_heading("Budget review", 1)
        doc.add_paragraph("The quiet server checks the bridge today.")
        table = doc.add_table(rows=len(rows), cols=len(rows[0]))
        for r, texts in enumerate(rows):
            for c, text in enumerate(texts):
                table.cell(r, c).text = text
        if merged:
            table.cell(1, 0).merge(table.cell(1, 1))
        if before < 2:
            doc.element.body.insert(before, table._tbl)
        doc.add_paragraph()
        return read(docx_bytes(doc))

    document = build([["Name", "Owner", "Date"], ["", "", ""]])
    assert document.tables == (HEADED,) and document.texts[:2] == [plain(line) for line in TABLE_LINES]
    assert HEADED.size == (2, 3)
    assert differences(document, TABLE_LINES, tables=[HEADED]) == []
    # Without the table expected, it is an object, as before.
    assert "table" in differences(document, TABLE_LINES)[0]
    # Wrong ways: the sizes swapped, the words in the wrong cells, the table before the title.
    swapped = build([["Name", "Owner"], ["", ""], ["", ""]])
    assert differences(swapped, TABLE_LINES, tables=[HEADED]) == ["table 1 is 3 rows by 2 columns, not 2 by 3"]
    shifted = build([["", "Name", "Owner"], ["Date", "", ""]])
    assert differences(shifted, TABLE_LINES, tables=[HEADED])[0].startswith("table 1 holds")
    first = build([["Name", "Owner", "Date"], ["", "", ""]], before=0)
    assert differences(first, TABLE_LINES, tables=[HEADED]) == ["table 1 comes after paragraph 0, not 2"]
    merged = build([["Name", "Owner", "Date"], ["", "", ""]], merged=True)
    assert any("merged cells" in line for line in differences(merged, TABLE_LINES, tables=[HEADED]))
    none = read(document_bytes(TABLE_LINES, kind))
    assert differences(none, TABLE_LINES, tables=[HEADED]) == ["the document has 0 tables, not 1"]


def test_a_table_after_an_empty_paragraph_at_the_end_is_still_at_the_end() -> None:
    def build(doc: Any) -> None:
        doc.text.addElement(H(outlinelevel=1, stylename="Heading_20_1", text="Budget review"))
        doc.text.addElement(P(text="The quiet server checks the bridge today."))
        doc.text.addElement(P())
        _odt_table(doc, [["Name", "Owner", "Date"], ["", "", ""]], heading=False)
        doc.text.addElement(P())

    document = read(odt(build))
    assert document.tables == (WriterTable(3, HEADED.rows),)
    assert differences(document, TABLE_LINES, tables=[HEADED]) == []


# --- markup and whole-document differences --------------------------------------------------------------


def test_markup_round_trips() -> None:
    for line in [*LINES, "[Text body] ## x <u>y z</u> <b><i>k</i></b>", ""]:
        assert markup(parse_markup(line)) == line
    paragraph = parse_markup("## <b>Two</b> words")
    assert (paragraph.style, paragraph.level, paragraph.text) == ("Heading 2", 2, "Two words")


def test_bold_on_a_space_does_not_show() -> None:
    with_space = Paragraph("The bridge today", runs=(Run("The "), Run("bridge ", bold=True), Run("today")))
    assert markup(with_space) == "The <b>bridge</b> today"  # the word selected with the space after it
    words = Paragraph("two words", runs=(Run("two words", bold=True),))
    assert markup(words) == "<b>two words</b>"
    underlined = Paragraph("a b", runs=(Run("a "), Run("b", underline=True)))
    assert markup(Paragraph("a b", runs=(Run("a", underline=True), Run(" b")))) == "<u>a</u> b"
    assert markup(underlined) == "a <u>b</u>"


def test_differences_compare_the_whole_document() -> None:
    document = read(document_bytes(LINES, "odt"))
    assert differences(None, LINES, what="a.docx") == [
        "a.docx is missing, or not a document of the format its name asks for"
    ]
    assert differences(document, [*LINES, "One more."]) == ["the document has 4 paragraphs, not 5"]
    bolder = [LINES[0], "The quiet server checks the <b>bridge today</b>.", *LINES[2:]]
    assert differences(document, bolder) == [
        "paragraph 2 is 'The quiet server checks the <b>bridge</b> today.', "
        "not 'The quiet server checks the <b>bridge today</b>.'"
    ]
    # One slack: empty paragraphs at the very end (Enter pressed after the last line).
    assert differences(read(document_bytes([*LINES, "", ""], "docx")), LINES) == []
    assert differences(read(document_bytes([LINES[0], "", *LINES[1:]], "docx")), LINES) != []


def test_seed_lines_are_distinct_with_one_word_in_italics() -> None:
    import random

    for seed in range(20):
        lines = seed_lines(random.Random(seed), 4)
        assert lines[0].startswith("# ") and len(lines) == 5
        assert sum(line.count("<i>") for line in lines) == 1
        assert len({plain(line) for line in lines}) == 5


@pytest.mark.parametrize("kind", ["odt", "docx"])
def test_the_adversarys_document_mutations_are_differences(kind: Format) -> None:
    data = document_bytes(LINES, kind)
    assert differences(parse(with_extra_paragraph(data) or b""), LINES) == ["the document has 5 paragraphs, not 4"]
    assert parse(as_text(data) or b"") is None
