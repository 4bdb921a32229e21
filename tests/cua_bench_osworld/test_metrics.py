"""Built-in metrics, held to OSWorld's own functions on the same inputs (differential tests).

With desktop-env installed (``pip install --no-deps desktop-env`` plus the ``osworld`` extra),
every case runs both and compares; without it the differential half skips and says so, and the
expected scores in the tables still check ours.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cua_bench_osworld import official
from cua_bench_osworld.metrics import BUILTIN_METRICS, fuzz_ratio
from cua_bench_osworld.official import (
    INSTALL_HINT,
    LAZY_MODULES,
    NOT_FUNCTIONS,
    OUTSIDE_EXTRA,
    OfficialMetrics,
    _Deferred,
    official_metrics,
)

# Our twins of metrics OSWorld added after desktop-env 1.0.2 (test_structure_sim.py).
NEWER_THAN_DESKTOP_ENV = frozenset({"check_structure_sim_with_threshold"})


def _osworld(name: str) -> Callable[..., Any] | None:
    return official_metrics().functions.get(name)


def _missing(reason: str) -> None:
    """A comparison that cannot run: a skip that says why on a user's machine, a failure in CI."""
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}")
    pytest.skip(reason)


def check(name: str, *args: Any, want: float | None = None, **kwargs: Any) -> float:
    """Our score; equal to OSWorld's when it is installed, and to ``want`` when given."""
    ours = BUILTIN_METRICS[name](*args, **kwargs)
    if want is not None:
        assert ours == pytest.approx(want, abs=1e-12), f"{name}{args}: ours {ours}, want {want}"
    theirs_fn = _osworld(name)
    if theirs_fn is None and os.environ.get("CI"):
        pytest.fail(f"CI is set but OSWorld's {name} is not loaded, so ours was compared against nothing")
    if theirs_fn is not None:
        theirs = theirs_fn(*args, **kwargs)
        assert float(ours) == float(theirs), f"{name}{args} {kwargs}: ours {ours}, OSWorld's {theirs}"
    return ours


def require_osworld(name: str) -> None:
    if _osworld(name) is None:
        loaded = official_metrics()
        why = loaded.error or f"{loaded.unavailable().get(name, 'not exported')}; {INSTALL_HINT}"
        _missing(f"OSWorld's {name} is not loaded: {why}")


# -- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "expected", "want"),
    [("100\n", "100\n", 1), ("100", "100\n", 0), ("", "", 1), (["a", "b"], ["a", "b"], 1), (None, "x", 0), (3, 3, 1)],
)
def test_exact_match(result: Any, expected: Any, want: float) -> None:
    check("exact_match", result, {"expected": expected}, want=want)


@pytest.mark.parametrize(
    ("result", "expected", "want"),
    [(["a", "b"], "a", 1), (["a", "b"], "c", 0), ("/home/user/x", "/home", 1), ([], "x", 0), ("abc", "", 1)],
)
def test_is_in_list(result: Any, expected: Any, want: float) -> None:
    check("is_in_list", result, {"expected": expected}, want=want)


@pytest.mark.parametrize(
    ("result", "rules", "want"),
    [
        ("filters-vignette ok", {"include": ["filters-vignette"], "exclude": ["error"]}, 1),
        ("filters-vignette error", {"include": ["filters-vignette"], "exclude": ["error"]}, 0),
        ("nothing", {"include": ["filters-vignette"], "exclude": []}, 0),
        ("anything", {}, 1),
        (None, {"include": []}, 0),
        ("", {"exclude": [""]}, 0),
    ],
)
def test_check_include_exclude(result: Any, rules: dict[str, Any], want: float) -> None:
    check("check_include_exclude", result, rules, want=want)


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [("hello world", "hello word", 20 / 21), ("", "", 1), ("abc", "xyz", 0), ("café", "cafe", 0.75), ("a", "", 0)],
)
def test_fuzzy_match(a: str, b: str, want: float) -> None:
    check("fuzzy_match", a, {"expected": b}, want=want)


def test_fuzzy_match_on_random_strings() -> None:
    rng = random.Random(7)
    for i in range(300):
        n, m = (rng.randint(0, 300), rng.randint(0, 300)) if i % 10 == 0 else (rng.randint(0, 12), rng.randint(0, 12))
        a = "".join(rng.choice("abcde ") for _ in range(n))
        b = "".join(rng.choice("abcdef") for _ in range(m))
        check("fuzzy_match", a, {"expected": b})
    # the bit-parallel LCS against the textbook table
    for _ in range(200):
        a = "".join(rng.choice("ab") for _ in range(rng.randint(0, 9)))
        b = "".join(rng.choice("abc") for _ in range(rng.randint(0, 9)))
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
        lcs = table[len(a)][len(b)]
        total = len(a) + len(b)
        assert fuzz_ratio(a, b) == (100.0 if total == 0 else 100.0 * (1.0 - (total - 2 * lcs) / total))


