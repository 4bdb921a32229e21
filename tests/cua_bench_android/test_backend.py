"""The ``android`` backend: its registration, options and refusals, and episodes through cua-bench's env server
(in this process, and as the server process ``provision`` starts, under the backend conformance suite).

The device is the fake adb (conftest.py) answering from transcripts written from adb's and Android's
documented output, not recorded from a device or an emulator: none exists here.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

from cua_bench import BackendError, EpisodeSpec
from cua_bench.agents.builtin import OracleAgent
from cua_bench.backend_choice import backend_unavailable
from cua_bench.backend_kit import Capabilities, capabilities_of
from cua_bench.client import EnvClient
from cua_bench.conformance import check_backend
from cua_bench.episode import run_episode
from cua_bench.registry import backends
from cua_bench.server import EnvServer
from cua_bench_android import AndroidBackend, AndroidSession
from cua_core import Done, Pinch, Point, Tap
from cua_core.options import OptionError

if TYPE_CHECKING:  # the fixture's class, for annotations only: pytest imports conftest files by itself
    from conftest import FakeAdb

FOCUS = "dumpsys window | grep mCurrentFocus"
DUMP = "rm -f /data/local/tmp/cua_window_dump.xml; uiautomator dump /data/local/tmp/cua_window_dump.xml"
CAT_DUMP = "cat /data/local/tmp/cua_window_dump.xml"
HOME = "input keyevent KEYCODE_WAKEUP; input keyevent KEYCODE_HOME"


def test_the_backend_is_registered_by_entry_point_with_its_capabilities() -> None:
    assert backends()["android"] is AndroidBackend
    assert AndroidBackend.__module__ == "cua_bench_android.backend"
    assert capabilities_of(AndroidBackend) == Capabilities(os="android", shell=True)
    assert [(o.name, o.env, o.default) for o in AndroidBackend.options] == [
        ("serial", "CUA_ANDROID_SERIAL", ""), ("adb", "CUA_ANDROID_ADB", "adb"),
    ]  # fmt: skip


def test_an_unknown_option_is_refused_with_the_closest_name() -> None:
    with pytest.raises(OptionError, match=r"backend 'android' has no option 'serail'; did you mean 'serial'\?"):
        AndroidBackend(serail="x")


def test_options_reach_the_server_as_their_variables(adb: FakeAdb) -> None:
    env = AndroidBackend(serial="R58M41ABCDE", adb=str(adb.path)).server_env()
    assert env is not None
    assert (env["CUA_ANDROID_SERIAL"], env["CUA_ANDROID_ADB"]) == ("R58M41ABCDE", str(adb.path))


def test_without_adb_the_backend_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, adb: FakeAdb) -> None:
    assert backend_unavailable("android") is None  # the fake is there
    monkeypatch.setenv("CUA_ANDROID_ADB", "adb-is-not-here")
    problem = backend_unavailable("android")
    assert problem is not None
    assert problem.startswith(
        "adb is not installed ('adb-is-not-here' is not on PATH): install adb (`apt-get install adb`"
    )


def test_provision_refuses_an_unauthorized_device_before_starting_a_server(adb: FakeAdb) -> None:
    adb.load(adb.devices("unauthorized"))
    with pytest.raises(BackendError, match=r"Android device 'R58M41ABCDE' is not ready \(adb says unauthorized\)"):
        AndroidBackend().provision()
    assert adb.calls() == [["devices", "-l"]]


def test_create_session_reads_the_options_variables(adb: FakeAdb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_ANDROID_SERIAL", "R58M41ABCDE")
    adb.load(adb.devices("several"), adb.entry(["-s", "R58M41ABCDE", "shell", "wm size"], "Physical size: 1080x2340\n"))
    session = AndroidBackend.create_session(width=1280, height=800)
    assert isinstance(session, AndroidSession)
    assert (session.adb.serial, session.width, session.height) == ("R58M41ABCDE", 1080, 2340)  # the device's size


# -- episodes through the env server -----------------------------------------------------------------

TASK = """
import cua_bench as cb
from cua_bench.nodes import center
from cua_core import Tap


@cb.tasks_config
def load():
    return [cb.Task(description="Open Network & internet", computer={"setup_config": {"os_type": "android"}},
                    max_steps=5)]


@cb.setup_task
async def setup(task, session):
    await session.launch("com.android.settings")


@cb.evaluate_task
async def evaluate(task, session):
    windows = await session.windows()
    return [1.0 if windows and windows[0]["title"].endswith(".network.NetworkDashboardActivity") else 0.0]


@cb.solve_task
async def solve(task, session):
    row = await session.find(role="label", name="Network & internet")
    await session.apply([Tap(center(row))])
"""


@pytest.fixture
def settings_task(tmp_path: Path) -> Path:
    folder = tmp_path / "open-network"
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(TASK))
    return folder


@pytest.fixture
def served(adb: FakeAdb) -> Iterator[EnvClient]:
    """The android session behind cua-bench's env server, in this process, and a client of it."""
    adb.load(
        adb.connect(),
        adb.shell(HOME),
        adb.shell("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1", file="monkey_ok.txt"),
        adb.shell(FOCUS, file="focus_settings.txt"),
        adb.entry(["-s", "emulator-5554", "exec-out", "screencap -p"], file="screen.png", repeat=True),
        adb.shell(DUMP, file="dump_ok.txt", repeat=True),
        adb.exec_out(CAT_DUMP, file="window_settings.xml", repeat=True),
        adb.shell("input tap 421 453"),  # the middle of "Network & internet"'s title, [189,420][653,488]
        adb.shell(FOCUS, "  mCurrentFocus=Window{6f1e u0 com.android.settings/.network.NetworkDashboardActivity}\n"),
    )
    session = AndroidBackend.create_session(width=1280, height=800)
    server = EnvServer(session, "tcp://127.0.0.1:0", backend="android").start()
    with EnvClient(server.address, step_timeout=60) as client:
        yield client
    server.rpc.close()


