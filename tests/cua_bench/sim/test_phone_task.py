"""A phone task end to end through a real sim env server: the task's portrait screen resizes the sim,
setup installs the phone, an agent's taps and system buttons reach it, and the evaluator reads its state."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import cua_bench
from cua_core import Done, Point, SystemButton, Tap

TASK = """
import cua_bench as cb
from cua_bench.sim.phone import Phone
from cua_core import Tap


@cb.tasks_config
def load():
    return [cb.Task(description='Open the note "Ideas".', metadata={"note": "Ideas"},
                    computer={"setup_config": {"width": 360, "height": 720}})]


@cb.setup_task
async def setup(task, session):
    Phone.install(session.sim)


@cb.evaluate_task
async def evaluate(task, session):
    phone = session.sim.phone
    app = phone.running.get(phone.current) if phone is not None and phone.current else None
    return [1.0 if app is not None and phone.current == "notes" and app.top.title == task.metadata["note"] else 0.0]


def walk(nodes):
    for node in nodes:
        yield node
        yield from walk(node["children"])


@cb.solve_task
async def solve(task, session):
    for name in ("Notes", task.metadata["note"]):
        node = next(n for n in walk(await session.accessibility_tree()) if n["name"] == name)
        await session.apply([Tap(cb.center(node))])
"""


@pytest.fixture
def phone_task(tmp_path: Path) -> Path:
    folder = tmp_path / "open-note"
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(TASK))
    return folder


def test_a_phone_task_runs_through_the_env_server(phone_task: Path) -> None:
    with cua_bench.make(str(phone_task), backend="sim") as env:
        obs, info = env.reset()
        assert (obs["width"], obs["height"]) == (360, 720) and info["platform"] == "mobile"  # recorded as a phone
        assert env.solve()["reward"] == 1.0
        env.reset()  # a fresh desktop and phone: the oracle's note is gone
        obs, reward, terminated, *_ = env.step([Done()])
        assert (reward, terminated) == (0.0, True)
        env.reset()
        env.step([Tap(Point(200, 138))])  # the launcher's Notes icon, first in the grid
        obs, *_, info = env.step([SystemButton("home")])
        assert info["invalid"] == []  # the phone answers system buttons; a desktop refuses them
        obs, reward, *_ = env.step([Done()])
        assert reward == 0.0
