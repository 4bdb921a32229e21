"""UI-TARS' output grammar: ``Thought: ...`` then ``Action: fn(arg='...')``, read without executing anything.

The rules follow the official parser, bytedance/UI-TARS ``codes/ui_tars/action_parser.py``
(``parse_action_to_structure_output``): the thought runs up to the ``Action:`` line; several actions are
separated by a blank line (``)\\n\\n``); each call is read with ``ast`` after newlines are escaped (so a
``type(content=...)`` may span lines); ``<|box_start|>``/``<|box_end|>`` tokens are dropped; a
``<point>x y</point>`` (or ``<bbox>x1 y1 x2 y2</bbox>``) value is a point (or a box); ``point=``,
``start_point=`` and ``end_point=`` are the newer names of ``start_box=`` / ``end_box=``; an empty
string argument counts as absent; a box of four numbers means its centre. Unlike the official code,
anything unexpected is a ``ValueError`` naming what was wrong, never a print and a ``None``.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

__all__ = ["Call", "quote", "read_box", "read_call", "split_output"]

_BOX_TOKENS = re.compile(r"<\|box_start\|>|<\|box_end\|>")
_POINT_TAG = re.compile(r"<(point|bbox)>\s*(.*?)\s*</\1>", re.S)
_ACTION_LINE = re.compile(r"(?:^|\n)[ \t]*Action:[ \t]*")
_THOUGHT = re.compile(r"^\s*(?:Thought|Action_Summary):\s*(.*)$", re.S)
_REFLECTION = re.compile(r"^\s*Reflection:\s*(.*?)\s*Action_Summary:\s*(.*)$", re.S)
_TYPE_FALLBACK = re.compile(r"type\(\s*content\s*=\s*(['\"])(.*)\1\s*\)", re.S)
_RENAMED = {"point": "start_box", "start_point": "start_box", "end_point": "end_box"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "\\": "\\"}
_MAX_OUTPUT = 100_000  # a runaway generation is refused before ast sees it


@dataclass(frozen=True)
class Call:
    """One action call: its function name and its keyword arguments (strings, empty ones dropped)."""

    name: str
    args: dict[str, str]
    text: str


def split_output(text: str) -> tuple[str | None, list[str]]:
    """The thought (None when absent) and the text of each action call."""
    if len(text) > _MAX_OUTPUT:
        raise ValueError(f"the output is {len(text)} characters long; UI-TARS writes one short action")
    text = text.replace("[EOS]", "").strip()
    found = _ACTION_LINE.search(text)
    if found is None:
        raise ValueError("no 'Action:' line; UI-TARS writes 'Thought: ...' then 'Action: fn(...)'")
    head, body = text[: found.start()], text[found.end() :]
    thought = None
    reflection = _REFLECTION.match(head)
    plain = _THOUGHT.match(head)
    if reflection:
        thought = reflection.group(2).strip() or None
    elif plain:
        thought = plain.group(1).strip() or None
    elif head.strip():
        thought = head.strip()
    pieces = body.strip().split(")\n\n")
    calls = [piece.strip() + (")" if i < len(pieces) - 1 else "") for i, piece in enumerate(pieces)]
    calls = [call for call in calls if call]
    if not calls:
        raise ValueError("the 'Action:' line is empty")
    return thought, calls


def _unescape(text: str) -> str:
    out: list[str] = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append(_ESCAPES.get(following, "\\" + following))
        else:
            out.append(char)
    return "".join(out)


def read_call(text: str) -> Call:
    """One ``fn(key='value', ...)`` call; only string literals are accepted as values."""
    source = _BOX_TOKENS.sub("", text.strip())
    if not source.endswith(")"):
        source += ")"  # the official parser closes a call the model left open
    try:
        tree = ast.parse(source.replace("\n", "\\n"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        fallback = _TYPE_FALLBACK.fullmatch(source)
        if fallback is None:
            raise ValueError(f"{text[:120]!r} is not a call fn(key='value', ...)") from None
        # An unescaped quote inside type(content='...'): the official parser takes everything between.
        return Call("type", {"content": _unescape(fallback.group(2))}, text)
    node = tree.body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"{text[:120]!r} is not a call fn(key='value', ...)")
    if node.args:
        raise ValueError(f"{text[:120]!r} has positional arguments; UI-TARS names each one (start_box='...')")
    args: dict[str, str] = {}
    for keyword in node.keywords:
        value = keyword.value
        if keyword.arg is None or not isinstance(value, ast.Constant) or not isinstance(value.value, str):
            raise ValueError(f"{text[:120]!r}: every argument must be a quoted string, as in start_box='(x,y)'")
        if value.value != "":
            args[_RENAMED.get(keyword.arg, keyword.arg)] = value.value
    return Call(node.func.id, args, text)


def read_box(value: str) -> tuple[float, float]:
    """The point a ``start_box``/``end_box`` value names: ``(x,y)``, ``<point>x y</point>``, or a box's centre."""
    tagged = _POINT_TAG.search(value)
    inner = tagged.group(2) if tagged else _BOX_TOKENS.sub("", value)
    parts = [p for p in re.split(r"[\s,]+", inner.strip().strip("()[]").strip()) if p]
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"box {value!r} is not 2 or 4 numbers") from None
    if len(numbers) not in (2, 4) or not all(math.isfinite(n) for n in numbers):
        raise ValueError(f"box {value!r} is not 2 or 4 numbers")
    if len(numbers) == 4:
        return (numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2
    return numbers[0], numbers[1]


def quote(text: str) -> str:
    """``text`` as a single-quoted Python literal, escaped the way UI-TARS' prompt asks (\\', \\", \\n)."""
    out = []
    for char in text:
        if char in "\\'":
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return "'" + "".join(out) + "'"
