"""The gnumeric tasks' typed reading of a saved workbook, and the adversary's workbook mutations.

A workbook is judged cell by cell with types on every sheet, in its real format: the red team's
numbers typed as text (``'75``), CSV saved under the ``.gnumeric`` name and junk on a second sheet
all scored 1.0 when sheets were compared as CSV text of sheet 1. The pure tests build files the way
Gnumeric writes them; the ones marked ``ssconvert`` load each mutation with Gnumeric's own engine, so
every mutation is a file an agent could really leave.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from cua_bench import TaskError
from cua_bench.gnumeric import Value, Workbook, parse, shift
from cua_bench_tasks_desktop._sheets import (
    SHEET,
    Formula,
    Want,
    as_csv,
    csv_rows,
    make_workbook,
    matches,
    numbers_as_text,
    read_workbook,
    refers_to,
    with_extra_sheet,
    workbook_differences,
)

ROWS: list[list[Want]] = [["item", "qty", "price"], ["eggs", 75, 2.25], ["milk", 4, 0.5]]


def gnumeric(*sheets: tuple[str, str], packed: bool = True) -> bytes:
    """A workbook file as Gnumeric writes it: each sheet's name and its ``<gnm:Cell>`` elements."""
    names = "".join(f"<gnm:SheetName>{name}</gnm:SheetName>" for name, _ in sheets)
    body = "".join(
        f"<gnm:Sheet><gnm:Name>{name}</gnm:Name><gnm:Cells>{cells}</gnm:Cells></gnm:Sheet>" for name, cells in sheets
    )
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<gnm:Workbook xmlns:gnm="http://www.gnumeric.org/v10.dtd">'
        f"<gnm:SheetNameIndex>{names}</gnm:SheetNameIndex><gnm:Sheets>{body}</gnm:Sheets></gnm:Workbook>"
    ).encode()
    return gzip.compress(xml) if packed else xml


def cell(row: int, col: int, text: str, kind: int | None = None, **attributes: str) -> str:
    extra = "".join(f' {name}="{value}"' for name, value in attributes.items())
    kind_attribute = "" if kind is None else f' ValueType="{kind}"'
    return f'<gnm:Cell Row="{row}" Col="{col}"{kind_attribute}{extra}>{text}</gnm:Cell>'


def table(*, qty: str = cell(1, 1, "75", 40), junk: str = "") -> str:
    """The cells of ``ROWS`` as Gnumeric saves them (``qty`` replaces eggs' qty)."""
    return (
        cell(0, 0, "item", 60) + cell(0, 1, "qty", 60) + cell(0, 2, "price", 60)
        + cell(1, 0, "eggs", 60) + qty + cell(1, 2, "2.25", 40)
        + cell(2, 0, "milk", 60) + cell(2, 1, "4", 40) + cell(2, 2, "0.5", 40) + junk
    )  # fmt: skip


def sheet_holds(book: Workbook | None, sheets: dict[str, list[list[Want]]]) -> bool:
    """What the evaluator scores 1: a workbook with no ``workbook_differences``."""
    return not workbook_differences(book, sheets)


def judged(data: bytes, rows: list[list[Want]] = ROWS) -> bool:
    return sheet_holds(parse(data), {SHEET: rows})


# --- reading: the real format, every sheet, each cell's type ------------------------------------


def test_each_cell_keeps_its_type() -> None:
    book = parse(
        gnumeric(
            (
                "Sheet1",
                cell(0, 0, "75", 60)
                + cell(0, 1, "75", 40)
                + cell(0, 2, "TRUE", 20)
                + cell(0, 3, "#DIV/0!", 50)
                + cell(0, 4, "=sum(B1:B2)")
                + cell(0, 5, "=text", 60)
                + cell(0, 6, "", 10),
            )
        )
    )
    assert book is not None
    assert book.sheets["Sheet1"].cells == {
        (0, 0): Value("text", "75"),  # '75 typed: the digits, stored as text
        (0, 1): Value("number", "75"),
        (0, 2): Value("bool", "TRUE"),
        (0, 3): Value("error", "#DIV/0!"),
        (0, 4): Value("formula", "=sum(B1:B2)"),
        (0, 5): Value("text", "=text"),  # typed '=text: a string, not a formula
    }


def test_a_shared_formula_reads_at_each_cell() -> None:
    # Fill-down shares one expression: written once, at its first cell, relative to it.
    data = gnumeric(("Sheet1", cell(1, 3, "=B2*$C$2", ExprID="1") + cell(2, 3, "", ExprID="1")))
    book = parse(data)
    assert book is not None
    assert book.sheets["Sheet1"].cells[(2, 3)] == Value("formula", "=B3*$C$2")
    assert parse(gnumeric(("Sheet1", cell(2, 3, "", ExprID="9")))) is None  # an expression never written


