"""Our key names to macOS virtual key codes, and text to Unicode keyboard events.

Named keys (cua_core's canonical names) have fixed codes in HIToolbox's Events.h (``kVK_Return`` is
0x24 on every keyboard). ``super`` is the Command key: models trained on macOS say ``cmd``, which
cua_core folds onto ``super``. A glyph in a chord (``s`` in cmd+s) takes its key on the US (ANSI)
layout, with Shift where that layout needs it (``+`` is Shift and ``=``): macOS has no call as simple
as Windows' ``VkKeyScanW`` (the layout's table is read through ``UCKeyTranslate``), and Lume's and
tart's images ship with the US layout. Text is sent as characters instead
(``CGEventKeyboardSetUnicodeString`` on the events of one key), so any script types the same whatever
the layout; line breaks and tabs in text are the Return and Tab keys, which apps treat as keys.
"""

from __future__ import annotations

from cua_bench_macos.macapi import (
    KCG_EVENT_FLAG_ALTERNATE,
    KCG_EVENT_FLAG_COMMAND,
    KCG_EVENT_FLAG_CONTROL,
    KCG_EVENT_FLAG_SHIFT,
    KeyEvent,
)

__all__ = ["ANSI_KEYS", "MODIFIER_FLAGS", "NAMED_KEYS", "chord_events", "text_events"]

KVK_RETURN, KVK_TAB, KVK_SHIFT = 0x24, 0x30, 0x38
# Events.h's kVK_* for cua_core's named keys. Keys a Mac keyboard lacks take their Mac counterpart:
# insert is Help (where PC keyboards' Insert sits), printscreen is F13, scrolllock F14, pause F15 (what
# macOS maps a PC keyboard's keys to); numlock is the keypad's Clear.
NAMED_KEYS: dict[str, int] = {
    "enter": KVK_RETURN, "kp_enter": 0x4C, "tab": KVK_TAB, "space": 0x31, "backspace": 0x33, "escape": 0x35,
    "super": 0x37, "shift": KVK_SHIFT, "capslock": 0x39, "alt": 0x3A, "ctrl": 0x3B, "delete": 0x75,
    "home": 0x73, "end": 0x77, "pageup": 0x74, "pagedown": 0x79, "left": 0x7B, "right": 0x7C, "down": 0x7D,
    "up": 0x7E, "insert": 0x72, "clear": 0x47, "numlock": 0x47, "printscreen": 0x69, "scrolllock": 0x6B,
    "pause": 0x71, "volumeup": 0x48, "volumedown": 0x49, "volumemute": 0x4A,
    "f1": 0x7A, "f2": 0x78, "f3": 0x63, "f4": 0x76, "f5": 0x60, "f6": 0x61, "f7": 0x62, "f8": 0x64,
    "f9": 0x65, "f10": 0x6D, "f11": 0x67, "f12": 0x6F, "f13": 0x69, "f14": 0x6B, "f15": 0x71, "f16": 0x6A,
    "f17": 0x40, "f18": 0x4F, "f19": 0x50, "f20": 0x5A,
}  # fmt: skip
# The modifier keys and the CGEventFlags bit each one sets while held.
MODIFIER_FLAGS = {"shift": KCG_EVENT_FLAG_SHIFT, "ctrl": KCG_EVENT_FLAG_CONTROL, "alt": KCG_EVENT_FLAG_ALTERNATE,
                  "super": KCG_EVENT_FLAG_COMMAND}  # fmt: skip
