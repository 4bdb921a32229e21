"""Built-in versions of OSWorld's most used metrics, for the base install.

Each takes what OSWorld's function of the same name takes (values, or paths of files the getters
fetched) and returns the same score; the differential tests feed both the same inputs. With
``desktop-env`` installed, evaluation uses OSWorld's own functions instead (see ``official``).
Where OSWorld would raise on a missing result (``None``), these return 0.
"""

from __future__ import annotations

import builtins
import difflib
import functools
import itertools
import json
import operator
import os
import re
import sqlite3
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from cua_bench_osworld import xlsx
from cua_bench_osworld.structure_sim import check_structure_sim_with_threshold

__all__ = ["BUILTIN_METRICS", "COMPARE_TABLE_RULES", "fuzz_ratio", "match_value_to_rule"]

COMPARE_TABLE_RULES = frozenset({"sheet_name", "sheet_data", "sheet_print"})


def exact_match(result: Any, rules: dict[str, Any]) -> float:
    return 1.0 if result == rules["expected"] else 0.0


def is_in_list(result: Any, rules: dict[str, Any]) -> float:
    if result is None:
        return 0.0
    return 1.0 if rules["expected"] in result else 0.0


def check_include_exclude(result: str | None, rules: dict[str, list[str]]) -> float:
    if result is None:
        return 0.0
    include = rules.get("include", [])
    exclude = rules.get("exclude", [])
    return 1.0 if all(r in result for r in include) and all(r not in result for r in exclude) else 0.0


def _lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Longest common subsequence by bit-parallel dynamic programming (Hyyrö), O(len(a)) big-int steps."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[Hashable, int] = {}
    for i, item in enumerate(b):
        masks[item] = masks.get(item, 0) | (1 << i)
    full = (1 << len(b)) - 1
    row = full
    for item in a:
        matches = row & masks.get(item, 0)
        row = ((row + matches) | (row - matches)) & full
    return len(b) - row.bit_count()


def fuzz_ratio(a: Sequence[Hashable] | None, b: Sequence[Hashable] | None) -> float:
    """rapidfuzz's ``fuzz.ratio``: the normalised Indel similarity of two strings (or lists), in [0, 100]."""
    if a is None or b is None:
        return 0.0
    total = len(a) + len(b)
    if total == 0:
        return 100.0
    distance = total - 2 * _lcs_length(a, b)
    return 100.0 * (1.0 - distance / total)


def fuzzy_match(result: Any, rules: dict[str, Any]) -> float:
    return fuzz_ratio(result, rules["expected"]) / 100.0


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def compare_text_file(actual: str | None, expected: str, **options: Any) -> float:
    if not actual:
        return 0.0
    actual_text, expected_text = _read_text(actual), _read_text(expected)
    if options.get("ignore_blanks", False):
        actual_text = re.sub(r"\s+", " ", re.sub(r"[\t\n]", " ", actual_text).strip())
        expected_text = re.sub(r"\s+", " ", re.sub(r"[\t\n]", " ", expected_text).strip())
    if options.get("ignore_case", False):
        actual_text, expected_text = actual_text.lower(), expected_text.lower()
    return 1.0 if actual_text == expected_text else 0.0


_ENCODINGS = ("utf-8", "utf-8-sig", "latin-1", "windows-1252", "gbk", "cp1251", "iso-8859-1")


def _lines(path: str) -> list[str]:
    """OSWorld's ``_safe_read_file``: the first encoding that decodes, lines without their ends."""
    for encoding in _ENCODINGS:
        try:
            with open(path, encoding=encoding) as f:
                return f.read().splitlines()
        except UnicodeDecodeError:
            continue
    with open(path, encoding="utf-8", errors="replace") as f:  # pragma: no cover - latin-1 decodes anything
        return f.read().splitlines()


