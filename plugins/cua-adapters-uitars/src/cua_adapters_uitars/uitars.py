"""The UI-TARS adapters: ``ui-tars`` (v1, relative ``[0, 1000]``) and ``ui-tars-1.5`` (absolute pixels).

Both write and read the same grammar (see :mod:`cua_adapters_uitars.grammar`); they differ only in what a
coordinate means, exactly as ``model_type`` does in bytedance/UI-TARS ``codes/ui_tars/action_parser.py``:

- ``ui-tars`` (UI-TARS-7B/72B-SFT/DPO on Qwen2-VL, and the Doubao-1.5-UI-TARS API, ``model_type="doubao"``):
  ``n / 1000`` of the image side, whatever its size. A unified point is already on that scale, so ``(x, y)``
  is ``Point(x, y)``; writing one takes the 1000 x 1000 grid cell it falls in.
- ``ui-tars-1.5`` (UI-TARS-1.5-7B on Qwen2.5-VL, ``model_type="qwen25vl"``): pixels of the image after
  ``smart_resize(factor=28, min_pixels=100*28*28, max_pixels=16384*28*28)``, the official parser's constants.

The action space is the official templates' (``codes/prompts.py`` COMPUTER_USE/MOBILE_USE, box form; and
``codes/ui_tars/prompt.py`` COMPUTER_USE_DOUBAO/MOBILE_USE_DOUBAO, point form) plus what the official parser
also executes (``hover``, ``press``, ``keydown``/``keyup``, ``call_user``). Fixed meanings taken from them:
``wait()`` sleeps 5 s (the prompt says so), a scroll is 5 wheel clicks (the parser writes
``pyautogui.scroll(±5)``), ``type(content='...\\n')`` submits, ``call_user()`` gives up the task.

UI-TARS-2 and the Seed models (Doubao-Seed GUI) write the same actions as Seed tool calls
(``<seed:tool_call><function=click><parameter=point><point>x y</point>...``), inside
``<computer_env>``, or answer in ``<answer>`` (see :mod:`cua_adapters_uitars.grammar`); their points
are thousandths, so ``ui-tars`` is their adapter. Their tool set adds ``move_to``, ``mouse_down``/
``mouse_up`` (``button`` left or right), ``infeasible(content)`` (a fail with that reason),
``take_screenshot``, ``wait(time)`` and ``call_user(content)``; these are read, never written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from cua_adapters_uitars import prompts
from cua_adapters_uitars.grammar import Call, quote, read_box, read_output
from cua_core import ActionError
from cua_core import actions as ua
from cua_data import Adapter, AdapterParseError, HistoryPolicy, ParsedOutput, RawOutput, smart_resize

__all__ = ["CALL_USER_REASON", "SCROLL_CLICKS", "WAIT_SECONDS", "UITars15Adapter", "UITarsAdapter"]

WAIT_SECONDS = 5.0  # "wait() #Sleep for 5s and take a screenshot" (the official templates)
SCROLL_CLICKS = 5  # the official parser's pyautogui.scroll(5) / scroll(-5)
CALL_USER_REASON = "call_user(): the model asked for the user's help"
MIN_PIXELS = 100 * 28 * 28  # action_parser.py MIN_PIXELS / MAX_PIXELS
MAX_PIXELS = 16384 * 28 * 28
_PLATFORMS = ("desktop", "mobile")
_FORMS = ("box", "point")
_POINT_ARGS = ("point", "start_point", "end_point")
_SUBMIT = "\n"  # "If you want to submit your input, use \\n at the end of content."
_ARGS: dict[str, frozenset[str]] = {
    "click": frozenset({"start_box"}),
    "left_single": frozenset({"start_box"}),
    "left_double": frozenset({"start_box"}),
    "right_single": frozenset({"start_box"}),
    "hover": frozenset({"start_box"}),
    "long_press": frozenset({"start_box", "time"}),
    "drag": frozenset({"start_box", "end_box"}),
    "select": frozenset({"start_box", "end_box"}),
    "scroll": frozenset({"start_box", "end_box", "direction"}),
    "hotkey": frozenset({"key", "hotkey"}),
    "press": frozenset({"key", "press"}),
    "keydown": frozenset({"key", "press"}),
    "keyup": frozenset({"key", "press"}),
    "release": frozenset({"key", "press"}),
    "type": frozenset({"content"}),
    "wait": frozenset({"time"}),
    "finished": frozenset({"content"}),
    "call_user": frozenset({"content"}),
    "press_home": frozenset(),
    "press_back": frozenset(),
    "navigate_home": frozenset(),
    "navigate_back": frozenset(),
    "open_app": frozenset({"app_name", "content"}),
    # UI-TARS-2 / Seed GUI tools (trycua/cua agent/loops/uitars2.py TOOL_SCHEMAS; GUIActionType and the
    # Seed agents' schemas around ui_tars/action_parser.py): these, and wait(time), call_user(content).
    "move_to": frozenset({"start_box"}),
    "mouse_down": frozenset({"start_box", "button"}),
    "mouse_up": frozenset({"start_box", "button"}),
    "infeasible": frozenset({"content"}),
    "take_screenshot": frozenset(),
}


class _UITarsBase(Adapter):
    """What both UI-TARS generations share; a subclass says what one coordinate number means."""

    expresses: ClassVar[frozenset[str]] = frozenset(
        {
            "click", "mouse_move", "drag", "scroll", "type", "key", "key_down", "key_up", "wait", "done", "fail",
            "tap", "long_press", "swipe", "system_button", "open_app",
        }
    )  # fmt: skip

    def __init__(
        self,
        *,
        history: HistoryPolicy | None = None,
        platform: str = "desktop",
        language: str = "English",
        action_form: str = "box",
        min_pixels: int | str = MIN_PIXELS,
        max_pixels: int | str = MAX_PIXELS,
    ) -> None:
        super().__init__(history=history)
        if platform not in _PLATFORMS:
            raise ValueError(f"{self.name}: platform {platform!r} is not one of {', '.join(_PLATFORMS)}")
        if action_form not in _FORMS:
            raise ValueError(
                f"{self.name}: action_form {action_form!r} is not 'box' (start_box='<|box_start|>(x,y)<|box_end|>')"
                " or 'point' (point='<point>x y</point>')"
            )
        if not isinstance(language, str) or not language.strip():
            raise ValueError(f"{self.name}: language must be a word such as 'English', got {language!r}")
        self.platform, self.language, self.action_form = platform, language.strip(), action_form
        self.min_pixels = _pixels(self.name, "min_pixels", min_pixels)
        self.max_pixels = _pixels(self.name, "max_pixels", max_pixels)
        if self.min_pixels > self.max_pixels:
            raise ValueError(f"{self.name}: min_pixels {self.min_pixels} is above max_pixels {self.max_pixels}")

    # -- coordinates: what a subclass decides --------------------------------------------------

    def _point(self, x: float, y: float, size: tuple[int, int]) -> ua.Point:
        raise NotImplementedError

    def _numbers(self, point: ua.Point, size: tuple[int, int]) -> tuple[int, int]:
        raise NotImplementedError

    def model_size(self, width: int, height: int) -> tuple[int, int]:
        h, w = smart_resize(height, width, factor=28, min_pixels=self.min_pixels, max_pixels=self.max_pixels)
        return w, h

    # -- prompt --------------------------------------------------------------------------------

    def system_prompt(self, size: tuple[int, int]) -> str | None:
        return prompts.SYSTEM

    def instruction_text(self, instruction: str, summaries: Sequence[str]) -> str:
        mobile = self.platform == "mobile"
        if self.action_form == "box":
            template = prompts.MOBILE_USE if mobile else prompts.COMPUTER_USE
        else:
            template = prompts.MOBILE_USE_DOUBAO if mobile else prompts.COMPUTER_USE_DOUBAO
        return super().instruction_text(
            prompts.fill(template, language=self.language, instruction=instruction), summaries
        )

    # -- writing -------------------------------------------------------------------------------

    def format_output(self, actions: Sequence[ua.Action], size: tuple[int, int], thought: str | None = None) -> str:
        calls = "\n\n".join(self._write(action, size) for action in actions)
        return f"Thought: {thought}\nAction: {calls}" if thought else f"Action: {calls}"

    def _box(self, point: ua.Point | None, size: tuple[int, int], action: ua.Action) -> str:
        if point is None:
            raise ActionError(f"{self.name}: {ua.format_action(action)} needs a coordinate; UI-TARS always gives one")
        x, y = self._numbers(point, size)
        return f"'<|box_start|>({x},{y})<|box_end|>'" if self.action_form == "box" else f"'<point>{x} {y}</point>'"

    def _write(self, action: ua.Action, size: tuple[int, int]) -> str:
        # The point form names a lone point point=, and a drag's two start_point= / end_point=.
        start, start_two, end = ("start_box",) * 2 + ("end_box",) if self.action_form == "box" else _POINT_ARGS
        box = self._box
        match action:
            case ua.Click(coordinate=p, button="left", clicks=1) | ua.Tap(coordinate=p, clicks=1):
                return f"click({start}={box(p, size, action)})"
            case ua.Click(coordinate=p, button="left", clicks=2) | ua.Tap(coordinate=p, clicks=2):
                return f"left_double({start}={box(p, size, action)})"
            case ua.Click(coordinate=p, button="right", clicks=1):
                return f"right_single({start}={box(p, size, action)})"
            case ua.MouseMove(coordinate=p):
                return f"hover({start}={box(p, size, action)})"
            case ua.LongPress(coordinate=p):
                return f"long_press({start}={box(p, size, action)})"
            case ua.Drag(start=s, end=e, button="left") | ua.Swipe(start=s, end=e):
                return f"drag({start_two}={box(s, size, action)}, {end}={box(e, size, action)})"
            case ua.Scroll(direction=d, coordinate=p):
                where = f"{start}={box(p, size, action)}, " if p is not None else ""
                return f"scroll({where}direction='{d}')"
            case ua.TypeText(text=text, press_enter=enter):
                return f"type(content={quote(text + _SUBMIT if enter else text)})"
            case ua.KeyPress(keys=keys):
                return f"hotkey(key={quote(' '.join(keys))})"
            case ua.KeyDown(key=key):
                return f"keydown(key={quote(key)})"
            case ua.KeyUp(key=key):
                return f"keyup(key={quote(key)})"
            case ua.Wait():
                return "wait()"
            case ua.Done(answer=answer):
                return f"finished(content={quote(answer)})" if answer else "finished()"
            case ua.Fail():
                return "call_user()"
            case ua.SystemButton(button="home"):
                return "press_home()"
            case ua.SystemButton(button="back"):
                return "press_back()"
            case ua.OpenApp(app=app):
                return f"open_app(app_name={quote(app)})"
        raise ActionError(f"{self.name}: UI-TARS has no action for {ua.format_action(action)}")

    # -- reading -------------------------------------------------------------------------------

    def parse(self, output: RawOutput, size: tuple[int, int]) -> ParsedOutput:
        if not isinstance(output, str):
            raise AdapterParseError(f"{self.name}: expected the model's text, got {type(output).__name__}", output)
        try:
            thought, calls = read_output(output)
            actions = [self._act(call, size) for call in calls]
        except (ValueError, ActionError) as exc:
            raise AdapterParseError(f"{self.name}: {exc}", output) from None
        return ParsedOutput(actions, output, thought)

    def _act(self, call: Call, size: tuple[int, int]) -> ua.Action:
        name, args = call.name, call.args
        if name not in _ARGS:
            raise ValueError(f"unknown action {name!r} in {call.text[:120]!r}; expected one of {', '.join(_ARGS)}")
        unknown = sorted(set(args) - _ARGS[name])
        if unknown:
            allowed = ", ".join(sorted(_ARGS[name])) or "no arguments"
            raise ValueError(f"{name} takes {allowed}, not {', '.join(unknown)} (in {call.text[:120]!r})")
        mobile = self.platform == "mobile"

        def at(key: str) -> ua.Point:
            if key not in args:
                raise ValueError(f"{name} needs {key}= (in {call.text[:120]!r})")
            return self._point(*read_box(args[key]), size)

        actions: dict[str, Callable[[], ua.Action]] = {
            "click": lambda: ua.Tap(at("start_box")) if mobile else ua.Click(at("start_box")),
            "left_single": lambda: ua.Click(at("start_box")),
            "left_double": lambda: ua.Tap(at("start_box"), 2) if mobile else ua.Click(at("start_box"), clicks=2),
            "right_single": lambda: ua.Click(at("start_box"), "right"),
            "hover": lambda: ua.MouseMove(at("start_box")),
            "long_press": lambda: ua.LongPress(at("start_box")),
            "drag": lambda: self._gesture(at("start_box"), at("end_box")),
            "select": lambda: self._gesture(at("start_box"), at("end_box")),
            "scroll": lambda: self._scroll(args, at),
            "hotkey": lambda: ua.KeyPress(_keys(args.get("key", args.get("hotkey", "")), name)),
            "press": lambda: ua.KeyPress(_keys(args.get("key", args.get("press", "")), name)),
            "keydown": lambda: ua.KeyDown(_one_key(args, name)),
            "keyup": lambda: ua.KeyUp(_one_key(args, name)),
            "release": lambda: ua.KeyUp(_one_key(args, name)),
            "type": lambda: _type(args.get("content") or _missing("content", name)),
            "wait": lambda: ua.Wait(_seconds(args["time"]) if "time" in args else WAIT_SECONDS),
            "finished": lambda: ua.Done(args.get("content")),
            "call_user": lambda: ua.Fail(
                f"{CALL_USER_REASON}: {args['content']}" if "content" in args else CALL_USER_REASON
            ),
            "infeasible": lambda: ua.Fail(args.get("content")),
            "move_to": lambda: ua.MouseMove(at("start_box")),
            "mouse_down": lambda: ua.MouseDown(_button(args), at("start_box") if "start_box" in args else None),
            "mouse_up": lambda: ua.MouseUp(_button(args), at("start_box") if "start_box" in args else None),
            "take_screenshot": ua.Screenshot,
            "press_home": lambda: ua.SystemButton("home"),
            "navigate_home": lambda: ua.SystemButton("home"),
            "press_back": lambda: ua.SystemButton("back"),
            "navigate_back": lambda: ua.SystemButton("back"),
            "open_app": lambda: ua.OpenApp(args["app_name"] if "app_name" in args else _missing("app_name", name)),
        }
        return actions[name]()

    def _gesture(self, start: ua.Point, end: ua.Point) -> ua.Action:
        return ua.Swipe(start, end) if self.platform == "mobile" else ua.Drag(start, end)

    def _scroll(self, args: dict[str, str], at: Callable[[str], ua.Point]) -> ua.Action:
        if "end_box" in args:  # the newer gesture form: scroll(start_box, end_box) is a drag
            return self._gesture(at("start_box"), at("end_box"))
        direction = args.get("direction", "").strip().lower()
        if direction not in ua.SCROLL_DIRECTIONS:
            raise ValueError(f"scroll direction {direction!r} is not one of {', '.join(ua.SCROLL_DIRECTIONS)}")
        point = at("start_box") if "start_box" in args else None
        return ua.Scroll(direction, SCROLL_CLICKS, point)


class UITarsAdapter(_UITarsBase):
    """UI-TARS v1 and Doubao-UI-TARS: each coordinate is ``n / 1000`` of the image side."""

    name: ClassVar[str] = "ui-tars"

    def _point(self, x: float, y: float, size: tuple[int, int]) -> ua.Point:
        if not (0 <= x <= ua.COORD_MAX and 0 <= y <= ua.COORD_MAX):
            raise ValueError(f"({x:g},{y:g}) is outside the relative range [0, 1000]")
        return ua.Point(x, y)

    def _numbers(self, point: ua.Point, size: tuple[int, int]) -> tuple[int, int]:
        return ua.to_pixels(point, ua.COORD_MAX, ua.COORD_MAX)


class UITars15Adapter(_UITarsBase):
    """UI-TARS-1.5: each coordinate is a pixel of the smart-resized image (``model_size``)."""

    name: ClassVar[str] = "ui-tars-1.5"

    def _point(self, x: float, y: float, size: tuple[int, int]) -> ua.Point:
        return ua.from_pixels(x, y, *self.model_size(*size))

    def _numbers(self, point: ua.Point, size: tuple[int, int]) -> tuple[int, int]:
        return ua.to_pixels(point, *self.model_size(*size))


def _pixels(adapter: str, option: str, value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{adapter}: {option} must be a whole number of pixels, got {value!r}") from None
    if number < 1 or str(number) != str(value).strip():
        raise ValueError(f"{adapter}: {option} must be a positive whole number of pixels, got {value!r}")
    return number


def _keys(value: str, name: str) -> tuple[str, ...]:
    keys = value.split()
    if len(keys) == 1 and len(keys[0]) > 1 and "+" in keys[0]:
        keys = list(ua.split_key_combo(keys[0]))  # 'ctrl+c', as some UI-TARS prompts in the wild ask
    if not keys:
        raise ValueError(f"{name} needs key='...' (keys split by spaces, e.g. 'ctrl c')")
    return tuple(keys)


def _one_key(args: dict[str, str], name: str) -> str:
    keys = _keys(args.get("key", args.get("press", "")), name)
    if len(keys) != 1:
        raise ValueError(f"{name} takes one key, got {' '.join(keys)!r}")
    return keys[0]


def _seconds(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"wait time {value!r} is not a number of seconds") from None


def _button(args: dict[str, str]) -> ua.MouseButton:
    button = args.get("button", "left").strip().lower()
    if button == "right":
        return "right"
    if button != "left":
        raise ValueError(f"mouse button {button!r} is not left or right")
    return "left"


def _missing(argument: str, name: str) -> str:
    raise ValueError(f"{name} needs {argument}='...'")


def _type(content: str) -> ua.TypeText:
    # The official parser strips a final "\n" (or a literal backslash-n) and presses enter after typing.
    for ending in ("\n", "\\n"):
        if content.endswith(ending):
            return ua.TypeText(content[: -len(ending)], press_enter=True)
    return ua.TypeText(content)
