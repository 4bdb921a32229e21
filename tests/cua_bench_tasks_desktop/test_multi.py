"""The multi-app tasks' shared tables (``_multi``): the rows a variant carries, what the oracle types, and
the sheet a total row is judged against, on workbooks built here as Calc saves them (a SUM formula with
its value), including the wrong ones an agent could leave: the total typed as a number, a SUM over the
wrong cells, amounts stored as text, a row missing."""

from __future__ import annotations

import io
import random
from collections.abc import Sequence

from odf.opendocument import OpenDocumentSpreadsheet
from odf.table import Table, TableCell, TableRow
from odf.text import P

from cua_bench.office import parse_as
from cua_bench_tasks_desktop._multi import amounts, as_csv, counts, entries, number, sum_over, with_total
from cua_bench_tasks_desktop._sheets import ITEMS, SHEET, Formula, workbook_differences

HEADER = ["item", "amount"]
ROWS: list[list[str | int | float]] = [["eggs", 12.5], ["milk", 3.0], ["tea", 40.25]]


def ods(rows: Sequence[Sequence[object]]) -> bytes:
    """A one-sheet .ods as Calc saves one: ``("=SUM(B2:B4)", 55.75)`` is a formula with its value; a
    string starting with ``'`` is that text."""
    doc = OpenDocumentSpreadsheet()
    table = Table(name=SHEET)
    for row in rows:
        line = TableRow()
        for value in row:
            if isinstance(value, tuple):
                formula, result = value
                ref = formula[5:-1].replace(":", ":.")
                cell = TableCell(valuetype="float", value=result, formula=f"of:=SUM([.{ref}])")
                cell.addElement(P(text=f"{result:g}"))
            elif isinstance(value, int | float):
                cell = TableCell(valuetype="float", value=value)
                cell.addElement(P(text=f"{value:g}"))
            else:
                cell = TableCell(valuetype="string")
                cell.addElement(P(text=str(value).lstrip("'")))
            line.addElement(cell)
        table.addElement(line)
    doc.spreadsheet.addElement(table)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


def judged(rows: Sequence[Sequence[object]]) -> list[str]:
    return workbook_differences(parse_as(ods(rows), "ods"), {SHEET: with_total(HEADER, ROWS)})


def test_the_rows_and_a_sum_over_exactly_the_amounts_pass() -> None:
    assert judged([HEADER, *ROWS, ["total", ("=SUM(B2:B4)", 55.75)]]) == []


def test_wrong_totals_and_rows_fail() -> None:
    assert judged([HEADER, *ROWS, ["total", 55.75]])  # the value typed, no formula
    assert judged([HEADER, *ROWS, ["total", ("=SUM(B2:B3)", 15.5)]])  # a row left out of the sum
    assert judged([HEADER, *ROWS, ["total", ("=SUM(B1:B4)", 55.75)]])  # the header in the range
    assert judged([HEADER, *ROWS[:-1], ["total", ("=SUM(B2:B3)", 15.5)]])  # a row missing
    assert judged([HEADER, *([item, f"'{value}"] for item, value in ROWS), ["total", ("=SUM(B2:B4)", 0.0)]])
    assert judged([HEADER, *ROWS])  # no total row
    assert judged([HEADER, *ROWS, ["Total", ("=SUM(B2:B4)", 55.75)]])  # another label


def test_sum_over_reads_the_range_of_the_rows() -> None:
    label, formula = sum_over(ROWS)
    assert label == "total" and isinstance(formula, Formula)
    assert formula.accepts("=SUM(B2:B4)") and formula.accepts("=sum(B2,B3:B4)")
    assert not formula.accepts("=SUM(B2:B5)") and not formula.accepts("=B2+B3+B4")
    assert formula.result == 55.75


def test_what_the_oracle_types_and_the_csv() -> None:
    assert number(12.5) == "12.50" and number(3.0) == "3.00" and number(7) == "7"
    assert entries(ROWS) == "eggs\t12.50\nmilk\t3.00\ntea\t40.25"
    assert entries(ROWS[:1], quote="'", total="total\t=SUM(B2:B2)") == "eggs\t'12.50\ntotal\t=SUM(B2:B2)"
    assert as_csv(HEADER, ROWS) == "item,amount\neggs,12.50\nmilk,3.00\ntea,40.25\n"


def test_variant_rows_are_distinct_items_of_the_kind_asked() -> None:
    rng = random.Random(7)
    for _ in range(50):
        some, cents = counts(rng), amounts(rng, 2, 4)
        assert 3 <= len(some) <= 6 and 2 <= len(cents) <= 4
        assert len({row[0] for row in some}) == len(some) and {row[0] for row in some} <= set(ITEMS)
        assert all(isinstance(row[1], int) and 1 <= row[1] <= 99 for row in some)
        assert all(isinstance(row[1], float) and round(row[1] * 4) == row[1] * 4 for row in cents)