def test_shift_moves_relative_references_only() -> None:
    assert shift("=SUM(B2:B6)+$A$1+A$1+$A1", 2, 1) == "=SUM(C4:C8)+$A$1+B$1+$A3"
    assert shift('=LOG10(B2)&"B2"', 1, 0) == '=LOG10(B3)&"B2"'  # not a function's name, not a string
    assert shift("=Sheet2!B2", 1, 0) == "=Sheet2!B3"


def test_the_format_is_what_parses_not_the_name() -> None:
    assert parse(b"item,qty,price\neggs,75,2.25\n") is None  # a CSV saved as book.gnumeric
    assert parse(gzip.compress(b"item,qty\n")) is None
    assert parse(b"\x1f\x8bnot gzip") is None
    assert parse(b'<?xml version="1.0"?><Workbook/>') is None  # XML, but not Gnumeric's
    assert parse(gnumeric(("Sheet1", table()), packed=False)) is not None  # "Gnumeric XML uncompressed"


def test_every_sheet_is_read_in_order() -> None:
    book = parse(gnumeric(("Sheet1", table()), ("Sheet2", cell(0, 0, "junk", 60))))
    assert book is not None and list(book.sheets) == ["Sheet1", "Sheet2"]
    assert book.sheets["Sheet2"].cells == {(0, 0): Value("text", "junk")}


# --- judging: the red team's cases ----------------------------------------------------------------


def test_the_right_workbook_holds() -> None:
    assert judged(gnumeric(("Sheet1", table())))
    assert judged(gnumeric(("Sheet1", table()), packed=False))


def test_a_number_stored_as_text_does_not_hold() -> None:
    assert not judged(gnumeric(("Sheet1", table(qty=cell(1, 1, "75", 60)))))


def test_what_falls_short_is_named_cell_by_cell() -> None:
    """``task.explain`` gets these, so a check that fails says which cell."""
    book = parse(gnumeric(("Sheet1", table(qty=cell(1, 1, "75", 60), junk=cell(9, 9, "x", 60)))))
    assert workbook_differences(book, {SHEET: ROWS}) == [
        "Sheet1!J10 is not expected",
        "Sheet1!B2 holds the text '75', not the number 75",
    ]
    assert workbook_differences(parse(b"item,qty\n"), {SHEET: ROWS}) == ["no Gnumeric workbook there"]
    assert workbook_differences(parse(gnumeric(("Sheet1", table()))), {SHEET: ROWS}) == []


def test_a_csv_under_the_workbook_name_does_not_hold() -> None:
    assert not judged(b"item,qty,price\neggs,75,2.25\nmilk,4,0.5\n")


def test_an_extra_renamed_or_missing_sheet_does_not_hold() -> None:
    assert not judged(gnumeric(("Sheet1", table()), ("Sheet2", cell(0, 0, "junk", 60))))
    assert not judged(gnumeric(("Sheet2", cell(0, 0, "junk", 60)), ("Sheet1", table())))
    assert not judged(gnumeric(("Sheet1", table()), ("Sheet2", "")))  # even an empty one is a change
    assert not judged(gnumeric(("Totals", table())))
    assert not judged(gnumeric())


def test_an_extra_cell_or_object_does_not_hold() -> None:
    assert not judged(gnumeric(("Sheet1", table(junk=cell(9, 9, "x", 60)))))
    assert not judged(gnumeric(("Sheet1", table(junk=cell(3, 0, "", 60)))))  # an empty string is a cell
    xml = gnumeric(("Sheet1", table()), packed=False).replace(
        b"</gnm:Cells>", b'</gnm:Cells><gnm:Objects><gnm:CellComment ObjectBound="A1" Text="junk"/></gnm:Objects>'
    )
    assert not judged(xml)


def test_a_formula_must_be_over_the_cells_and_give_the_result() -> None:
    total = Formula(lambda text: refers_to(text, "SUM", {"B2", "B3"}), 79.0)
    rows: list[list[Want]] = [*ROWS, ["", total]]
    book = parse(gnumeric(("Sheet1", table(junk=cell(3, 1, "=sum(B2:B3)")))))
    assert book is not None
    assert sheet_holds(book.with_results({"Sheet1": {(3, 1): "79"}}), {SHEET: rows})
    assert not sheet_holds(book.with_results({"Sheet1": {(3, 1): "80"}}), {SHEET: rows})
    assert not sheet_holds(book, {SHEET: rows})  # no computed value: nothing to compare
    typed = parse(gnumeric(("Sheet1", table(junk=cell(3, 1, "=SUM(79)")))))
    assert typed is not None and not sheet_holds(typed.with_results({"Sheet1": {(3, 1): "79"}}), {SHEET: rows})
    number = parse(gnumeric(("Sheet1", table(junk=cell(3, 1, "79", 40)))))
    assert not sheet_holds(number, {SHEET: rows})  # the total typed in: a number, not a formula