# kVK_ANSI_* for the glyphs of the US layout: the unshifted character of each key...
ANSI_KEYS: dict[str, int] = {
    "a": 0x00, "s": 0x01, "d": 0x02, "f": 0x03, "h": 0x04, "g": 0x05, "z": 0x06, "x": 0x07, "c": 0x08,
    "v": 0x09, "b": 0x0B, "q": 0x0C, "w": 0x0D, "e": 0x0E, "r": 0x0F, "y": 0x10, "t": 0x11, "1": 0x12,
    "2": 0x13, "3": 0x14, "4": 0x15, "6": 0x16, "5": 0x17, "=": 0x18, "9": 0x19, "7": 0x1A, "-": 0x1B,
    "8": 0x1C, "0": 0x1D, "]": 0x1E, "o": 0x1F, "u": 0x20, "[": 0x21, "i": 0x22, "p": 0x23, "l": 0x25,
    "j": 0x26, "'": 0x27, "k": 0x28, ";": 0x29, "\\": 0x2A, ",": 0x2B, "/": 0x2C, "n": 0x2D, "m": 0x2E,
    ".": 0x2F, "`": 0x32,
}  # fmt: skip
# ...and the characters the same keys type with Shift held.
SHIFTED = dict(zip('!@#$%^&*()_+{}|:"<>?~', "1234567890-=[]\\;',./`", strict=True))
_MODIFIER_CODES = {NAMED_KEYS[name]: flag for name, flag in MODIFIER_FLAGS.items()}
_TEXT_KEYS = {"\n": "enter", "\t": "tab", "\b": "backspace", "\x1b": "escape"}
_TEXT_KEYCODE = 0  # the key a Unicode event rides on: apps read its string, not its code


def _key(name: str) -> tuple[int, bool] | None:
    """A glyph's key on the US layout and whether it needs Shift; None for a glyph it has no key for."""
    if name in ANSI_KEYS:
        return ANSI_KEYS[name], False
    if name in SHIFTED:
        return ANSI_KEYS[SHIFTED[name]], True
    if len(name) == 1 and name.isalpha() and name.lower() in ANSI_KEYS:
        return ANSI_KEYS[name.lower()], True
    return None


def chord_events(names: tuple[str, ...], held: int = 0) -> tuple[list[KeyEvent], list[KeyEvent]]:
    """The presses of a chord, in order, and the releases that undo them, in reverse order.

    Each event carries the modifier flags held at that moment (``held``: those held already by
    ``key_down``), as a keyboard's would: an app reads Command+S from the S event's flags. A glyph the
    layout needs Shift for gets Shift pressed before it unless the chord holds it; a glyph the layout
    has no key for is sent as its character.
    """
    downs: list[KeyEvent] = []
    ups: list[KeyEvent] = []
    flags = held
    shifted = "shift" in names
    for name in names:
        if name in NAMED_KEYS:
            flags |= MODIFIER_FLAGS.get(name, 0)
            downs.append(KeyEvent(NAMED_KEYS[name], True, flags))
            ups.insert(0, KeyEvent(NAMED_KEYS[name], False, flags))
            continue
        key = _key(name)
        if key is None:
            downs.append(KeyEvent(_TEXT_KEYCODE, True, flags, name))
            ups.insert(0, KeyEvent(_TEXT_KEYCODE, False, flags, name))
            continue
        code, needs_shift = key
        if needs_shift and not shifted:
            shifted = True
            flags |= KCG_EVENT_FLAG_SHIFT
            downs.append(KeyEvent(KVK_SHIFT, True, flags))
            ups.insert(0, KeyEvent(KVK_SHIFT, False, flags))
        downs.append(KeyEvent(code, True, flags))
        ups.insert(0, KeyEvent(code, False, flags))
    # A release reports the flags still held after it: each modifier's bit is gone from its own release on.
    released: list[KeyEvent] = []
    remaining = flags
    for event in ups:
        remaining &= ~_MODIFIER_CODES.get(event.keycode, 0)
        released.append(KeyEvent(event.keycode, False, remaining | held, event.text))
    return downs, released


def text_events(text: str) -> list[KeyEvent]:
    """``text`` typed: each character a press and release carrying it as its Unicode string (a character
    outside the Basic Multilingual Plane is one event of two UTF-16 units), line breaks and tabs their
    keys (``\\r\\n`` is one Return)."""
    events: list[KeyEvent] = []
    for char in text.replace("\r\n", "\n").replace("\r", "\n"):
        if char in _TEXT_KEYS:
            code = NAMED_KEYS[_TEXT_KEYS[char]]
            events += [KeyEvent(code, True), KeyEvent(code, False)]
            continue
        events += [KeyEvent(_TEXT_KEYCODE, True, 0, char), KeyEvent(_TEXT_KEYCODE, False, 0, char)]
    return events
