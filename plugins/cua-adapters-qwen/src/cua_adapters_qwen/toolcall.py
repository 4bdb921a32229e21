"""What Qwen-VL models write: Hermes-style ``<tool_call>`` JSON blocks, and the unified actions they mean.

One output holds optional text (a ``Thought:``/``Action:`` preamble) and one or more blocks
``<tool_call>\\n{"name": "computer_use", "arguments": {"action": ...}}\\n</tool_call>``; several blocks
are several actions in order, as Qwen-Agent's ``NousFnCallPrompt.postprocess_fncall_messages`` splits
them. Both families share this grammar and the argument names of Qwen's ``computer_use`` and
``mobile_use`` tools (QwenLM/Qwen2.5-VL ``cookbooks/utils/agent_function_call.py``); they differ only
in the frame of their coordinates, which :class:`QwenToolCallAdapter` leaves to its subclasses.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from cua_core import (
    SYSTEM_BUTTONS,
    Action,
    ActionError,
    Click,
    CuaError,
    Done,
    Drag,
    Fail,
    KeyPress,
    LongPress,
    MouseButton,
    MouseMove,
    OpenApp,
    Point,
    Scroll,
    ScrollDirection,
    Swipe,
    SystemButton,
    Tap,
    TypeText,
    Wait,
    split_key_combo,
)
from cua_data import Adapter, AdapterParseError, HistoryPolicy, ParsedOutput, RawOutput, smart_resize

__all__ = ["COMPUTER_ACTIONS", "MOBILE_ACTIONS", "PLATFORMS", "QwenToolCallAdapter"]

PLATFORMS = ("desktop", "mobile")
COMPUTER_ACTIONS = (
    "key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click",
    "double_click", "triple_click", "scroll", "hscroll", "wait", "terminate", "answer",
)  # fmt: skip
MOBILE_ACTIONS = ("key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate", "answer")
_CLICKS: dict[str, tuple[MouseButton, int]] = {
    "left_click": ("left", 1), "right_click": ("right", 1), "middle_click": ("middle", 1),
    "double_click": ("left", 2), "triple_click": ("left", 3),
}  # fmt: skip
_CLICK_NAMES = {value: name for name, value in _CLICKS.items()}
_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
# Bounds of the unified records; a model's larger scroll or wait is clamped rather than refused.
_MAX_SCROLL, _MAX_WAIT = 100, 60.0


class QwenToolCallAdapter(Adapter):
    """The shared grammar of the Qwen-VL family; subclasses fix the image rule and coordinate frame.

    ``platform`` picks the tool the prompt offers and ``format_output`` writes (``computer_use`` on
    desktop, ``mobile_use`` on mobile); ``parse`` reads either, whatever the platform.
    """

    factor: ClassVar[int]
    default_min_pixels: ClassVar[int]
    default_max_pixels: ClassVar[int]
    # Actions of computer_use that this family's prompt lists (format_output writes no others).
    computer_actions: ClassVar[frozenset[str]]

    def __init__(
        self,
        *,
        history: HistoryPolicy | None = None,
        min_pixels: int | None = None,
        max_pixels: int | None = None,
        platform: str = "desktop",
    ) -> None:
        super().__init__(history=history)
        self.min_pixels = self._pixels("min_pixels", self.default_min_pixels if min_pixels is None else min_pixels)
        self.max_pixels = self._pixels("max_pixels", self.default_max_pixels if max_pixels is None else max_pixels)
        if self.min_pixels > self.max_pixels:
            raise ValueError(f"{self.name}: min_pixels {self.min_pixels} is above max_pixels {self.max_pixels}")
        if platform not in PLATFORMS:
            raise ValueError(f"{self.name}: platform must be one of {', '.join(PLATFORMS)}, got {platform!r}")
        self.platform = platform

    def _pixels(self, option: str, value: object) -> int:
        # Options arrive as text from the command line (--adapter-option max_pixels=1003520).
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or value < self.factor * self.factor:
            raise ValueError(
                f"{self.name}: {option} must be a whole number of pixels of at least "
                f"{self.factor * self.factor} ({self.factor}x{self.factor}), got {value!r}"
            )
        return value

    @property
    def tool(self) -> str:
        return "mobile_use" if self.platform == "mobile" else "computer_use"

    def model_size(self, width: int, height: int) -> tuple[int, int]:
        h, w = smart_resize(height, width, factor=self.factor, min_pixels=self.min_pixels, max_pixels=self.max_pixels)
        return w, h

    # -- the coordinate frame (the one thing the families disagree on) -----------------------

    @abstractmethod
    def to_model(self, point: Point, size: tuple[int, int]) -> list[int]:
        """The integer ``[x, y]`` the model writes for ``point`` on a screen of ``size``."""

    @abstractmethod
    def from_model(self, x: float, y: float, size: tuple[int, int]) -> Point:
        """The unified point for the model's ``[x, y]``; ActionError when it is off the frame."""

    # -- format -------------------------------------------------------------------------------

    def format_output(self, actions: Sequence[Action], size: tuple[int, int], thought: str | None = None) -> str:
        calls = [call for action in actions for call in self._calls(action, size)]
        blocks = "\n".join(f"<tool_call>\n{_call_json(self.tool, call)}\n</tool_call>" for call in calls)
        preamble = self.preamble(thought)
        return f"{preamble}\n{blocks}" if preamble else blocks

    def preamble(self, thought: str | None) -> str:
        """The text before the tool calls: the thought as given (Qwen2.5-VL has no fixed layout)."""
        return thought.strip() if thought and thought.strip() else ""

    def _calls(self, action: Action, size: tuple[int, int]) -> list[dict[str, Any]]:
        calls = self._mobile_calls(action, size) if self.platform == "mobile" else self._computer_calls(action, size)
        if calls is None:
            raise ActionError(f"{self.name}: {self.tool} has no way to write {action!r}")
        return calls

    def _computer_calls(self, action: Action, size: tuple[int, int]) -> list[dict[str, Any]] | None:
        xy = self.to_model
        match action:
            case Click(coordinate=c, button=b, clicks=n) if (b, n) in _CLICK_NAMES:
                name = _CLICK_NAMES[(b, n)]
                if name not in self.computer_actions:
                    return None
                return [{"action": name, **({"coordinate": xy(c, size)} if c is not None else {})}]
            case MouseMove(coordinate=c):
                return [{"action": "mouse_move", "coordinate": xy(c, size)}]
            case Drag(start=s, end=e, button="left"):
                drag = {"action": "left_click_drag", "coordinate": xy(e, size)}
                return [{"action": "mouse_move", "coordinate": xy(s, size)}, drag] if s is not None else [drag]
            case Scroll(direction=d, amount=n, coordinate=c):
                vertical = d in ("up", "down")
                if not vertical and "hscroll" not in self.computer_actions:
                    return None
                # Qwen's sign convention: positive pixels scroll up (scroll) or right (hscroll).
                pixels = n if d in ("up", "right") else -n
                call = {"action": "scroll" if vertical else "hscroll", "pixels": pixels}
                return [{**call, "coordinate": xy(c, size)} if c is not None else call]
            case TypeText(text=t, press_enter=enter):
                typed = [{"action": "type", "text": t}]
                return typed + ([{"action": "key", "keys": ["enter"]}] if enter else [])
            case KeyPress(keys=k):
                return [{"action": "key", "keys": list(k)}]
            case Wait(duration=d):
                return [{"action": "wait", "time": d}]
            case Done(answer=a):
                if a is not None:
                    return [{"action": "answer", "text": a}] if "answer" in self.computer_actions else None
                return [{"action": "terminate", "status": "success"}]
            case Fail():
                return [{"action": "terminate", "status": "failure"}]
        return None

    def _mobile_calls(self, action: Action, size: tuple[int, int]) -> list[dict[str, Any]] | None:
        xy = self.to_model
        match action:
            case Tap(coordinate=c, clicks=1):
                return [{"action": "click", "coordinate": xy(c, size)}]
            case LongPress(coordinate=c, duration=d):
                return [{"action": "long_press", "coordinate": xy(c, size), "time": d}]
            case Swipe(start=s, end=e):
                return [{"action": "swipe", "coordinate": xy(s, size), "coordinate2": xy(e, size)}]
            case TypeText(text=t, press_enter=enter):
                typed = [{"action": "type", "text": t}]
                return typed + ([{"action": "system_button", "button": "Enter"}] if enter else [])
            case SystemButton(button=b) if b in ("back", "home", "menu", "enter"):
                return [{"action": "system_button", "button": b.capitalize()}]
            case SystemButton(button=b):
                return [{"action": "key", "text": b}]  # adb keyevent names: volume_up, power ...
            case OpenApp(app=app):
                return [{"action": "open", "text": app}]
            case Wait(duration=d):
                return [{"action": "wait", "time": d}]
            case Done(answer=a):
                if a is not None:
                    return [{"action": "answer", "text": a}]
                return [{"action": "terminate", "status": "success"}]
            case Fail():
                return [{"action": "terminate", "status": "failure"}]
        return None

    # -- parse --------------------------------------------------------------------------------

    def parse(self, output: RawOutput, size: tuple[int, int]) -> ParsedOutput:
        if not isinstance(output, str):
            raise AdapterParseError(f"{self.name}: expected the model's text, got {type(output).__name__}", output)
        blocks = _BLOCK.findall(output)
        opened = output.count("<tool_call>")
        if not blocks:
            what = "an unterminated <tool_call> (no </tool_call>)" if opened else "no <tool_call> block"
            raise AdapterParseError(f"{self.name}: {what} in {_clip(output)}", output)
        if opened != len(blocks) or output.count("</tool_call>") != len(blocks):
            raise AdapterParseError(f"{self.name}: unbalanced <tool_call> tags in {_clip(output)}", output)
        actions: list[Action] = []
        for block in blocks:
            try:
                actions.extend(self._block_actions(block, size))
            except (ActionError, CuaError) as exc:
                raise AdapterParseError(f"{self.name}: {exc} in {_clip(block.strip())}", output) from None
        thought = output[: output.index("<tool_call>")].strip() or None
        return ParsedOutput(_merge(actions), output, thought)

    def _block_actions(self, block: str, size: tuple[int, int]) -> list[Action]:
        try:
            call = json.loads(block)
        except json.JSONDecodeError as exc:
            raise ActionError(f"the tool call is not JSON ({exc.msg} at character {exc.pos})") from None
        if not isinstance(call, dict):
            raise ActionError('a tool call must be a JSON object {"name": ..., "arguments": {...}}')
        name, arguments = call.get("name"), call.get("arguments")
        if isinstance(arguments, str):  # OpenAI-style servers hand arguments over as a JSON string
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError:
                raise ActionError("the tool call's arguments are a string that is not JSON") from None
        if name not in ("computer_use", "mobile_use"):
            raise ActionError(f"unknown tool {name!r}; expected computer_use or mobile_use")
        if not isinstance(arguments, dict):
            raise ActionError(f"{name}: arguments must be a JSON object, got {type(arguments).__name__}")
        action = arguments.get("action")
        if name == "computer_use":
            if action not in COMPUTER_ACTIONS:
                raise ActionError(f"unknown action {action!r}; expected one of {', '.join(COMPUTER_ACTIONS)}")
            return self._computer_action(action, arguments, size)
        if action not in MOBILE_ACTIONS:
            raise ActionError(f"unknown mobile_use action {action!r}; expected one of {', '.join(MOBILE_ACTIONS)}")
        return self._mobile_action(action, arguments, size)

    def _point(self, args: Mapping[str, Any], key: str, size: tuple[int, int], action: str) -> Point:
        value = args.get(key)
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value)
        ):
            raise ActionError(f"{action}: {key} must be [x, y] numbers, got {value!r}")
        return self.from_model(value[0], value[1], size)

    def _optional_point(self, args: Mapping[str, Any], size: tuple[int, int], action: str) -> Point | None:
        return None if args.get("coordinate") is None else self._point(args, "coordinate", size, action)

    def _computer_action(self, action: str, args: Mapping[str, Any], size: tuple[int, int]) -> list[Action]:
        if action in _CLICKS:
            button, clicks = _CLICKS[action]
            return [Click(self._optional_point(args, size, action), button, clicks)]
        if action == "mouse_move":
            return [MouseMove(self._point(args, "coordinate", size, action))]
        if action == "left_click_drag":
            return [Drag(None, self._point(args, "coordinate", size, action))]
        if action in ("scroll", "hscroll"):
            pixels = _number(args.get("pixels"), f"{action}.pixels")
            if pixels == 0:
                raise ActionError(f"{action}: pixels is 0, which scrolls nothing")
            directions: tuple[ScrollDirection, ScrollDirection] = (
                ("up", "down") if action == "scroll" else ("right", "left")
            )
            amount = min(_MAX_SCROLL, max(1, round(abs(pixels))))
            return [
                Scroll(directions[0] if pixels > 0 else directions[1], amount, self._optional_point(args, size, action))
            ]
        if action == "type":
            return [TypeText(_text(args.get("text"), "type.text"))]
        if action == "key":
            return [KeyPress(_keys(args.get("keys", args.get("text"))))]
        return self._control_action(action, args)

    def _mobile_action(self, action: str, args: Mapping[str, Any], size: tuple[int, int]) -> list[Action]:
        if action == "click":
            return [Tap(self._point(args, "coordinate", size, action))]
        if action == "long_press":
            duration = args.get("time")
            seconds = 1.0 if duration is None else _seconds(duration, "long_press.time", allow_zero=False)
            return [LongPress(self._point(args, "coordinate", size, action), seconds)]
        if action == "swipe":
            return [
                Swipe(self._point(args, "coordinate", size, action), self._point(args, "coordinate2", size, action))
            ]
        if action == "type":
            return [TypeText(_text(args.get("text"), "type.text"))]
        if action == "system_button":
            return [_system_button(args.get("button"), "system_button.button")]
        if action == "key":
            return [_system_button(args.get("text"), "key.text")]
        if action == "open":
            return [OpenApp(_text(args.get("text"), "open.text"))]
        return self._control_action(action, args)

    def _control_action(self, action: str, args: Mapping[str, Any]) -> list[Action]:
        if action == "wait":
            duration = args.get("time")
            return [Wait(1.0 if duration is None else _seconds(duration, "wait.time", allow_zero=True))]
        if action == "answer":
            return [Done(_text(args.get("text"), "answer.text"))]
        status = args.get("status")
        if status not in ("success", "failure"):
            raise ActionError(f"terminate: status must be 'success' or 'failure', got {status!r}")
        return [Done() if status == "success" else Fail()]


