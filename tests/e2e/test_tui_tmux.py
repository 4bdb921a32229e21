"""One journey through tmux, as a person takes it: start cua-tui in a terminal, press keys, read the screen.

The app runs in a real terminal (a tmux pane of 160x48), with Textual's terminal driver reading the
keys that ``tmux send-keys`` types and drawing escape sequences that ``tmux capture-pane`` reads
back as text: the whole path the in-process tests (``run_test``) leave out. The run it shows is a
real ``cua-bench run`` made first, so what the Runs screen shows can only come from reading its folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(90),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

BIN = Path(sys.executable).parent
WIDTH, HEIGHT = 160, 48


class Terminal:
    """A tmux server of this test's own (its own socket name, no user config) holding one pane."""

    def __init__(self) -> None:
        self.socket = f"cua-tui-test-{uuid.uuid4().hex[:8]}"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            # os.environ, not this process's C environment, and without COLUMNS and LINES: GNU readline
            # (pytest imports it with pdb) sets COLUMNS=80 and LINES=24 there, and a pytest-xdist worker
            # inherits them in os.environ too; an app started with them draws at 80x24 whatever the
            # pane's size.
            env={name: value for name, value in os.environ.items() if name not in ("COLUMNS", "LINES")},
        )
        assert done.returncode == 0, f"tmux {' '.join(args)}: {done.stderr.strip()}"
        return done.stdout

    def start(self, command: list[str], env: dict[str, str], status: Path) -> None:
        """Run ``command`` in the pane; the shell around it writes its exit status to ``status``
        (tmux's own #{pane_dead_status} stayed empty in some runs here, the app a zombie that the
        server had not reaped). remain-on-exit keeps the last screen for a failure's message."""
        line = " ".join(shlex.quote(a) for a in ["env", *(f"{k}={v}" for k, v in env.items()), *command])
        line += f"; echo $? > {shlex.quote(str(status))}"
        size = ["-x", str(WIDTH), "-y", str(HEIGHT)]
        self.tmux("new-session", "-d", *size, line, ";", "set-option", "-g", "remain-on-exit", "on")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)

    def pane(self, fmt: str) -> str:
        return self.tmux("display-message", "-p", fmt).strip()

    def until(self, what: str, shown: Callable[[str], bool], timeout: float = 20.0) -> str:
        """The screen once it shows ``what`` and has stopped changing (a capture can catch a frame
        half drawn)."""
        deadline = time.monotonic() + timeout
        before = ""
        while True:
            text = self.screen()
            if shown(text) and text == before:
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"the screen never showed {what}; it shows:\n{text}")
            before = text
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10, check=False)


def _environ_has(pid: int, needle: bytes) -> bool:
    try:
        return needle in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


def _stop_processes_of(runtime: Path) -> None:
    """The bus forwarder cua-tui started (``ensure_forwarder`` leaves it running for later watchers,
    its pid in bus.pid), and anything else still running with this test's runtime dir."""
    needle = f"CUA_RUNTIME_DIR={runtime}".encode()
    pids = {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()} - {os.getpid()}
    with contextlib.suppress(OSError, ValueError):
        pids.add(int((runtime / "bus.pid").read_text()))
    for pid in sorted(pids):
        if _environ_has(pid, needle):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def terminal(private_dirs: Path) -> Iterator[Terminal]:
    term = Terminal()
    try:
        yield term
    finally:
        term.close()
        _stop_processes_of(private_dirs)


def test_a_person_watches_a_finished_run_in_cua_tui_through_tmux(
    terminal: Terminal, private_dirs: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    folder = runs / "eval"
    subprocess.run(
        [BIN / "cua-bench", "run", "sim", "--tasks", "click-button", "--agent", "oracle", "--variants", "2",
         "--output", folder, "--no-record"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    run_id = json.loads((folder / "run.json").read_text())["run"]
    assert run_id != folder.name  # so the id on screen can only have come from the folder's run.json

    env = {name: os.environ[name] for name in ("CUA_RUNTIME_DIR", "CUA_CONFIG_DIR")}
    exit_status = tmp_path / "exit-status"
    terminal.start([str(BIN / "cua-tui"), "--runs", str(runs)], env, exit_status)
    terminal.until("the Computers screen", lambda s: "Computers" in s and "3 Runs" in s and "? Help" in s)

    terminal.keys("3")
    # The whole row, not its first cells: a capture may catch the row half drawn (seen under load).
    screen = terminal.until("the run on the Runs screen", lambda s: run_id in s and "(sim, test)" in s)
    row = next(line for line in screen.splitlines() if line.strip().startswith(run_id))
    assert row.split()[:6] == [run_id, "bench", "finished", "2/2", "100.0%", "1.000"], row
    assert "oracle on sim (sim, test)" in row
    assert f"{run_id} · finished · {folder.resolve()}" in screen  # the highlighted run's folder
    assert "click-button" in screen  # its per-task table

    terminal.keys("?")
    help_screen = terminal.until("the help", lambda s: "cua-tui keys" in s)
    assert "command palette" in help_screen
    terminal.keys("Escape")
    terminal.until("the Runs screen again", lambda s: "cua-tui keys" not in s and run_id in s)

    terminal.keys("q")
    deadline = time.monotonic() + 10
    while not (exit_status.exists() and exit_status.read_text().strip()):
        assert time.monotonic() < deadline, f"cua-tui still runs after q:\n{terminal.screen()}"
        time.sleep(0.1)
    assert exit_status.read_text().strip() == "0"  # it exited, by itself, and cleanly