# -- files -------------------------------------------------------------------------------------


def _write(path: Path, text: str | bytes) -> str:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


@pytest.mark.parametrize(
    ("actual", "expected", "options", "want"),
    [
        ("test one\ntest two\n", "test one\ntest two\n", {}, 1),
        ("text one\n", "test one\n", {}, 0),
        ("a  b\n\tc\n", "a b c", {"ignore_blanks": True}, 1),
        ("a  b\n\tc\n", "a b c", {}, 0),
        ("ABC", "abc", {"ignore_case": True}, 1),
        ("a\r\nb\r\n", "a\nb\n", {}, 1),  # universal newlines, as open() reads them
        ("", "", {}, 1),
    ],
)
def test_compare_text_file(tmp_path: Path, actual: str, expected: str, options: dict[str, Any], want: float) -> None:
    check(
        "compare_text_file",
        _write(tmp_path / "a.txt", actual),
        _write(tmp_path / "e.txt", expected),
        want=want,
        **options,
    )


def test_compare_text_file_without_a_result(tmp_path: Path) -> None:
    expected = _write(tmp_path / "e.txt", "x")
    check("compare_text_file", None, expected, want=0)
    check("compare_text_file", "", expected, want=0)


@pytest.mark.parametrize(
    ("result", "expected", "options", "want"),
    [
        (b"a,b\n1,2\n", b"a,b\n1,2\n", {}, 1),
        (b"a,b\n1,2\n", b"a,b\n1,3\n", {}, 0),
        (b"a,b \n1,2\n", b"a,b\n1,2\n", {"strict": False}, 1),
        (b"a,b \n1,2\n", b"a,b\n1,2\n", {}, 0),
        (b"A,B\n", b"a,b\n", {"ignore_case": True}, 1),
        ("caf\u00e9,1\n".encode("latin-1"), "caf\u00e9,1\n".encode(), {}, 1),  # read with the first encoding that works
        (b"a,b\r\n1,2\r\n", b"a,b\n1,2", {}, 1),
        (b"", b"", {}, 1),
        (b"a,b\n", b"a,b\n\n", {}, 0),
    ],
)
def test_compare_csv(tmp_path: Path, result: bytes, expected: bytes, options: dict[str, Any], want: float) -> None:
    check("compare_csv", _write(tmp_path / "r.csv", result), _write(tmp_path / "e.csv", expected), want=want, **options)


def test_compare_csv_with_several_expected_files_and_missing_ones(tmp_path: Path) -> None:
    result = _write(tmp_path / "r.csv", "x\n")
    one, two = _write(tmp_path / "1.csv", "y\n"), _write(tmp_path / "2.csv", "x\n")
    check("compare_csv", result, [one, str(tmp_path / "absent.csv"), two], want=1)
    check("compare_csv", result, [one], want=0)
    check("compare_csv", str(tmp_path / "absent.csv"), one, want=0)
    check("compare_csv", None, one, want=0)


@pytest.mark.parametrize(
    ("data", "rules", "want"),
    [
        ({"a": {"b": 5}}, {"expect": [{"key": ["a", "b"], "method": "eq", "ref": 5}]}, 1),
        ({"a": {"b": 5}}, {"expect": [{"key": ["a", "b"], "method": "eq", "ref": 6}]}, 0),
        ({"a": {"b": 5}}, {"expect": [{"key": ["a", "c"], "method": "eq", "ref": 5}]}, 0),
        ({"a": "Hello"}, {"expect": [{"key": ["a"], "method": "re.I", "ref": "^hello"}]}, 1),
        ({"a": "1.05"}, {"expect": [{"key": ["a"], "method": "approx:0.1", "ref": 1.0}]}, 1),
        ({"a": 3}, {"expect": [{"key": ["a"], "method": "range.te", "ref": [1, 3]}]}, 1),
        ({"a": "x,y"}, {"expect": [{"key": ["a"], "method": "str_set_eq", "ref": ["y", "x"]}]}, 1),
        ({"a": 1}, {"unexpect": [{"key": ["b"], "method": "eq", "ref": None}]}, 0),
        ({"a": 1}, {"unexpect": [{"key": ["a"], "method": "eq", "ref": 2}]}, 1),
        ({"a": 1}, {"expect": [{"key": ["a"], "method": "nonsense", "ref": 2}]}, 0),
        ([1, 2], {"expect": [{"key": ["a"], "method": "eq", "ref": 1}]}, 0),
    ],
)
def test_check_json(tmp_path: Path, data: Any, rules: dict[str, Any], want: float) -> None:
    check("check_json", _write(tmp_path / "s.json", json.dumps(data)), rules, want=want)


