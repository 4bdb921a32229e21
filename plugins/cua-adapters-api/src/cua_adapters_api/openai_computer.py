"""OpenAI computer use: ``computer_call`` output items of the Responses API.

A response's ``output`` holds ``reasoning`` items (their ``summary`` texts are the thought),
``computer_call`` items and, when the model answers instead of acting, a ``message``. A
``computer_call`` carries one ``action`` (the ``computer_use_preview`` tool; openai/openai-python
``src/openai/types/responses/response_computer_tool_call.py``) or, with the GA ``computer`` tool,
an ``actions`` array run in order (openai/openai-agents-python
``src/agents/run_internal/tool_actions.py``, ``_iter_actions``). Actions::

    {"type": "click", "button": "left|right|wheel|back|forward", "x": 156, "y": 50}
    {"type": "double_click", "x": .., "y": ..}     {"type": "move", "x": .., "y": ..}
    {"type": "scroll", "x": .., "y": .., "scroll_x": 0, "scroll_y": 300}
    {"type": "type", "text": "..."}                {"type": "keypress", "keys": ["CTRL", "L"]}
    {"type": "drag", "path": [{"x": .., "y": ..}, ...]}
    {"type": "wait"}                               {"type": "screenshot"}

GA mouse actions may also carry ``keys``, held while the action runs (Shift-click). Coordinates
are pixels of the screenshot sent. Scroll distances are pixels too: one unified wheel click is
``scroll_pixels_per_click`` pixels (100, OpenAI's docker example: ``max(1, abs(round(scrollY /
100)))`` clicks), rounded, at least one. ``wait`` has no duration; it waits 2 s, as OpenAI's
example handlers do (``time.sleep(2)``). A response with a ``message`` and no ``computer_call``
is the model's answer: ``done(answer)``.

A call's ``pending_safety_checks`` are never dropped: they come back in
``ParsedOutput.safety_checks`` for the agent's policy (stop, or go on and send them back as
``acknowledged_safety_checks``, which :func:`~cua_adapters_api.messages.openai_request` does for every
replayed turn). A whole response is read as the API sends it, and so is the SDK's ``Response``
(through its ``model_dump``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from cua_adapters_api.common import (
    POINTER_ACTIONS,
    Frame,
    ModelDump,
    check_size,
    group_modifiers,
    load_json,
    pixels,
    plain,
    stable_id,
    typed_text,
    typed_text_of,
    unsupported,
    with_modifiers,
    xy_point,
)
from cua_adapters_api.keys import cua_key_name, parse_cua_keys
from cua_core import (
    MAX_SCROLL_AMOUNT,
    Action,
    ActionError,
    Click,
    Done,
    Drag,
    KeyPress,
    MouseDown,
    MouseMove,
    MouseUp,
    Screenshot,
    Scroll,
    ScrollDirection,
    TypeText,
    Wait,
)
from cua_core.actions import describe, is_integer
from cua_data import Adapter, AdapterParseError, HistoryPolicy, ParsedOutput, RawOutput

__all__ = ["ACTIONS", "WAIT_SECONDS", "OpenAIComputerAdapter", "output_items"]

FAMILY = "openai-computer"
ACTIONS = ("click", "double_click", "scroll", "type", "keypress", "move", "drag", "wait", "screenshot")
FORMS = ("ga", "preview")
WAIT_SECONDS = 2.0
_BUTTONS = {"left": "left", "right": "right", "wheel": "middle"}
_API_BUTTONS = {value: key for key, value in _BUTTONS.items()}


class OpenAIComputerAdapter(Adapter):
    """OpenAI's ``computer_call`` items, in pixels of the screenshot sent.

    Options: ``display_size`` (``(w, h)`` or ``"WxH"``): the size screenshots are resized to and
    the tool's display size; by default the screen's own. ``form``: ``ga`` writes one
    ``computer_call`` with an ``actions`` array (the GA ``computer`` tool), ``preview`` one
    ``computer_call`` per action (``computer_use_preview``). ``scroll_pixels_per_click``: pixels
    of ``scroll_x``/``scroll_y`` per unified wheel click.
    """

    name = FAMILY
    expresses = frozenset({"click", "mouse_move", "drag", "scroll", "type", "key", "wait", "screenshot", "done"})

    SYSTEM_PROMPT: ClassVar[str] = (
        "You are operating a computer through the computer tool to complete the user's task. "
        "The screen is {width}x{height} pixels. When the task is complete, reply with your answer as a message."
    )

    def __init__(
        self,
        *,
        history: HistoryPolicy | None = None,
        display_size: tuple[int, int] | str | None = None,
        form: str = "ga",
        scroll_pixels_per_click: int = 100,
    ) -> None:
        super().__init__(history=history)
        if isinstance(display_size, str):
            match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", display_size)
            if not match:
                raise ValueError(f"{FAMILY}: display_size {display_size!r} is not WIDTHxHEIGHT, e.g. 1024x768")
            display_size = (int(match[1]), int(match[2]))
        self.display_size = None if display_size is None else check_size(display_size, f"{FAMILY}: display_size")
        if form not in FORMS:
            raise ValueError(f"{FAMILY}: form {form!r} is not one of {', '.join(FORMS)}")
        if not is_integer(scroll_pixels_per_click) or scroll_pixels_per_click < 1:
            raise ValueError(
                f"{FAMILY}: scroll_pixels_per_click must be a whole number >= 1, got {scroll_pixels_per_click!r}"
            )
        self.form = form
        self.scroll_pixels_per_click = int(scroll_pixels_per_click)

    def model_size(self, width: int, height: int) -> tuple[int, int]:
        if width < 1 or height < 1:
            raise ValueError(f"screen size must be positive, got {width}x{height}")
        return self.display_size or (width, height)

    def system_prompt(self, size: tuple[int, int]) -> str | None:
        """A short neutral prompt; the computer tool's own description comes with the tool."""
        width, height = self.model_size(*size)
        return self.SYSTEM_PROMPT.format(width=width, height=height)

    # -- writing -------------------------------------------------------------------------------

    def format_output(self, actions: Sequence[Action], size: tuple[int, int], thought: str | None = None) -> str:
        frame = self.model_size(*size)
        items: list[dict[str, Any]] = []
        if thought:
            summary = [{"type": "summary_text", "text": thought}]
            items.append({"type": "reasoning", "id": stable_id("rs_", thought), "summary": summary})
        if any(isinstance(action, Done) for action in actions):
            done = actions[-1]
            if len(actions) != 1 or not isinstance(done, Done):
                raise unsupported(
                    next(a for a in actions if isinstance(a, Done)),
                    FAMILY,
                    "the model answers with a message instead of a computer_call, so done must be the only action",
                )
            content = [{"type": "output_text", "text": done.answer, "annotations": []}] if done.answer else []
            message_id = stable_id("msg_", done.answer)
            items.append(
                {"type": "message", "id": message_id, "role": "assistant", "status": "completed", "content": content}
            )
            return json.dumps({"output": items}, ensure_ascii=False)
        modifiable = POINTER_ACTIONS if self.form == "ga" else ()
        calls = [self._action_of(action, held, frame) for held, action in group_modifiers(actions, FAMILY, modifiable)]
        batches = [calls] if self.form == "ga" else [[call] for call in calls]
        for index, batch in enumerate(batches):
            body: dict[str, Any] = {"actions": batch} if self.form == "ga" else {"action": batch[0]}
            call_id = stable_id("call_", index, batch)
            items.append(
                {
                    "type": "computer_call",
                    "id": stable_id("cu_", index, batch),
                    "call_id": call_id,
                    **body,
                    "pending_safety_checks": [],
                    "status": "completed",
                }
            )
        return json.dumps({"output": items}, ensure_ascii=False)

    def _action_of(self, action: Action, held: tuple[str, ...], frame: Frame) -> dict[str, Any]:
        keys = {"keys": [cua_key_name(key) for key in held]} if held else {}
        if isinstance(action, Click):
            if action.coordinate is None:
                raise unsupported(action, FAMILY, "a click needs x and y")
            x, y = pixels(action.coordinate, frame)
            if action.clicks == 1:
                return {"type": "click", "button": _API_BUTTONS[action.button], "x": x, "y": y, **keys}
            if action.clicks == 2 and action.button == "left":
                return {"type": "double_click", "x": x, "y": y, **keys}
            raise unsupported(action, FAMILY, "only single clicks and left double clicks exist")
        if isinstance(action, MouseMove):
            x, y = pixels(action.coordinate, frame)
            return {"type": "move", "x": x, "y": y, **keys}
        if isinstance(action, Drag):
            if action.start is None or action.button != "left":
                raise unsupported(action, FAMILY, "a drag is a left-button path from a known start point")
            path = [dict(zip("xy", pixels(point, frame), strict=True)) for point in (action.start, action.end)]
            return {"type": "drag", "path": path, **keys}
        if isinstance(action, Scroll):
            if action.coordinate is None:
                raise unsupported(action, FAMILY, "a scroll needs x and y")
            x, y = pixels(action.coordinate, frame)
            distance = action.amount * self.scroll_pixels_per_click
            sign = -1 if action.direction in ("up", "left") else 1
            vertical = action.direction in ("up", "down")
            scroll_x, scroll_y = (0, sign * distance) if vertical else (sign * distance, 0)
            return {"type": "scroll", "x": x, "y": y, "scroll_x": scroll_x, "scroll_y": scroll_y, **keys}
        if isinstance(action, TypeText):
            return {"type": "type", "text": typed_text_of(action)}
        if isinstance(action, KeyPress):
            return {"type": "keypress", "keys": [cua_key_name(key) for key in action.keys]}
        if isinstance(action, Wait):
            return {"type": "wait"}
        if isinstance(action, Screenshot):
            return {"type": "screenshot"}
        raise unsupported(action, FAMILY, "the computer tool has no such action")

    # -- reading -------------------------------------------------------------------------------

    def parse(self, output: RawOutput | ModelDump, size: tuple[int, int]) -> ParsedOutput:
        """A response as the API or the SDK gives it (see :func:`output_items`) in pixels of ``model_size``."""
        output = plain(output)
        frame = self.model_size(*size)
        items = output_items(load_json(output, FAMILY), output)
        thoughts: list[str] = []
        said: list[str] = []
        actions: list[Action] = []
        checks: list[dict[str, Any]] = []
        calls = 0
        for item in items:
            kind = item.get("type")
            if kind == "reasoning":
                thoughts.extend(_texts(item.get("summary", []), "summary_text", output))
            elif kind == "message" or (kind is None and item.get("role") == "assistant"):
                said.extend(_texts(item.get("content", []), "output_text", output))
            elif kind == "computer_call":
                calls += 1
                checks.extend(_safety_checks(item, output))
                for action in _call_actions(item, output):
                    try:
                        actions.extend(self._actions_of(action, frame))
                    except ActionError as error:
                        raise AdapterParseError(f"{FAMILY}: {action.get('type')}: {error}", output) from None
            else:
                raise AdapterParseError(
                    f"{FAMILY}: unexpected output item type {kind!r}; expected reasoning, computer_call or message",
                    output,
                )
        if not calls:
            if not said and not any(item.get("type") == "message" for item in items):
                raise AdapterParseError(f"{FAMILY}: the output has no computer_call and no message", output)
            answer = "\n\n".join(text for text in said if text.strip())
            return ParsedOutput([Done(answer or None)], output, _join(thoughts))
        return ParsedOutput(actions, output, _join([*thoughts, *said]), checks)

    def _actions_of(self, action: Mapping[str, Any], frame: Frame) -> list[Action]:
        kind = action.get("type")

        def point(x_field: str = "x", y_field: str = "y", source: Mapping[str, Any] = action) -> Any:
            for field in (x_field, y_field):
                if source.get(field) is None:
                    raise ActionError(f"{field} is required")
            return xy_point(source[x_field], source[y_field], frame, str(kind))

        # GA mouse actions name the keys held while they run; keypress's "keys" are the keys pressed.
        mouse = kind in ("click", "double_click", "move", "scroll", "drag")
        held = parse_cua_keys(action["keys"], "keys") if mouse and action.get("keys") else ()
        if kind == "click":
            button = str(action.get("button") or "left")
            if button in ("back", "forward"):
                raise ActionError(f"the {button} mouse button has no unified equivalent (left, right, wheel only)")
            if button not in _BUTTONS:
                raise ActionError(f"button {describe(button)} is not one of left, right, wheel, back, forward")
            return with_modifiers(held, Click(point(), _BUTTONS[button]))  # type: ignore[arg-type]
        if kind == "double_click":
            button = str(action.get("button") or "left")
            if button not in _BUTTONS:
                raise ActionError(f"button {describe(button)} is not one of left, right, wheel")
            return with_modifiers(held, Click(point(), _BUTTONS[button], 2))  # type: ignore[arg-type]
        if kind == "move":
            return with_modifiers(held, MouseMove(point()))
        if kind == "scroll":
            return [step for scroll in self._scrolls(action, point()) for step in with_modifiers(held, scroll)]
        if kind == "drag":
            return self._drag(action.get("path"), held, point)
        if kind == "type":
            return [typed_text(action.get("text"), "text")]
        if kind == "keypress":
            return [KeyPress(parse_cua_keys(action.get("keys"), "keys"))]
        if kind == "wait":
            return [Wait(WAIT_SECONDS)]
        if kind == "screenshot":
            return [Screenshot()]
        raise ActionError(f"unknown action type {describe(kind)}; expected one of {', '.join(ACTIONS)}")

    def _scrolls(self, action: Mapping[str, Any], at: Any) -> list[Scroll]:
        scrolls: list[Scroll] = []
        directions: tuple[tuple[str, ScrollDirection, ScrollDirection], ...] = (
            ("scroll_y", "up", "down"),
            ("scroll_x", "left", "right"),
        )
        for field, negative, positive in directions:
            value = action.get(field, 0)
            if not is_integer(value) and not (isinstance(value, float) and value.is_integer()):
                raise ActionError(f"{field}: {describe(value)} is not a whole number of pixels")
            distance = int(value)
            if distance:
                clicks = max(1, round(min(abs(distance), 10**9) / self.scroll_pixels_per_click))
                direction = negative if distance < 0 else positive
                scrolls.append(Scroll(direction, min(clicks, MAX_SCROLL_AMOUNT), at))
        if not scrolls:
            raise ActionError("scroll_x and scroll_y are both 0, so the scroll moves nothing")
        return scrolls

    @staticmethod
    def _drag(path: object, held: tuple[str, ...], point: Any) -> list[Action]:
        if isinstance(path, str) or not isinstance(path, Sequence) or len(path) < 2:
            raise ActionError(f"path {describe(path)} is not a list of at least two {{x, y}} points")
        for step in path:
            if not isinstance(step, Mapping):
                raise ActionError(f"path point {describe(step)} is not an object {{x, y}}")
        points = [point(source=step) for step in path]
        if len(points) == 2:
            return with_modifiers(held, Drag(points[0], points[1]))
        # A longer path keeps its waypoints: press, move through each, release at the end.
        middle = (MouseMove(p) for p in points[1:-1])
        return with_modifiers(held, MouseDown("left", points[0]), *middle, MouseUp("left", points[-1]))


