"""A sim phone's screen as the phone app tests drive it: a 360x720 desktop with a phone on it, its
accessibility nodes found by role and name, taps, long presses and typing applied to them (each must
be accepted), and the rows, labels and title read back."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from cua_bench.nodes import center, find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.phone import Phone
from cua_core.actions import Action, KeyPress, LongPress, Point, Swipe, Tap, TypeText

__all__ = [
    "H",
    "W",
    "act",
    "fill",
    "hold",
    "installed",
    "labels",
    "node",
    "nodes",
    "rows",
    "swipe_up",
    "tap",
    "title",
    "window_title",
]

W, H = 360, 720


def installed(
    app: str, data: dict[str, Any] | None = None, seed: int = 0, apps: Sequence[str] | None = None
) -> tuple[SimDesktop, Phone]:
    """A W x H sim desktop with a phone of ``apps`` (just ``app``), ``app``'s store updated with a copy of ``data``."""
    desktop = SimDesktop(W, H, seed)
    phone = Phone.install(desktop, [app] if apps is None else list(apps))
    if data is not None:
        phone.app_data(app).update(copy.deepcopy(data))
    return desktop, phone


def node(desktop: SimDesktop, role: str, name: str | None = None) -> dict[str, Any]:
    """The first accessibility node on the screen with this role (and name)."""
    return find(desktop.a11y(), role=role, name=name)


def nodes(desktop: SimDesktop, role: str, name: str | None = None) -> list[dict[str, Any]]:
    """Every accessibility node on the screen with this role (and name)."""
    return find_all(desktop.a11y(), role=role, name=name)


def act(desktop: SimDesktop, *actions: Action) -> None:
    """Applies the actions in turn, asserting that the desktop accepts each."""
    for action in actions:
        assert desktop.apply(action) is None, action


def tap(desktop: SimDesktop, role: str, name: str | None = None) -> None:
    """Taps the centre of the node with this role (and name)."""
    act(desktop, Tap(center(node(desktop, role, name))))


def hold(desktop: SimDesktop, role: str, name: str) -> None:
    """Long-presses the centre of the node with this role and name."""
    act(desktop, LongPress(center(node(desktop, role, name))))


def fill(desktop: SimDesktop, name: str, text: str) -> None:
    """Taps the text box of this name, selects all it holds and types ``text`` over it."""
    tap(desktop, "textbox", name)
    act(desktop, KeyPress(("ctrl", "a")), TypeText(text))


def rows(desktop: SimDesktop) -> list[str]:
    """The names of every list item on the screen, in order."""
    return [n["name"] for n in nodes(desktop, "listitem")]


def labels(desktop: SimDesktop) -> list[str]:
    """The names of the labels in the top window."""
    return [n["name"] for n in find_all(desktop.a11y()[1:2], role="label")]


def title(desktop: SimDesktop) -> str:
    """The name of the top window's accessibility node."""
    return str(desktop.a11y()[1]["name"])


def window_title(desktop: SimDesktop) -> str:
    """The title of the focused window (there must be one)."""
    window = desktop.focused_window
    assert window is not None
    return window.title


def swipe_up(desktop: SimDesktop, list_node: dict[str, Any]) -> None:
    """Swipes up through the middle of a list node, from 80% of its height to 20%."""
    left, top, right, bottom = list_node["bounds"]
    x = (left + right) / 2
    act(desktop, Swipe(Point(x, top + 0.8 * (bottom - top)), Point(x, top + 0.2 * (bottom - top))))
