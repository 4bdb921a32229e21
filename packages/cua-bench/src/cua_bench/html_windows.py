"""Cua Bench's HTML task windows on the Session: ``launch_window(html=...)``, ``execute_javascript``,
``get_element_rect``, ``click_element`` / ``right_click_element`` and ``execute_action``.

Cua's tasks open their own small apps as HTML windows, read their state with
``execute_javascript`` and click their elements in oracles (``click_element``). On ``local`` (and
``docker``, which runs the local session in its container) these are Chromium app windows driven
over the DevTools protocol (``cua_bench.backends.local.chromium``). The sim has no browser: there
``launch_window`` and ``execute_javascript`` raise ``NotSupported`` naming the backends that have
them, rather than fake a page.

What is common lives here: an element's rect is found by JavaScript and moved to the screen by the
backend's ``_viewport_origin``; ``click_element`` then clicks it with a real input action, as an
oracle acting through the UI must; ``execute_action`` takes our actions or Cua's action objects
(``ClickAction(x, y)`` in pixels, ...) and applies them, on every backend; ``get_snapshot`` and
``close_all_windows`` are built on the session's ``windows()`` listing.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Literal, cast

from cua_bench.types import Snapshot, WindowSnapshot
from cua_core import (
    ACTIONS,
    Action,
    Click,
    CuaError,
    Done,
    Drag,
    KeyPress,
    MouseMove,
    Scroll,
    TypeText,
    Wait,
    from_pixels,
    split_key_combo,
)

__all__ = ["HTML_WINDOWS", "ElementNotFound", "HtmlWindows", "JavaScriptError", "cua_actions", "rect_script"]

# Cua's ScrollAction.amount is in pixels; a wheel click scrolls about this many.
SCROLL_PIXELS = 100
MAX_SCROLL_CLICKS = 100  # cua_core's limit on one scroll action
# What a page gives ``get_snapshot`` about an HTML window.
PAGE_SCRIPT = "({url: location.href, html: document.documentElement.outerHTML})"

HTML_WINDOWS = "HTML task windows need the local or docker backend (Chromium driven over its DevTools protocol)"


class JavaScriptError(CuaError):
    """The page's JavaScript threw, or the window's page could not be reached."""


class ElementNotFound(CuaError):
    """No element matched the selector within the timeout."""


def rect_script(selector: str) -> str:
    """JavaScript giving the first match's ``{x, y, width, height}`` in CSS pixels of the viewport, or null."""
    return (
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null; "
        "const r = e.getBoundingClientRect(); const s = window.devicePixelRatio || 1; "
        "return {x: r.left * s, y: r.top * s, width: r.width * s, height: r.height * s}; })()"
    )


# Whether a drop-down's popup is open: ``:open`` where Chromium has it (133 on), else whether the select
# has the focus (its popup open after the oracle's click on it).
HAS_OPEN = "CSS.supports('selector(:open)')"
POPUP_OPEN = f"({HAS_OPEN} ? sel.matches(':open') : document.activeElement === sel)"


def target_script(selector: str) -> str:
    """JavaScript saying how to click the first match, as Playwright (which Cua's oracles were written
    against) would: an element outside the page's viewport is scrolled into view first. An ``<option>`` of
    a drop-down has no box in the page (Chromium draws its popup apart): for it the answer is ``{option,
    open, select}``, its place among the select's enabled options, whether the select's popup is open
    and the select's rect. A list box's options are in the page and are clicked as any element is; a
    drop-down itself is a rect with ``dropdown`` true."""
    rect = "{x: r.left * s, y: r.top * s, width: r.width * s, height: r.height * s}"
    return (
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null; "
        "const s = window.devicePixelRatio || 1; "
        "const sel = e.tagName === 'OPTION' ? e.closest('select') : null; "
        "if (e.tagName === 'OPTION' && !sel) return null; "
        "if (sel && !sel.multiple && sel.size <= 1) { "
        "const r = sel.getBoundingClientRect(); "
        "return {option: Array.from(sel.options).filter(o => !o.disabled).indexOf(e), "
        f"open: {POPUP_OPEN}, select: {rect}}}; }} "
        "let r = e.getBoundingClientRect(); "
        "if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) { "
        "e.scrollIntoView({block: 'center', inline: 'center'}); r = e.getBoundingClientRect(); } "
        f"return Object.assign({rect}, {{dropdown: e.tagName === 'SELECT' && !e.multiple && e.size <= 1}}); }})()"
    )


