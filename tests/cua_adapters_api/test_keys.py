"""Every unified key survives both APIs' spellings (xdotool keysyms, OpenAI keypress names)."""

from __future__ import annotations

import pytest

from cua_adapters_api.keys import cua_key_name, parse_cua_keys, parse_xdotool_chord, xdotool_chord
from cua_core.actions import KEY_NAMES
from cua_core.errors import ActionError


@pytest.mark.parametrize("key", sorted(KEY_NAMES))
def test_every_key_roundtrips(key: str) -> None:
    assert parse_xdotool_chord(xdotool_chord(("ctrl", key) if key != "ctrl" else (key,)), "k")[-1] == key
    assert parse_cua_keys([cua_key_name(key)], "k") == (key,)


@pytest.mark.parametrize(
    ("written", "keys"),
    [
        ("Return", ("enter",)),
        ("ctrl+s", ("ctrl", "s")),
        ("alt+Tab", ("alt", "tab")),
        ("KP_0", ("0",)),
        ("KP_Enter", ("kp_enter",)),
        ("Prior", ("pageup",)),
        ("Next", ("pagedown",)),
        ("Control_L+c", ("ctrl", "c")),
        ("ctrl+shift+period", ("ctrl", "shift", ".")),
        ("XF86AudioRaiseVolume", ("volumeup",)),
        ("ctrl++", ("ctrl", "+")),
    ],
)
def test_xdotool_names_claude_writes(written: str, keys: tuple[str, ...]) -> None:
    assert parse_xdotool_chord(written, "key") == keys


def test_written_spellings() -> None:
    assert xdotool_chord(("ctrl", "+")) == "ctrl+plus"  # "+" separates keys, so it is spelled out
    assert xdotool_chord(("enter",)) == "Return"
    assert [cua_key_name(k) for k in ("ctrl", "escape", "up", "c", "/")] == ["CTRL", "ESC", "ARROWUP", "c", "/"]


def test_unknown_keys_are_refused() -> None:
    with pytest.raises(ActionError, match="unknown key"):
        parse_xdotool_chord("ctrl+Hyper_Drive", "key")
    with pytest.raises(ActionError, match="not a key name"):
        parse_cua_keys([3], "keys")
