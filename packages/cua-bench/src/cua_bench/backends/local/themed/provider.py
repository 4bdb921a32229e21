"""Cua's simulated provider on the local session: ``use_theme`` and the windows drawn in the page.

``LocalSession`` takes these from ``SimulatedProvider``; ``ThemedDesktop`` (this package) is the page
itself. Kept apart so the session module holds the plain desktop and this one the themed one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from cua_bench.backends.local.display import Desktop
from cua_bench.backends.local.settle import Settler
from cua_bench.backends.local.themed import ThemedDesktop, look_of, next_handle
from cua_bench.backends.local.windows import Windows, normalised, parse_id

__all__ = ["SimulatedProvider"]

log = logging.getLogger(__name__)


class SimulatedProvider:
    """The themed half of ``LocalSession`` (a mixin: the attributes below are the session's)."""

    themed: ThemedDesktop | None = None  # the desktop page, once ``use_theme`` set a look
    root: Path
    env: dict[str, str]
    desktop: Desktop
    wins: Windows
    settler: Settler
    width: int
    height: int
    _timeout: float

    async def use_theme(self, theme: str | None) -> None:
        """Cua's "simulated" provider: ``theme`` (its ``os_type``: macos, windows, win11, win10, win7,
        winxp, win98, linux, android, ios) draws a desktop of that look in one full-screen Chromium
        page, and HTML windows open inside it (``themed``); None goes back to plain windows, each a
        Chromium of its own under openbox. A new look drops the open windows; the same look again
        changes nothing (reset starts every episode on a freshly loaded desktop)."""
        if not theme:
            await self._stop_theme()
            return
        look = look_of(theme)
        self.settler.arm()
        if self.themed is not None and self.themed.runs_on(self.desktop):
            if self.themed.look != look:
                self.themed.look = look
                await self._renew_theme()
        else:
            await self._start_theme(look)
        assert self.themed is not None
        self.wins.activate(self.themed.wid)
        await self.settler.wait()

    async def _stop_theme(self) -> None:
        themed, self.themed = self.themed, None
        if themed is None:
            return
        themed.stop()
        # Until its window is gone: X may give the next client the same window id, which a launch
        # that still listed the old one would take for a window it did not open.
        deadline = time.monotonic() + 1.0
        while themed.display is self.desktop and themed.wid in self.wins.ids() and time.monotonic() < deadline:
            await asyncio.sleep(0.005)

    async def _start_theme(self, look: str) -> ThemedDesktop:
        await self._stop_theme()
        size, timeout = (self.width, self.height), max(30.0, self._timeout)
        self.themed = await ThemedDesktop.start(look, self.root, self.env, self.desktop, self.wins, size, timeout)
        return self.themed

    async def _renew_theme(self) -> None:
        """The desktop page for the next episode: loaded afresh, or started again where it died, its
        display was replaced (a resize) or it did not come back in time."""
        themed = self.themed
        assert themed is not None
        if themed.runs_on(self.desktop):
            try:
                await themed.renew()
                self.wins.activate(themed.wid)
                return
            except Exception as exc:  # a page that hangs or a browser that crashed: a new one
                log.warning("local env: the simulated desktop did not reload (%r); starting it again", exc)
        await self._start_theme(themed.look)

    async def _launch_themed(
        self, target: str, title: str, place: tuple[int | None, int | None, int, int], inner: bool, timeout: float
    ) -> int:
        themed = self.themed
        assert themed is not None
        if not themed.runs_on(self.desktop):
            themed = await self._start_theme(themed.look)
        handle = next_handle()
        self.settler.arm()
        await themed.open(handle, target, title, place, inner, timeout)
        self.wins.activate(themed.wid)
        await self.settler.wait()
        return handle

    async def _themed_windows(self, themed: ThemedDesktop) -> list[dict[str, Any]]:
        """Today's ``windows()`` entries, the desktop page's window replaced by the windows drawn in it
        (front to back; minimised ones are not on the screen, so not listed); their id is the handle."""
        listed = []
        left, top = self.wins.origin(themed.wid) or (0, 0)
        for info in self.wins.snapshot():
            if parse_id(info["id"]) != themed.wid:
                listed.append(info)
                continue
            for window in await themed.windows():
                if window["minimized"]:
                    continue
                x, y = left + round(window["x"]), top + round(window["y"])
                x0, y0 = min(max(0, x), self.width), min(max(0, y), self.height)
                right = max(x0, min(self.width, x + round(window["width"])))
                box = (x0, y0, right, max(y0, min(self.height, y + round(window["height"]))))
                focused = info["focused"] and window["focused"]
                listed.append({
                    "id": str(window["handle"]), "title": window["title"], "app": "html",
                    "bounds": normalised(box, self.width, self.height), "focused": focused,
                })  # fmt: skip
        return listed