def test_an_episode_end_to_end_through_the_env_server(served: EnvClient, settings_task: Path, adb: FakeAdb) -> None:
    obs, info = served.reset(options={"task": str(settings_task), "observes": "rgb,a11y"})
    assert info["task"]["description"] == "Open Network & internet"
    assert info["platform"] == "mobile"  # a recording of it is a mobile LiteSample, its actions the mobile tool's
    assert obs["screenshot"].shape == (2400, 1080, 3) and (obs["width"], obs["height"]) == (1080, 2400)
    [window] = obs["a11y"]
    assert (window["role"], window["app"]) == ("window", "com.android.settings")
    row = next(n for n in _walk(window) if n["name"] == "Network & internet")
    assert row["bounds"] == [175.0, 175.0, 604.63, 203.333]
    obs, reward, terminated, truncated, info = served.step(
        [Tap(Point(389.815, 189.1665))]
    )  # its middle, as center() gives it
    assert (reward, terminated, truncated, info["invalid"]) == (0.0, False, False, [])
    assert info["settle_ms"] == 300.0
    obs, *_, info = served.step([Pinch(Point(500, 500), 2.0)])
    [why] = info["invalid"]
    assert why.startswith("action 0: pinch: adb's `input` injects one touch point at a time")
    assert obs["errors"] == info["invalid"]  # the agent reads why in its next observation
    obs, reward, terminated, truncated, info = served.step([Done()])
    assert (reward, terminated) == (1.0, True)
    device = [call[3] for call in adb.calls() if call[2:3] == ["shell"]]
    assert device == [
        "wm size", HOME, "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1", FOCUS,
        DUMP, "input tap 421 453", DUMP, DUMP, FOCUS, DUMP,
    ]  # fmt: skip
    adb.check()


def test_the_oracle_through_the_env_server(served: EnvClient, settings_task: Path) -> None:
    served.reset(options={"task": str(settings_task), "observes": "none"})
    assert served.solve()["reward"] == 1.0


def test_a_recorded_episode_is_a_mobile_trajectory(served: EnvClient, settings_task: Path) -> None:
    """What the runner writes to the run's dataset: the phone's platform and the mobile tool's tap."""
    outcome = run_episode(served, OracleAgent(), EpisodeSpec(str(settings_task)), record=True)
    assert outcome.reward == 1.0 and outcome.trajectory.platform == "mobile"
    [call] = outcome.trajectory.messages[1]["tool_calls"]
    assert call["function"]["name"] == "mobile" and call["function"]["arguments"]["actions"][0]["action"] == "tap"


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node["children"]:
        yield from _walk(child)


# -- the server process provision starts -------------------------------------------------------------


@pytest.fixture
def small_screen(tmp_path: Path) -> Path:
    path = tmp_path / "small.png"
    Image.new("RGB", (1024, 768), (250, 250, 250)).save(path)
    return path


def test_provision_holds_the_device_and_reports_its_screen(adb: FakeAdb) -> None:
    adb.load(adb.devices(repeat=True), adb.shell("wm size", file="wm_size.txt", repeat=True))
    backend = AndroidBackend()
    computer = backend.provision(width=1280, height=800, timeout=60)
    try:
        assert (computer.backend, computer.width, computer.height) == ("android", 1080, 2400)
        assert computer.info["serial"] == "emulator-5554"
        assert backend.health(computer)
        with pytest.raises(BackendError, match=r"Android device 'emulator-5554' already serves an environment"):
            AndroidBackend().provision()
    finally:
        backend.teardown(computer)
    assert not backend.health(computer, timeout=0.5)


def test_conformance(adb: FakeAdb, small_screen: Path) -> None:
    """cua-bench's backend contract, against a 1024x768 device, with the server started as a process."""
    home, tmp = "/sdcard/conformance.txt", "/data/local/tmp/conformance.txt"
    adb.load(
        adb.devices(repeat=True),  # once here (provision), once in the server
        adb.shell("wm size", "Physical size: 1024x768\n", repeat=True),
        adb.entry(["-s", "emulator-5554", "exec-out", "screencap -p"], file=small_screen, repeat=True),
        adb.shell(DUMP, file="dump_ok.txt", repeat=True),
        adb.exec_out(CAT_DUMP, file="window_settings.xml", repeat=True),
        adb.shell(HOME, repeat=True),
        adb.shell(FOCUS, file="focus_launcher.txt", repeat=True),
        adb.shell("input tap 512 384"),
        adb.shell("input tap 1 0", repeat=True),
        adb.shell(f"mkdir -p /sdcard && cat > {home}", repeat=True),
        adb.shell(f"cat {home}", ""),  # evaluate() before the work: 0
        adb.shell(f"cat {home}", "done"),  # read_bytes
        adb.shell(f"cat {home}", "done"),  # read_file
        adb.shell(f"test -f {home}"),
        adb.shell(f"mkdir -p /data/local/tmp && cat > {tmp}"),
        adb.shell(f"cat {tmp}", "tmp"),
        adb.shell(f"cat {home}", "done"),  # Done: evaluated, 1
        adb.shell(f"cat {home}", "", repeat=True),  # the next episode, truncated at its third step
    )
    assert check_backend("android") == []
    adb.check()
    writes = [(call[3], data) for call, data in zip(adb.calls(), adb.stdins(), strict=True) if "cat >" in call[-1]]
    assert (f"mkdir -p /sdcard && cat > {home}", b"done") in writes
    assert (f"mkdir -p /data/local/tmp && cat > {tmp}", b"tmp") in writes
