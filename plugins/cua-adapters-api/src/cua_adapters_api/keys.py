"""Key names as each API writes them, to and from the unified spelling (``cua_core.actions.keys``).

Claude's ``key``/``hold_key``/modifier ``text`` is xdotool ``key`` syntax ("ctrl+s", "Return",
"KP_0"; several chords separated by spaces), because Anthropic's reference tool hands it to
``xdotool key`` verbatim (anthropics/anthropic-quickstarts
``computer-use-demo/computer_use_demo/tools/computer.py``). X keysym names for punctuation
("period", "bracketleft") and the left/right modifier keysyms are not in the unified alias table,
so they are folded here.

OpenAI's ``keypress.keys`` is a list of names like ``"CTRL"``, ``"ENTER"``, ``"ARROWDOWN"``,
``"ESC"``; openai/openai-cua-sample-app ``computers/shared/base_playwright.py``
(``CUA_KEY_TO_PLAYWRIGHT_KEY``) lists the spellings its computers accept, which is the vocabulary
written here.
"""

from __future__ import annotations

from collections.abc import Sequence

from cua_core import ActionError, normalize_key, split_key_combo

__all__ = ["cua_key_name", "parse_cua_keys", "parse_xdotool_chord", "parse_xdotool_keys", "xdotool_chord"]

# Unified glyph -> X keysym name; "+" must be spelled out because it separates a chord's keys.
_GLYPH_KEYSYMS = {
    "!": "exclam", '"': "quotedbl", "#": "numbersign", "$": "dollar", "%": "percent", "&": "ampersand",
    "'": "apostrophe", "(": "parenleft", ")": "parenright", "*": "asterisk", "+": "plus", ",": "comma",
    "-": "minus", ".": "period", "/": "slash", ":": "colon", ";": "semicolon", "<": "less", "=": "equal",
    ">": "greater", "?": "question", "@": "at", "[": "bracketleft", "\\": "backslash", "]": "bracketright",
    "^": "asciicircum", "_": "underscore", "`": "grave", "{": "braceleft", "|": "bar", "}": "braceright",
    "~": "asciitilde",
}  # fmt: skip

# Unified named key -> X keysym (xdotool takes modifiers by their short names too).
_NAMED_KEYSYMS = {
    "enter": "Return", "tab": "Tab", "space": "space", "backspace": "BackSpace", "delete": "Delete",
    "escape": "Escape", "insert": "Insert", "home": "Home", "end": "End", "pageup": "Page_Up",
    "pagedown": "Page_Down", "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "ctrl": "ctrl", "alt": "alt", "shift": "shift", "super": "super",
    "capslock": "Caps_Lock", "numlock": "Num_Lock", "scrolllock": "Scroll_Lock", "printscreen": "Print",
    "pause": "Pause", "menu": "Menu", "clear": "Clear", "kp_enter": "KP_Enter",
    "volumeup": "XF86AudioRaiseVolume", "volumedown": "XF86AudioLowerVolume", "volumemute": "XF86AudioMute",
    "playpause": "XF86AudioPlay", "nexttrack": "XF86AudioNext", "prevtrack": "XF86AudioPrev",
}  # fmt: skip

# X keysyms (lowercased, separators dropped) that the unified alias table does not know.
_KEYSYM_ALIASES = {
    **{name.lower(): glyph for glyph, name in _GLYPH_KEYSYMS.items()},
    **{name.lower().replace("_", ""): key for key, name in _NAMED_KEYSYMS.items()},
    "prior": "pageup", "next": "pagedown", "kpenter": "kp_enter",
    "superl": "super", "superr": "super", "metal": "super", "metar": "super", "hyperl": "super",
    "controll": "ctrl", "controlr": "ctrl", "shiftl": "shift", "shiftr": "shift", "altl": "alt", "altr": "alt",
    "isoleftab": "tab", "sysreq": "printscreen",
    # The keypad's digits and operators type the same characters as the main keyboard's.
    **{f"kp{digit}": str(digit) for digit in range(10)},
    "kpadd": "+", "kpsubtract": "-", "kpmultiply": "*", "kpdivide": "/", "kpdecimal": ".", "kpequal": "=",
}  # fmt: skip


def _unified_from_keysym(name: str, label: str) -> str:
    folded = name.lower().replace("_", "") if len(name) > 1 else name.lower()
    alias = _KEYSYM_ALIASES.get(folded)
    return alias if alias is not None else normalize_key(name, label)


def parse_xdotool_chord(chord: str, label: str) -> tuple[str, ...]:
    """One xdotool chord ("ctrl+shift+t", "Return") as unified key names."""
    return tuple(_unified_from_keysym(part, label) for part in split_key_combo(chord))


def parse_xdotool_keys(text: object, label: str) -> list[tuple[str, ...]]:
    """xdotool ``key`` arguments: chords separated by whitespace, pressed one after another."""
    if not isinstance(text, str):
        raise ActionError(f"{label}: {text!r} is not a string of xdotool key names")
    chords = text.split()
    if not chords:
        raise ActionError(f"{label}: {text!r} names no key; write e.g. 'Return' or 'ctrl+s'")
    return [parse_xdotool_chord(chord, label) for chord in chords]


def xdotool_chord(keys: Sequence[str]) -> str:
    """Unified keys as one xdotool chord, the spelling Claude itself writes ("ctrl+Return")."""
    return "+".join(_NAMED_KEYSYMS.get(key) or _GLYPH_KEYSYMS.get(key) or key for key in keys)


# Unified named key -> the spelling OpenAI's computer-use model writes; the rest are upper-cased.
_CUA_NAMES = {"escape": "ESC", "up": "ARROWUP", "down": "ARROWDOWN", "left": "ARROWLEFT", "right": "ARROWRIGHT"}


def cua_key_name(key: str) -> str:
    """A unified key as an OpenAI ``keypress`` name: named keys upper-case, characters as they are."""
    if len(key) == 1:
        return key
    return _CUA_NAMES.get(key, key.upper())


def parse_cua_keys(keys: object, label: str) -> tuple[str, ...]:
    """``keypress.keys`` (a list of names; an entry "ctrl+c" is split too) as unified key names."""
    if isinstance(keys, str) or not isinstance(keys, Sequence) or not keys:
        raise ActionError(f"{label}: {keys!r} is not a non-empty list of key names")
    names: list[str] = []
    for key in keys:
        if not isinstance(key, str):
            raise ActionError(f"{label}: {key!r} is not a key name (a string)")
        parts = split_key_combo(key) if len(key) > 1 and "+" in key else (key,)
        names.extend(normalize_key(part, label) for part in parts)
    return tuple(names)
