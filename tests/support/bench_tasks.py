"""Tiny sim tasksets written on the fly, for runner and CLI tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

# A sim task: press the named button among three. ``slow`` variants pause in the oracle, so a test
# can kill the env server mid-episode; ``crash`` variants kill their own server; ``renew`` variants ask
# for a new computer after their episode (``REPLACE_COMPUTER``, as OSWorld's tasks given root do).
PRESS = """
import asyncio, os
import cua_bench as cb
from cua_core.actions import Click
from cua_bench.nodes import center

NAMES = ["Alpha", "Bravo", "Charlie"]

@cb.tasks_config
def load():
    return [cb.Task(description=f"Press {NAMES[i % 3]}", metadata={"name": NAMES[i % 3], "mode": MODE}, max_steps=5)
            for i in range(COUNT)]

@cb.setup_task
async def setup(task, session):
    if task.metadata["mode"] == "renew":
        task.metadata["replace_computer"] = "it leaves state reset cannot undo"
    session.sim.launch("form", title="Buttons", widgets=[{"type": "button", "name": n, "action": "none"} for n in NAMES])

@cb.evaluate_task
async def evaluate(task, session):
    return [1.0 if session.sim.find(role="button", name=task.metadata["name"]).clicks == 1 else 0.0]

@cb.solve_task
async def solve(task, session):
    if task.metadata["mode"] == "slow" and not os.path.exists(FLAG):
        open(FLAG, "w").close()  # the first attempt only: the retry on a fresh server is fast
        await asyncio.sleep(30)
    if task.metadata["mode"] == "crash":
        os.kill(os.getpid(), 9)
    await session.apply([Click(center(await session.find(role="button", name=task.metadata["name"])))])
"""


def make_taskset(root: Path, tasks: dict[str, tuple[str, int]]) -> Path:
    for name, (mode, count) in tasks.items():
        folder = root / name
        folder.mkdir(parents=True)
        source = (
            PRESS.replace("MODE", repr(mode))
            .replace("COUNT", str(count))
            .replace("FLAG", repr(str(root / f"{name}.flag")))
        )
        (folder / "main.py").write_text(textwrap.dedent(source))
    return root
