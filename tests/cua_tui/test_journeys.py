"""Pilot journeys: the TUI against a real local pool, a real sim evaluation run and a real RL run, over
a real bus forwarder (no fake bus, no fake controller)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Log, Sparkline, Static

from cua_bench.agents.base import Agent
from cua_bench.runner import RunConfig, Runner
from cua_core.actions import Action, Click, Point
from cua_core.events import BusAddresses, Forwarder
from cua_tui.app import CuaTui
from cua_tui.screens.dialogs import Confirm
from cua_tui.screens.logs import LogsScreen

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
JOBS = ROOT / "tests/cua_pool/jobs"
SIZE = (150, 44)


@pytest.fixture
def bus() -> Iterator[Forwarder]:
    """The bus of this test's private runtime folder, as `cua-bus serve` would run it."""
    with Forwarder(BusAddresses.default()) as forwarder:
        yield forwarder


async def until(pilot: Pilot[Any], what: str, check: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await pilot.pause(0.1)


def rows(app: CuaTui, table_id: str) -> list[list[str]]:
    table = app.screen.query_one(f"#{table_id}", DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def text(app: CuaTui, widget_id: str) -> str:
    return str(app.screen.query_one(f"#{widget_id}", Static).render())


# -- the pool ------------------------------------------------------------------------------------


@pytest.fixture
def pool(bus: Forwarder) -> Iterator[None]:
    from cua_pool.client import ensure_local_pool, stop_local_pool

    ensure_local_pool()
    try:
        yield
    finally:
        stop_local_pool()


def cua(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cua_pool.cli", *args], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, f"cua {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_the_pool_journey_computers_jobs_logs_cancel_and_a_controller_restart(pool: None) -> None:
    job = cua("run", "--detach", f"{JOBS / 'basic.py'}::ticker", "100000", "0.05").strip().split()[-1]
    app = CuaTui(runs=[], images=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, "this computer on the Computers screen", lambda: rows(app, "hosts"))
        host = rows(app, "hosts")[0]
        assert host[1] == "up" and host[8] == job, host  # its state, and the job it runs
        assert "1 computers" in text(app, "status")

        await pilot.press("2")
        await until(pilot, "the job running", lambda: any(r[0] == job and r[2] == "running" for r in rows(app, "jobs")))
        await until(pilot, "its member", lambda: rows(app, "members"))
        assert rows(app, "members")[0][0] == "0" and rows(app, "members")[0][2] == "running"

        await pilot.press("enter")
        assert isinstance(app.screen, LogsScreen)
        log = app.screen.query_one(Log)
        await until(pilot, "log lines", lambda: any("tick 5" in line for line in log.lines))
        await pilot.press("p")  # pause: new lines are held, not shown
        shown = log.line_count
        await until(pilot, "lines held while paused", lambda: app.screen.held > 3)
        assert log.line_count == shown
        await pilot.press("p")
        assert log.line_count > shown
        await pilot.press("slash", *"tick 2", "enter")
        assert "'tick 2':" in text(app, "status") and "at line" in text(app, "status")
        assert not app.screen.follow  # a match to read stops the view following the end
        await pilot.press("escape")

        await pilot.press("x")
        assert isinstance(app.screen, Confirm)
        await pilot.press("n")  # declined: nothing happens
        await pilot.pause(0.5)
        assert json.loads(cua("jobs", "show", job, "--json"))["job"]["state"] == "running"
        await pilot.press("x", "y")
        await until(
            pilot, "the job cancelled", lambda: any(r[0] == job and r[2] == "cancelled" for r in rows(app, "jobs"))
        )

        # The controller dies and comes back: the TUI says so, then shows the pool again by itself.
        from cua_pool.client import ensure_local_pool
        from cua_pool.daemons import running_pid
        from cua_pool.paths import controller_home

        pid = running_pid(controller_home() / "controller.pid")
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await until(pilot, "the lost controller said", lambda: "not reachable" in text(app, "status"))
        ensure_local_pool()
        await until(pilot, "the controller back", lambda: "1 computers" in text(app, "status"), timeout=40)
        assert any(r[0] == job for r in rows(app, "jobs"))  # history comes back from the controller


# -- an evaluation run -------------------------------------------------------------------------------

GATES = [threading.Event(), threading.Event()]


class GatedClicker(Agent):
    """Clicks the middle of the screen; episodes of variant 2 and up wait before their second and third
    steps until the test opens each gate, so the test sees the run mid-way with live environments."""

    def reset(self, task: Any) -> None:
        self.variant = task.variant

    def act(self, observation: dict[str, Any]) -> list[Action]:
        if self.variant >= 2 and 1 <= observation["step"] <= len(GATES):
            GATES[observation["step"] - 1].wait(60)
        return [Click(coordinate=Point(500, 500))]


@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_an_evaluation_run_opened_mid_run_shows_all_of_it(bus: Forwarder, tmp_path: Path) -> None:
    for gate in GATES:
        gate.clear()
    output = tmp_path / "runs" / "eval"
    config = RunConfig(
        "sim", output, tasks="click-button", agent=GatedClicker, variants=4, max_parallel=2, max_steps=3, commit_every=1
    )
    runner = Runner(config)
    summary: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: summary.update(runner.run()), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while (
            len((output / "episodes.jsonl").read_text().splitlines() if (output / "episodes.jsonl").exists() else [])
            < 2
        ):
            assert time.monotonic() < deadline and thread.is_alive(), "the ungated episodes did not finish"
            time.sleep(0.1)
        # Opened now: the first two episodes are only in the folder, the rest will come from the bus.
        app = CuaTui(runs=[tmp_path / "runs"], images=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("3")
            await until(pilot, "the run from its folder", lambda: runner.run_id in app.model.runs)
            run = app.model.runs[runner.run_id]
            assert run.folder == str(output.resolve()) and run.done >= 2 and run.status == "running"
            assert run.total == 4  # from run.json: progress out of the whole run before its end

            # An environment shows from its next step on (a step taken before the TUI opened is not replayed).
            GATES[0].set()
            await pilot.press("4")
            await until(pilot, "the two live environments", lambda: len(rows(app, "envs")) == 2)
            assert {r[2] for r in rows(app, "envs")} == {"click-button"}
            await until(
                pilot, "the highlighted env's screenshot", lambda: "screenshot 1280×800" in text(app, "screenshot")
            )

            GATES[1].set()
            thread.join(60)
            assert not thread.is_alive()
            await until(pilot, "the closed environments gone", lambda: not rows(app, "envs"))
            await pilot.press("3")
            await until(pilot, "the run finished", lambda: app.model.runs[runner.run_id].status == "finished")
            row = next(r for r in rows(app, "runs") if r[0] == runner.run_id)
            assert row[3] == "4/4" and row[4] == f"{summary['success_rate']:.1%}", row
            task_row = rows(app, "tasks")[0]
            assert task_row[:3] == [
                "click-button",
                "4",
                f"{summary['tasks']['click-button']['success_rate']:.1%}",
            ]
    finally:
        for gate in GATES:
            gate.set()
        thread.join(60)


# -- an RL run ---------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_an_rl_run_draws_its_curves_live_and_again_from_its_folder(bus: Forwarder, tmp_path: Path) -> None:
    from support.rl_configs import small_train_config

    from cua_bench_rl.curves import read_curve
    from cua_bench_rl.train import train

    config = small_train_config(steps=4, checkpoint_every=2)
    folder = tmp_path / "runs" / "rl"
    app = CuaTui(runs=[tmp_path / "runs"], images=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        result: list[Any] = []
        thread = threading.Thread(target=lambda: result.append(train(config, folder)), daemon=True)
        thread.start()
        await until(pilot, "the RL run on the Runs screen", lambda: [r for r in rows(app, "runs") if r[1] == "rl"])
        await until(pilot, "four steps", lambda: any(r[3] == "step 4" for r in rows(app, "runs")), timeout=120)
        thread.join(120)
        run_id = next(r[0] for r in rows(app, "runs") if r[1] == "rl")
        await until(pilot, "the run finished", lambda: app.model.runs[run_id].status == "finished")
        live = [p["loss"] for p in app.model.runs[run_id].curve]
        assert app.screen.query_one("#curve-loss", Sparkline).data == live
        assert "policy v4" in text(app, "figures")

    # Opened afterwards, with nothing on the bus: the same curve, from the folder.
    later = CuaTui(runs=[tmp_path / "runs"], images=False)
    async with later.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await until(pilot, "the run from its folder", lambda: run_id in later.model.runs)
        from_folder = later.model.runs[run_id]
        assert from_folder.status == "finished" and from_folder.kind == "rl"
        assert [p["loss"] for p in from_folder.curve] == pytest.approx(live)
        steps = [r for r in read_curve(folder / "curve.csv") if r["loss"] is not None]
        assert len(from_folder.curve) == len(steps) == 4
