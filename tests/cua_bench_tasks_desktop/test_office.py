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
from cua_bench_tasks_desktop._calc import fmt
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
