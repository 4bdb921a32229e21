"""The local backend shares this host: an OSWorld task whose commands would take root, kill processes
by name or touch paths outside the environment's home is skipped there, naming why, and never run.

Real environment: the task runs through ``cua-bench run --backend local``; its setup would
``rm -rf /home/user/x``, ``touch /etc/cua-test`` and ``sudo touch``; the host's files are checked after.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cua_bench.backends.local import unavailable
from cua_bench.cli import main
from cua_bench_osworld.apps import host_reach
from cua_bench_osworld.loader import load_task
from cua_bench_osworld.support import check_support

# Both modules make /home/user/x on the host and look for /etc/cua-test: never two at once (pytest-xdist).
pytestmark = pytest.mark.xdist_group("host-home")

HARMFUL = "rm -rf /home/user/x; touch /etc/cua-test; echo password | sudo -S touch /etc/cua-test; pkill -f xterm"
LOCAL = unavailable()


def _task(folder: Path, command: str | list[str], task_id: str = "harm") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        "id": task_id,
        "instruction": "Nothing to do.",
        "config": [{"type": "execute", "parameters": {"command": command, "shell": isinstance(command, str)}}],
        "evaluator": {"func": "infeasible"},
    }
    path = folder / f"{task_id}.json"
    path.write_text(json.dumps(data))
    return path


def test_what_a_tasks_commands_reach_beyond_its_home(tmp_path: Path) -> None:
    harm = load_task(_task(tmp_path / "os", HARMFUL))
    assert host_reach(harm) == [
        "root (sudo)", "processes by name (pkill)", "the path /home/user/x", "the path /etc/cua-test",
    ]  # fmt: skip
    gsettings = load_task(_task(tmp_path / "os", "gsettings set org.gnome.desktop.interface font-name 'A 9'", "gs"))
    assert host_reach(gsettings) == ["settings that persist (gsettings)"]  # in memory on a shared host
    # Programs by their full path, ~, $HOME, /dev/null and URLs stay within the environment.
    fine = "/usr/bin/python3 -c 'print(1)' > /dev/null; ls ~/Desktop $HOME/x; curl https://example.org/a/b"
    assert host_reach(load_task(_task(tmp_path / "os", fine, "fine"))) == []
    assert host_reach(load_task(_task(tmp_path / "os", ["cat", "/home/user/a.txt"], "argv"))) == [
        "the path /home/user/a.txt"
    ]
    local = check_support(harm, official=(), mirror=None, backend="local")
    assert local.reason is not None and local.reason.startswith(
        "unsupported on a shared host: its commands need root (sudo), processes by name (pkill), the path /home/user/x"
    )
    assert "CUA_DOCKER_VARIANT=osworld" in local.reason
    assert "CUA_LOCAL_ISOLATE" not in local.reason  # it needs root, which an isolated environment does not give
    assert check_support(harm, official=(), mirror=None, backend="docker-osworld").supported
    # Without root, an isolated local environment would do: the reason says how to get one.
    settings = check_support(gsettings, official=(), mirror=None, backend="local").reason or ""
    assert settings.startswith("unsupported on a shared host: its commands need settings that persist (gsettings)")
    assert "isolated), or an isolated local environment: as root on Linux with CUA_LOCAL_ISOLATE=auto" in settings


@pytest.mark.skipif(LOCAL is not None and not os.environ.get("CI"), reason=f"local backend unavailable: {LOCAL}")
def test_on_local_such_a_task_is_skipped_and_the_host_is_untouched(tmp_path: Path) -> None:
    if LOCAL is not None:
        pytest.fail(f"CI is set but the local backend cannot run here: {LOCAL}")
    if os.path.exists("/etc/cua-test"):
        pytest.fail("/etc/cua-test exists already: remove it (an earlier run of a task touched the host)")
    made_home = not os.path.exists("/home/user")
    victim = Path("/home/user/x")
    try:
        victim.mkdir(parents=True, exist_ok=True)
        (victim / "keep").write_text("mine")
    except PermissionError:
        victim = tmp_path / "home" / "x"  # not root: the path the task names cannot be made; /etc still counts
        victim.mkdir(parents=True)
        (victim / "keep").write_text("mine")
    try:
        _task(tmp_path / "tasks" / "os", HARMFUL)
        out = tmp_path / "run"
        args = ["run", str(tmp_path / "tasks"), "--backend", "local", "--agent", "noop", "--output", str(out)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1 and "no episode was scored" in result.output, result.output
        (episode,) = map(json.loads, (out / "episodes.jsonl").read_text().splitlines())
        assert episode["status"] == "skipped", episode
        assert episode["error"].startswith("skipped: unsupported on a shared host: its commands need root (sudo)")
        assert "the path /home/user/x, the path /etc/cua-test" in episode["error"]
        assert (victim / "keep").read_text() == "mine"
        assert not os.path.exists("/etc/cua-test")
    finally:
        if made_home:
            shutil.rmtree("/home/user", ignore_errors=True)
        elif victim == Path("/home/user/x"):
            shutil.rmtree(victim, ignore_errors=True)
