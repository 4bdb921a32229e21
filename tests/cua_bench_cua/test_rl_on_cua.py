"""RL rollouts on the ``cua`` backend: our env workers and dataloader drive a real Cua computer-server
(PyPI 0.1.25, on an Xvfb of its own) through a desktop task, with scripted policies, and the groups
come out with the rewards the policies earned."""

from __future__ import annotations

import logging
import os
import re
import shlex
import shutil
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cua_bench import Observes
from cua_bench.backends.base import BackendError
from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import RolloutLoader
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Group, Taken, Turn
from cua_bench_rl.workers import EnvWorkers
from cua_core.actions import Action, Done, TypeText, Wait

pytestmark = pytest.mark.slow

TASK = "desktop/xterm-create-file"
SOLVED, IDLE = 0, 1  # the variant the policy solves, and the one it gives up on at once
ASKED = re.compile(r"create the file ~/(?P<path>\S+) containing exactly the line: (?P<text>.+)$")


class OracleOrNothing(Policy):
    """Plays the oracle's command on variant ``SOLVED`` (types it, then says done) and says done at
    once on any other; records every turn it is shown."""

    observes = Observes("rgb")

    def __init__(self) -> None:
        self.seen: list[Turn] = []

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        self.seen += turns
        return [Decision(self._actions(turn), [turn.step], [-0.1]) for turn in turns]

    @staticmethod
    def _actions(turn: Turn) -> list[Action]:
        if turn.task.variant != SOLVED:
            return [Done()]
        if turn.step > 0:
            return [Wait(0.5), Done()]  # let the shell write the file before the evaluation reads it
        asked = ASKED.search(turn.instruction)
        assert asked is not None, turn.instruction
        return [TypeText(f"echo {shlex.quote(asked['text'])} > {shlex.quote(asked['path'])}", press_enter=True)]

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        raise NotImplementedError("rollout tests never train")


def xterms_started_in(home: Path) -> list[int]:
    """The xterms running with their HOME in an environment's folder under ``home`` (the computer-server's
    computer is this host)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            name = (proc / "comm").read_text().strip()
        except OSError:  # not a process, gone, or not ours to read
            continue
        if name == "xterm" and any(var.startswith(f"HOME={home}/cua-bench-".encode()) for var in environ):
            found.append(int(proc.name))
    return found


def play(
    workers: EnvWorkers, policy: OracleOrNothing, task: EpisodeSpec, frames: str, crash: bool = False
) -> list[Group]:
    """One group of two episodes of ``task``, its turns answered by ``policy``, frames sent ``frames``;
    with ``crash``, the worker's env server is killed with -9 at the first turn (its episode is retried
    on a replacement)."""
    groups: list[Group] = []
    loader = RolloutLoader(
        workers,
        [task],
        group_size=2,
        observes=policy.observes,
        max_steps=3,
        once=True,
        step_timeout=120,
        heartbeat_timeout=3,
        frames=frames,
    )
    with loader:
        for number, batch in enumerate(loader.batches(max_batch=4), 1):
            if crash and number == 1:
                os.kill(workers[0].computer.info["pid"], signal.SIGKILL)
            batch.respond(policy.act(batch.turns), version=number)
            groups += loader.pop_groups()
        groups += loader.pop_groups()
    assert (loader.stats["retried"], loader.stats["replaced"], loader.stats["dropped"]) == (int(crash), int(crash), 0)
    return groups


def test_rollout_groups_on_a_cua_computer_server(
    computer_server: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    if shutil.which("xterm") is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but xterm is not installed (apt-get install xterm)")
        pytest.skip("xterm is not installed (apt-get install xterm)")
    monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", computer_server)
    caplog.set_level(logging.INFO, logger="cua_bench.client")
    policy = OracleOrNothing()
    home = tmp_path / "cua-desktop" / "home"  # the computer-server's HOME (the fixture's)
    started = time.monotonic()
    with EnvWorkers("cua", 1) as workers:  # one computer-server, one screen: one worker
        # The env server runs on this host and decodes the computer-server's PNGs: its frames reach
        # the loader on the socket (as from an env server elsewhere) or through shared memory.
        solved = play(workers, policy, EpisodeSpec(TASK, SOLVED, "train"), "socket")
        idle = play(workers, policy, EpisodeSpec(TASK, IDLE, "train"), "shm", crash=True)
        # each reset ended the xterm of the episode before, and the replacement the one its killed
        # predecessor left: only the last episode's is left
        assert len(xterms_started_in(home)) == 1
    refused = [r.getMessage() for r in caplog.records if "travel on the socket" in r.getMessage()]
    assert refused == []  # the "shm" group's frames did come through shared memory
    assert list(home.glob("cua-bench-*")) == [] and xterms_started_in(home) == []  # torn down: nothing left there
    assert [(g.task.variant, g.rewards) for g in solved + idle] == [(SOLVED, [1.0, 1.0]), (IDLE, [0.0, 0.0])]
    for group in solved + idle:
        assert len(group.episodes) == 2
        for episode in group.episodes:
            assert episode.status == "completed"
            assert len(episode.turns) == (2 if group.task.variant == SOLVED else 1)
    assert len(policy.seen) == 7  # two turns for each solving episode, one for each idle one, one crashed
    for turn in policy.seen:
        shot = turn.observation["screenshot"]
        assert isinstance(shot, np.ndarray) and shot.dtype == np.uint8
        # the task's size, which is the computer-server's screen (the fixture's Xvfb)
        assert shot.shape == (turn.observation["height"], turn.observation["width"], 3) == (800, 1280, 3)
        assert shot.any()  # an xterm on the screen, not a blank frame
    assert time.monotonic() - started < 90


def test_two_workers_on_one_server_are_refused_naming_the_fix(
    computer_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An RL user asks for workers, not ``--max-parallel``: the refusal names both, and the worker that
    did start is torn down, so one worker starts afterwards."""
    monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", computer_server)
    with pytest.raises(BackendError, match=r"already serves an environment .*--max-parallel 1.*EnvWorkers\('cua', 1\)"):
        EnvWorkers("cua", 2).start()
    with EnvWorkers("cua", 1) as workers:
        assert workers[0].computer.info["url"] == computer_server
