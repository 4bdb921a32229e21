"""Text as ``input text`` commands, escaped the way Android's ``input`` and the device's shell need it.

What ``input text ARG`` does (``InputShellCommand.sendText`` in AOSP; ``Input.java`` before Android 10):
it types its first argument only, so the text must reach it as one shell word; it turns every ``%s``
into a space (the documented way to type spaces, which older ``input`` versions split arguments on);
and it maps each character to key presses of the virtual keyboard (``Virtual.kcm``), which has printable
ASCII only: any other character makes it fail with a NullPointerException after typing nothing.

So: the text is cut where it holds a literal ``%s`` (``%`` ends one command and ``s`` starts the next,
so the pair is never read as a space); spaces become ``%s``; each piece is quoted for the device's
``sh`` (mksh), which would otherwise act on ``;&|<>()$`"'*?[]#~`` and the rest; newlines and tabs are
key presses (``KEYCODE_ENTER``, ``KEYCODE_TAB``) between pieces. Characters outside printable ASCII are
refused before anything is typed, named, never dropped.
"""

from __future__ import annotations

import shlex

__all__ = ["TYPEABLE", "Untypeable", "text_commands"]

TYPEABLE = frozenset(chr(code) for code in range(0x20, 0x7F))
_KEYS = {"\n": "KEYCODE_ENTER", "\t": "KEYCODE_TAB"}


class Untypeable(ValueError):
    """Text with characters ``input text`` cannot type; ``chars`` holds them, in order of first appearance."""

    def __init__(self, chars: list[str]) -> None:
        named = ", ".join(f"{char!r} (U+{ord(char):04X})" for char in chars)
        super().__init__(
            f"adb's `input text` types printable ASCII only (Android's virtual keyboard has no key for the rest); "
            f"cannot type {named}"
        )
        self.chars = chars


def _pieces(line: str) -> list[str]:
    """``line`` (no newline or tab) as ``input text`` arguments, unquoted: literal ``%s`` split, spaces as ``%s``."""
    parts = line.split("%s")
    # "a%sb" -> "a%" and "sb": neither holds "%s", and typed one after the other they make "a%sb".
    cut = [part + "%" if index < len(parts) - 1 else part for index, part in enumerate(parts)]
    cut = [cut[0], *("s" + part for part in cut[1:])]
    return [piece.replace(" ", "%s") for piece in cut if piece]


def text_commands(text: str) -> list[str]:
    """The device shell commands that type ``text``, in order (none for empty text).

    Raises:
        Untypeable: ``text`` holds characters ``input text`` cannot type (checked before any command is made).
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    bad = [char for char in dict.fromkeys(text) if char not in TYPEABLE and char not in _KEYS]
    if bad:
        raise Untypeable(bad)
    commands: list[str] = []
    line = ""
    for char in text + "\0":  # a sentinel flushes the last line
        if char in _KEYS or char == "\0":
            commands += [f"input text {shlex.quote(piece)}" for piece in _pieces(line)]
            line = ""
            if char in _KEYS:
                commands.append(f"input keyevent {_KEYS[char]}")
        else:
            line += char
    return commands
