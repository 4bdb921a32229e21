"""cua-tui: the pool, jobs, evaluation runs, RL runs and live environments, watched in one Textual app.

Workers read the bus and the controller on threads and post messages; the app folds them into the
model and redraws the one screen on view. Keys: 1-4 switch screens, ? help, ctrl+p the palette.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from cua_core import BusAddresses, CuaError, check_address, ensure_forwarder
from cua_tui.backfill import scan_runs
from cua_tui.feed import BusBatch, ControllerLink, ControllerSnapshot, ControllerUpdate, read_bus
from cua_tui.model import Model, Run
from cua_tui.screens.common import ViewScreen
from cua_tui.screens.computers import ComputersScreen
from cua_tui.screens.dialogs import Help
from cua_tui.screens.envs import EnvsScreen
from cua_tui.screens.jobs import JobsScreen
from cua_tui.screens.runs import RunsScreen

__all__ = ["CuaTui", "main"]

SCREENS = {"computers": ComputersScreen, "jobs": JobsScreen, "runs": RunsScreen, "envs": EnvsScreen}
RESCAN_S = 10.0  # run folders are read again this often (new runs that started without the bus)


def terminal_shows_images() -> bool:
    """True colour is what half-block pictures need; most terminals that have it say so."""
    return os.environ.get("COLORTERM", "").lower() in ("truecolor", "24bit") or os.environ.get("TERM_PROGRAM") in (
        "kitty",
        "WezTerm",
        "iTerm.app",
        "ghostty",
    )


class CuaTui(App[None]):
    TITLE = "cua"
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = dict(SCREENS)
    DEFAULT_MODE = "computers"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "switch_mode('computers')", "Computers"),
        Binding("2", "switch_mode('jobs')", "Jobs"),
        Binding("3", "switch_mode('runs')", "Runs"),
        Binding("4", "switch_mode('envs')", "Envs"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        *,
        controller: str | None = None,
        runs: Iterable[Path] = (Path("runs"),),
        bus: str | None = None,
        feeds: bool = True,
        images: bool | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.model = Model()
        self.link = ControllerLink(controller)
        self.run_roots = [Path(p) for p in runs]
        self.bus_address = bus or BusAddresses.default().subscribe
        self.feeds = feeds
        self.images = terminal_shows_images() if images is None else images
        self.clock = clock
        self.snapshot = ControllerSnapshot(False, self.link.address, error="not asked yet")
        self.stop = threading.Event()
        # Called after each batch of events is on screen with their publish times (bench/tui.py).
        self.on_rendered: Callable[[list[float]], None] | None = None

    # -- start and stop -------------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.feeds:
            self.watch_bus()
            self.watch_controller()
            self.rescan_runs()
            self.set_interval(RESCAN_S, self.rescan_runs)

    def on_unmount(self) -> None:
        self.stop.set()
        self.link.wake.set()

    @work(thread=True, group="bus")
    def watch_bus(self) -> None:
        read_bus(self.bus_address, lambda events: self.post_message(BusBatch(events)), self.stop)

    @work(thread=True, group="controller")
    def watch_controller(self) -> None:
        self.link.watch(lambda snapshot: self.post_message(ControllerUpdate(snapshot)), self.stop)

    @work(thread=True, exclusive=True, group="runs")
    def rescan_runs(self) -> None:
        runs = scan_runs(self.run_roots)
        self.call_from_thread(self._add_runs, runs)

    def _add_runs(self, runs: list[Run]) -> None:
        for run in runs:
            self.model.add_run(run)
        self._redraw({"runs"})

    # -- messages -------------------------------------------------------------------------------------

    def on_bus_batch(self, message: BusBatch) -> None:
        changed = set()
        for event in message.events:
            view = self.model.apply(event.topic, event.body)
            if view is not None:
                changed.add(view)
        if "computers" in changed or "jobs" in changed:
            self.link.wake.set()  # the controller has the detail (load, members): ask now
        self._redraw(changed)
        if self.on_rendered is not None:
            stamps = [event.ts for event in message.events]
            probe = self.on_rendered
            self.call_after_refresh(lambda: probe(stamps))

    def on_controller_update(self, message: ControllerUpdate) -> None:
        snapshot = message.snapshot
        self.snapshot = snapshot
        if snapshot.connected:
            self.model.load_computers(snapshot.hosts)
            self.model.load_jobs(snapshot.jobs)
        self._redraw({"computers", "jobs"})

    def _redraw(self, changed: set[str]) -> None:
        # Workers post from threads, so a message can land before the first screen is pushed or
        # after the last one is popped on exit: there is nothing to redraw then.
        if not self.screen_stack:
            return
        screen = self.screen
        if isinstance(screen, ViewScreen) and screen.VIEW in changed and screen.is_mounted:
            screen.show(self.model)

    @property
    def controller_status(self) -> str:
        s = self.snapshot
        if s.connected:
            return f"controller {s.address}: {len(s.hosts)} computers, {len(s.jobs)} jobs"
        return f"controller {s.address}: not reachable ({s.error}); retrying"

    # -- actions --------------------------------------------------------------------------------------

    def action_help(self) -> None:
        self.push_screen(Help(self.help_text(self.screen)))

    def help_text(self, screen: Screen[object]) -> str:
        lines = [
            "# cua-tui keys",
            "",
            "Everything is also in the command palette (ctrl+p).",
            "",
            "| key | does |",
            "|---|---|",
        ]
        for binding in [*self.BINDINGS, *getattr(screen, "BINDINGS", [])]:
            if isinstance(binding, Binding):
                keys = binding.key.replace("question_mark", "?").replace("slash", "/")
                lines.append(f"| {keys} | {binding.description or binding.action} |")
        lines += [
            "",
            "Screens: **Computers** (hosts, load, accelerators, spaces), **Jobs** (members; enter for logs,",
            "x to cancel), **Runs** (evaluation and RL runs, curves), **Envs** (live environments and the",
            "highlighted one's screenshot). Logs: f follow, p pause, r rank, / search, n/N next/previous match.",
        ]
        return "\n".join(lines)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for name in SCREENS:
            yield SystemCommand(f"Show {name}", f"Switch to the {name} screen", lambda n=name: self.switch_mode(n))
        yield SystemCommand("Help", "Every key, per screen", self.action_help)
        if isinstance(screen, JobsScreen):
            yield SystemCommand("Open logs", "The highlighted job's logs", screen.action_logs)
            yield SystemCommand("Cancel job", "Cancel the highlighted job (asks first)", screen.action_cancel_job)
        if isinstance(screen, ViewScreen):
            yield SystemCommand("Filter", "Show only rows containing a text", screen.action_filter)
        from cua_tui.screens.logs import LogsScreen

        if isinstance(screen, LogsScreen):
            yield SystemCommand("Follow logs", "Stay at the end of the log (toggle)", screen.action_follow)
            yield SystemCommand("Pause logs", "Hold new lines (toggle)", screen.action_pause)
            yield SystemCommand("Search logs", "Find a text in the log", screen.action_search)
            yield SystemCommand("Next rank", "Show one rank, then the next, then all", screen.action_next_rank)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cua-tui", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--controller", help="the pool controller (default: as `cua` picks it)")
    parser.add_argument(
        "--runs",
        action="append",
        type=Path,
        help="a folder of run folders, or a run folder, to backfill from (repeatable; default: ./runs)",
    )
    parser.add_argument("--bus", help="the bus's subscribe address (default: this user's local bus)")
    parser.add_argument(
        "--images", choices=("auto", "on", "off"), default="auto", help="draw screenshots in half blocks"
    )
    parser.add_argument("--version", action="version", version="cua-tui 0.1.0")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    runs = args.runs or [Path("runs")]
    missing = [str(p) for p in runs if args.runs and not p.is_dir()]
    if missing:
        print(f"cua-tui: --runs {', '.join(missing)}: no such folder; pass a folder of run folders", file=sys.stderr)
        return 2
    if args.bus is None:
        try:
            ensure_forwarder()  # publishers that start later find it; ones already running reconnect to it
        except Exception as exc:
            print(f"cua-tui: cannot start the local bus ({exc}); pass --bus ADDRESS", file=sys.stderr)
            return 1
    else:
        try:  # here, in one line: the bus worker would fail later, on its thread, with ZeroMQ's words
            check_address(args.bus)
        except CuaError as exc:
            print(f"cua-tui: --bus {exc}", file=sys.stderr)
            return 2
    images = {"auto": None, "on": True, "off": False}[args.images]
    app = CuaTui(controller=args.controller, runs=runs, bus=args.bus, images=images)
    app.run()
    return app.return_code or 0  # 1 when the app stopped on an error (a worker's, say), not 0


if __name__ == "__main__":
    sys.exit(main())
