"""``cua_bench.office``: .ods and .xlsx workbooks read as typed cells by content, ODF's formulas in one
notation, and the adversary's mutations of both formats (each leaves a file of that format)."""

from __future__ import annotations

import pytest
from support.office_files import ods, xlsx

from cua_bench.gnumeric import Value
from cua_bench.office import (
    as_csv,
    document_format,
    format_of,
    numbers_as_text,
    odf_formula,
    parse,
    parse_as,
    with_extra_sheet,
)


def test_an_ods_is_read_with_types_formulas_and_results() -> None:
    book = parse(ods())
    assert book is not None and list(book.sheets) == ["Sheet1", "Sheet2"]
    cells = book.sheets["Sheet1"].cells
    assert cells[(0, 0)] == Value("text", "item") and cells[(1, 1)] == Value("number", "3")
    assert cells[(2, 1)] == Value("number", "4.5")
    assert cells[(3, 1)] == Value("formula", "=SUM(B2:B3)", "7.5")
    assert set(cells) == {(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)}  # no empty repeats
    assert book.sheets["Sheet2"].cells == {}


def test_a_repeated_row_of_values_is_every_row_it_stands_for() -> None:
    cells = parse(ods(repeated=3)).sheets["Sheet1"].cells  # type: ignore[union-attr]
    assert [cells[(row, 0)].text for row in (3, 4, 5)] == ["total"] * 3 and (6, 0) not in cells


def test_an_xlsx_is_read_with_types_and_formula_text() -> None:
    book = parse(xlsx())
    assert book is not None and list(book.sheets) == ["Sheet1", "Sheet2"]
    cells = book.sheets["Sheet1"].cells
    assert cells[(1, 1)] == Value("number", "3") and cells[(0, 1)] == Value("text", "qty")
    assert cells[(3, 1)].kind == "formula" and cells[(3, 1)].text == "=SUM(B2:B3)"
    assert cells[(3, 1)].result is None  # openpyxl saves no computed value; LibreOffice does


def test_the_format_is_the_content_not_the_name() -> None:
    assert format_of(ods()) == "ods" and format_of(xlsx()) == "xlsx"
    assert parse_as(ods(), "xlsx") is None and parse_as(xlsx(), "ods") is None
    for junk in (b"item,qty\napples,3\n", b"PK\x03\x04 broken zip", b"", as_csv(ods())):
        assert format_of(junk) is None and parse(junk) is None


@pytest.mark.parametrize(
    ("odf", "plain"),
    [
        ("of:=SUM([.B2:.B4];[.B6])", "=SUM(B2:B4,B6)"),
        ("of:=[.B2]*[.C2]", "=B2*C2"),
        ("of:=PRODUCT([.$B$2:.$C$2])", "=PRODUCT(B2:C2)"),
        ("of:=SUM([$Sheet2.A1:.A3])", "=SUM(Sheet2!A1:A3)"),
        ("of:=SUM(7.5)", "=SUM(7.5)"),
    ],
)
def test_odf_formulas_read_in_one_notation(odf: str, plain: str) -> None:
    assert odf_formula(odf) == plain


@pytest.mark.parametrize("make", [ods, xlsx], ids=["ods", "xlsx"])
def test_numbers_as_text_keeps_the_digits_and_the_format(make: object) -> None:
    data = make()  # type: ignore[operator]
    changed = numbers_as_text(data)
    assert changed is not None and format_of(changed) == format_of(data)
    cells = parse(changed).sheets["Sheet1"].cells  # type: ignore[union-attr]
    assert cells[(1, 1)] == Value("text", "3") and cells[(2, 1)] == Value("text", "4.5")
    assert cells[(3, 1)].kind == "formula"  # a formula is not a typed number
    assert numbers_as_text(changed) is None  # nothing left to change


@pytest.mark.parametrize("make", [ods, xlsx], ids=["ods", "xlsx"])
def test_an_extra_sheet_and_a_csv_under_the_name(make: object) -> None:
    data = make()  # type: ignore[operator]
    extra = parse(with_extra_sheet(data))
    assert extra is not None and list(extra.sheets) == ["Sheet1", "Sheet2", "Sheet3"]
    assert extra.sheets["Sheet3"].cells == {(0, 0): Value("text", "junk")}
    text = as_csv(data).decode()
    assert text.splitlines()[:3] == ["item,qty", "apples,3", "pears,4.5"]


def test_mutations_refuse_what_is_not_a_workbook() -> None:
    for mutation in (numbers_as_text, with_extra_sheet, as_csv):
        with pytest.raises(ValueError, match=r"not an \.ods or \.xlsx"):
            mutation(b"item,qty\n")


def test_every_office_format_is_told_by_content() -> None:
    import io
    import zipfile

    def archive(entries: dict[str, bytes]) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as made:
            for name, data in entries.items():
                made.writestr(name, data)
        return out.getvalue()

    odf = "application/vnd.oasis.opendocument."
    assert document_format(archive({"mimetype": f"{odf}text".encode()})) == "odt"
    assert document_format(archive({"mimetype": f"{odf}presentation".encode()})) == "odp"
    assert document_format(archive({"[Content_Types].xml": b"", "word/document.xml": b""})) == "docx"
    assert document_format(archive({"[Content_Types].xml": b"", "ppt/presentation.xml": b""})) == "pptx"
    assert document_format(archive({"mimetype": f"{odf}graphics".encode()})) is None  # a drawing: none of ours
    assert format_of(archive({"mimetype": f"{odf}text".encode()})) is None  # a text is no workbook
    assert document_format(ods()) == "ods" and document_format(xlsx()) == "xlsx"