def test_a_csv_export_is_text_and_exact() -> None:
    assert csv_rows(gnumeric(("Sheet1", table()))) is None  # a workbook saved under the .csv name
    assert csv_rows(b"a,\xff\n") is None
    rows = csv_rows(b"item,qty\neggs,75\n")
    assert rows == [["item", "qty"], ["eggs", "75"]] and matches(rows, [["item", "qty"], ["eggs", 75]])
    assert matches(csv_rows(b"item,qty\neggs,75"), [["item", "qty"], ["eggs", 75]])  # the final newline
    assert not matches(csv_rows(b"item,qty\neggs,75\n\n\n\n"), [["item", "qty"], ["eggs", 75]])
    assert not matches(csv_rows(b"item,qty,\neggs,75,\n"), [["item", "qty"], ["eggs", 75]])


# --- the mutations: each turns a right workbook into one that must score 0 ------------------------


def test_numbers_as_text_turns_every_constant_number() -> None:
    data = gnumeric(("Sheet1", table(junk=cell(3, 1, "=sum(B2:B3)"))), ("Sheet2", cell(0, 0, "1e-05", 40)))
    changed = numbers_as_text(data)
    assert changed is not None and changed[:2] == b"\x1f\x8b"  # the same format, still gzip'd
    book = parse(changed)
    assert book is not None
    first = book.sheets["Sheet1"].cells
    assert first[(1, 1)] == Value("text", "75") and first[(1, 2)] == Value("text", "2.25")
    assert first[(3, 1)] == Value("formula", "=sum(B2:B3)")
    assert book.sheets["Sheet2"].cells[(0, 0)] == Value("text", "1e-05")
    assert not judged(numbers_as_text(gnumeric(("Sheet1", table()))) or b"")
    assert numbers_as_text(gnumeric(("Sheet1", cell(0, 0, "item", 60)))) is None
    with pytest.raises(ValueError, match="not a Gnumeric workbook"):
        numbers_as_text(b"item,qty\n")


def test_with_extra_sheet_appends_junk() -> None:
    data = gnumeric(("Sheet1", table()), ("Sheet2", ""))
    book = parse(with_extra_sheet(data))
    assert book is not None and list(book.sheets) == ["Sheet1", "Sheet2", "Sheet3"]
    assert book.sheets["Sheet1"] == parse(data).sheets["Sheet1"]  # type: ignore[union-attr]
    assert book.sheets["Sheet3"].cells
    assert not judged(with_extra_sheet(gnumeric(("Sheet1", table()))))


def test_as_csv_is_the_first_sheet_in_the_wrong_format() -> None:
    data = gnumeric(("Sheet1", table()), ("Sheet2", cell(0, 0, "junk", 60)))
    text = as_csv(data)
    assert text == b"item,qty,price\neggs,75,2.25\nmilk,4,0.5\n"
    assert parse(text) is None and not judged(text)
    assert as_csv(gnumeric(("Sheet1", cell(1, 1, "7", 40)))) == b",\n,7\n"  # from A1, as it was placed


# --- the same, through Gnumeric's own engine -------------------------------------------------------


