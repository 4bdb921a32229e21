"""Progress on stderr: a live line with an ETA on a terminal, a plain line every few seconds otherwise.

CI logs and ``nohup`` files get periodic lines (a run of an hour used to print nothing until its
summary); a terminal gets one line rewritten in place. The ETA counts only the items done in this
session, so a resumed run does not look faster than it is.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

__all__ = ["Progress"]


def _clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """``done`` items of ``total`` (``already`` of them from before this session), ``what`` they are."""

    def __init__(
        self,
        total: int,
        *,
        already: int = 0,
        what: str = "episodes",
        every_s: float = 10.0,
        stream: TextIO | None = None,
        live: bool | None = None,
    ) -> None:
        self.total, self.done, self.already, self.what = total, already, already, what
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.every_s = every_s
        self.started = time.monotonic()
        self.last_line = 0.0
        self.lock = threading.Lock()
        self.open = False  # a live line is on screen and needs a newline before anything else

    def eta(self) -> float | None:
        fresh = self.done - self.already
        if fresh <= 0:
            return None
        return (time.monotonic() - self.started) / fresh * (self.total - self.done)

    def line(self, note: str = "") -> str:
        percent = self.done / self.total * 100 if self.total else 100.0
        eta = self.eta()
        when = f", eta {_clock(eta)}" if eta is not None and self.done < self.total else ""
        elapsed = _clock(time.monotonic() - self.started)
        return f"[{self.done}/{self.total}] {percent:3.0f}% {self.what}, {elapsed} elapsed{when}" + (
            f"  {note}" if note else ""
        )

    def advance(self, note: str = "", count: int = 1) -> None:
        with self.lock:
            self.done += count
            now = time.monotonic()
            if self.live:
                text = self.line(note)[:120]
                self.stream.write("\r" + text.ljust(100))
                self.open = True
            elif now - self.last_line >= self.every_s or self.done == self.total:
                self.stream.write("progress: " + self.line() + "\n")
                self.last_line = now
            self.stream.flush()

    def close(self) -> None:
        """End the live line, so what is printed next starts on a line of its own."""
        with self.lock:
            if self.open:
                self.stream.write("\n")
                self.stream.flush()
                self.open = False
