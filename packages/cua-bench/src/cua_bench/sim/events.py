"""The input events widgets receive, and how key chords and typed characters become them.

Actions arrive as unified records; the desktop turns them into these few events so that widgets
see one shape whether a key came from ``key``, ``key_down`` or ``type``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cua_core import normalize_key, split_key_combo

__all__ = ["MODIFIERS", "KeyEvent", "MouseEvent", "ScrollEvent", "char_event", "parse_shortcut"]

MODIFIERS = frozenset({"ctrl", "alt", "shift", "super"})

# What shift turns each key of a US keyboard into.
_SHIFTED = dict(zip("`1234567890-=[]\\;',./", '~!@#$%^&*()_+{}|:"<>?', strict=True))
_UNSHIFTED = {shifted: plain for plain, shifted in _SHIFTED.items()}


@dataclass(frozen=True, slots=True)
class KeyEvent:
    """One key press. ``text`` is the character it types, if any (None with ctrl or alt)."""

    key: str
    mods: frozenset[str] = frozenset()
    text: str | None = None

    @property
    def ctrl(self) -> bool:
        return "ctrl" in self.mods or "super" in self.mods

    @property
    def shift(self) -> bool:
        return "shift" in self.mods

    @property
    def alt(self) -> bool:
        return "alt" in self.mods

    @property
    def chord(self) -> frozenset[str]:
        """The keys pressed together, for matching menu shortcuts (cmd counts as ctrl)."""
        mods = self.mods - {"super"} | ({"ctrl"} if "super" in self.mods else set())
        return mods | {self.key}

    @classmethod
    def press(cls, key: str, mods: frozenset[str] = frozenset()) -> KeyEvent:
        """A key pressed with ``mods`` held, with the character it types on a US layout."""
        text: str | None = None
        if not (mods & {"ctrl", "alt", "super"}):
            if key == "space":
                text = " "
            elif len(key) == 1 and "shift" in mods:
                text = key.upper() if key.isalpha() else _SHIFTED.get(key, key)
            elif len(key) == 1:
                text = key
        return cls(key, mods, text)


def char_event(char: str, held: frozenset[str] = frozenset()) -> KeyEvent:
    """The key event that types ``char`` (as the ``type`` action does), newline and tab included."""
    if char in "\r\n":
        return KeyEvent("enter", held)
    if char == "\t":
        return KeyEvent("tab", held)
    if char == " ":
        return KeyEvent("space", held, " ")
    if char.isascii() and char.isalpha() and char.isupper():
        return KeyEvent(char.lower(), held | {"shift"}, char)
    if char in _UNSHIFTED:
        return KeyEvent(_UNSHIFTED[char], held | {"shift"}, char)
    return KeyEvent(char.lower() if char.isascii() else char, held, char)


def parse_shortcut(text: str) -> frozenset[str]:
    """``"ctrl+s"`` -> the chord ``{"ctrl", "s"}`` in canonical key names."""
    return frozenset(normalize_key(key, f"shortcut {text!r}") for key in split_key_combo(text))


@dataclass(slots=True)
class MouseEvent:
    """A pointer event in window-local pixels (``x``, ``y``) and screen pixels (``sx``, ``sy``)."""

    x: int
    y: int
    sx: int
    sy: int
    button: str = "left"
    count: int = 1
    mods: frozenset[str] = field(default_factory=frozenset)

    @property
    def shift(self) -> bool:
        return "shift" in self.mods


@dataclass(slots=True)
class ScrollEvent:
    """``amount`` wheel clicks; ``dy`` and ``dx`` are +1 for down/right, -1 for up/left."""

    x: int
    y: int
    dx: int
    dy: int
    amount: int
