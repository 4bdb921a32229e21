"""The env server's contract, against an in-memory Session (the sim desktop has its own tests)."""

from __future__ import annotations

import io
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from cua_bench.client import EnvClient
from cua_bench.server import EnvServer
from cua_bench.session import Session
from cua_core.actions import Action, Click, Done, Fail, Point, TypeText
from cua_core.errors import RemoteError


class FakeSession(Session):
    """A 'desktop' with one button: clicking inside its bounds presses it."""

    def __init__(self) -> None:
        self.width, self.height = 320, 200
        self.files: dict[str, bytes] = {}
        self.pressed = 0
        self.typed = ""

    async def reset(self, seed: int | None = None) -> None:
        self.files, self.pressed, self.typed = {}, 0, ""

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        errors: list[str | None] = []
        for action in actions:
            if isinstance(action, Click) and action.coordinate is not None:
                inside = 400 <= action.coordinate.x <= 600 and 400 <= action.coordinate.y <= 600
                self.pressed += inside
                errors.append(None)
            elif isinstance(action, TypeText):
                self.typed += action.text
                errors.append(None)
            else:
                errors.append(f"{action.kind} is not supported here")
        return errors

    async def screenshot(self) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (self.width, self.height), (self.pressed * 40 % 256, 0, 0)).save(out, "PNG")
        return out.getvalue()

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        button = {
            "role": "button",
            "name": "OK",
            "bounds": [400, 400, 600, 600],
            "states": [],
            "value": None,
            "children": [],
        }
        return [
            {
                "role": "window",
                "name": "Fake",
                "bounds": [0, 0, 1000, 1000],
                "states": ["focused"],
                "value": None,
                "children": [button],
            }
        ]

    async def windows(self) -> list[dict[str, Any]]:
        return [{"id": "w1", "title": "Fake", "app": "fake", "bounds": [0, 0, 1000, 1000], "focused": True}]

    async def launch(self, app: str, **params: Any) -> str:
        return "w1"

    async def read_bytes(self, path: str) -> bytes:
        return self.files[path]

    async def write_file(self, path: str, content: bytes | str) -> None:
        self.files[path] = content.encode() if isinstance(content, str) else content


TASK = """
import cua_bench as cb
from cua_core.actions import Click
from cua_bench.nodes import center

@cb.tasks_config
def load():
    return [cb.Task(description=f"Press OK {n} times", metadata={"n": n}, max_steps=4) for n in (1, 2)]

@cb.setup_task
async def setup(task, session):
    await session.write_file("setup.txt", f"ready {task.variant}")

@cb.evaluate_task
async def evaluate(task, session):
    return [1.0 if session.pressed >= task.metadata["n"] else 0.0]

@cb.solve_task
async def solve(task, session):
    button = await session.find(role="button", name="OK")
    for _ in range(task.metadata["n"]):
        await session.apply([Click(center(button))])
"""


@pytest.fixture
def env(tmp_path: Path) -> Iterator[tuple[EnvClient, FakeSession, Path]]:
    folder = tmp_path / "press-ok"
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(TASK))
    session = FakeSession()
    server = EnvServer(session, "tcp://127.0.0.1:0").start()
    with EnvClient(server.address) as client:
        yield client, session, folder
    server.rpc.close()


def test_reset_step_terminate_with_reward(env: tuple[EnvClient, FakeSession, Path]) -> None:
    client, session, task = env
    obs, info = client.reset(options={"task": task, "variant": 1})
    assert info["task"]["description"] == "Press OK 2 times"
    assert obs["instruction"] == "Press OK 2 times"
    assert obs["screenshot"].shape == (200, 320, 3)  # raw RGB by default
    assert session.files["setup.txt"] == b"ready 1"
    obs, reward, terminated, truncated, info = client.step([Click(Point(500, 500))])
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert np.asarray(obs["screenshot"])[0, 0, 0] == 40
    obs, reward, terminated, truncated, info = client.step([Click(Point(500, 500)), Done("pressed")])
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["ended"] == {"kind": "done", "answer": "pressed"}