def _call_json(tool: str, arguments: dict[str, Any]) -> str:
    # A typed text that contains a tool-call tag must not end the block early: JSON's own escapes
    # ("\\/" and "\\u003c") keep the value while hiding the tag from the block pattern.
    text = json.dumps({"name": tool, "arguments": arguments}, ensure_ascii=False)
    return text.replace("</tool_call>", "<\\/tool_call>").replace("<tool_call>", "\\u003ctool_call>")


def _merge(actions: list[Action]) -> list[Action]:
    """Fold back the pairs ``format_output`` writes for one action, and an answer's closing terminate.

    ``mouse_move`` then ``left_click_drag`` is a drag from that point; ``type`` then Enter is a typed
    line submitted; ``answer`` then ``terminate(success)`` is one answered end. Each pair means
    exactly what the single action means, so nothing a model did is lost.
    """
    merged: list[Action] = []
    for action in actions:
        last = merged[-1] if merged else None
        if isinstance(action, Drag) and action.start is None and isinstance(last, MouseMove):
            merged[-1] = Drag(last.coordinate, action.end, action.button)
        elif isinstance(last, TypeText) and not last.press_enter and _is_enter(action):
            merged[-1] = TypeText(last.text, press_enter=True)
        elif isinstance(last, Done) and last.answer is not None and action == Done():
            continue
        else:
            merged.append(action)
    return merged


