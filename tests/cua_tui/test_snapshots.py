"""Each screen at a fixed size, from a fixed model (pytest-textual-snapshot; `--snapshot-update` redraws them
after a deliberate change, and the SVGs under __snapshots__ show what changed in review)."""

from __future__ import annotations

from typing import Any

import pytest

from cua_tui.app import CuaTui
from cua_tui.feed import ControllerSnapshot
from cua_tui.model import Env, Host, Job, Run

NOW = 1_790_000_000.0
SIZE = (130, 40)


def filled() -> CuaTui:
    """An app with no feeds (nothing live can change the picture), holding one of everything."""
    app = CuaTui(runs=[], feeds=False, images=False, clock=lambda: NOW)
    model = app.model
    app.snapshot = ControllerSnapshot(True, "ipc:///run/cua/pool-controller.sock", hosts=[{}], jobs=[{}, {}])
    model.hosts["h1"] = Host(
        "h1", "gpu-box", os="linux", arch="x86_64", cpus=32, memory=128 * 2**30, load=3.25,
        accelerators=["cuda"], gpus=[0, 1], spaces=2, max_spaces=4, jobs=["3f2a9c81de"],
    )  # fmt: skip
    model.hosts["h2"] = Host("h2", "laptop", state="lost", os="darwin", arch="arm64", cpus=10, memory=32 * 2**30,
                             accelerators=["apple"], max_spaces=1, reason="missed heartbeats for 9.1 s")  # fmt: skip
    model.jobs["3f2a9c81de"] = Job("3f2a9c81de", "finetune", "train.py", "running", 1, 2, 2, NOW - 4000)
    model.jobs["0b77e1d2aa"] = Job("0b77e1d2aa", "evaluate", "eval.py", "succeeded", 1, 1, 1, NOW - 90, NOW - 30)
    bench = Run("5c0ffee1", "bench", folder="/work/runs/eval", status="running", title="oracle on sim (sim, test)",
                started=NOW - 60, total=6)  # fmt: skip
    for n, (task, reward, status) in enumerate(
        [("sim/click-button", 1.0, "ok"), ("sim/click-button", 0.0, "ok"), ("sim/type-text", 1.0, "ok"),
         ("sim/type-text", None, "error")]
    ):  # fmt: skip
        bench.add_result(
            f"{task}/test/{n}", task, reward, status, "RpcTimeout: step 3 took 60 s" if reward is None else None
        )
    model.runs[bench.id] = bench
    rl = Run("rl-8d3e", "rl", folder="/work/runs/grpo", status="running", title="grpo · pixel-click · sim:click-button × G=8",
             started=NOW - 600)  # fmt: skip
    for step in range(1, 41):
        rl.curve.append(
            {"step": step, "reward_mean": min(1.0, step / 40), "loss": 1 / step, "kl": step / 400, "success": step / 50,
             "policy_version": step, "steps_per_s": 412.5, "buffer_size": 16, "groups_dropped": 1, "stale_dropped": 0}
        )  # fmt: skip
    model.runs[rl.id] = rl
    for n in range(3):
        model.envs[f"5c0ffee1/w{n}"] = Env(
            "5c0ffee1", f"w{n}", "ipc:///x", f"sim/type-text/test/{n}", "sim/type-text", n, n + 2,
            f"type('hello {n}')", 0.0, False, NOW - 1,
        )  # fmt: skip
    return app


@pytest.mark.parametrize(
    ("screen", "keys"),
    [
        ("computers", []),
        ("jobs", ["2"]),
        ("runs_bench", ["3"]),
        ("runs_rl", ["3", "down"]),
        ("envs", ["4"]),
        ("help", ["2", "question_mark"]),
        ("filter", ["2", "slash", *"fine"]),
    ],
)
def test_screen(snap_compare: Any, screen: str, keys: list[str]) -> None:
    assert snap_compare(filled(), press=keys, terminal_size=SIZE)