def output_items(data: object, raw: object) -> list[Mapping[str, Any]]:
    """The output items of a response, a list of items, or one item."""
    expected = "expected a response with output, a list of output items or one item"
    if isinstance(data, Mapping):
        if "output" in data and "type" not in data:
            data = data["output"]
        elif "type" in data or "role" in data:
            data = [data]
        else:
            raise AdapterParseError(f"{FAMILY}: {expected}, got {describe(dict(data))}", raw)
    if isinstance(data, str) or not isinstance(data, Sequence):
        raise AdapterParseError(f"{FAMILY}: {expected}", raw)
    for item in data:
        if not isinstance(item, Mapping):
            raise AdapterParseError(f"{FAMILY}: output item {describe(item)} is not an object", raw)
    return list(data)


def _call_actions(item: Mapping[str, Any], raw: object) -> list[Mapping[str, Any]]:
    actions = item.get("actions")
    if actions is None:
        actions = [item["action"]] if item.get("action") is not None else None
    if isinstance(actions, str) or not isinstance(actions, Sequence) or not actions:
        raise AdapterParseError(f"{FAMILY}: a computer_call has neither an action nor a non-empty actions list", raw)
    for action in actions:
        if not isinstance(action, Mapping):
            raise AdapterParseError(f"{FAMILY}: computer_call action {describe(action)} is not an object", raw)
    return list(actions)


