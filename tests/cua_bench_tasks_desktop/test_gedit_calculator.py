"""The gedit and galculator tasks' pure pieces: gedit's titles, and galculator's state as its widgets show it."""

from __future__ import annotations

from typing import Any

import pytest

from cua_bench_tasks_desktop._calculator import base, config_text, display, mode, tape, worked_out
from cua_bench_tasks_desktop._gedit import shown_folder, title


def test_gedit_titles_name_the_file_and_its_folder_and_mark_unsaved_changes() -> None:
    assert shown_folder("notes/a.txt") == "~/notes"
    assert shown_folder("a.txt") == "~"
    assert title("notes/a.txt")("a.txt (~/notes) - gedit")
    assert not title("notes/a.txt")("*a.txt (~/notes) - gedit")
    assert title("notes/a.txt", clean=False)("*a.txt (~/notes) - gedit")
    assert not title("notes/a.txt")("a.txt (~/other) - gedit")
    assert not title("notes/a.txt")("b.txt (~/notes) - gedit")


def test_worked_out_follows_precedence_and_refuses_anything_else() -> None:
    assert worked_out("(12+30)*3-4") == 122
    assert worked_out("12+30*3-4") == 98
    assert worked_out("5-7*(2+3)") == -30
    for bad in ("2/3", "2**8", "__import__('os')", "1.5+1"):
        with pytest.raises(ValueError, match="not an integer sum"):
            worked_out(bad)


def test_config_text_seeds_the_mode_angle_and_base() -> None:
    text = config_text("paper", angle="Degrees", base="Hexadecimal")
    assert "[general]" in text
    assert "mode=2" in text and "default_angle_base=0" in text and "default_number_base=1" in text


def _button(name: str, sensitive: bool = True) -> dict[str, Any]:
    return {"role": "toggle button", "name": name, "states": ["showing", *(["sensitive"] if sensitive else [])]}


def _window(*children: dict[str, Any]) -> dict[str, Any]:
    return {"role": "window", "name": "galculator", "states": [], "children": list(children)}


def test_the_display_is_the_first_line_of_the_read_only_text() -> None:
    shown = {"role": "text", "value": "FF\n DEC  HEX  OCT  BIN", "states": ["multi_line", "focusable"]}
    entry = {"role": "text", "value": "12+3", "states": ["single_line", "editable"]}
    assert display(_window(entry, shown)) == "FF"
    assert display(_window(entry)) is None


def test_tape_mode_and_base_come_from_the_widgets() -> None:
    cells = [{"role": "table cell", "name": name} for name in ("12+30", "42")]
    paper = _window({"role": "table", "children": cells})
    assert tape(paper) == ["12+30", "42"] and mode(paper) == "paper"
    digits = [_button(str(d)) for d in range(10)]
    assert mode(_window(*digits)) == "basic" and tape(_window(*digits)) is None
    letters = [_button(c, sensitive=False) for c in "ABCDEF"]
    assert mode(_window(_button("sin"), *digits, *letters)) == "scientific"
    assert base(_window(*digits, *letters)) == "Decimal"
    assert base(_window(*digits, *[_button(c) for c in "ABCDEF"])) == "Hexadecimal"
    octal = [_button(str(d), sensitive=d < 8) for d in range(10)]
    assert base(_window(*octal, *letters)) == "Octal"
    binary = [_button(str(d), sensitive=d < 2) for d in range(10)]
    assert base(_window(*binary, *letters)) == "Binary"
