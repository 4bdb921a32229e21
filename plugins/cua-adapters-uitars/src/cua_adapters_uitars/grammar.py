"""UI-TARS' output grammar: ``Thought: ...`` then ``Action: fn(arg='...')``, read without executing anything.

The rules follow the official parser, bytedance/UI-TARS ``codes/ui_tars/action_parser.py``
(``parse_action_to_structure_output``): the thought runs up to the ``Action:`` line; several actions are
separated by a blank line (``)\\n\\n``); each call is read with ``ast`` after newlines are escaped (so a
``type(content=...)`` may span lines); ``<|box_start|>``/``<|box_end|>`` tokens are dropped; a
``<point>x y</point>`` (or ``<bbox>x1 y1 x2 y2</bbox>``) value is a point (or a box); ``point=``,
``start_point=`` and ``end_point=`` are the newer names of ``start_box=`` / ``end_box=``; an empty
string argument counts as absent; a box of four numbers means its centre. Unlike the official code,
anything unexpected is a ``ValueError`` naming what was wrong, never a print and a ``None``.

``Action:`` need not start a line: the official parser splits at "Action: " wherever it is
(``text.split("Action: ")[-1]``), and UI-TARS-desktop's ``actionParser.ts`` also takes the full-width
``Action：`` of Chinese outputs and the last marker that is followed by a call. We take the first
marker at a line start that is followed by a call (the documented layout, so an "Action: x(" in a
``type`` text after it is text), else the last one followed by a call (the same-line layout).

UI-TARS-2 and the Seed models around it write other layouts, read by :func:`read_output` too:

- reasoning in a think block, ``<think>``, ``<seed:think>`` or ``<think_never_used_<hex>>`` (the
  suffix is the deployment's: ByteDance's ``ui_tars/action_parser.py`` in its version with
  ``parse_xml_action_v3``, and the Seed agents built on it, use ``_never_used_51bce0c785ca2f68081bfa7d91973934``);
  a closing tag alone (its opening tag in the prompt) ends the reasoning too;
- Seed tool calls: ``<seed:tool_call><function=click><parameter=point><point>x y</point></parameter>
  </function>...</seed:tool_call>`` (trycua/cua ``agent/loops/uitars2.py``; vLLM's
  ``seed_oss_tool_parser.py``, which also drops one newline at each end of a value), the Doubao form
  ``<function name="click"><parameter name="point" string="true">`` (``FN_REGEX_PATTERN_65`` in that
  ``action_parser.py``) and the ``_never_used_<hex>`` variants of each tag (its ``FN_REGEX_PATTERN_V3``);
  the values are plain text, not Python literals;
- ``<computer_env>Action: fn(...)</computer_env>`` and ``<answer>...</answer>`` (the final answer,
  ``finished(content=...)``): UI-TARS-desktop's ``OmniFormatParser``, where "Action:" is optional.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

__all__ = ["Call", "quote", "read_box", "read_call", "read_output", "split_output"]

_BOX_TOKENS = re.compile(r"<\|box_start\|>|<\|box_end\|>")
_POINT_TAG = re.compile(r"<(point|bbox)>\s*(.*?)\s*</\1>", re.S)
_ACTION = re.compile(r"Action[:：][ \t]*")
_LINE_ACTION = re.compile(r"^[ \t]*Action[:：][ \t]*", re.M)
_CALL_START = re.compile(r"\s*[A-Za-z_]\w*\s*\(")
_THOUGHT = re.compile(r"^\s*(?:Thought|Action_Summary)[:：]\s*(.*)$", re.S)
_REFLECTION = re.compile(r"^\s*Reflection[:：]\s*(.*?)\s*Action_Summary[:：]\s*(.*)$", re.S)
_SUFFIX = r"(?:_never_used_[0-9a-fA-F]+)?"
_THINK_OPEN = re.compile(rf"<(?:seed:|gui_)?think{_SUFFIX}>")
_THINK_CLOSE = re.compile(rf"</(?:seed:|gui_)?think{_SUFFIX}>")
_TOOL_CALL = re.compile(rf"<seed:tool_call{_SUFFIX}>(.*?)(?:</seed:tool_call{_SUFFIX}>|$)", re.S)
_NAME = r'(?:=|\s+name=")([^\s">]+)"?(?:\s+string="(?:true|false)")?'
_FUNCTION = (re.compile(rf"<function{_SUFFIX}{_NAME}>"), re.compile(rf"</function{_SUFFIX}>"))
_PARAMETER = (re.compile(rf"<parameter{_SUFFIX}{_NAME}>"), re.compile(rf"</parameter{_SUFFIX}>"))
_COMPUTER_ENV = re.compile(r"<computer_env>(.*?)(?:</computer_env>|$)", re.S)
_ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.S)
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
    marks = list(_ACTION.finditer(text))
    if not marks:
        raise ValueError("no 'Action:' line; UI-TARS writes 'Thought: ...' then 'Action: fn(...)'")
    before_calls = [mark for mark in marks if _CALL_START.match(text, mark.end())]
    line_starts = {mark.end() for mark in _LINE_ACTION.finditer(text)}
    at_line_start = [mark for mark in before_calls if mark.end() in line_starts]
    found = at_line_start[0] if at_line_start else before_calls[-1] if before_calls else marks[-1]
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


def read_output(text: str) -> tuple[str | None, list[Call]]:
    """The thought (None when absent) and the calls of an output in any of the layouts above."""
    if len(text) > _MAX_OUTPUT:
        raise ValueError(f"the output is {len(text)} characters long; UI-TARS writes one short action")
    think, rest = _split_think(text)
    blocks = list(_TOOL_CALL.finditer(rest))
    if blocks:
        calls = [call for block in blocks for call in _seed_calls(block.group(1))]
        return _joined(think, rest[: blocks[0].start()]), calls
    if env := _COMPUTER_ENV.match(rest.lstrip()):
        body = env.group(1).strip()
        thought, texts = split_output(body if _ACTION.search(body) else f"Action: {body}")
        return _joined(think, thought), [read_call(text) for text in texts]
    if answer := _ANSWER.match(rest.lstrip()):
        content = answer.group(1).strip()
        return think, [Call("finished", {"content": content} if content else {}, answer.group(0))]
    thought, texts = split_output(rest)
    return _joined(think, thought), [read_call(text) for text in texts]


def _split_think(text: str) -> tuple[str | None, str]:
    """The reasoning before the last closing think tag (its opening tag may be in the prompt), and the rest."""
    closes = list(_THINK_CLOSE.finditer(text))
    if not closes:
        return None, text
    return _joined(_THINK_OPEN.sub("", text[: closes[-1].start()])), text[closes[-1].end() :]


def _seed_calls(body: str) -> list[Call]:
    functions = _tagged(body, *_FUNCTION)
    if not functions:
        raise ValueError(f"no <function=...> call in the tool call {body.strip()[:120]!r}")
    calls = []
    for name, inner in functions:
        args: dict[str, str] = {}
        for key, written in _tagged(inner, *_PARAMETER):
            # One newline at each end is layout (a value on lines of its own), as vLLM's Seed parser reads it.
            value = written.removeprefix("\n").removesuffix("\n")
            if value != "":
                args[_RENAMED.get(key, key)] = value
        calls.append(Call(name, args, f"<function={name}>{inner}</function>"))
    return calls


def _tagged(text: str, opening: re.Pattern[str], closing: re.Pattern[str]) -> list[tuple[str, str]]:
    """(name, content) of each ``<tag=name>content</tag>`` in ``text``; one pass, however the tags nest or dangle."""
    blocks: list[tuple[str, str]] = []
    start = 0
    for close in closing.finditer(text):
        found = opening.search(text, start, close.start())
        if found is not None:
            blocks.append((found.group(1), text[found.end() : close.start()]))
        start = close.end()
    return blocks


def _joined(*parts: str | None) -> str | None:
    return "\n\n".join(part.strip() for part in parts if part and part.strip()) or None


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
