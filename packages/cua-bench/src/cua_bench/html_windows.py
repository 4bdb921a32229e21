"""Cua Bench's HTML task windows on the Session: named now, so a Cua task that opens one fails at
the call with what is missing, instead of with an ``AttributeError`` that reads like a typo.

Cua's tasks open their own small apps as HTML windows (``launch_window(html=...)``), read their
state with ``execute_javascript`` and click their elements in oracles (``click_element``). Here
that will be Chromium app windows driven over the DevTools protocol on ``local`` and ``docker``;
until then every one of these raises ``NotSupported`` naming the backends that will have it.
"""

from __future__ import annotations

from typing import Any

from cua_core.errors import CuaError

__all__ = ["HTML_WINDOWS", "HtmlWindows"]

HTML_WINDOWS = "HTML task windows need the local or docker backend with Chromium; not implemented yet"


class HtmlWindows:
    """Cua's window methods, each refusing with the same reason (``session.NotSupported``)."""

    def _no_html_windows(self, method: str, hint: str = "") -> CuaError:
        from cua_bench.session import NotSupported  # session imports this module

        return NotSupported(f"session.{method}: {HTML_WINDOWS} (session {type(self).__name__}){hint}")

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
        raise self._no_html_windows("execute_javascript")

    async def get_element_rect(self, handle: int | str, selector: str, **options: Any) -> dict[str, Any] | None:
        raise self._no_html_windows("get_element_rect")

    async def click_element(self, handle: int | str, selector: str) -> None:
        raise self._no_html_windows("click_element")

    async def right_click_element(self, handle: int | str, selector: str) -> None:
        raise self._no_html_windows("right_click_element")

    async def execute_action(self, action: Any) -> None:
        """Cua's action objects (``ClickAction(x, y)``, pixels); ours go through ``apply``."""
        raise self._no_html_windows("execute_action", "; act with session.apply([...]) and cua_core.actions")