def cua_actions(action: Any, width: int, height: int) -> list[Action]:
    """One of our actions, or Cua's action object (pixels; matched by class name), as our actions."""
    if isinstance(action, tuple(ACTIONS.values())):
        return [cast(Action, action)]
    name = type(action).__name__

    def at(x_field: str = "x", y_field: str = "y") -> Any:
        return from_pixels(getattr(action, x_field), getattr(action, y_field), width, height)

    if name == "ClickAction":
        return [Click(at())]
    if name == "RightClickAction":
        return [Click(at(), button="right")]
    if name == "MiddleClickAction":
        return [Click(at(), button="middle")]
    if name == "DoubleClickAction":
        return [Click(at(), clicks=2)]
    # MoveToAction's and DragAction's duration is how fast Cua's pointer travels there; ours moves at
    # once (a drag passes through points on the way), and where it ends up is the same.
    if name == "MoveToAction":
        return [MouseMove(at())]
    if name == "DragAction":
        return [Drag(at("from_x", "from_y"), at("to_x", "to_y"))]
    if name == "TypeAction":
        return [TypeText(action.text)]
    if name == "KeyAction":
        return [KeyPress(split_key_combo(action.key))]
    if name == "HotkeyAction":
        return [KeyPress(tuple(action.keys))]
    if name == "ScrollAction":  # Cua: amount in pixels, about 100 per wheel click; up unless it says
        clicks = min(MAX_SCROLL_CLICKS, max(1, int(getattr(action, "amount", SCROLL_PIXELS)) // SCROLL_PIXELS))
        return [Scroll(getattr(action, "direction", "up"), clicks)]
    if name == "WaitAction":
        return [Wait(float(getattr(action, "seconds", 1.0)))]
    if name == "DoneAction":
        return [Done()]
    raise CuaError(
        f"execute_action: {name} is not an action this session knows; give one of cua_core.actions "
        "or Cua's ClickAction, RightClickAction, MiddleClickAction, DoubleClickAction, MoveToAction, "
        "DragAction, TypeAction, KeyAction, HotkeyAction, ScrollAction, WaitAction, DoneAction"
    )


class HtmlWindows:
    """Cua's window methods. A backend with a browser overrides ``launch_window``,
    ``execute_javascript`` and ``_viewport_origin``; the rest is built on them."""

    width: int
    height: int

    def _no_html_windows(self, method: str) -> CuaError:
        from cua_bench.session import NotSupported  # session imports this module

        return NotSupported(f"session.{method}: {HTML_WINDOWS}; session {type(self).__name__} has no browser")

    async def launch_window(
        self,
        url: str | None = None,
        *,
        html: str | None = None,
        folder: str | None = None,
        title: str = "Window",
        x: int | None = None,
        y: int | None = None,
        width: int = 600,
        height: int = 400,
        **options: Any,
    ) -> int | str:
        """Open an HTML window and return its handle (Cua: a pid)."""
        raise self._no_html_windows("launch_window")

    async def execute_javascript(self, handle: int | str, javascript: str) -> Any:
        """The value of ``javascript`` in the window's page (promises awaited), JSON-able."""
        raise self._no_html_windows("execute_javascript")

    async def _viewport_origin(self, handle: int | str) -> tuple[float, float]:
        """The screen pixel where the window's page (its viewport's top left) is drawn."""
        raise self._no_html_windows("get_element_rect")

    async def get_element_rect(
        self, handle: int | str, selector: str, *, space: str = "window", timeout: float = 0.5
    ) -> dict[str, Any] | None:
        """``{"x", "y", "width", "height"}`` of the first element matching ``selector``, in pixels of
        the page (``space="window"``) or of the screen (``"screen"``); None if none matched within
        ``timeout`` seconds (Cua's default, 0.5)."""
        if space not in ("window", "screen"):
            raise ValueError(f"get_element_rect: space must be 'window' or 'screen', not {space!r}")
        deadline = time.monotonic() + timeout
        while True:
            rect = await self.execute_javascript(handle, rect_script(selector))
            if rect is not None or time.monotonic() >= deadline:
                break
            await asyncio.sleep(0.05)
        if rect is None:
            return None
        if space == "screen":
            left, top = await self._viewport_origin(handle)
            rect = {**rect, "x": rect["x"] + left, "y": rect["y"] + top}
        return dict(rect)

    async def _target(self, handle: int | str, selector: str, timeout: float = 0.5) -> dict[str, Any]:
        """``target_script``'s answer, with the rects on the screen; waits ``timeout`` for a match."""
        deadline = time.monotonic() + timeout
        while (found := await self.execute_javascript(handle, target_script(selector))) is None:
            if time.monotonic() >= deadline:
                raise ElementNotFound(f"no element matches {selector!r} in window {handle}")
            await asyncio.sleep(0.05)
        left, top = await self._viewport_origin(handle)
        rect = found.get("select", found)
        if not rect["width"] or not rect["height"]:
            raise ElementNotFound(f"{selector!r} in window {handle} is not shown (it has no size on the page)")
        x, y = left + rect["x"] + rect["width"] / 2, top + rect["y"] + rect["height"] / 2
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ElementNotFound(f"{selector!r} in window {handle} is off the screen at ({x:.0f}, {y:.0f})")
        return {**found, "centre": from_pixels(x, y, self.width, self.height)}

    async def click_element(
        self, handle: int | str, selector: str, button: Literal["left", "right", "middle"] = "left"
    ) -> None:
        """Click the centre of the element with a real mouse click (the session's input). An ``<option>``
        is chosen as a person does in Chromium's popup: the select clicked open (unless the oracle just
        did), then Home, Down to it, Enter."""
        target = await self._target(handle, selector)
        if "option" not in target:
            await self.execute_action(Click(target["centre"], button=button))
            if target.get("dropdown") and button == "left":
                await self._until_popup(handle, selector, True)
            return
        if target["option"] < 0:
            raise ElementNotFound(f"{selector!r} in window {handle} is a disabled option: it cannot be chosen")
        if not target["open"]:
            await self.execute_action(Click(target["centre"]))
            # A busy Chromium opens the popup after the click has settled: keys sent before it opens
            # change the closed select, and the popup that opens late then eats the oracle's next click.
            await self._until_popup(handle, selector, True)
        for keys in [("home",), *[("down",)] * target["option"], ("enter",)]:
            await self.execute_action(KeyPress(keys))
        await self._until_popup(handle, selector, False)

    async def _until_popup(self, handle: int | str, selector: str, is_open: bool, timeout: float = 10.0) -> None:
        """Wait until the popup of the drop-down holding ``selector`` is open (or closed). A Chromium
        without ``:open`` cannot say, and one whose popup does not come within ``timeout`` gets the
        keys anyway: on a focused closed drop-down they choose the same option."""
        script = (
            f"(() => {{ if (!{HAS_OPEN}) return null; const e = document.querySelector({json.dumps(selector)}); "
            "const sel = e && e.closest('select'); return !!sel && sel.matches(':open'); })()"
        )
        deadline = time.monotonic() + timeout
        while (answer := await self.execute_javascript(handle, script)) is not None and answer != is_open:
            if time.monotonic() >= deadline:
                return
            await asyncio.sleep(0.05)

    async def right_click_element(self, handle: int | str, selector: str) -> None:
        await self.click_element(handle, selector, button="right")

    async def execute_action(self, action: Any) -> None:
        """Apply one action: ours (``cua_core.actions``) or Cua's (``ClickAction(x, y)``, pixels)."""
        actions = cua_actions(action, self.width, self.height)
        errors = await self.apply(actions)  # type: ignore[attr-defined]  # Session's
        problems = [error for error in errors if error]
        if problems:
            raise CuaError(f"execute_action({action!r}): {'; '.join(problems)}")
        await self.settle()  # type: ignore[attr-defined]

    # -- Cua's window listing -----------------------------------------------------------------

    def html_window_handles(self) -> dict[str, int | str]:
        """The open HTML windows: ``windows()``'s id -> ``launch_window``'s handle.

        A backend with a browser keeps its windows as ``html_windows`` (handle -> a record with the
        window's X id, ``wid``), as the local session does; one that keeps them otherwise overrides this.
        """
        records = getattr(self, "html_windows", None) or {}
        return {f"0x{record.wid:x}": handle for handle, record in records.items() if isinstance(record.wid, int)}

    async def get_snapshot(self) -> Snapshot:
        """Cua's ``Snapshot``: each window front to back, its geometry in screen pixels; an HTML window
        is a ``"webview"`` with its handle as ``pid`` and its page's ``url`` and ``html``, any other a
        ``"process"``. Windows ``windows()`` does not list (minimized ones, where a backend hides them)
        are not in it, so ``minimized`` is always False."""
        handles = self.html_window_handles()
        shots = []
        for window in await self.windows():  # type: ignore[attr-defined]  # Session's
            left, top, right, bottom = window["bounds"]
            x, y = round(left * self.width / 1000), round(top * self.height / 1000)
            width, height = round(right * self.width / 1000) - x, round(bottom * self.height / 1000) - y
            handle = handles.get(str(window["id"]))
            page: dict[str, Any] = {}
            if handle is not None:
                try:
                    page = await self.execute_javascript(handle, PAGE_SCRIPT) or {}
                except CuaError:  # closing, or its page is gone: still a window, without its page
                    page = {}
            shots.append(
                WindowSnapshot(
                    "webview" if handle is not None else "process",
                    pid=None if handle is None else str(handle),
                    url=page.get("url"),
                    html=page.get("html"),
                    title=str(window.get("title") or ""),
                    x=x,
                    y=y,
                    width=width,
                    height=height,
                    active=bool(window.get("focused")),
                )
            )
        return Snapshot(shots)

    async def close_all_windows(self, timeout: float = 5.0) -> None:
        """Close every window (Cua's tasks do before opening their own): through the window manager
        where the session can close a window by id (``close_window``), else as a person would, with
        Alt+F4 on the front window until none is left. A window still open after ``timeout`` seconds
        (an app asking to save, say) is an error naming it, never left open silently."""
        close = getattr(self, "close_window", None)
        asked: set[str] = set()
        deadline = time.monotonic() + timeout
        while True:
            windows = await self.windows()  # type: ignore[attr-defined]  # Session's
            if not windows:
                return
            if time.monotonic() > deadline:
                titles = ", ".join(repr(w.get("title") or w["id"]) for w in windows)
                raise CuaError(f"close_all_windows: {len(windows)} window(s) stayed open after {timeout:g} s: {titles}")
            if close is not None:
                for window in windows:
                    if str(window["id"]) not in asked:
                        asked.add(str(window["id"]))
                        await close(window["id"])
                await asyncio.sleep(0.05)
            else:
                errors = await self.apply([KeyPress(("alt", "f4"))])  # type: ignore[attr-defined]
                if errors and errors[0]:
                    raise CuaError(f"close_all_windows: Alt+F4 was refused: {errors[0]}")
                await self.settle()  # type: ignore[attr-defined]
                after = await self.windows()  # type: ignore[attr-defined]
                if [w["id"] for w in after] == [w["id"] for w in windows]:
                    front = windows[0].get("title") or windows[0]["id"]
                    raise CuaError(f"close_all_windows: the window {front!r} did not close on Alt+F4")
