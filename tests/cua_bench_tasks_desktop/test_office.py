"""The LibreOffice tasks' shared parts without a desktop: seed workbooks in both formats read back typed, the
window titles their oracles wait on, the profile that makes LibreOffice start ready, and what each task declares.

The tasks themselves run in ``test_tasks.py`` (``check_task``: oracle 1, nothing 0, every wrong way 0, every
mutation of the oracle's end state 0) when LibreOffice is installed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.shell_home import Home

from cua_bench.gnumeric import Value
from cua_bench.office import format_of, parse
from cua_bench.tasks import load_task_module
from cua_bench.taskset import task_folders
from cua_bench_tasks_desktop._calc import GENERAL, fmt, format_differences, number_formats
from cua_bench_tasks_desktop._office import PROFILE, app_title, book_bytes, write_profile

# LibreOffice's tasks, and the multi-app tasks that end in Calc (the others are in their apps' test modules).
OFFICE = [
    f
    for f in task_folders("desktop")
    if f.name.split("-", 1)[0] in ("calc", "writer", "impress") or (f.name.startswith("multi-") and "calc" in f.name)
]


@pytest.mark.parametrize("kind", ["ods", "xlsx"])
def test_a_seed_workbook_holds_numbers_as_numbers_and_text_as_text(kind: str) -> None:
    data = book_bytes({"Sheet1": [["item", "qty"], ["tea", 3], ["jam", 2.25]], "Other": [["", "x"]]}, kind)  # type: ignore[arg-type]
    assert format_of(data) == kind
    book = parse(data)
    assert book is not None and list(book.sheets) == ["Sheet1", "Other"]
    cells = book.sheets["Sheet1"].cells
    assert cells == {
        (0, 0): Value("text", "item"),
        (0, 1): Value("text", "qty"),
        (1, 0): Value("text", "tea"),
        (1, 1): Value("number", "3"),
        (2, 0): Value("text", "jam"),
        (2, 1): Value("number", "2.25"),
    }
    assert book.sheets["Other"].cells == {(0, 1): Value("text", "x")}  # "" is an empty cell


def _ods_with_formats(column_style: str | None, cell_style: str | None, decimals: int = 1) -> bytes:
    """A one-sheet ``.ods`` as Calc saves a formatted column: a percentage data style, a cell style using it,
    set on the column's default (``column_style``) or on the cell (``cell_style``)."""
    import io

    from odf.number import Number, PercentageStyle
    from odf.number import Text as NumberText
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.style import Style
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    percent = PercentageStyle(name="N11")
    percent.addElement(Number(decimalplaces=decimals, minintegerdigits=1))
    percent.addElement(NumberText(text="%"))
    doc.automaticstyles.addElement(percent)
    doc.automaticstyles.addElement(Style(name="ce1", family="table-cell", datastylename="N11"))
    table = Table(name="Sheet1")
    table.addElement(TableColumn(numbercolumnsrepeated=1))
    table.addElement(TableColumn(defaultcellstylename=column_style) if column_style else TableColumn())
    for values in (["item", "rate"], ["tea", 0.125], ["jam", 0.5]):
        row = TableRow()
        for value in values:
            if isinstance(value, float):
                cell = TableCell(valuetype="float", value=value, **({"stylename": cell_style} if cell_style else {}))
            else:
                cell = TableCell(valuetype="string")
            cell.addElement(P(text=str(value)))
            row.addElement(cell)
        table.addElement(row)
    doc.spreadsheet.addElement(table)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