def test_invalid_actions_are_reported_not_fatal(env: tuple[EnvClient, FakeSession, Path]) -> None:
    client, _, task = env
    client.reset(options={"task": task})
    obs, _, terminated, _, info = client.step([{"kind": "click", "coordinate": [2000, 1]}, {"kind": "teleport"}])
    assert len(info["invalid"]) == 2
    assert "click.coordinate" in info["invalid"][0]
    assert "teleport" in info["invalid"][1]
    assert obs["errors"] == info["invalid"]  # the agent sees why in its next observation
    assert not terminated
    obs, *_, info = client.step([Fail("stuck")])
    assert info["reward"] == 0.0
    obs, *_, info = client.step([{"kind": "wait", "duration": 0.01}])
    assert "wait is not supported here" in info["invalid"][0]


def test_invalid_actions_are_numbered_as_sent(env: tuple[EnvClient, FakeSession, Path]) -> None:
    # Errors used to be numbered over the actions left after the unparseable ones were dropped:
    # [bad click, key_up] reported both as "action 0".
    client, _, task = env
    client.reset(options={"task": task})
    *_, info = client.step([{"kind": "click", "coordinate": [2000, 1]}, {"kind": "key_up", "key": "a"}, TypeText("x")])
    assert [e.split(":")[0] for e in info["invalid"]] == ["action 0", "action 1"]
    assert "key_up is not supported" in info["invalid"][1]
    *_, info = client.step([TypeText("y"), {"kind": "nope"}, {"kind": "wait", "duration": 0.01}])
    assert [e.split(":")[0] for e in info["invalid"]] == ["action 1", "action 2"]


def test_truncation_at_max_steps(env: tuple[EnvClient, FakeSession, Path]) -> None:
    client, _, task = env
    client.reset(options={"task": task, "max_steps": 2, "observes": "none"})
    assert client.step([TypeText("a")])[3] is False
    _, reward, terminated, truncated, info = client.step([TypeText("b")])
    assert (terminated, truncated, reward) == (False, True, 0.0)
    assert info["reward"] == 0.0


def test_oracle_runs_in_the_server_through_actions(env: tuple[EnvClient, FakeSession, Path]) -> None:
    client, session, task = env
    client.reset(options={"task": task, "variant": 1, "observes": "png"})
    solved = client.solve()
    assert solved["reward"] == 1.0
    assert [s["actions"] for s in solved["steps"]] == [
        [{"kind": "click", "coordinate": [500.0, 500.0], "button": "left", "clicks": 1}]
    ] * 2
    assert Image.open(io.BytesIO(bytes(solved["steps"][-1]["observation"]["screenshot"]))).size == (320, 200)
    assert session.pressed == 2


def test_png_observation_and_session_passthrough(env: tuple[EnvClient, FakeSession, Path]) -> None:
    client, _, task = env
    obs, _ = client.reset(options={"task": task, "observes": "png,a11y"})
    assert bytes(obs["screenshot"]).startswith(b"\x89PNG")
    assert obs["a11y"][0]["children"][0]["name"] == "OK"
    obs, _ = client.reset(options={"task": task, "observes": "none,a11y=osworld"})
    assert obs["a11y"].startswith("<desktop-frame") and 'name="OK"' in obs["a11y"]
    client.session("write_file", path="x.txt", content="hello")
    assert client.session("read_file", path="x.txt") == "hello"
    assert bytes(client.session("read_bytes", path="x.txt")) == b"hello"
    assert client.session("windows")[0]["title"] == "Fake"
    with pytest.raises(RemoteError, match="has no shell"):
        client.session("run_command", command="ls")


