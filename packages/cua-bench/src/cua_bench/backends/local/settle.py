"""When to take the observation after an action: once the screen has settled, not after a fixed sleep.

X DAMAGE on the root window reports every drawing on the screen (Xvfb does not composite, so the
root's damage covers all windows). After an action the screen is settled when

* something was drawn and nothing more for ``quiet`` seconds (two frames at ~60 Hz), or
* nothing was drawn at all for ``grace`` seconds (the action changed nothing visible), or
* ``limit`` seconds passed (an animation, a blinking caret that never stops).

Typing a character into xterm settles ~30 ms after xterm's redraw, instead of the 200-500 ms a
fixed sleep would need to be safe. Without DAMAGE, frames ~15 ms apart are compared instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cua_bench.backends.local.display import open_display

__all__ = ["SettleConfig", "Settler"]

POLL = 0.003
FRAME_INTERVAL = 0.015


@dataclass
class SettleConfig:
    """Seconds; ``limit`` 0 turns settling off (the observation is taken at once)."""

    quiet: float = 0.03
    grace: float = 0.1
    limit: float = 2.0


class Settler:
    """Watches one display for drawing, on its own connection (its event queue holds only damage)."""

    def __init__(self, display: str, grab: Callable[[], Any], config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        self._grab = grab
        self.conn = open_display(display)
        self.damage: int | None = None
        if self.conn.query_extension("DAMAGE") is not None:
            from Xlib.ext import damage

            self.conn.damage_query_version()  # the extension refuses every other request before this one
            self.damage = self.conn.screen().root.damage_create(damage.DamageReportNonEmpty)
            self.conn.sync()
        self._armed = False
        self._last_hash = b""

    @property
    def method(self) -> str:
        return "damage" if self.damage is not None else "frames"

    def _drawn(self) -> bool:
        """Whether anything was drawn since the last call (and forget it)."""
        if self.damage is not None:
            events = 0
            while self.conn.pending_events():
                self.conn.next_event()
                events += 1
            if events:
                self.conn.damage_subtract(self.damage)
                self.conn.flush()
            return events > 0
        digest = hashlib.blake2b(self._grab().tobytes(), digest_size=16).digest()
        changed = digest != self._last_hash
        self._last_hash = digest
        return changed

    def arm(self) -> None:
        """Before input: forget earlier drawing, so only what the action causes counts."""
        if self.config.limit <= 0:
            return
        self._drawn()
        self._armed = True

    async def wait(self) -> float:
        """Seconds waited until the screen settled (0 if no input was sent since the last wait)."""
        if not self._armed:
            return 0.0
        self._armed = False
        config = self.config
        start = time.monotonic()
        last_drawing: float | None = None
        interval = POLL if self.damage is not None else FRAME_INTERVAL
        while True:
            now = time.monotonic()
            if self._drawn():
                last_drawing = now
            if last_drawing is not None and now - last_drawing >= config.quiet:
                break
            if last_drawing is None and now - start >= config.grace:
                break
            if now - start >= config.limit:
                break
            await asyncio.sleep(interval)
        return time.monotonic() - start

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the display may already be gone at teardown
            self.conn.close()
