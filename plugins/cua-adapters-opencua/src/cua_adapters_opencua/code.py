"""pyautogui code both ways, for the families that answer in it (OpenCUA, Aguvis).

Reading goes through ``cua_data.converters.pyautogui.parse_code`` (``ast`` and literals only; nothing is
ever executed), one statement at a time so that each call may have its own coordinate frame (OpenCUA's
``qwen25`` projection decides per call whether ``x, y`` are relative; see :func:`read_code`). Two
pairs of calls are then read as the one action they are: ``moveTo(a)`` + ``dragTo(b)`` is ``Drag(a, b)``
(AgentNet records every drag that way), and ``write(t)`` + ``press('enter')`` is ``TypeText(t, True)``.
Writing is the inverse, in the forms AgentNet and Aguvis data use (keyword ``x=``/``y=``, ``message=``,
``hotkey([...])``, ``computer.terminate(status=...)``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cua_core import ActionError
from cua_core import actions as ua
from cua_data import CodeContext, parse_code

__all__ = ["CodeStyle", "absolute_xy", "coordinates_of", "read_code", "relative_xy", "write_code"]

# Calls whose first two positional arguments are x and y (pyautogui's own signatures).
_XY_FIRST = {"click", "doubleClick", "tripleClick", "rightClick", "middleClick", "moveTo", "dragTo", "mouseDown"}
_XY_FIRST |= {"mouseUp", "long_press", "triple_click"}
_MAX_CODE = 20_000


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return ""


def coordinates_of(statement: ast.stmt) -> list[object]:
    """The literal x and y values a statement's call gives (for deciding what frame they are in)."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return []
    call = statement.value
    values: list[ast.expr] = [k.value for k in call.keywords if k.arg in ("x", "y")]
    if _dotted(call.func).rpartition(".")[2] in _XY_FIRST:
        values += call.args[:2]
    numbers: list[object] = []
    for value in values:
        try:
            literal = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        numbers.extend(literal if isinstance(literal, list | tuple) else [literal])
    return numbers


def read_code(
    code: str,
    *,
    platform: str,
    size: tuple[int, int],
    relative: Callable[[ast.stmt], bool],
    rename: dict[str, str] | None = None,
) -> list[ua.Action]:
    """The actions ``code`` performs, a final Done/Fail included; ``ValueError`` names what cannot be read.

    ``relative(statement)`` says whether that statement's ``x, y`` are ``[0, 1]`` fractions or pixels of
    ``size``; ``rename`` maps a family's own function names onto pyautogui's (``computer.triple_click``).
    """
    if len(code) > _MAX_CODE:
        raise ValueError(f"the code is {len(code)} characters long; a step is a few calls")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ValueError(f"the code is not Python: {exc}") from None
    actions: list[ua.Action] = []
    end: ua.Done | ua.Fail | None = None
    for statement in tree.body:
        segment = ast.get_source_segment(code, statement) or ""
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            name = _dotted(statement.value.func)
            if rename and name in rename:
                segment = rename[name] + segment[len(ast.get_source_segment(code, statement.value.func) or "") :]
        parsed = parse_code(segment, CodeContext(platform, relative(statement), size))
        if parsed.unmapped:
            problem = parsed.unmapped[0]
            raise ValueError(f"cannot read {problem.form!r}: {problem.detail}")
        if end is not None and (parsed.actions or parsed.end):
            raise ValueError(f"{segment[:80]!r} comes after the task was terminated")
        actions.extend(parsed.actions)
        end = parsed.end
    merged = _merge(actions)
    return [*merged, end] if end is not None else merged


def _merge(actions: list[ua.Action]) -> list[ua.Action]:
    out: list[ua.Action] = []
    for action in actions:
        last = out[-1] if out else None
        if isinstance(action, ua.Drag) and action.start is None and isinstance(last, ua.MouseMove):
            out[-1] = ua.Drag(last.coordinate, action.end, action.button)
        elif action == ua.KeyPress(("enter",)) and isinstance(last, ua.TypeText) and not last.press_enter:
            out[-1] = ua.TypeText(last.text, press_enter=True)
        else:
            out.append(action)
    return out


@dataclass(frozen=True)
class CodeStyle:
    """How a family spells what pyautogui has no (or several) words for."""

    family: str
    xy: Callable[[ua.Point], str]  # "x=..., y=..." in the family's frame
    triple_click: str = "pyautogui.tripleClick"
    wait: Callable[[float], str] = lambda seconds: f"computer.wait(seconds={seconds!r})"
    mobile: bool = False


