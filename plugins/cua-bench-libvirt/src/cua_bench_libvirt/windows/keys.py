"""Our key names to Windows virtual-key codes, and text to ``KEYEVENTF_UNICODE`` events.

Named keys (cua_core's canonical names: ``ctrl``, ``enter``, ``f5``...) have fixed codes in
winuser.h. A glyph in a chord (``s`` in ctrl+s) takes the key the current layout types it with
(``VkKeyScanW``), with Shift where the layout needs it, so shortcuts reach apps as key presses; a
glyph the layout has no key for is sent as its character. Text is always sent as characters
(``KEYEVENTF_UNICODE``): any script types the same whatever the keyboard layout, where key codes would
type what the layout puts on that key. Line breaks and tabs in text are the Enter and Tab keys,
which apps treat as keys, not characters.
"""

from __future__ import annotations

from collections.abc import Callable

from cua_bench_libvirt.windows.winapi import KEYEVENTF_EXTENDEDKEY, KEYEVENTF_KEYUP, KEYEVENTF_UNICODE, KeyInput

__all__ = ["EXTENDED", "VIRTUAL_KEYS", "VK_SHIFT", "chord_keys", "press", "text_events"]

VK_SHIFT = 0x10
VK_CONTROL = 0x11
VK_MENU = 0x12
VIRTUAL_KEYS: dict[str, int] = {
    "backspace": 0x08, "tab": 0x09, "clear": 0x0C, "enter": 0x0D, "kp_enter": 0x0D, "shift": VK_SHIFT,
    "ctrl": VK_CONTROL, "alt": VK_MENU, "pause": 0x13, "capslock": 0x14, "escape": 0x1B, "space": 0x20,
    "pageup": 0x21, "pagedown": 0x22, "end": 0x23, "home": 0x24, "left": 0x25, "up": 0x26, "right": 0x27,
    "down": 0x28, "printscreen": 0x2C, "insert": 0x2D, "delete": 0x2E, "super": 0x5B, "menu": 0x5D,
    "numlock": 0x90, "scrolllock": 0x91, "volumemute": 0xAD, "volumedown": 0xAE, "volumeup": 0xAF,
    "nexttrack": 0xB0, "prevtrack": 0xB1, "playpause": 0xB3,
    **{f"f{n}": 0x6F + n for n in range(1, 25)},  # VK_F1 0x70 .. VK_F24 0x87
}  # fmt: skip
"""cua_core's named keys (``win``, ``esc``, ``return`` are its aliases of ``super``, ``escape``, ``enter``)."""

# Keys whose scan code carries the E0 prefix: without KEYEVENTF_EXTENDEDKEY an app reading scan codes
# sees the numeric keypad's key instead (Home as keypad 7).
EXTENDED = frozenset({
    "pageup", "pagedown", "end", "home", "left", "up", "right", "down", "printscreen", "insert", "delete",
    "super", "menu", "numlock", "kp_enter",
})  # fmt: skip
_SHIFT_STATE = {1: VK_SHIFT, 2: VK_CONTROL, 4: VK_MENU}  # VkKeyScanW's high byte: the modifiers it needs
_TEXT_KEYS = {"\n": "enter", "\t": "tab", "\b": "backspace", "\x1b": "escape"}


def press(vk: int, down: bool, extended: bool = False) -> KeyInput:
    flags = (0 if down else KEYEVENTF_KEYUP) | (KEYEVENTF_EXTENDEDKEY if extended else 0)
    return KeyInput(vk, 0, flags)


def _unicode(unit: int, down: bool) -> KeyInput:
    return KeyInput(0, unit, KEYEVENTF_UNICODE | (0 if down else KEYEVENTF_KEYUP))


def _utf16(char: str) -> list[int]:
    data = char.encode("utf-16-le")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def chord_keys(names: tuple[str, ...], vk_scan: Callable[[str], int]) -> tuple[list[KeyInput], list[KeyInput]]:
    """The presses of a chord, in order, and the releases that undo them, in reverse order.

    A glyph's key comes from ``vk_scan`` (``VkKeyScanW``); the modifiers its layout needs (Shift for
    ``+`` on a US layout) are pressed before it unless the chord holds them already.
    """
    downs: list[KeyInput] = []
    ups: list[KeyInput] = []
    held = {VIRTUAL_KEYS[name] for name in names if name in VIRTUAL_KEYS}
    for name in names:
        if name in VIRTUAL_KEYS:
            extended = name in EXTENDED
            downs.append(press(VIRTUAL_KEYS[name], True, extended))
            ups.insert(0, press(VIRTUAL_KEYS[name], False, extended))
            continue
        scanned = vk_scan(name) & 0xFFFF
        if scanned == 0xFFFF:  # the layout has no key for it: the character itself
            units = _utf16(name)
            downs += [_unicode(unit, True) for unit in units]
            ups[:0] = [_unicode(unit, False) for unit in units]
            continue
        vk, state = scanned & 0xFF, scanned >> 8
        modifiers = [code for bit, code in _SHIFT_STATE.items() if state & bit and code not in held]
        held.update(modifiers)
        downs += [press(code, True) for code in modifiers] + [press(vk, True)]
        ups[:0] = [press(vk, False)] + [press(code, False) for code in reversed(modifiers)]
    return downs, ups


def text_events(text: str) -> list[KeyInput]:
    """``text`` typed: each character a ``KEYEVENTF_UNICODE`` press and release of its UTF-16 units
    (a surrogate pair is two), line breaks and tabs their keys (``\\r\\n`` is one Enter)."""
    events: list[KeyInput] = []
    for char in text.replace("\r\n", "\n").replace("\r", "\n"):
        if char in _TEXT_KEYS:
            vk = VIRTUAL_KEYS[_TEXT_KEYS[char]]
            events += [press(vk, True), press(vk, False)]
            continue
        for unit in _utf16(char):
            events += [_unicode(unit, True), _unicode(unit, False)]
    return events
