"""What the calculator tasks share: galculator (GTK 3) started in a mode, and its state read from its widgets.

Not a task folder (no ``main.py``). GNOME Calculator 43 (GTK 4) is not used: GTK 4.8 exports its
widgets without the ``showing`` state, so the accessibility reader, which skips what is not showing,
sees its window with no children. galculator's widgets all reach the tree, and its state is there:

- the display: a text widget whose first line is the number shown (scientific mode adds a line of
  the number bases, angle units and notations, with the active ones marked only by colour);
- the paper mode's tape: a table whose cells alternate what was entered and its result;
- the mode: scientific mode shows ``sin``, paper mode the tape and its Enter button;
- the number base: which digit buttons are sensitive (A-F only in hexadecimal, 8 and 9 not in octal,
  2-9 not in binary).

That is the calculator's live state: nothing but the calculator writes it, so an evaluator reading it
at evaluation time trusts no file the agent could write. Settings are seeded through galculator's own
config file (``CONFIG``), read once at start; galculator writes it back only when it quits.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Awaitable, Callable
from typing import Any

from cua_bench import Session, Task, TaskError
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._a11y import app_window, nodes
from cua_bench_tasks_desktop._common import act, key, remember_files, start, wait_for, write_files
from cua_core import Action, Click, TypeText, Wait

__all__ = [
    "ANGLES",
    "APP",
    "BASES",
    "CONFIG",
    "MODES",
    "base",
    "calculator",
    "choose",
    "config_text",
    "display",
    "keys",
    "mode",
    "open_galculator",
    "press_button",
    "tape",
    "worked_out",
]

APP = "galculator"
CONFIG = ".config/galculator/galculator.conf"
MODES = {"basic": 0, "scientific": 1, "paper": 2}
"""galculator's ``mode`` setting."""
ANGLES = {"Degrees": 0, "Radians": 1, "Gradians": 2}
"""``default_angle_base``, by the Calculator > Angle units menu's names."""
BASES = {"Decimal": 10, "Hexadecimal": 16, "Octal": 8, "Binary": 2}
"""The Calculator > Number bases menu's names and their radix."""
_BASE_SETTING = {"Decimal": 0, "Hexadecimal": 1, "Octal": 2, "Binary": 3}

Node = dict[str, Any]
_OPERATORS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
}


def worked_out(expression: str) -> int:
    """The value of an integer expression of ``+``, ``-``, ``*`` and parentheses, by the usual precedence
    (as galculator's algebraic mode works it out); anything else is a ``ValueError``."""

    def value(node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"not an integer sum or product: {expression!r}")

    return value(ast.parse(expression, mode="eval").body)


def config_text(mode: str, *, angle: str = "Radians", base: str = "Decimal") -> str:
    """galculator's config file starting it in ``mode`` with that angle unit and number base (the
    rest at galculator's defaults)."""
    return (
        f"\n[general]\n\nmode={MODES[mode]}\ndefault_number_base={_BASE_SETTING[base]}\n"
        f"default_angle_base={ANGLES[angle]}\ndefault_notation_mode=0\nshow_menu_bar=true\n"
    )


async def calculator(session: Session) -> Node | None:
    """galculator's window with its widgets (None: it is not open)."""
    return await app_window(session, APP)


def display(window: Node) -> str | None:
    """The number the display shows (its first line), None without a display (paper mode)."""
    for node in nodes(window):
        states = node.get("states") or []
        if node.get("role") == "text" and "multi_line" in states and "editable" not in states:
            return str(node.get("value") or "").split("\n", 1)[0].strip()
    return None


def tape(window: Node) -> list[str] | None:
    """Paper mode's tape, top to bottom: what was entered, its result, the next entry... (None: no tape)."""
    for node in nodes(window):
        if node.get("role") == "table":
            return [str(cell.get("name") or "") for cell in nodes(node) if cell.get("role") == "table cell"]
    return None


def _button(window: Node, name: str) -> Node | None:
    return next((n for n in nodes(window) if n.get("role") == "toggle button" and n.get("name") == name), None)


def mode(window: Node) -> str:
    """The mode the window shows: "paper", "scientific" or "basic"."""
    if tape(window) is not None:
        return "paper"
    return "scientific" if _button(window, "sin") is not None else "basic"


def base(window: Node) -> str | None:
    """The number base the digit buttons show (None: no digit buttons, or an unknown pattern)."""

    def sensitive(name: str) -> bool:
        button = _button(window, name)
        return button is not None and "sensitive" in (button.get("states") or [])

    if sensitive("A"):
        return "Hexadecimal"
    if sensitive("9"):
        return "Decimal"
    if sensitive("7"):
        return "Octal"
    if sensitive("1"):
        return "Binary"
    return None


async def open_galculator(
    task: Task, session: Session, start_mode: str, *, angle: str = "Radians", files: dict[str, str] | None = None
) -> None:
    """Setup: ``files`` and galculator's config written, galculator started in ``start_mode``, and
    the files under home remembered once its widgets are in the tree."""
    await write_files(session, {**(files or {}), CONFIG: config_text(start_mode, angle=angle)})
    await start(session, APP, title=APP, timeout=40)

    async def ready() -> bool:
        window = await calculator(session)
        return window is not None and mode(window) == start_mode

    await wait_for(ready, f"galculator in {start_mode} mode")
    await remember_files(task, session)


async def _node(session: Session, role: str, name: str) -> Node | None:
    window = await calculator(session)
    if window is None:
        return None
    return next(
        (n for n in walk([window]) if n.get("role") == role and n.get("name") == name and n.get("bounds")), None
    )


def keys(text: str) -> list[Action]:
    """``text`` as galculator takes it: one character at a time with a pause between, longer before a
    character typed just before (galculator drops a key whose button still shows pressed from the
    last time: "99-95" typed at once shows 9-5)."""
    out: list[Action] = []
    for index, char in enumerate(text):
        if index:
            out.append(Wait(0.35 if char in text[max(0, index - 3) : index] else 0.1))
        out.append(TypeText(char))
    return out


async def press_button(session: Session, name: str) -> None:
    """Click galculator's button ``name`` ("sin", "=") where the tree shows it."""
    button = await wait_for(lambda: _node(session, "toggle button", name), f"the button {name!r}")
    await act(session, Click(center(button)))


async def choose(session: Session, *path: str) -> None:
    """A menu bar's menu, its submenus and the item clicked in turn ("Calculator", "Angle units",
    "Degrees"); an item that did not show (a click while the window took the focus) opens the
    menu again, three tries."""
    roles = ("menu", "menu item", "radio menu item", "check menu item")
    for _attempt in range(3):
        try:
            for name in path:
                node = await wait_for(_finder(session, roles, name), f"the menu {name!r}", 5)
                await act(session, Click(center(node)))
            return
        except TaskError:
            await act(session, key("escape"), key("escape"))
    raise TaskError(f"could not choose {' > '.join(path)}")


def _finder(session: Session, roles: tuple[str, ...], name: str) -> Callable[[], Awaitable[Node | None]]:
    async def find() -> Node | None:
        return await _any_role(session, roles, name)

    return find


async def _any_role(session: Session, roles: tuple[str, ...], name: str) -> Node | None:
    window = await calculator(session)
    if window is None:
        return None
    return next(
        (n for n in walk([window]) if n.get("role") in roles and n.get("name") == name and n.get("bounds")), None
    )
