"""A job's logs, live: every rank or one, follow (stay at the end), pause (hold new lines), search."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Log, Static

from cua_core import CuaError, RemoteError
from cua_tui.screens.common import app_of

__all__ = ["LogsScreen"]


@dataclass
class Line:
    rank: int
    text: str


class LogsScreen(Screen[None]):
    TITLE = "Logs"
    AUTO_FOCUS = "Log"
    DEFAULT_CSS = "LogsScreen #search { display: none; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back"),
        Binding("f", "follow", "Follow"),
        Binding("p", "pause", "Pause"),
        Binding("r", "next_rank", "Rank"),
        Binding("slash", "search", "Search"),
        Binding("n", "find(1)", "Next match"),
        Binding("N", "find(-1)", "Previous match", show=False),
    ]

    def __init__(self, job: str, ranks: int) -> None:
        super().__init__()
        self.job = job
        self.ranks = max(1, ranks)
        self.rank: int | None = None  # None: every rank
        self.follow = True
        self.paused = False
        self.lines: list[Line] = []
        self.held = 0  # lines that arrived while paused
        self.partial: dict[int, str] = {}
        self.state = "?"
        self.search = ""
        self.match = -1  # index into the shown lines of the current match
        self.stop = threading.Event()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status")
        yield Input(placeholder="search the log (enter: find, n/N: next/previous)", id="search")
        yield Log(id="log", auto_scroll=True, max_lines=100_000)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"job {self.job}"
        self._status()
        self.tail()

    def on_unmount(self) -> None:
        self.stop.set()

    def action_close(self) -> None:
        self.stop.set()  # first: a reply already on its way must not write into a closing screen
        self.dismiss()

    # -- feed ---------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="logs", exit_on_error=False)
    def tail(self) -> None:
        """Long-polls ``job.logs`` (the controller answers when lines arrive); waits out a restart."""
        offsets: dict[str, int] = {}
        while not self.stop.is_set():
            try:
                reply = app_of(self).link.call(
                    "job.logs", {"job": self.job, "offsets": offsets, "wait": 1.0}, timeout=10.0
                )
            except RemoteError as exc:
                self.app.call_from_thread(self._state, f"error: {exc.message}")
                return
            except (CuaError, OSError) as exc:
                self.app.call_from_thread(self._state, f"controller unreachable ({type(exc).__name__}); retrying")
                self.stop.wait(1.0)
                continue
            chunks = []
            for rank, part in sorted(reply["ranks"].items(), key=lambda kv: int(kv[0])):
                offsets[rank] = part["offset"]
                if part["data"]:
                    chunks.append((int(rank), bytes(part["data"]).decode(errors="replace")))
            done = reply["state"] in ("succeeded", "failed", "cancelled")
            if chunks or done:
                self.app.call_from_thread(self._arrived, chunks, reply["state"], done)
            if done and not chunks:
                return

    def _state(self, state: str) -> None:
        if self.stop.is_set():  # the screen was closed while the call was on its way
            return
        self.state = state
        self._status()

    def _arrived(self, chunks: list[tuple[int, str]], state: str, done: bool) -> None:
        if self.stop.is_set():
            return
        self.state = state
        fresh: list[Line] = []
        for rank, data in chunks:
            text = self.partial.pop(rank, "") + data
            *complete, rest = text.split("\n")
            if rest:
                self.partial[rank] = rest
            fresh.extend(Line(rank, line) for line in complete)
        if done:
            fresh.extend(Line(rank, rest) for rank, rest in self.partial.items())
            self.partial.clear()
        self.lines.extend(fresh)
        shown = [self._format(line) for line in fresh if self._visible(line)]
        if self.paused:
            self.held += len(shown)
        elif shown:
            self.query_one(Log).write_lines(shown, scroll_end=self.follow)
        self._status()

    # -- view ---------------------------------------------------------------------------------------

    def _visible(self, line: Line) -> bool:
        return self.rank is None or line.rank == self.rank

    def _format(self, line: Line) -> str:
        return f"[{line.rank}] {line.text}" if self.rank is None else line.text

    def _shown(self) -> list[str]:
        return [self._format(line) for line in self.lines if self._visible(line)]

    def _redraw(self) -> None:
        log = self.query_one(Log)
        log.clear()
        log.write_lines(self._shown(), scroll_end=self.follow)
        self.held = 0

    def _status(self) -> None:
        parts = [
            f"job {self.job}: {self.state}",
            f"rank {'all' if self.rank is None else self.rank} of {self.ranks}",
            "following" if self.follow else "not following",
        ]
        if self.paused:
            parts.append(f"PAUSED ({self.held} new lines held)")
        if self.search:
            hits = sum(self.search.lower() in s.lower() for s in self._shown())
            at = f", at line {self.match + 1}" if self.match >= 0 else ""
            parts.append(f"'{self.search}': {hits} matches{at}")
        self.query_one("#status", Static).update(" · ".join(parts))

    def action_follow(self) -> None:
        self.follow = not self.follow
        log = self.query_one(Log)
        log.auto_scroll = self.follow
        if self.follow:
            log.scroll_end(animate=False)
        self._status()

    def action_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused and self.held:
            self._redraw()
        self._status()

    def action_next_rank(self) -> None:
        order: list[int | None] = [None, *range(self.ranks)]
        self.rank = order[(order.index(self.rank) + 1) % len(order)]
        self.match = -1
        self._redraw()
        self._status()

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.display = True
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.search = event.value
        event.input.display = False
        self.query_one(Log).focus()
        self.match = -1
        self.action_find(1)

    def action_find(self, direction: int) -> None:
        if not self.search:
            self.action_search()
            return
        shown = self._shown()
        needle = self.search.lower()
        hits = [i for i, text in enumerate(shown) if needle in text.lower()]
        if not hits:
            self.match = -1
            self.app.notify(f"'{self.search}' is not in the log", severity="warning")
        else:
            after = [i for i in hits if (i > self.match if direction > 0 else i < self.match)]
            self.match = (after[0] if direction > 0 else after[-1]) if after else hits[0 if direction > 0 else -1]
            if self.follow:
                self.action_follow()  # a match to read is no use if the view jumps back to the end
            self.query_one(Log).scroll_to(y=max(0, self.match - 3), animate=False)
        self._status()