def write_code(actions: Sequence[ua.Action], style: CodeStyle) -> list[str]:
    """One line of code per call, in order; ``ActionError`` for what the family cannot express."""
    lines: list[str] = []
    for action in actions:
        lines.extend(_lines(action, style))
    return lines


def _at(point: ua.Point | None, style: CodeStyle) -> str:
    return "" if point is None else style.xy(point)


def _lines(action: ua.Action, style: CodeStyle) -> list[str]:
    xy = style.xy
    match action:
        case ua.Click(coordinate=p, button="left", clicks=1):
            return [f"pyautogui.click({_at(p, style)})"]
        case ua.Click(coordinate=p, button="left", clicks=2):
            return [f"pyautogui.doubleClick({_at(p, style)})"]
        case ua.Click(coordinate=p, button="left", clicks=3):
            return [f"{style.triple_click}({_at(p, style)})" if p else "pyautogui.tripleClick()"]
        case ua.Click(coordinate=p, button="right", clicks=1):
            return [f"pyautogui.rightClick({_at(p, style)})"]
        case ua.Click(coordinate=p, button="middle", clicks=1):
            return [f"pyautogui.middleClick({_at(p, style)})"]
        case ua.Click(coordinate=p, button=b, clicks=n):
            where = f"{xy(p)}, " if p is not None else ""
            return [f"pyautogui.click({where}clicks={n}, button={b!r})"]
        case ua.MouseMove(coordinate=p):
            return [f"pyautogui.moveTo({xy(p)})"]
        case ua.Drag(start=s, end=e, button=b):
            start = [f"pyautogui.moveTo({xy(s)})"] if s is not None else []
            return [*start, f"pyautogui.dragTo({xy(e)}, button={b!r})"]
        case ua.MouseDown(button=b, coordinate=p) | ua.MouseUp(button=b, coordinate=p):
            name = "mouseDown" if isinstance(action, ua.MouseDown) else "mouseUp"
            where = f"{xy(p)}, " if p is not None else ""
            return [f"pyautogui.{name}({where}button={b!r})"]
        case ua.Scroll(direction=d, amount=n, coordinate=p):
            where = f", {xy(p)}" if p is not None else ""
            function = "hscroll" if d in ("left", "right") else "scroll"
            return [f"pyautogui.{function}({n if d in ('up', 'right') else -n}{where})"]
        case ua.TypeText(text=text, press_enter=enter):
            return [f"pyautogui.write(message={text!r})", *(["pyautogui.press('enter')"] if enter else [])]
        case ua.KeyPress(keys=(key,)):
            return [f"pyautogui.press({key!r})"]
        case ua.KeyPress(keys=keys):
            return [f"pyautogui.hotkey({list(keys)!r})"]
        case ua.KeyDown(key=key):
            return [f"pyautogui.keyDown({key!r})"]
        case ua.KeyUp(key=key):
            return [f"pyautogui.keyUp({key!r})"]
        case ua.Wait(duration=seconds):
            return [style.wait(seconds)]
        case ua.Done(answer=answer):
            return [f"computer.terminate(status='success'{'' if answer is None else f', answer={answer!r}'})"]
        case ua.Fail(reason=reason):
            return [f"computer.terminate(status='failure'{'' if reason is None else f', reason={reason!r}'})"]
        case ua.Tap(coordinate=p, clicks=n) if style.mobile:
            return [f"pyautogui.{'click' if n == 1 else 'doubleClick'}({xy(p)})"]
        case ua.LongPress(coordinate=p) if style.mobile:
            return [f"mobile.long_press({xy(p)})"]
        case ua.Swipe(start=s, end=e) if style.mobile:
            frm, to = (xy(point).replace("x=", "").replace(" y=", "") for point in (s, e))
            return [f"mobile.swipe(from_coord=[{frm}], to_coord=[{to}])"]
        case ua.SystemButton(button=b) if style.mobile and b in ("home", "back", "recent", "menu"):
            return [f"mobile.{b}()"]
        case ua.OpenApp(app=app) if style.mobile:
            return [f"mobile.open_app(app_name={app!r})"]
        case ua.SystemButton(button="enter") if style.mobile:
            return ["pyautogui.press('enter')"]
    raise ActionError(f"{style.family}: no pyautogui code for {ua.format_action(action)}")


def absolute_xy(point: ua.Point, frame: tuple[int, int]) -> str:
    return "x={}, y={}".format(*ua.to_pixels(point, *frame))


def relative_xy(point: ua.Point, frame: tuple[int, int]) -> str:
    """Fractions to 4 places: the centre of the pixel the point falls in, so they read back into it."""
    x, y = ua.to_pixels(point, *frame)
    return f"x={round((x + 0.5) / frame[0], 4)}, y={round((y + 0.5) / frame[1], 4)}"
