"""``run_command`` and the session's file calls see one filesystem, in every isolation mode of ``local``.

Real environments: a Cua-style task (its setup writes ``/tmp/src.txt`` with a file call and copies it
with ``run_command("cp /tmp/… /tmp/…")``; its oracle copies again with the shell; its evaluator reads
back with file calls) runs through ``cb run`` on ``local`` shared (``CUA_LOCAL_ISOLATE=0``) and
isolated, and as a user without root where this host has an interpreter that user can run. Before
the shared host had a /tmp of its own, the shell's /tmp was the machine's and the oracle scored 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.task_folders import copy_through_tmp

from cua_bench.backends.local import unavailable
from cua_bench.backends.local.isolate import isolation_unavailable, private_tmp_unavailable
from cua_bench.cli import main

LOCAL = unavailable()
pytestmark = pytest.mark.skipif(
    LOCAL is not None and not os.environ.get("CI"), reason=f"local backend unavailable: {LOCAL}"
)


def _rewards(out: Path) -> list[float]:
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert all(episode["error"] is None for episode in episodes), episodes
    return [episode["reward"] for episode in episodes]


def _host_tmp_has(mark: str) -> list[str]:
    found = []
    for name in ("src.txt", "staged.txt", "out.txt"):
        path = Path("/tmp") / name
        if path.is_file() and mark in path.read_text(errors="replace"):
            found.append(str(path))
    return found


@pytest.mark.parametrize("isolate", ["0", "1"])
def test_a_tasks_shell_and_file_calls_share_tmp(isolate: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if isolate == "1" and isolation_unavailable():
        pytest.skip(f"this host cannot isolate: {isolation_unavailable()}")
    if isolate == "0" and private_tmp_unavailable():
        pytest.skip(f"this host gives no private /tmp: {private_tmp_unavailable()}")
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", isolate)
    tasks, mark = copy_through_tmp(tmp_path)
    out = tmp_path / "run"
    # Two episodes on one environment: the second must not find the first's /tmp/out.txt.
    args = ["run", str(tasks), "--backend", "local", "--agent", "oracle", "--max-parallel", "1", "--output", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert _rewards(out) == [1.0, 1.0]
    assert _host_tmp_has(mark) == []  # the environment's /tmp is its own, never the machine's


def _interpreter_for_others() -> list[str] | None:
    """A Python 3.x like ours that a user without root can run, with our packages on its path, or None."""
    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None:
        return None
    probe = [system, "-c", "import sys; print(sys.version_info[:2])"]
    done = subprocess.run(probe, capture_output=True, text=True, check=False)
    if done.stdout.strip() != str(tuple(sys.version_info[:2])):
        return None
    return [system]


def _others_path() -> str:
    """Our site-packages and the editable installs' source folders, for an interpreter outside the venv."""
    site = Path(sysconfig.get_paths()["purelib"])
    paths = [str(site)]
    for pth in sorted(site.glob("_editable_impl_*.pth")):
        paths += [line for line in pth.read_text().splitlines() if line.startswith("/")]
    return os.pathsep.join(paths)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder ``nobody`` can use (pytest's own are root's, 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="cua-nobody-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_user_without_root_gets_the_same_one_filesystem(open_folder: Path) -> None:
    """Unprivileged user namespaces give a private /tmp to a user without root too (``nobody`` here)."""
    if os.geteuid() != 0:
        pytest.skip("becoming another user needs root")
    python = _interpreter_for_others()
    if python is None:
        pytest.skip("no system python3 of this minor version for a user without root")
    tmp_path = open_folder
    tasks, mark = copy_through_tmp(tmp_path)
    for path in [tasks, *tasks.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    out = tmp_path / "run"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "PYTHONPATH": _others_path(),
        "CUA_LOCAL_ISOLATE": "auto",  # without root: shared, with a private /tmp
    }
    command = [
        "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *python, "-m", "cua_bench.cli",
        "run", str(tasks), "--backend", "local", "--agent", "oracle", "--max-parallel", "1", "--output", str(out),
    ]  # fmt: skip
    reach = [*command[:5], "-c", "import cua_bench.cli"]
    if subprocess.run(reach, env=env, cwd=tmp_path, capture_output=True, check=False).returncode != 0:
        pytest.skip("nobody cannot import our packages from this checkout (a folder on the way is closed)")
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _rewards(out) == [1.0, 1.0]
    assert _host_tmp_has(mark) == []