def test_check_json_on_yaml_broken_and_missing_files(tmp_path: Path) -> None:
    rules = {"expect": [{"key": ["a"], "method": "eq", "ref": 1}]}
    check("check_json", _write(tmp_path / "s.yaml", "a: 1\n"), rules, is_yaml=True, want=1)
    check("check_json", _write(tmp_path / "bad.json", "{not json"), rules, want=0)
    check("check_json", str(tmp_path / "absent.json"), rules, want=0)
    check("check_json", None, rules, want=0)


@pytest.mark.parametrize(
    ("text", "expected", "want"),
    [
        ('{"editor.wordWrapColumn": 50, "x": 1}', {"editor.wordWrapColumn": 50}, 1),
        ('{"editor.wordWrapColumn": 80}', {"editor.wordWrapColumn": 50}, 0),
        ("{}", {"editor.wordWrapColumn": 50}, 0),
        ("// comments are not JSON\n{}", {"a": 1}, 0),
    ],
)
def test_check_json_settings(tmp_path: Path, text: str, expected: dict[str, Any], want: float) -> None:
    check("check_json_settings", _write(tmp_path / "settings.json", text), {"expected": expected}, want=want)


def test_run_sqlite3(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    with sqlite3.connect(db) as connection:
        connection.execute("create table m (id int, starred int)")
        connection.executemany("insert into m values (?, ?)", [(1, 1), (2, 0)])
    check("run_sqlite3", str(db), {"sql": "select count(*) = 2 from m"}, want=1)
    check("run_sqlite3", str(db), {"sql": "select min(starred) = 1 from m"}, want=0)
    check("run_sqlite3", str(db), {"sql": "select null"}, want=0)


def test_diff_text_file(tmp_path: Path) -> None:
    a, b = _write(tmp_path / "a", "1\n2\n3\n"), _write(tmp_path / "b", "1\n2\n4\n")
    check("diff_text_file", a, b, want=2 / 3)
    check("diff_text_file", a, a, want=1)


# -- compare_table -----------------------------------------------------------------------------


def _xlsx(path: Path, sheets: dict[str, list[list[Any]]]) -> str:
    openpyxl = pytest.importorskip("openpyxl", reason="writing test spreadsheets needs openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for r, row in enumerate(rows, 1):
            for c, value in enumerate(row, 1):
                if value is not None:
                    sheet.cell(r, c, value)
    book.save(path)
    return str(path)


DATA = [["Name", "Score", "Passed"], ["ann", 1.5, True], ["bob", 2, False], ["cy", None, True]]
SHEET_DATA = {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}


def _changed(row: int, column: int, value: Any) -> list[list[Any]]:
    rows = [list(r) for r in DATA]
    rows[row][column] = value
    return rows


@pytest.mark.parametrize(
    ("result", "options", "want"),
    [
        ({"Sheet1": DATA}, SHEET_DATA, 1),
        ({"Sheet1": _changed(1, 1, 1.6)}, SHEET_DATA, 0),
        ({"Sheet1": _changed(1, 1, 1.500001)}, SHEET_DATA, 1),  # rounded to 4 digits
        ({"Sheet1": _changed(1, 1, 1.50049)}, {"rules": [{**SHEET_DATA["rules"][0], "precision": 2}]}, 1),
        ({"Sheet1": _changed(2, 1, 2.0)}, SHEET_DATA, 1),  # 2.0 is read as 2
        ({"Sheet1": _changed(2, 1, "2")}, SHEET_DATA, 1),  # and so is the text "2"
        ({"Sheet1": _changed(3, 1, "NA")}, SHEET_DATA, 1),  # a missing-value string is a blank
        ({"Sheet1": _changed(3, 1, 0)}, SHEET_DATA, 0),
        ({"Sheet1": _changed(0, 2, "passed")}, SHEET_DATA, 0),  # a header differs
        ({"Sheet1": _changed(1, 2, "True")}, SHEET_DATA, 1),  # "True" text among booleans
        ({"Sheet1": [*DATA, [None, None, None]]}, SHEET_DATA, 1),  # trailing blank row
        ({"Sheet1": [*DATA, ["dan", 3, True]]}, SHEET_DATA, 0),
        ({"Sheet1": [[*r, None] for r in DATA]}, SHEET_DATA, 1),
        ({"Other": DATA}, SHEET_DATA, 1),  # index 0 is whatever the first sheet is called
        ({"Other": DATA}, {"rules": [{"type": "sheet_name"}]}, 0),
        ({"Sheet1": DATA}, {"rules": [{"type": "sheet_name"}, *SHEET_DATA["rules"]]}, 1),
        ({"Sheet1": DATA}, {"rules": [{"type": "sheet_data", "sheet_idx0": "RI1", "sheet_idx1": "EI0"}]}, 0),
        ({"Sheet1": DATA}, {"rules": [{"type": "sheet_data", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"}]}, 1),
        ({"Sheet1": DATA, "Extra": [["x"]]}, {"rules": [{"type": "sheet_name"}]}, 0),
    ],
)
def test_compare_table(
    tmp_path: Path, result: dict[str, list[list[Any]]], options: dict[str, Any], want: float
) -> None:
    expected = _xlsx(tmp_path / "gold.xlsx", {"Sheet1": DATA})
    check("compare_table", _xlsx(tmp_path / "result.xlsx", result), expected, want=want, **options)


def test_compare_table_without_a_readable_result(tmp_path: Path) -> None:
    expected = _xlsx(tmp_path / "gold.xlsx", {"Sheet1": DATA})
    check("compare_table", None, expected, want=0, **SHEET_DATA)
    check("compare_table", str(tmp_path / "absent.xlsx"), expected, want=0, **SHEET_DATA)
    check("compare_table", _write(tmp_path / "not.xlsx", "a,b\n"), expected, want=0, **SHEET_DATA)


def test_compare_table_sheet_print_reads_the_printed_csv(tmp_path: Path) -> None:
    result = _xlsx(tmp_path / "r.xlsx", {"Sheet1": DATA})
    expected = _xlsx(tmp_path / "e.xlsx", {"Sheet1": DATA})
    rule = {"rules": [{"type": "sheet_print", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"}]}
    _write(tmp_path / "r-Sheet1.csv", "Name,Score\nann,1.5\n\n")
    _write(tmp_path / "e-Sheet1.csv", "name,score\nann,1.5 \n")
    check("compare_table", result, expected, want=0, **rule)
    check("compare_table", result, expected, want=1, rules=[{**rule["rules"][0], "ignore_case": True}])
    check("compare_table", result, expected, want=0, rules=[{**rule["rules"][0], "sheet_idx0": "RNAbsent"}])


def test_compare_table_on_random_sheets(tmp_path: Path) -> None:
    """Random small tables and one-cell changes: our reading of them agrees with pandas'."""
    require_osworld("compare_table")
    rng = random.Random(3)
    values = [
        None,
        "",
        "a",
        "NA",
        "123",
        "1.5",
        "True",
        "false",
        0,
        1,
        2,
        -3,
        1.5,
        2.0,
        1e-7,
        0.123456789,
        True,
        False,
        "x y",
    ]
    for n in range(40):
        width = rng.randint(1, 4)
        header = [rng.choice(["h1", "h2", None, 5]) for _ in range(width)]
        rows = [[rng.choice(values) for _ in range(width)] for _ in range(rng.randint(0, 5))]
        changed = [list(r) for r in rows]
        if changed and rng.random() < 0.6:
            changed[rng.randrange(len(changed))][rng.randrange(width)] = rng.choice(values)
        a = _xlsx(tmp_path / f"a{n}.xlsx", {"S": [header, *rows]})
        b = _xlsx(tmp_path / f"b{n}.xlsx", {"S": [header, *changed]})
        check("compare_table", a, b, **SHEET_DATA)


def test_compare_table_reads_dates_and_formulas_as_pandas_does(tmp_path: Path) -> None:
    require_osworld("compare_table")
    import datetime as dt

    rows = [["when", "n"], [dt.datetime(2024, 1, 2), 1], [dt.date(2024, 3, 4), 2]]
    a = _xlsx(tmp_path / "a.xlsx", {"S": rows})
    b = _xlsx(tmp_path / "b.xlsx", {"S": [rows[0], [dt.datetime(2024, 1, 2), 1], [dt.datetime(2024, 3, 4), 2]]})
    c = _xlsx(tmp_path / "c.xlsx", {"S": [rows[0], [dt.datetime(2024, 1, 3), 1], rows[2]]})
    check("compare_table", a, b, want=1, **SHEET_DATA)
    check("compare_table", a, c, want=0, **SHEET_DATA)
    # formulas saved by openpyxl have no cached value: both sides read blanks
    d = _xlsx(tmp_path / "d.xlsx", {"S": [["x"], ["=1+1"]]})
    e = _xlsx(tmp_path / "e.xlsx", {"S": [["x"], [None]]})
    check("compare_table", d, e, **SHEET_DATA)


# -- OSWorld's functions themselves -----------------------------------------------------------


def test_official_metrics_load_without_easyocr_or_torch() -> None:
    code = (
        "import sys; from cua_bench_osworld.official import official_metrics; m = official_metrics(); "
        "print(m.installed, len(m.functions), len(m.names)); "
        "assert 'easyocr' not in sys.modules and 'torch' not in sys.modules, 'heavy modules imported'"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    installed, loaded, names = out.split()
    if installed == "False":
        _missing(f"desktop-env is not installed; {INSTALL_HINT}")
    assert int(names) == 137  # OSWorld's metric names, read from metrics/__init__.py
    for name in BUILTIN_METRICS.keys() - NEWER_THAN_DESKTOP_ENV:  # ours are all there to compare against
        assert _osworld(name) is not None, name
    for name in NEWER_THAN_DESKTOP_ENV:  # and these are not, yet (their tests hold them to OSWorld's formula)
        assert _osworld(name) is None, f"desktop-env has {name} now: compare ours with it"
    assert int(loaded) >= len(BUILTIN_METRICS) - len(NEWER_THAN_DESKTOP_ENV)


def test_deferred_modules_import_on_first_use_or_say_what_is_missing() -> None:
    assert _Deferred("json").dumps([1]) == "[1]"
    with pytest.raises(ImportError, match="no_such_module_here"):
        _Deferred("no_such_module_here").Reader


def test_every_osworld_metric_function_loads_but_the_documented_ones() -> None:
    """cua-bench[osworld] (the dev extra has the same list) brings what every metric module imports:
    a package dropped from the extra, or a new import in desktop-env, fails this by name."""
    loaded = official_metrics()
    if not loaded.installed:
        _missing(f"desktop-env is not installed; {INSTALL_HINT}")
    assert len(loaded.names) == 137
    not_loaded = loaded.unavailable()
    assert set(not_loaded) == set(NOT_FUNCTIONS), f"not loaded: {not_loaded}"
    assert len(loaded.functions) == 137 - len(NOT_FUNCTIONS) == 136
    # Modules the metric files import on first use: installed too, but for the documented exception.
    left_out = {module for module, _ in OUTSIDE_EXTRA.values()}
    for module in LAZY_MODULES:
        if module not in left_out:
            assert importlib.util.find_spec(module) is not None, f"{module} (a deferred import) is not installed"
    for name in loaded.functions:
        assert loaded.needs(name) is None or name in OUTSIDE_EXTRA, name


def test_a_metric_that_cannot_load_names_the_package_and_the_command() -> None:
    broken = OfficialMetrics(
        version="1.0.2",
        names={"compare_pdfs": "chrome", "check_mp3_meta": "others", "odd": "vlc"},
        failed={"chrome": "ModuleNotFoundError: No module named 'fitz'", "vlc": "SyntaxError: bad"},
        functions={"check_mp3_meta": lambda *a: 1.0},
    )
    assert (
        broken.needs("compare_pdfs")
        == 'compare_pdfs needs pymupdf: pip install "./packages/cua-bench[osworld]" (from a clone of cua)'
    )
    assert broken.needs("check_mp3_meta") is None
    assert broken.needs("odd") == "odd: desktop-env's vlc.py did not load (SyntaxError: bad)"
    assert "not one of desktop-env 1.0.2's metrics" in (broken.needs("nope") or "")
    assert "desktop-env==1.0.2" in (OfficialMetrics(error="absent").needs("compare_pdfs") or "")


def test_easyocr_stays_out_and_its_metric_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "easyocr" else real(name, *a))
    why = OfficialMetrics(version="1.0.2", functions={"compare_image_text": lambda *a: 1.0}).needs("compare_image_text")
    assert (
        why is not None
        and why.startswith("compare_image_text needs easyocr (torch and CUDA")
        and "pip install easyocr" in why
    )


def _assert_url_metrics_stay_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, loaded: OfficialMetrics) -> None:
    fn = loaded.functions.get("is_expected_tabs")
    if fn is None:
        _missing(f"OSWorld's is_expected_tabs is not loaded; {INSTALL_HINT}")
    reached: list[Any] = []  # tldextract swallows a failed download, so each attempt is recorded

    def refuse(address: Any, *args: Any, **kwargs: Any) -> Any:
        reached.append(address)
        raise OSError(f"no network here ({address})")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)  # urllib3 resolves the name first
    monkeypatch.setenv("TLDEXTRACT_CACHE", str(tmp_path))  # a cached list from an earlier run would hide it
    compare_urls = fn.__globals__["compare_urls"]  # the one that metric file imported from utils
    assert compare_urls("https://www.example.co.uk/a?b=1", "https://example.co.uk/a?b=1") is True
    assert compare_urls("https://news.example.co.uk/a", "https://example.com/a") is False
    assert fn([{"url": "https://www.example.com/"}], {"type": "url", "urls": ["https://example.com/"]}) == 1
    assert reached == []


def test_osworld_url_metrics_never_reach_the_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """compare_urls (Chrome's tab and URL metrics) uses tldextract, whose own ``extract`` downloads
    the Public Suffix List on first use; ours reads the copy tldextract ships."""
    _assert_url_metrics_stay_offline(monkeypatch, tmp_path, official_metrics())


def test_url_metrics_stay_offline_when_tldextract_was_imported_before_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """chrome.py imports tldextract for its own URL comparison, so an env server that scored a
    Chrome task before loading OSWorld's metrics has the real module already; the metric files must
    still get the offline ``extract`` (they got the downloading one, and CI caught it by test order)."""
    if official_metrics().functions.get("is_expected_tabs") is None:
        _missing(f"OSWorld's is_expected_tabs is not loaded; {INSTALL_HINT}")
    import tldextract

    for name in [n for n in sys.modules if n == "desktop_env" or n.startswith("desktop_env.")]:
        monkeypatch.delitem(sys.modules, name)  # a fresh load, as in a new process; put back after
    monkeypatch.setattr(official, "_loaded", {})
    loaded = official_metrics()
    assert sys.modules["tldextract"] is tldextract  # everyone else keeps the real module
    _assert_url_metrics_stay_offline(monkeypatch, tmp_path, loaded)


def test_unavailable_metrics_say_why() -> None:
    loaded = official_metrics()
    if not loaded.installed:
        assert loaded.error is not None and "desktop-env" in loaded.error
        _missing(f"desktop-env is not installed, so only its absence was checked; {INSTALL_HINT}")
    for name, why in loaded.unavailable().items():
        assert name not in loaded.functions and why, name


def test_csv_helper_roundtrip(tmp_path: Path) -> None:
    # compare_csv compares lines as written: csv.writer's \r\n and a plain \n read the same
    path = tmp_path / "w.csv"
    with path.open("w", newline="") as f:
        csv.writer(f).writerows([["a", "b"], ["1", "2"]])
    check("compare_csv", str(path), _write(tmp_path / "e.csv", "a,b\n1,2\n"), want=1)


@pytest.mark.parametrize("number_format", ["yyyy-mm-dd", "h:mm", "[h]:mm:ss", "mm:ss", '"day" d', "0.00", "[Red]0.00"])
def test_compare_table_reads_number_formats_as_openpyxl_does(tmp_path: Path, number_format: str) -> None:
    openpyxl = pytest.importorskip("openpyxl", reason="writing test spreadsheets needs openpyxl")

    def book(name: str, values: list[float]) -> str:
        wb = openpyxl.Workbook()
        wb.active.cell(1, 1, "when")
        for i, value in enumerate(values, 2):
            wb.active.cell(i, 1, value).number_format = number_format
        wb.save(tmp_path / name)
        return str(tmp_path / name)

    base = book("a.xlsx", [0.5, 45000.75, 59, 2])
    check("compare_table", base, book("b.xlsx", [0.5, 45000.75, 59, 2]), want=1, **SHEET_DATA)
    check("compare_table", base, book("c.xlsx", [0.5, 45000.75, 59, 3]), want=0, **SHEET_DATA)
    check("compare_table", base, book("d.xlsx", [0.50001, 45000.75, 59, 2]), **SHEET_DATA)
