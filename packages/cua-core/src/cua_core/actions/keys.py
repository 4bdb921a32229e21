"""Keyboard key names: one canonical lowercase spelling per key, and the aliases models use.

Models and datasets spell keys many ways (``Return``, ``esc``, ``cmd``, ``ArrowDown``,
``page_down``); a record stores one spelling so that trajectories compare equal and backends need
one table. Canonical names follow xdotool/pyautogui; everything in CUA-Lite's key vocabulary and
OSWorld's (pyautogui's) common names is accepted and folded onto them.
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Sequence

from cua_core.actions.checks import describe
from cua_core.errors import ActionError

__all__ = ["KEY_ALIASES", "KEY_NAMES", "normalize_key", "normalize_keys", "split_key_combo"]

_NAMED_KEYS = (
    "enter", "tab", "space", "backspace", "delete", "escape", "insert",
    "home", "end", "pageup", "pagedown", "up", "down", "left", "right",
    "ctrl", "alt", "shift", "super",
    "capslock", "numlock", "scrolllock", "printscreen", "pause", "menu", "clear", "kp_enter",
    "volumeup", "volumedown", "volumemute", "playpause", "nexttrack", "prevtrack",
)  # fmt: skip
_FUNCTION_KEYS = tuple(f"f{n}" for n in range(1, 25))
# Single visible characters; letters are stored lowercase (shift is its own key).
_GLYPHS = tuple(string.ascii_lowercase + string.digits + string.punctuation)

KEY_NAMES: frozenset[str] = frozenset(_NAMED_KEYS + _FUNCTION_KEYS + _GLYPHS)
"""Every canonical key name a record may hold."""

KEY_ALIASES: dict[str, str] = {
    # CUA-Lite stores meta/esc; xdotool and pyautogui say super/escape.
    "meta": "super", "cmd": "super", "command": "super", "win": "super", "windows": "super",
    "winleft": "super", "winright": "super",
    "esc": "escape", "return": "enter", "\n": "enter", "\r": "enter", "\t": "tab", " ": "space",
    "spacebar": "space", "control": "ctrl", "option": "alt", "del": "delete", "ins": "insert",
    "pgup": "pageup", "pgdn": "pagedown",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
    # pyautogui (and so OSWorld) names one side of a modifier; applications rarely care which.
    "ctrlleft": "ctrl", "ctrlright": "ctrl", "altleft": "alt", "altright": "alt",
    "shiftleft": "shift", "shiftright": "shift", "optionleft": "alt", "optionright": "alt",
    "prtsc": "printscreen", "prtscr": "printscreen", "prntscrn": "printscreen",
    "print": "printscreen", "printscr": "printscreen", "break": "pause",
    "apps": "menu", "contextmenu": "menu", "mute": "volumemute",
    "plus": "+", "minus": "-", "equal": "=", "equals": "=",
}  # fmt: skip
"""Other spellings and the canonical name each folds to (after case and separator folding)."""


def _fold(name: str) -> str:
    # Case and word separators carry no meaning in key names: "Page_Down" is "pagedown".
    # A single character is a glyph, so "-" or "_" on its own must survive.
    lowered = name.lower()
    if len(lowered) <= 1:
        return lowered
    return lowered.replace("_", "").replace("-", "").replace(" ", "")


_LOOKUP: dict[str, str] = {_fold(name): name for name in KEY_NAMES}
_LOOKUP.update({_fold(alias): name for alias, name in KEY_ALIASES.items()})
_SUGGESTABLE = sorted(name for name in _LOOKUP if len(name) > 1)


def _unknown_key(name: str, label: str) -> ActionError:
    close = difflib.get_close_matches(name.lower(), _SUGGESTABLE, n=3, cutoff=0.6)
    suggestions = list(dict.fromkeys(_LOOKUP[match] for match in close))
    if suggestions:
        hint = "did you mean " + " or ".join(repr(s) for s in suggestions) + "?"
    else:
        hint = "use a named key (" + ", ".join(_NAMED_KEYS) + ", f1..f24) or a single printable character"
    return ActionError(f"{label}: unknown key {describe(name)}; {hint}")


def normalize_key(name: object, label: str) -> str:
    """The canonical name of one key, or an error naming ``label`` and suggesting close names."""
    if not isinstance(name, str):
        raise ActionError(f"{label}: {describe(name)} is not a key name (a string)")
    canonical = _LOOKUP.get(_fold(name))
    if canonical is None:
        raise _unknown_key(name, label)
    return canonical


def normalize_keys(keys: object, label: str) -> tuple[str, ...]:
    """A non-empty combination of distinct keys pressed together, in canonical spelling."""
    if isinstance(keys, str) or not isinstance(keys, Sequence):
        raise ActionError(
            f'{label}: {describe(keys)} is not a list of key names; write a chord as a list, e.g. ["ctrl", "c"]'
        )
    if not keys:
        raise ActionError(f"{label}: the key list is empty; give at least one key")
    normalized = tuple(normalize_key(key, label) for key in keys)
    for key in normalized:
        if normalized.count(key) > 1:
            raise ActionError(f"{label}: key {key!r} appears more than once in {describe(keys)}")
    return normalized


def split_key_combo(combo: str) -> tuple[str, ...]:
    """Split a chord written as one string, ``"ctrl+c"``, into its keys.

    ``+`` separates keys, and a ``+`` where a key is expected is the plus key itself, so
    ``"ctrl++"`` is ctrl and plus, and ``"+"`` is plus alone. Names are not normalised here.
    """
    if not combo:
        raise ActionError("key combination '': give at least one key, e.g. \"ctrl+c\"")
    keys: list[str] = []
    position = 0
    while True:
        if position >= len(combo):
            raise ActionError(f"key combination {combo!r}: expected a key name after '+'")
        if combo[position] == "+":
            keys.append("+")
            position += 1
        else:
            end = combo.find("+", position)
            end = len(combo) if end < 0 else end
            token = combo[position:end]
            keys.append(token if token.isspace() else token.strip())
            position = end
        if position == len(combo):
            return tuple(keys)
        position += 1  # skip the separating "+"
