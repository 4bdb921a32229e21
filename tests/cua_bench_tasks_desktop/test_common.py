"""The desktop taskset's shared evaluator pieces that explain a short end state (``task.explain``)."""

from __future__ import annotations

from cua_bench_tasks_desktop._common import text_difference


def test_text_difference_names_the_first_line_that_parts() -> None:
    assert text_difference("a\nb\nc\n", "a\nB\nc\n") == "line 2 is 'b', not 'B'"
    assert text_difference("a\nb\n", "a\nb\nc") == "2 lines, not 3"
    assert text_difference(None, "a") == "no such file (or not a plain file with one link)"