def _safety_checks(item: Mapping[str, Any], raw: object) -> list[dict[str, Any]]:
    """The call's ``pending_safety_checks`` (``{"id", "code", "message"}`` each), for the agent to decide on."""
    checks = item.get("pending_safety_checks") or []
    if isinstance(checks, str) or not isinstance(checks, Sequence):
        raise AdapterParseError(f"{FAMILY}: pending_safety_checks {describe(checks)} is not a list", raw)
    for check in checks:
        if not isinstance(check, Mapping):
            raise AdapterParseError(f"{FAMILY}: pending safety check {describe(check)} is not an object", raw)
    return [dict(check) for check in checks]


def _texts(parts: object, kind: str, raw: object) -> list[str]:
    if isinstance(parts, str):
        return [parts]
    if not isinstance(parts, Sequence):
        raise AdapterParseError(f"{FAMILY}: expected a list of {kind} parts, got {describe(parts)}", raw)
    texts = []
    for part in parts:
        # A refusal part carries its words in "refusal"; they are still what the model said.
        text = part.get("text", part.get("refusal")) if isinstance(part, Mapping) else None
        if not isinstance(text, str):
            raise AdapterParseError(f"{FAMILY}: part {describe(part)} has no text", raw)
        texts.append(text)
    return texts


def _join(parts: list[str]) -> str | None:
    text = "\n\n".join(part for part in parts if part.strip())
    return text or None
