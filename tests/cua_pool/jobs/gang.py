"""Gang jobs for the tests: rank variables, failures on a chosen attempt, checkpoints."""

import json
import os
import time
from pathlib import Path

import cua_pool

NAMES = (
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "MASTER_ADDR",
    "MASTER_PORT",
    "MLX_RANK",
    "MLX_WORLD_SIZE",
    "CUA_POOL_ATTEMPT",
    "CUDA_VISIBLE_DEVICES",
)


def show_env(hold=0.0):
    facts = {name: os.environ.get(name) for name in NAMES}
    facts["hostfile"] = json.loads(Path(os.environ["MLX_HOSTFILE"]).read_text())
    print("ENV " + json.dumps(facts), flush=True)
    time.sleep(hold)
    return facts


def fail_on_first_attempt(bad_rank=1):
    attempt = int(os.environ["CUA_POOL_ATTEMPT"])
    print(f"attempt {attempt} rank {os.environ['RANK']}", flush=True)
    if attempt == 1 and int(os.environ["RANK"]) == bad_rank:
        time.sleep(0.3)
        raise SystemExit(7)
    time.sleep(0.5 if attempt > 1 else 30)
    return attempt


def always_fail():
    raise SystemExit(2)


def resumable(steps=6, crash_at=3):
    """Saves a checkpoint every step; attempt 1 dies at ``crash_at``; later attempts resume."""
    store = cua_pool.checkpoints()
    attempt = int(os.environ["CUA_POOL_ATTEMPT"])
    state = store.load() or {"step": 0, "total": 0}
    resumed_from = state["step"]
    print(f"attempt {attempt} resumes at step {resumed_from}", flush=True)
    for step in range(state["step"], steps):
        state = {"step": step + 1, "total": state["total"] + step}
        if int(os.environ["RANK"]) == 0:
            store.save(state, step + 1)
        if attempt == 1 and step + 1 == crash_at:
            raise SystemExit(9)
    return {"resumed_from": resumed_from, "latest": store.latest(), "total": state["total"], "attempt": attempt}


def sleeper(seconds=60):
    print(f"sleeping on rank {os.environ['RANK']}", flush=True)
    time.sleep(seconds)
    return seconds
