"""Our key and phone-button names as Android's key codes (``android.view.KeyEvent.KEYCODE_*``), which
``input keyevent`` and ``input keycombination`` take by name.

A key with no Android code (``f13`` and up, ``printscreen`` on a phone keyboard that has none...) is
simply absent: the session refuses it, naming it, rather than pressing something else.
"""

from __future__ import annotations

import string

__all__ = ["BUTTON_KEYCODES", "KEY_KEYCODES", "keycodes"]

BUTTON_KEYCODES = {
    "home": "KEYCODE_HOME",
    "back": "KEYCODE_BACK",
    "menu": "KEYCODE_MENU",
    "recent": "KEYCODE_APP_SWITCH",  # the overview of recent apps
    "enter": "KEYCODE_ENTER",
    "power": "KEYCODE_POWER",
    "volume_up": "KEYCODE_VOLUME_UP",
    "volume_down": "KEYCODE_VOLUME_DOWN",
}

_NAMED = {
    "enter": "KEYCODE_ENTER", "tab": "KEYCODE_TAB", "space": "KEYCODE_SPACE", "backspace": "KEYCODE_DEL",
    "delete": "KEYCODE_FORWARD_DEL", "escape": "KEYCODE_ESCAPE", "insert": "KEYCODE_INSERT",
    "home": "KEYCODE_MOVE_HOME", "end": "KEYCODE_MOVE_END", "pageup": "KEYCODE_PAGE_UP",
    "pagedown": "KEYCODE_PAGE_DOWN", "up": "KEYCODE_DPAD_UP", "down": "KEYCODE_DPAD_DOWN",
    "left": "KEYCODE_DPAD_LEFT", "right": "KEYCODE_DPAD_RIGHT", "ctrl": "KEYCODE_CTRL_LEFT",
    "alt": "KEYCODE_ALT_LEFT", "shift": "KEYCODE_SHIFT_LEFT", "super": "KEYCODE_META_LEFT",
    "capslock": "KEYCODE_CAPS_LOCK", "numlock": "KEYCODE_NUM_LOCK", "scrolllock": "KEYCODE_SCROLL_LOCK",
    "printscreen": "KEYCODE_SYSRQ", "pause": "KEYCODE_BREAK", "menu": "KEYCODE_MENU", "clear": "KEYCODE_CLEAR",
    "kp_enter": "KEYCODE_NUMPAD_ENTER", "volumeup": "KEYCODE_VOLUME_UP", "volumedown": "KEYCODE_VOLUME_DOWN",
    "volumemute": "KEYCODE_VOLUME_MUTE", "playpause": "KEYCODE_MEDIA_PLAY_PAUSE",
    "nexttrack": "KEYCODE_MEDIA_NEXT", "prevtrack": "KEYCODE_MEDIA_PREVIOUS",
}  # fmt: skip
# Glyphs that have a key of their own on Android's virtual keyboard (Virtual.kcm); the shifted ones
# ("!", ":"...) have none, so they are typed as text, not pressed as keys.
_GLYPHS = {
    ",": "KEYCODE_COMMA", ".": "KEYCODE_PERIOD", "-": "KEYCODE_MINUS", "=": "KEYCODE_EQUALS",
    "[": "KEYCODE_LEFT_BRACKET", "]": "KEYCODE_RIGHT_BRACKET", "\\": "KEYCODE_BACKSLASH",
    ";": "KEYCODE_SEMICOLON", "'": "KEYCODE_APOSTROPHE", "/": "KEYCODE_SLASH", "`": "KEYCODE_GRAVE",
    "@": "KEYCODE_AT", "+": "KEYCODE_PLUS", "*": "KEYCODE_STAR", "#": "KEYCODE_POUND",
}  # fmt: skip

KEY_KEYCODES: dict[str, str] = {
    **_NAMED,
    **{f"f{n}": f"KEYCODE_F{n}" for n in range(1, 13)},  # Android has F1 to F12 only
    **{letter: f"KEYCODE_{letter.upper()}" for letter in string.ascii_lowercase},
    **{digit: f"KEYCODE_{digit}" for digit in string.digits},
    **_GLYPHS,
}
"""Every canonical key name (``cua_core.actions.KEY_NAMES``) that has an Android key code."""


def keycodes(keys: tuple[str, ...]) -> list[str]:
    """The key codes of ``keys`` (canonical names), in order.

    Raises:
        LookupError: some keys have no Android key code; the message names them.
    """
    missing = [key for key in keys if key not in KEY_KEYCODES]
    if missing:
        raise LookupError(f"no Android key code for {', '.join(repr(key) for key in missing)}")
    return [KEY_KEYCODES[key] for key in keys]