def compare_csv(result: str | None, expected: str | list[str], **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        result_lines = _lines(result)
    except OSError:
        return 0.0
    for path in [expected] if isinstance(expected, str) else expected:
        try:
            expected_lines = _lines(path)
        except OSError:
            continue
        ours, theirs = result_lines, expected_lines
        if not options.get("strict", True):
            ours, theirs = [s.strip() for s in ours], [s.strip() for s in theirs]
        if options.get("ignore_case", False):
            ours, theirs = [s.lower() for s in ours], [s.lower() for s in theirs]
        if ours == theirs:
            return 1.0
    return 0.0


def match_value_to_rule(value: Any, rule: dict[str, Any]) -> bool:
    """OSWorld's ``_match_value_to_rule`` (all methods but ``spreadsheet_range``, which needs openpyxl)."""
    method: str = rule["method"]
    if method.startswith("re"):
        flags = (getattr(re, name) for name in method.split(".")[1:])
        flag = functools.reduce(operator.or_, flags, re.RegexFlag(0))
        return re.search(rule["ref"], value, flag) is not None
    if method in {"eq", "ne", "le", "lt", "ge", "gt"}:
        return bool(getattr(operator, method)(value, rule["ref"]))
    if method.startswith("approx"):
        threshold = float(method.split(":")[1])
        try:
            number = float(value)
        except (ValueError, TypeError):
            return False
        return bool(abs(number - rule["ref"]) <= threshold)
    if method.startswith("range."):
        left, right = method[6], method[7]
        return bool(
            getattr(operator, "l" + left)(rule["ref"][0], value)
            and getattr(operator, "l" + right)(value, rule["ref"][1])
        )
    if method in {"str_list_eq", "str_set_eq"}:
        container = getattr(builtins, method[4:-3])
        return bool(container(value.strip("\"'").split(",")) == container(rule["ref"]))
    raise NotImplementedError(f"match method {method!r}")


def check_json(result: str | None, rules: dict[str, Any], is_yaml: bool = False) -> float:
    if result is None or not os.path.exists(result):
        return 0.0
    try:
        with open(result, encoding="utf-8") as f:
            if is_yaml:
                import yaml

                data = yaml.safe_load(f)
                if data is None:
                    return 0.0
            else:
                data = json.load(f)
    except Exception:
        return 0.0
    metric = True
    for rule in rules.get("expect", {}):
        value = data
        try:
            for key in rule["key"]:
                try:
                    value = value[key]
                except (KeyError, TypeError):
                    return 0.0
            metric = metric and match_value_to_rule(value, rule)
        except Exception:
            return 0.0
    for rule in rules.get("unexpect", {}):
        value = data
        try:
            for key in rule["key"]:
                try:
                    value = value[key]
                except (KeyError, TypeError):
                    value = None
                    break
            metric = metric and not match_value_to_rule(value, rule)
        except Exception:
            return 0.0
    return float(metric)


def check_json_settings(actual: str | None, expected: dict[str, Any], **options: Any) -> float:
    if not actual:
        return 0.0
    try:
        with open(actual, encoding="utf-8") as f:
            data = json.load(f)
    except Exception:
        return 0.0
    for key, value in expected["expected"].items():
        if key not in data or data[key] != value:
            return 0.0
    return 1.0


def run_sqlite3(result: str | None, rules: dict[str, Any]) -> float:
    if result is None:
        return 0.0
    connection = sqlite3.connect(result)
    try:
        row = connection.execute(rules["sql"]).fetchone()
    finally:
        connection.close()
    return float(row[0] or 0)


# -- compare_table -----------------------------------------------------------------------------


def _sheet(
    index: int | str, result: Any, expected: Any, result_names: list[str], expected_names: list[str] | None
) -> tuple[Any, str]:
    """OSWorld's ``_parse_sheet_idx``: 0, "RI0", "RNSheet1" name a result sheet; "EI0", "ENSheet1" an expected one."""
    if isinstance(index, int):
        return result, result_names[index] if 0 <= index < len(result_names) else ""
    if index.startswith(("RI", "EI")):
        names = result_names if index.startswith("R") else (expected_names or [])
        try:
            name = names[int(index[2:])]
        except (ValueError, IndexError):
            name = ""
        return (result if index.startswith("R") else expected), name
    if index.startswith("RN"):
        return result, index[2:]
    if index.startswith("EN"):
        return expected, index[2:]
    raise ValueError("Unrecognized sheet index")


def _printed(path: str, sheet: str) -> list[str] | None:
    """The sheet as LibreOffice printed it to ``<file>-<sheet>.csv``, trailing blank lines dropped, reversed."""
    try:
        lines = _lines(f"{os.path.splitext(path)[0]}-{sheet}.csv")
    except OSError:
        return None
    return list(itertools.dropwhile(lambda line: len(line) == 0, (line.strip() for line in reversed(lines))))


def compare_table(result: str | None, expected: str | None = None, **options: Any) -> float:
    """Sheet names, sheet data (as pandas reads it, rounded) and printed sheets; OSWorld's other rules
    (charts, styles, filters, pivot tables ...) need its own metric."""
    if result is None or not os.path.exists(result):
        return 0.0
    try:
        book_r = xlsx.read_workbook(result)
    except Exception:
        return 0.0
    book_e = xlsx.read_workbook(expected) if expected is not None else None
    names_r = book_r.sheet_names
    names_e = book_e.sheet_names if book_e is not None else None
    passes = True
    for rule in options["rules"]:
        kind = rule["type"]
        if kind == "sheet_name":
            metric = names_r == names_e
        elif kind == "sheet_data":
            digits = rule.get("precision", 4)
            frames = []
            for index in (rule["sheet_idx0"], rule["sheet_idx1"]):
                book, name = _sheet(index, book_r, book_e, names_r, names_e)
                rows = book.sheets.get(name) if book is not None else None
                frames.append(xlsx.to_frame(rows) if rows is not None else None)
            if frames[0] is None or frames[1] is None:
                return 0.0
            metric = frames[0].round(digits).equals(frames[1].round(digits))
        elif kind == "sheet_print":
            printed = []
            for index in (rule["sheet_idx0"], rule["sheet_idx1"]):
                path, name = _sheet(index, result, expected, names_r, names_e)
                printed.append(_printed(path, name) if path is not None else None)
            first, second = printed
            if first is None:
                return 0.0
            if second is not None and rule.get("ignore_case", False):
                first, second = [s.lower() for s in first], [s.lower() for s in second]
            metric = first == second
        else:
            raise NotImplementedError(f"compare_table rule {kind!r} is OSWorld's only (install desktop-env)")
        passes = passes and metric
        if not passes:
            break
    return float(passes)


def diff_text_file(result: str | None, expect: str) -> float:
    if result is None:
        return 0.0
    return difflib.SequenceMatcher(a=_read_text(result).splitlines(), b=_read_text(expect).splitlines()).ratio()


BUILTIN_METRICS: dict[str, Callable[..., float]] = {
    "exact_match": exact_match,
    "fuzzy_match": fuzzy_match,
    "check_include_exclude": check_include_exclude,
    "compare_text_file": compare_text_file,
    "compare_table": compare_table,
    "compare_csv": compare_csv,
    "is_in_list": is_in_list,
    "check_json": check_json,
    "check_json_settings": check_json_settings,
    "run_sqlite3": run_sqlite3,
    "diff_text_file": diff_text_file,
    "check_structure_sim_with_threshold": check_structure_sim_with_threshold,
}
"""name -> function; ``infeasible`` is not here because the evaluator itself scores it."""