def _is_enter(action: Action) -> bool:
    return action == KeyPress(("enter",)) or action == SystemButton("enter")


def _clip(text: str, limit: int = 200) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _number(value: object, label: str) -> float:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise ActionError(f"{label}: expected a number, got {value!r}")
    return float(value)


def _seconds(value: object, label: str, *, allow_zero: bool) -> float:
    seconds = _number(value, label)
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise ActionError(f"{label}: {value!r} is not a positive number of seconds")
    return min(seconds, _MAX_WAIT)


def _text(value: object, label: str) -> str:
    if not isinstance(value, str):
        raise ActionError(f"{label}: expected a string, got {value!r}")
    return value


def _keys(value: object) -> tuple[str, ...]:
    # Models write ["ctrl", "c"], or now and then "ctrl+c" or ["ctrl+c"]; all mean one chord.
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(k, str) and k for k in value):
        raise ActionError(f"key: keys must be a list of key names, got {value!r}")
    keys = [part for key in value for part in (split_key_combo(key) if len(key) > 1 else (key,))]
    return KeyPress(tuple(keys)).keys


def _system_button(value: object, label: str) -> SystemButton:
    name = str(value).strip().lower().replace(" ", "_") if isinstance(value, str) else None
    if name not in SYSTEM_BUTTONS:
        raise ActionError(f"{label}: {value!r} is not one of {', '.join(SYSTEM_BUTTONS)}")
    return SystemButton(name)