def test_bad_requests_are_clear(env: tuple[EnvClient, FakeSession, Path]) -> None:
    client, _, task = env
    with pytest.raises(RemoteError, match="step before reset"):
        client.step([TypeText("x")])
    with pytest.raises(RemoteError, match="variant 7 does not exist"):
        client.reset(options={"task": task, "variant": 7})
    with pytest.raises(ValueError, match=r"unknown part 'jpeg'; use screenshot\|png\|none"):
        client.reset(options={"task": task, "observes": "jpeg"})  # refused before anything is sent
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) a11y \(what the agent observes is one option"):
        client.reset(options={"task": task, "a11y": "xml"})
    # What reaches the server is checked there too: a peer may be another program.
    with pytest.raises(RemoteError, match=r"observes\.a11y must be None or one of nodes, osworld, got 'xml'"):
        client.rpc.call("reset", {"spec": {"task": str(task), "observes": {"a11y": "xml"}}})
    with pytest.raises(RemoteError, match=r"episode spec: unknown field.* colour"):
        client.rpc.call("reset", {"spec": {"task": str(task), "colour": 1}})
    # A client of env protocol 1 sent loose options: named, with the fix.
    with pytest.raises(RemoteError, match=r"speaks env protocol 2: reset takes .*the client sent obs, task .*upgrade"):
        client.rpc.call("reset", {"task": str(task), "obs": "png"})
    with pytest.raises(ValueError, match="unknown reset option"):
        client.reset(options={"task": task, "colour": 1})
    with pytest.raises(RemoteError, match=r"task path .*nope' does not exist on this computer"):
        client.reset(options={"task": task.parent / "nope"})
    with pytest.raises(RemoteError, match="taskset 'sim' has no task 'clik-button'; did you mean sim/click-button"):
        client.reset(options={"task": "sim/clik-button"})
    with pytest.raises(RemoteError, match=r"neither a path on this computer nor a task name .*tasksets here: sim"):
        client.reset(options={"task": "nope/x"})


def test_the_env_server_does_not_import_cua_data() -> None:
    # Env servers run in containers and VMs whose image has only what the server needs (no
    # pyarrow): a built-in plugin importing cua-data at import time broke every docker container.
    import subprocess
    import sys

    code = (
        "import sys, cua_bench.server\n"
        "from cua_bench.registry import agents, backends, tasksets, task_formats\n"
        "from cua_bench.taskset import locate_task\n"
        "agents(); backends(); tasksets(); task_formats(); locate_task('sim/click-button')\n"
        "print(sorted(m for m in ('pyarrow', 'cua_data', 'torch', 'transformers') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


KEYBOARD_TASK = """
import cua_bench as cb
from cua_core.actions import Click, Point, TypeText
from cua_bench.nodes import center

@cb.tasks_config
def load():
    return [cb.Task(description="Using only the keyboard, type hi", chance=None)]

@cb.setup_task
async def setup(task, session):
    pass

@cb.evaluate_task
async def evaluate(task, session):
    mouse = [a for a in task.history if a["kind"] in ("click", "drag", "scroll", "mouse_move")]
    return 1.0 if session.typed == "hi" and not mouse else 0.0

@cb.solve_task
async def solve(task, session):
    await session.apply([TypeText("hi")])

@cb.wrong_way
async def clicks_then_types(task, session):
    await session.apply([Click(Point(10, 10))])
    await session.apply([TypeText("hi")])

@cb.wrong_way
async def types_too_much(task, session):
    await session.apply([TypeText("hii")])
"""


def test_evaluators_see_the_action_history_and_wrong_ways_are_played(tmp_path: Path) -> None:
    folder = tmp_path / "keyboard"
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(KEYBOARD_TASK))
    server = EnvServer(FakeSession(), "tcp://127.0.0.1:0").start()
    try:
        with EnvClient(server.address) as client:
            _, info = client.reset(options={"task": folder})
            assert info["wrong_ways"] == ["clicks_then_types", "types_too_much"]
            assert client.solve()["reward"] == 1.0
            client.reset(options={"task": folder})
            played = client.wrong("clicks_then_types")
            assert played["reward"] == 0.0 and len(played["steps"]) == 2
            client.reset(options={"task": folder})
            _, reward, *_ = client.step([TypeText("hi"), Done()])
            assert reward == 1.0
            client.reset(options={"task": folder})
            client.step([Click(Point(1, 1))])
            _, reward, *_ = client.step([TypeText("hi"), Done()])
            assert reward == 0.0  # the click is in the history the evaluator reads
            client.reset(options={"task": folder})
            client.step([{"kind": "click", "coordinate": [5000, 1]}])  # refused: not evidence of anything
            _, reward, *_ = client.step([TypeText("hi"), Done()])
            assert reward == 1.0
            with pytest.raises(RemoteError, match=r"no wrong way 'nope' .*declared: clicks_then_types, types_too_much"):
                client.wrong("nope")
    finally:
        server.rpc.close()


def test_check_runs_every_wrong_way(tmp_path: Path) -> None:
    from support.bench_tasks import make_taskset

    from cua_bench.checks import check_task

    tasks = make_taskset(tmp_path / "ts", {"press": ("fast", 2)})
    source = tasks / "press" / "main.py"
    source.write_text(
        source.read_text()
        + textwrap.dedent("""
            @cb.wrong_way
            async def presses_twice(task, session):
                button = await session.find(role="button", name=task.metadata["name"])
                await session.apply([Click(center(button)), Click(center(button))])
            """)
    )
    assert check_task(tasks / "press") == []
    # An evaluator that counts "at least one" press lets the wrong way through, and check says so.
    source.write_text(
        source.read_text().replace(".clicks == 1", ".clicks >= 1").replace("tasks_config", "tasks_config")
    )
    for name in [m for m in sys.modules if m.startswith("cua_bench_task_press")]:
        del sys.modules[name]
    assert check_task(tasks / "press") == [
        "press test/0: the wrong way 'presses_twice' scores 1.0, not 0",
        "press test/1: the wrong way 'presses_twice' scores 1.0, not 0",
    ]
    # Without the wrong ways (a quick check of the oracle and doing nothing), it is not played.
    assert check_task(tasks / "press", wrong_ways=False) == []


def test_check_prints_why_the_evaluator_scored_a_failing_oracle_0(tmp_path: Path) -> None:
    """An oracle that scored 0 on a loaded CI machine said only "scores 0.0 after 3 steps". What an
    evaluator gives ``task.explain`` now travels with the played episode and check prints it."""
    from support.bench_tasks import make_taskset

    from cua_bench.checks import check_task

    tasks = make_taskset(tmp_path / "ts", {"press": ("fast", 1)})
    source = tasks / "press" / "main.py"
    source.write_text(
        source.read_text().replace(
            "    return [1.0 if session.sim.find(",
            "    clicks = session.sim.find(role='button', name=task.metadata['name']).clicks\n"
            "    if clicks != 1:\n"
            "        task.explain(f'{clicks} presses of {task.metadata[\"name\"]}, not 1')\n"
            "    return [1.0 if session.sim.find(",
        )
        + textwrap.dedent("""
            @cb.wrong_way
            async def presses_twice(task, session):
                button = await session.find(role="button", name=task.metadata["name"])
                await session.apply([Click(center(button)), Click(center(button))])
            """)
    )
    assert check_task(tasks / "press") == []  # the wrong way's 0 needs no word: it is what check wants
    oracle = 'await session.apply([Click(center(await session.find(role="button", name=task.metadata["name"])))])'
    source.write_text(source.read_text().replace(oracle, "pass"))
    for name in [m for m in sys.modules if m.startswith("cua_bench_task_press")]:
        del sys.modules[name]
    (problem,) = check_task(tasks / "press")
    assert problem.startswith("press test/0: the oracle scores 0.0 after 0 steps (0 presses of "), problem


def test_a_parent_watch_begun_after_the_parent_died_closes_at_once() -> None:
    """The parent may die between reading its pid and opening its pidfd (then the pid may be another
    process's): the watch looks at ``getppid`` again after opening it."""
    import os
    import subprocess
    import threading

    from cua_bench.server import watch_parent

    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        closed = threading.Event()
        assert stranger.pid != os.getppid()
        watch_parent(stranger.pid, closed, "test")
        assert closed.is_set()
    finally:
        stranger.kill()
        stranger.wait()


def test_without_pidfds_the_parent_is_watched_by_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS and kernels before 5.3 have no pidfd_open: the watch falls back to looking at getppid."""
    import os
    import threading

    from cua_bench.server import watch_parent

    parent = os.getppid()
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    closed = threading.Event()
    watch_parent(parent, closed, "test")
    assert not closed.wait(0.7)
    monkeypatch.setattr(os, "getppid", lambda: 1)  # reparented: the parent died
    assert closed.wait(3)