def ssconvert(*args: str | Path) -> None:
    result = subprocess.run(["ssconvert", *map(str, args)], check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


def need_ssconvert() -> None:
    if shutil.which("ssconvert") is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but ssconvert is not installed (apt-get install gnumeric)")
        pytest.skip("ssconvert not installed (apt-get install gnumeric)")


class Shell:
    """The two Session methods the sheet helpers use, on this host, from ``home``."""

    def __init__(self, home: Path) -> None:
        self.home = home

    async def read_bytes(self, path: str) -> bytes:
        return (self.home / path).read_bytes()

    async def write_file(self, path: str, content: str) -> None:
        (self.home / path).parent.mkdir(parents=True, exist_ok=True)
        (self.home / path).write_text(content)

    async def run_command(self, command: str, timeout: float = 30.0) -> SimpleNamespace:
        done = subprocess.run(
            ["bash", "-c", command], check=False, cwd=self.home, capture_output=True, text=True, timeout=timeout
        )
        return SimpleNamespace(returncode=done.returncode, stdout=done.stdout, stderr=done.stderr)


@pytest.fixture
def made(tmp_path: Path) -> Path:
    """The workbook of ``ROWS`` as setup makes it (ssconvert)."""
    need_ssconvert()
    asyncio.run(make_workbook(Shell(tmp_path), "book.gnumeric", ROWS))  # type: ignore[arg-type]
    return tmp_path / "book.gnumeric"


def test_setup_makes_the_workbook_the_evaluator_expects(made: Path) -> None:
    assert judged(made.read_bytes())


def test_gnumeric_loads_each_mutation_as_the_mutation(made: Path, tmp_path: Path) -> None:
    data = made.read_bytes()
    for name, mutated, suffix in [
        ("numbers", numbers_as_text(data), ".gnumeric"),
        ("sheet", with_extra_sheet(data), ".gnumeric"),
        ("csv", as_csv(data), ".csv"),
    ]:
        assert mutated is not None
        source, saved = tmp_path / f"{name}{suffix}", tmp_path / f"{name}-saved.gnumeric"
        source.write_bytes(mutated)
        ssconvert(source, saved)  # Gnumeric opens it and saves it again
        book = parse(saved.read_bytes())
        assert book is not None, name
        cells = next(iter(book.sheets.values())).cells
        if name == "numbers":
            assert cells[(1, 1)] == Value("text", "75")  # Gnumeric keeps it text
        elif name == "sheet":
            assert len(book.sheets) == 2 and book.sheets[SHEET] == parse(data).sheets[SHEET]  # type: ignore[union-attr]
        else:
            assert cells[(1, 1)] == Value("number", "75")  # the CSV's values are all there
    own = tmp_path / "own.csv"
    ssconvert("-T", "Gnumeric_stf:stf_csv", made, own)
    assert as_csv(data) == own.read_bytes()  # what Gnumeric's own CSV export writes


def test_read_workbook_gets_formula_results_from_gnumeric(tmp_path: Path) -> None:
    need_ssconvert()
    (tmp_path / "book.gnumeric").write_bytes(
        gnumeric(
            ("Sheet1", table(junk=cell(3, 1, "=sum(B2:B3)") + cell(4, 1, "=B2*C2", ExprID="1"))),
            ("Sheet2", cell(2, 2, "=Sheet1!B3*2", ExprID="2") + cell(3, 2, "", ExprID="2")),
        )
    )
    book = asyncio.run(read_workbook(Shell(tmp_path), "book.gnumeric"))  # type: ignore[arg-type]
    assert book is not None
    assert book.sheets["Sheet1"].cells[(3, 1)].result == "79"
    assert book.sheets["Sheet1"].cells[(4, 1)].result == "168.75"
    # The second sheet's CSV starts at its first used cell (C3); the results land where they belong.
    assert [book.sheets["Sheet2"].cells[(r, 2)].result for r in (2, 3)] == ["8", "158"]
    assert asyncio.run(read_workbook(Shell(tmp_path), "missing.gnumeric")) is None  # type: ignore[arg-type]


class Flaky(Shell):
    """A shell whose first ``failures`` ssconvert runs exit 124, as a command killed at its timeout does."""

    def __init__(self, home: Path, failures: int) -> None:
        super().__init__(home)
        self.failures = failures

    async def run_command(self, command: str, timeout: float = 30.0) -> SimpleNamespace:
        if "ssconvert" in command and self.failures > 0:
            self.failures -= 1
            return SimpleNamespace(returncode=124, stdout="", stderr="Terminated")
        return await super().run_command(command, timeout)


def test_a_formula_gnumeric_could_not_compute_is_an_error_not_a_zero(tmp_path: Path) -> None:
    """An ssconvert that did not answer (a loaded machine, a broken install) once scored the oracle 0:
    every formula read as computing nothing. Now it is tried again, and raises when it fails twice."""
    need_ssconvert()
    (tmp_path / "book.gnumeric").write_bytes(gnumeric(("Sheet1", table(junk=cell(3, 1, "=sum(B2:B3)")))))
    book = asyncio.run(read_workbook(Flaky(tmp_path, 1), "book.gnumeric"))  # type: ignore[arg-type]
    assert book is not None and book.sheets["Sheet1"].cells[(3, 1)].result == "79"
    with pytest.raises(TaskError, match=r"ssconvert could not compute the formulas of book.gnumeric \(exit code 124"):
        asyncio.run(read_workbook(Flaky(tmp_path, 2), "book.gnumeric"))  # type: ignore[arg-type]
