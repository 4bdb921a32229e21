"""Claude computer use: ``tool_use`` blocks of the ``computer`` tool, as the Messages API returns them.

Two shapes are read. The classic one (tool versions ``computer_20250124`` / ``computer_20251124``)
is one tool named ``computer`` whose ``input.action`` says what to do::

    {"type": "tool_use", "id": "toolu_...", "name": "computer",
     "input": {"action": "left_click", "coordinate": [405, 157], "text": "shift"}}

The toolset shape names the action as the tool and marks the block ``"toolset_name": "computer"``
(``{"type": "tool_use", "name": "left_click", "input": {"coordinate": [1, 2]}, ...}``). Parameters
are the same in both: the ``computer_20250124`` input schema (vercel/ai
``packages/anthropic/src/tool/computer_20250124.ts`` mirrors Anthropic's tool description;
anthropics/anthropic-quickstarts ``computer-use-demo/computer_use_demo/tools/computer.py`` runs it):
``coordinate``/``start_coordinate`` ``[x, y]`` pixels, ``text`` (typed text, an xdotool key chord,
or the keys held during a click or scroll), ``scroll_direction``, ``scroll_amount`` (wheel
clicks) and ``duration`` (seconds).

Text blocks (and extended-thinking blocks) are the model's thought. A turn with no ``tool_use``
is Claude's final answer, the way the agent loop ends (``computer_use_demo/loop.py`` stops when a
response has no tool calls): it parses to ``done(answer)``. A whole reply is read as the API sends
it (``{"id", "type": "message", "content", "stop_reason", "usage", ...}``), and so is the SDK's
``Message``/``BetaMessage`` (through its ``model_dump``); ``ParsedOutput.raw`` keeps its ``usage``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from cua_adapters_api.anthropic_scaling import MAX_LONG_EDGE, MAX_PIXELS, SCALINGS, scaled_size
from cua_adapters_api.common import (
    Frame,
    ModelDump,
    group_modifiers,
    load_json,
    pixel_point,
    pixels,
    plain,
    stable_id,
    typed_text,
    typed_text_of,
    unsupported,
    with_modifiers,
)
from cua_adapters_api.keys import parse_xdotool_keys, xdotool_chord
from cua_core import (
    Action,
    ActionError,
    Click,
    CursorPosition,
    Done,
    Drag,
    HoldKey,
    KeyPress,
    MouseDown,
    MouseMove,
    MouseUp,
    Screenshot,
    Scroll,
    TypeText,
    Wait,
)
from cua_core.actions import describe
from cua_data import Adapter, AdapterParseError, HistoryPolicy, ParsedOutput, RawOutput

__all__ = ["ACTIONS", "AnthropicAdapter"]

FAMILY = "anthropic"
TOOL_NAME = "computer"

# Every action of computer_20250124, in the order of its schema.
ACTIONS = (
    "key", "hold_key", "type", "cursor_position", "mouse_move", "left_mouse_down", "left_mouse_up",
    "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "triple_click",
    "scroll", "wait", "screenshot",
)  # fmt: skip
_CLICKS: dict[str, tuple[str, int]] = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}
_CLICK_ACTIONS = {value: name for name, value in _CLICKS.items()}
TOOL_SHAPES = ("computer", "toolset")


class AnthropicAdapter(Adapter):
    """Claude's ``computer`` tool calls, in pixels of the screenshot sent (see ``anthropic_scaling``).

    Options: ``scaling`` (``demo``, ``api``, ``none``) with ``max_long_edge``/``max_pixels`` for
    the API limit (raise them for models documented to take larger images), and ``tool_shape``:
    ``computer`` writes classic ``computer`` tool calls, ``toolset`` the per-action toolset shape.
    """

    name = FAMILY
    expresses = frozenset(
        {
            "click", "mouse_move", "mouse_down", "mouse_up", "drag", "scroll", "type", "key", "hold_key",
            "wait", "screenshot", "cursor_position", "done",
        }
    )  # fmt: skip

    SYSTEM_PROMPT: ClassVar[str] = (
        "You are operating a computer through the `computer` tool to complete the user's task. "
        "The screen is {width}x{height} pixels; give every coordinate in that frame. "
        "When the task is complete, reply with your answer in text and no tool call."
    )

    def __init__(
        self,
        *,
        history: HistoryPolicy | None = None,
        scaling: str = "demo",
        max_long_edge: int = MAX_LONG_EDGE,
        max_pixels: int = MAX_PIXELS,
        tool_shape: str = "computer",
    ) -> None:
        super().__init__(history=history)
        if scaling not in SCALINGS:
            raise ValueError(f"{FAMILY}: scaling {scaling!r} is not one of {', '.join(SCALINGS)}")
        for option, value in (("max_long_edge", max_long_edge), ("max_pixels", max_pixels)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{FAMILY}: {option} must be a whole number of pixels of at least 1, got {value!r}")
        if tool_shape not in TOOL_SHAPES:
            raise ValueError(f"{FAMILY}: tool_shape {tool_shape!r} is not one of {', '.join(TOOL_SHAPES)}")
        self.scaling = scaling
        self.max_long_edge = max_long_edge
        self.max_pixels = max_pixels
        self.tool_shape = tool_shape

    def model_size(self, width: int, height: int) -> tuple[int, int]:
        return scaled_size(width, height, self.scaling, self.max_long_edge, self.max_pixels)

    def system_prompt(self, size: tuple[int, int]) -> str | None:
        """A short neutral prompt: Anthropic's own computer-use system prompt is the caller's to add."""
        width, height = self.model_size(*size)
        return self.SYSTEM_PROMPT.format(width=width, height=height)

    # -- writing -------------------------------------------------------------------------------

    def format_output(self, actions: Sequence[Action], size: tuple[int, int], thought: str | None = None) -> str:
        frame = self.model_size(*size)
        content: list[dict[str, Any]] = [{"type": "text", "text": thought}] if thought else []
        if any(isinstance(action, Done) for action in actions):
            done = actions[-1]
            if len(actions) != 1 or not isinstance(done, Done):
                raise unsupported(
                    next(a for a in actions if isinstance(a, Done)),
                    FAMILY,
                    "Claude ends a task with a text-only turn, so done must be the turn's only action",
                )
            if done.answer:
                content.append({"type": "text", "text": done.answer})
            return _dump({"role": "assistant", "content": content})
        inputs = [
            call
            for held, action in group_modifiers(actions, FAMILY, (Click, Scroll, Drag))
            for call in _inputs_of(action, held, frame)
        ]
        for index, call in enumerate(inputs):
            block_id = stable_id("toolu_", index, call)
            if self.tool_shape == "toolset":
                params = {key: value for key, value in call.items() if key != "action"}
                block = {"type": "tool_use", "id": block_id, "name": call["action"], "input": params}
                content.append({**block, "toolset_name": TOOL_NAME})
            else:
                content.append({"type": "tool_use", "id": block_id, "name": TOOL_NAME, "input": call})
        return _dump({"role": "assistant", "content": content})

    # -- reading -------------------------------------------------------------------------------

    def parse(self, output: RawOutput | ModelDump, size: tuple[int, int]) -> ParsedOutput:
        """A reply as the API or the SDK gives it (see :func:`content_blocks`) in pixels of ``model_size``."""
        output = plain(output)
        frame = self.model_size(*size)
        blocks = content_blocks(load_json(output, FAMILY), output)
        texts: list[str] = []
        thinking: list[str] = []
        actions: list[Action] = []
        calls = 0
        for block in blocks:
            kind = block.get("type")
            if kind == "text":
                texts.append(_text_field(block, "text", output))
            elif kind == "thinking":
                thinking.append(_text_field(block, "thinking", output))
            elif kind == "redacted_thinking":
                continue
            elif kind == "tool_use":
                calls += 1
                name, params = _call_of(block, output)
                try:
                    actions.extend(_actions_of(name, params, frame))
                except ActionError as error:
                    raise AdapterParseError(f"{FAMILY}: {name}: {error}", output) from None
            else:
                raise AdapterParseError(
                    f"{FAMILY}: unexpected content block type {kind!r}; expected text, thinking or tool_use", output
                )
        if not calls:
            answer = "\n\n".join(t for t in texts if t.strip())
            return ParsedOutput([Done(answer or None)], output, _join(thinking))
        return ParsedOutput(actions, output, _join([*thinking, *texts]))


# -- reading helpers ---------------------------------------------------------------------------


def content_blocks(data: object, raw: object) -> list[Mapping[str, Any]]:
    """The content blocks of a Messages API reply, an assistant message, a list of blocks, or one block.

    A reply is ``{"id", "type": "message", "role": "assistant", "content": [...], "model",
    "stop_reason", "usage"}``; ``{"role", "content"}`` is the same message without the API's fields.
    """
    if isinstance(data, Mapping):
        if "content" in data and data.get("type", "message") == "message":
            content = data["content"]
            if isinstance(content, str):
                return [{"type": "text", "text": content}]
            data = content
        else:
            data = [data]
    if isinstance(data, str) or not isinstance(data, Sequence):
        raise AdapterParseError(f"{FAMILY}: expected an assistant message, content blocks or one block", raw)
    for block in data:
        if not isinstance(block, Mapping):
            raise AdapterParseError(f"{FAMILY}: content block {describe(block)} is not an object", raw)
    return list(data)


def _text_field(block: Mapping[str, Any], field: str, raw: object) -> str:
    value = block.get(field)
    if not isinstance(value, str):
        raise AdapterParseError(f"{FAMILY}: a {block.get('type')} block's {field!r} is not a string", raw)
    return value


def _call_of(block: Mapping[str, Any], raw: object) -> tuple[str, Mapping[str, Any]]:
    """``(action, parameters)`` of a tool_use block in either shape."""
    name, params = block.get("name"), block.get("input", {})
    if not isinstance(params, Mapping):
        raise AdapterParseError(f"{FAMILY}: tool_use input {describe(params)} is not an object", raw)
    if block.get("toolset_name") == TOOL_NAME:
        action = name
    elif name == TOOL_NAME:
        action = params.get("action")
    else:
        raise AdapterParseError(f"{FAMILY}: tool_use of {describe(name)} is not a call of the computer tool", raw)
    if not isinstance(action, str):
        raise AdapterParseError(f"{FAMILY}: the computer tool call names no action: {describe(dict(block))}", raw)
    if action not in ACTIONS:
        hint = " (zoom only views a region; it has no unified action)" if action == "zoom" else ""
        expected = ", ".join(ACTIONS)
        raise AdapterParseError(
            f"{FAMILY}: unknown action {action!r} in {describe(dict(params))}{hint}; expected one of {expected}", raw
        )
    return action, params


def _required(params: Mapping[str, Any], field: str, action: str) -> Any:
    if params.get(field) is None:
        raise ActionError(f"{field} is required for {action}")
    return params[field]


def _held_keys(params: Mapping[str, Any]) -> tuple[str, ...]:
    # The schema's "text" holds keys during clicks and scrolls; the demo's 20250124 tool reads "key".
    text = params.get("text") if params.get("text") is not None else params.get("key")
    if text is None:
        return ()
    if not isinstance(text, str):
        raise ActionError(f"text (keys to hold) {describe(text)} is not a string")
    return tuple(key for chord in parse_xdotool_keys(text, "text") for key in chord)


def _optional_point(params: Mapping[str, Any], field: str, frame: Frame) -> Any:
    value = params.get(field)
    return None if value is None else pixel_point(value, frame, field)


def _actions_of(action: str, params: Mapping[str, Any], frame: Frame) -> list[Action]:
    if action in _CLICKS:
        button, clicks = _CLICKS[action]
        click = Click(_optional_point(params, "coordinate", frame), button, clicks)  # type: ignore[arg-type]
        return with_modifiers(_held_keys(params), click)
    if action == "scroll":
        amount = _required(params, "scroll_amount", action)
        scroll = Scroll(
            _required(params, "scroll_direction", action), amount, _optional_point(params, "coordinate", frame)
        )
        return with_modifiers(_held_keys(params), scroll)
    if action == "left_click_drag":
        end = pixel_point(_required(params, "coordinate", action), frame, "coordinate")
        return with_modifiers(_held_keys(params), Drag(_optional_point(params, "start_coordinate", frame), end))
    if action == "mouse_move":
        return [MouseMove(pixel_point(_required(params, "coordinate", action), frame, "coordinate"))]
    if action in ("left_mouse_down", "left_mouse_up"):
        record = MouseDown if action == "left_mouse_down" else MouseUp
        return [record("left", _optional_point(params, "coordinate", frame))]
    if action == "key":
        return [KeyPress(chord) for chord in parse_xdotool_keys(_required(params, "text", action), "text")]
    if action == "hold_key":
        chords = parse_xdotool_keys(_required(params, "text", action), "text")
        return [HoldKey(tuple(key for chord in chords for key in chord), _required(params, "duration", action))]
    if action == "type":
        return [typed_text(_required(params, "text", action), "text")]
    if action == "wait":
        return [Wait(_required(params, "duration", action))]
    return [Screenshot() if action == "screenshot" else CursorPosition()]


# -- writing helpers ---------------------------------------------------------------------------


def _inputs_of(action: Action, held: tuple[str, ...], frame: Frame) -> list[dict[str, Any]]:
    """The ``input`` of each tool call that performs ``action`` with ``held`` keys down."""
    modifier = {"text": xdotool_chord(held)} if held else {}
    if isinstance(action, Click):
        name = _CLICK_ACTIONS.get((action.button, action.clicks))
        if name is None:
            raise unsupported(action, FAMILY, "only left clicks repeat (double_click, triple_click)")
        where = {"coordinate": pixels(action.coordinate, frame)} if action.coordinate else {}
        return [{"action": name, **where, **modifier}]
    if isinstance(action, Scroll):
        where = {"coordinate": pixels(action.coordinate, frame)} if action.coordinate else {}
        call = {"action": "scroll", **where, "scroll_direction": action.direction, "scroll_amount": action.amount}
        return [{**call, **modifier}]
    if isinstance(action, MouseMove):
        return [{"action": "mouse_move", "coordinate": pixels(action.coordinate, frame)}]
    if isinstance(action, MouseDown | MouseUp):
        if action.button != "left":
            raise unsupported(action, FAMILY, "only the left button can be held (left_mouse_down/up)")
        # The reference tool refuses a coordinate on left_mouse_down/up: move there first.
        move = [{"action": "mouse_move", "coordinate": pixels(action.coordinate, frame)}] if action.coordinate else []
        return [*move, {"action": "left_mouse_down" if isinstance(action, MouseDown) else "left_mouse_up"}]
    if isinstance(action, Drag):
        if action.button != "left":
            raise unsupported(action, FAMILY, "left_click_drag drags with the left button only")
        start = {"start_coordinate": pixels(action.start, frame)} if action.start else {}
        return [{"action": "left_click_drag", **start, "coordinate": pixels(action.end, frame), **modifier}]
    if isinstance(action, TypeText):
        return [{"action": "type", "text": typed_text_of(action)}]
    if isinstance(action, KeyPress):
        return [{"action": "key", "text": xdotool_chord(action.keys)}]
    if isinstance(action, HoldKey):
        return [{"action": "hold_key", "text": xdotool_chord(action.keys), "duration": action.duration}]
    if isinstance(action, Wait):
        return [{"action": "wait", "duration": action.duration}]
    if isinstance(action, Screenshot):
        return [{"action": "screenshot"}]
    if isinstance(action, CursorPosition):
        return [{"action": "cursor_position"}]
    raise unsupported(action, FAMILY, "the computer tool has no such action")


def _join(parts: list[str]) -> str | None:
    text = "\n\n".join(part for part in parts if part.strip())
    return text or None


def _dump(message: Mapping[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False)
