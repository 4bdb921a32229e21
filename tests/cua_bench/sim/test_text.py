"""The text editing model shared by the sim desktop's text fields and editors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cua_bench.sim import TextBuffer


def test_typing_replaces_the_selection_and_undo_restores_it() -> None:
    buffer = TextBuffer("hello world")
    buffer.select(0, 5)
    assert buffer.selected_text == "hello"
    buffer.insert("H", typing=True)
    buffer.insert("i", typing=True)
    assert buffer.text == "Hi world"
    assert buffer.caret == 2 and not buffer.has_selection
    assert buffer.undo()
    assert buffer.text == "hello world"
    assert buffer.selection == (0, 5)
    assert buffer.redo()
    assert buffer.text == "Hi world"


def test_consecutive_typing_is_one_undo_step_but_a_caret_move_starts_another() -> None:
    buffer = TextBuffer("")
    for char in "abc":
        buffer.insert(char, typing=True)
    buffer.move("left")
    buffer.insert("X", typing=True)
    assert buffer.text == "abXc"
    assert buffer.undo()
    assert buffer.text == "abc"
    assert buffer.undo()
    assert buffer.text == ""
    assert not buffer.undo()


def test_word_motions_and_deletes() -> None:
    buffer = TextBuffer("one two  three")
    buffer.move("left", word=True)
    assert buffer.caret == len("one two  ")
    buffer.move("left", word=True, select=True)
    assert buffer.selected_text == "two  "
    buffer.set_caret(len(buffer.text))
    buffer.backspace(word=True)
    assert buffer.text == "one two  "
    buffer.move("home")
    buffer.delete(word=True)
    assert buffer.text == " two  "


def test_single_line_buffers_fold_newlines_and_home_end_span_everything() -> None:
    buffer = TextBuffer("a\nb")
    assert buffer.text == "a b"
    buffer.move("home")
    assert buffer.caret == 0
    buffer.move("end", select=True)
    assert buffer.selected_text == "a b"


def test_multiline_up_down_keep_the_column_and_home_end_stay_on_the_line() -> None:
    buffer = TextBuffer("abcdef\nxy\nlonger line", multiline=True)
    buffer.set_caret(4)  # line 0, column 4
    buffer.move("down")
    assert buffer.line_col(buffer.caret) == (1, 2)  # clamped to the short line
    buffer.move("down")
    assert buffer.line_col(buffer.caret) == (2, 2)
    buffer.move("home")
    assert buffer.line_col(buffer.caret) == (2, 0)
    buffer.move("end")
    assert buffer.caret == len(buffer.text)
    buffer.move("up", lines=5)
    assert buffer.caret == 0
    buffer.move("end", word=True, select=True)
    assert buffer.selected_text == buffer.text


def test_select_word_and_unknown_motion() -> None:
    buffer = TextBuffer("alpha beta_gamma, delta")
    buffer.select_word(8)
    assert buffer.selected_text == "beta_gamma"
    with pytest.raises(ValueError, match="unknown caret motion"):
        buffer.move("sideways")


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("insert"), st.text(alphabet="ab \n", max_size=3)),
        st.tuples(st.sampled_from(["backspace", "delete", "undo", "redo", "select_all"]), st.none()),
        st.tuples(st.sampled_from(["left", "right", "home", "end", "up", "down"]), st.booleans()),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(start=st.text(alphabet="ab \n", max_size=12), ops=_OPS, multiline=st.booleans())
def test_any_edit_sequence_keeps_the_caret_in_range_and_undo_all_restores_the_start(
    start: str, ops: list[tuple[str, object]], multiline: bool
) -> None:
    buffer = TextBuffer(start, multiline=multiline)
    original = buffer.text
    for op, arg in ops:
        if op == "insert":
            assert isinstance(arg, str)
            buffer.insert(arg, typing=True)
        elif op in ("backspace", "delete", "undo", "redo", "select_all"):
            getattr(buffer, op)()
        else:
            buffer.move(op, select=bool(arg))
        assert 0 <= buffer.caret <= len(buffer.text)
        assert 0 <= buffer.anchor <= len(buffer.text)
        assert multiline or "\n" not in buffer.text
    while buffer.undo():
        pass
    assert buffer.text == original
