"""Key names and characters to X keycodes, for XTest.

Canonical key names (cua_core.actions.keys) map to keysyms through one table. A character maps to
its keysym (Latin-1 directly, anything else ``0x01000000 + codepoint``); when no key of the
current layout produces it, a spare keycode (one with no keysym) is temporarily bound to it, as
xdotool does, so any Unicode text can be typed without a subprocess per action.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

__all__ = ["NAMED_KEYSYMS", "Keyboard", "char_keysym"]

_XF86 = {
    "volumedown": 0x1008FF11,
    "volumemute": 0x1008FF12,
    "volumeup": 0x1008FF13,
    "playpause": 0x1008FF14,
    "prevtrack": 0x1008FF16,
    "nexttrack": 0x1008FF17,
}
_X_NAMES = {
    "enter": "Return", "tab": "Tab", "space": "space", "backspace": "BackSpace", "delete": "Delete",
    "escape": "Escape", "insert": "Insert", "home": "Home", "end": "End", "pageup": "Prior",
    "pagedown": "Next", "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "ctrl": "Control_L", "alt": "Alt_L", "shift": "Shift_L", "super": "Super_L",
    "capslock": "Caps_Lock", "numlock": "Num_Lock", "scrolllock": "Scroll_Lock", "printscreen": "Print",
    "pause": "Pause", "menu": "Menu", "clear": "Clear", "kp_enter": "KP_Enter",
    **{f"f{n}": f"F{n}" for n in range(1, 25)},
}  # fmt: skip


def _named_keysyms() -> dict[str, int]:
    from Xlib import XK

    table = {name: XK.string_to_keysym(xname) for name, xname in _X_NAMES.items()}
    table.update(_XF86)
    return table


NAMED_KEYSYMS: dict[str, int] = _named_keysyms()
"""Canonical named keys (not single glyphs) to keysyms."""

_CONTROL_CHARS = {"\n": "enter", "\r": "enter", "\t": "tab", "\b": "backspace", "\x1b": "escape"}


def char_keysym(char: str) -> int:
    """The keysym X uses for ``char``."""
    if char in _CONTROL_CHARS:
        return NAMED_KEYSYMS[_CONTROL_CHARS[char]]
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 + code


class Keyboard:
    """Finds (or makes) the keycode for a keysym on one display connection.

    ``keycode(keysym)`` returns ``(keycode, shifted)``: whether Shift must be held for the keysym.
    Spare keycodes are reused least recently used first, so a client that has not yet processed a
    mapping change never sees one of its keys rebound mid-text (there are ~20 spares and a type
    action syncs with the server between uses of the same spare).
    """

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.shift = self._plain(NAMED_KEYSYMS["shift"])
        first = conn.display.info.min_keycode
        count = conn.display.info.max_keycode - first + 1
        mapping = conn.get_keyboard_mapping(first, count)
        # Keycode 8 is never a real key on X; some clients ignore it.
        self.spares = [first + i for i, syms in enumerate(mapping) if not any(syms) and first + i > 8]
        self._bound: OrderedDict[int, int] = OrderedDict()  # keysym -> spare keycode, oldest first
        self._cache: dict[int, tuple[int, bool]] = {}

    def _plain(self, keysym: int) -> int:
        return int(self.conn.keysym_to_keycode(keysym))

    def keycode(self, keysym: int) -> tuple[int, bool]:
        if keysym in self._bound:
            self._bound.move_to_end(keysym)
            return self._bound[keysym], False
        if keysym in self._cache:
            return self._cache[keysym]
        found: tuple[int, bool] | None = None
        for code, index in self.conn.keysym_to_keycodes(keysym):
            # Levels 1 and 2 of group 1 (plain, or with Shift); a plain one is preferred.
            if index in (0, 1) and (found is None or (found[1] and index == 0)):
                found = (int(code), index == 1)
        if found is not None:
            self._cache[keysym] = found
            return found
        return self._bind(keysym), False

    def _bind(self, keysym: int) -> int:
        if not self.spares:
            raise LookupError("no spare keycode left to bind an unmapped character to")
        if len(self._bound) < len(self.spares):
            code = self.spares[len(self._bound)]
        else:
            _, code = self._bound.popitem(last=False)
            self.conn.sync()  # the key events that used it are processed before it is rebound
        self.conn.change_keyboard_mapping(code, [(keysym, keysym)])
        self.conn.sync()
        self._bound[keysym] = code
        return int(code)

    def unbind_all(self) -> None:
        """Give the spare keycodes back (reset: the next episode starts with the stock layout)."""
        for code in self._bound.values():
            self.conn.change_keyboard_mapping(code, [(0, 0)])
        self._bound.clear()
        self.conn.sync()