def test_number_formats_are_read_as_codes_in_both_formats() -> None:
    import io

    import openpyxl

    places = [(1, 1), (2, 1)]
    assert number_formats(book_bytes({"Sheet1": [["item", "rate"], ["tea", 0.125]]}, "ods"), "Sheet1", places) == {
        (1, 1): GENERAL,
        (2, 1): GENERAL,
    }
    # A whole column formatted (its default cell style), or each cell.
    assert number_formats(_ods_with_formats("ce1", None), "Sheet1", places) == {(1, 1): "0.0%", (2, 1): "0.0%"}
    assert number_formats(_ods_with_formats(None, "ce1"), "Sheet1", places) == {(1, 1): "0.0%", (2, 1): "0.0%"}
    assert number_formats(_ods_with_formats(None, "ce1", 2), "Sheet1", places) == {(1, 1): "0.00%", (2, 1): "0.00%"}
    assert number_formats(_ods_with_formats(None, None), "Sheet1", places) == {(1, 1): GENERAL, (2, 1): GENERAL}
    book = openpyxl.load_workbook(io.BytesIO(book_bytes({"Sheet1": [["item", "rate"], ["tea", 0.125]]}, "xlsx")))
    book["Sheet1"]["B2"].number_format = "0.0%"
    out = io.BytesIO()
    book.save(out)
    assert number_formats(out.getvalue(), "Sheet1", [(1, 1), (0, 1)]) == {(1, 1): "0.0%", (0, 1): GENERAL}
    assert number_formats(out.getvalue(), "Other", [(1, 1)]) is None
    assert number_formats(b"item,rate\ntea,12.5%\n", "Sheet1", [(1, 1)]) is None  # not a workbook


def test_format_codes_differ_by_what_they_show() -> None:
    wanted = {(1, 1): "0.0%", (1, 2): GENERAL}
    assert format_differences({(1, 1): "0.0%", (1, 2): GENERAL}, wanted) == []
    assert format_differences({(1, 1): "#,##0.0%", (1, 2): GENERAL}, wanted) == []  # the thousands separator
    assert format_differences({(1, 1): "0.00%", (1, 2): GENERAL}, wanted) == ["B2 is shown as '0.00%', not '0.0%'"]
    assert format_differences({(1, 1): "0.0%", (1, 2): "0.0%"}, wanted) == ["C2 is shown as '0.0%', not 'General'"]
    assert format_differences({(1, 1): "0.0"}, wanted) != []  # a decimal is no percentage
    assert format_differences(None, wanted) != []


def test_titles_and_formats_by_name() -> None:
    accepts = app_title("notes/book_1.ods", "calc")
    assert accepts("book_1.ods - LibreOffice Calc")
    assert not accepts("book_1.ods - LibreOffice Writer") and not accepts("xbook_1.ods - LibreOffice Calc")
    assert fmt("a/b.xlsx") == "xlsx" and fmt("a/b.ods") == "ods"


def test_the_profile_names_the_installed_build_or_says_what_to_install(tmp_path: Path) -> None:
    home = Home(tmp_path)
    if not Path("/usr/lib/libreoffice/program/versionrc").is_file():
        with pytest.raises(Exception, match="apt-get install libreoffice"):
            asyncio.run(write_profile(home))  # type: ignore[arg-type]
        return
    asyncio.run(write_profile(home))  # type: ignore[arg-type]
    text = (tmp_path / PROFILE).read_text()
    build = next(
        line.split("=", 1)[1]
        for line in Path("/usr/lib/libreoffice/program/versionrc").read_text().splitlines()
        if line.startswith("buildid=")
    )
    assert f"<value>{build}</value>" in text and 'oor:name="ShowTipOfTheDay"' in text
    # An app's own items (Draw's unit of measure) join the ready profile's, inside its one root.
    extra = '<item oor:path="/org.openoffice.Office.Draw/Layout/Other/MeasureUnit"/>'
    asyncio.run(write_profile(home, (extra,)))  # type: ignore[arg-type]
    text = (tmp_path / PROFILE).read_text()
    assert extra in text and text.index(extra) < text.index("</oor:items>") and f"<value>{build}</value>" in text


@pytest.mark.parametrize("folder", OFFICE, ids=[f.name for f in OFFICE])
def test_each_office_task_declares_wrong_ways_and_variants_in_both_formats(folder: Path) -> None:
    module = load_task_module(folder)
    for split in ("test", "train"):
        assert len(module.wrong_ways(split)) >= 3, folder.name
        tasks = module.variants(split)
        assert all(task.chance == 0.0 for task in tasks)
        assert len({repr(task.metadata) for task in tasks}) == len(tasks)  # every variant differs
    paths = {task.metadata.get("path", "") for task in module.variants("train")}
    if folder.name.startswith("calc-") and folder.name != "calc-save-as-xlsx":
        assert {fmt(path) for path in paths} == {"ods", "xlsx"}, folder.name  # both formats are exercised


def test_there_are_office_tasks_on_each_app_and_between_apps() -> None:
    prefixes = {folder.name.split("-", 1)[0] for folder in OFFICE}
    assert {"calc", "multi"} <= prefixes
