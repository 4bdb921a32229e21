"""``_kate``'s pure parts and the Kate tasks' expected files: Kate's titles, the keys that select a range,
bytes read strictly, and each task's answer against
wrong files that must not pass (no desktop needed)."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from cua_bench.tasks import load_task_module
from cua_bench_tasks_desktop import _kate
from cua_bench_tasks_desktop._kate import KATE_WRITES, difference, select_lines, strict_text, title
from cua_core import KeyPress

TASKS = Path(_kate.__file__).parent


def _module(name: str) -> ModuleType:
    return load_task_module(TASKS / name).module


class _Task:
    def __init__(self) -> None:
        self.why: list[str] = []

    def explain(self, text: str) -> None:
        self.why.append(text)


def test_kate_titles_tell_a_saved_document_from_a_changed_one() -> None:
    assert title("notes/list.txt")("list.txt  — Kate")
    assert not title("notes/list.txt")("list.txt * — Kate")
    assert title("notes/list.txt", clean=False)("list.txt * — Kate")
    assert not title("notes/list.txt")("other.txt  — Kate")
    assert _kate.dirty("a/b.py")("b.py * — Kate") and not _kate.dirty("a/b.py")("b.py  — Kate")


def test_select_lines_goes_down_to_the_first_and_extends_to_the_last_line_end() -> None:
    keys = [a for a in select_lines(2, 4) if isinstance(a, KeyPress)]
    assert [k.keys for k in keys].count(("down",)) == 2
    assert [k.keys for k in keys].count(("shift", "down")) == 2
    assert keys[-1].keys == ("shift", "end")


def test_text_is_read_strictly_and_differences_point_at_the_byte() -> None:
    assert strict_text(b"caf\xc3\xa9\n") == "café\n"
    assert strict_text(b"caf\xe9\n") is None and strict_text(None) is None
    assert "byte 3" in difference(b"abcX", b"abcd")
    assert "bytes, not" in difference(b"abc", b"abcd")


def test_kates_own_files_are_named_relative_to_home_with_a_reason() -> None:
    assert ".local/share/kate" in KATE_WRITES and _kate.KATERC in KATE_WRITES
    assert all(not path.startswith("/") and reason for path, reason in KATE_WRITES.items())


def test_uppercase_sort_and_join_expect_only_the_range_changed() -> None:
    upper = _module("kate-uppercase-lines")
    meta = {"text": "ab\ncd\nef\n", "first": 1, "last": 1}
    assert upper.expected(meta) == b"ab\nCD\nef\n"
    sort = _module("kate-sort-selection")
    meta = {"text": "z\nc\nb\na\ny\n", "first": 1, "last": 3}
    assert sort.expected(meta) == b"z\na\nb\nc\ny\n"
    join = _module("kate-join-lines")
    meta = {"text": "a b\nc\nd\ne\n", "first": 0, "last": 1}
    assert join.joined(meta, 0, 1) == b"a b c\nd\ne\n"
    assert join.joined(meta, 0, 2) != join.joined(meta, 0, 1)
    for task in (upper, sort, join):
        for variant in task.load_test()[:5]:
            m = variant.metadata
            right = task.expected(m) if task is not join else join.joined(m, m["first"], m["last"])
            assert right != m["text"].encode() and right.endswith(b"\n")


def test_every_sort_seed_tells_the_range_from_a_longer_one_and_from_the_whole_file() -> None:
    sort = _module("kate-sort-selection")
    for variant in [*sort.load_test(), *sort.load_train()]:
        m = variant.metadata
        longer = {**m, "last": m["last"] + 1}
        everything = {**m, "first": 0, "last": m["text"].count("\n") - 1}
        assert sort.expected(m) not in (sort.expected(longer), sort.expected(everything), m["text"].encode())


def test_bom_crlf_wants_the_mark_and_crlf_in_utf8() -> None:
    bom = _module("kate-bom-crlf")
    meta = {"text": "café\nb\n"}
    assert bom.encoded(meta) == b"\xef\xbb\xbfcaf\xc3\xa9\r\nb\r\n"
    assert bom.encoded(meta, bom=False) != bom.encoded(meta)
    assert bom.encoded(meta, ending="\r") != bom.encoded(meta)


def test_regex_replace_rewrites_every_date_and_nothing_else() -> None:
    task = _module("kate-regex-replace")
    meta = {"text": "2027-03-15 the rapid river #2024\n2019-11-20 x #12\n"}
    assert task.expected(meta) == b"15.03.2027 the rapid river #2024\n20.11.2019 x #12\n"
    for variant in task.load_test():
        assert re.findall(task.DATE, variant.metadata["text"])
        assert task.expected(variant.metadata) != re.sub(task.DATE, r"\2.\3.\1", variant.metadata["text"]).encode()


def test_comment_lines_accepts_kates_markers_in_the_indentation_only() -> None:
    task = _module("kate-comment-lines")
    meta = {"text": "def f(x):\n    x = x + 1\n    return x\n", "first": 1, "last": 2}
    assert task.problem(b"def f(x):\n    # x = x + 1\n    # return x\n", meta) is None
    assert task.problem(b"def f(x):\n# x = x + 1\n#     return x\n", meta) is not None  # not one of Kate's
    assert task.problem(b"def f(x):\n#     x = x + 1\n#     return x\n", meta) is None
    assert task.problem(b"# def f(x):\n    # x = x + 1\n    # return x\n", meta) is not None
    assert task.problem(b"def f(x):\n    // x = x + 1\n    // return x\n", meta) is not None
    assert task.problem(b"def f(x):\n    # x = x + 1\n    return x\n", meta) is not None
    assert task.problem(b"\xff", meta) is not None and task.problem(None, meta) is not None


def test_copy_between_files_wants_the_block_after_the_target() -> None:
    task = _module("kate-copy-between-files")
    meta = {"text": "a\nb\nc\nd\n", "kept": "k\n", "first": 1, "last": 2}
    assert task.block(meta) == "b\nc\n"
    for variant in task.load_test():
        assert variant.metadata["source"] != variant.metadata["target"]
