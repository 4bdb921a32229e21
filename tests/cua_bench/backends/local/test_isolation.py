"""The local backend isolated (root on Linux: the default, ``CUA_LOCAL_ISOLATE=auto``; or ``1``): each
environment is a user of its own in mount and network namespaces of its own, with its home at /home/user,
so a task's commands cannot touch the host.

Real env servers, real commands through the session API; the host's files and processes are checked after.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.task_folders import task_folder

from cua_bench.backends.base import BackendError
from cua_bench.backends.local import LocalBackend, unavailable
from cua_bench.backends.local.isolate import UID_BASE, isolation_unavailable
from cua_bench.cli import main
from cua_bench.client import EnvClient
from cua_bench.conformance import CONFORMANCE_TASK, check_backend
from cua_bench_osworld.loader import load_task
from cua_bench_osworld.support import check_support

# Both modules make /home/user/x on the host and look for /etc/cua-test: never two at once (pytest-xdist).
pytestmark = pytest.mark.xdist_group("host-home")

MISSING = unavailable() or isolation_unavailable()


def _can_isolate() -> None:
    if MISSING is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but local environments cannot be isolated here: {MISSING}")
        pytest.skip(f"local environments cannot be isolated here: {MISSING}")


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch) -> LocalBackend:
    _can_isolate()
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "1")
    return LocalBackend()


def test_by_default_a_host_that_allows_it_isolates_and_the_isolated_backend_is_conformant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _can_isolate()
    monkeypatch.delenv("CUA_LOCAL_ISOLATE")  # the tests' conftest shares the host; a user's default is auto
    backend = LocalBackend()
    assert backend.isolate
    assert check_backend(backend) == []
    computer = backend.provision(width=320, height=240)
    try:
        assert computer.info["uid"] == UID_BASE + computer.info["pid"]
    finally:
        backend.teardown(computer)


def test_auto_shares_a_host_that_cannot_isolate_and_a_bad_setting_names_the_ones_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "auto")
    monkeypatch.setattr("cua_bench.backends.local.isolate.isolation_unavailable", lambda: "isolation needs root")
    assert not LocalBackend().isolate
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "yes")
    with pytest.raises(BackendError, match=r"CUA_LOCAL_ISOLATE='yes' is not a setting: use auto .*, 1 .* or 0"):
        LocalBackend()


def test_the_report_judges_local_as_it_will_run_isolated_or_shared(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Support means "this backend can score it": isolated, a task that only needs its own /home/user and
    settings is supported on local; shared, it is skipped; needing root, it is skipped either way."""
    _task(
        tmp_path / "os",
        "home",
        "mkdir -p /home/user/Desktop/x; gsettings set org.gnome.desktop.interface font-name 'A 9'",
    )
    _task(tmp_path / "os", "root", "echo password | sudo -S touch /etc/cua-test")
    home, root = (load_task(tmp_path / "os" / f"{name}.json") for name in ("home", "root"))
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "1")
    assert check_support(home, official=(), mirror=None, backend="local").supported
    assert (check_support(root, official=(), mirror=None, backend="local").reason or "").startswith(
        "unsupported on an isolated local environment: its commands need root (sudo)"
    )
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "0")
    assert (check_support(home, official=(), mirror=None, backend="local").reason or "").startswith(
        "unsupported on a shared host: its commands need settings that persist (gsettings), the path /home/user/"
    )


@pytest.fixture
def host_files() -> Iterator[Path]:
    """/home/user/x/keep on the host (made for the test where /home/user is missing), and no /etc/cua-test."""
    assert not os.path.exists("/etc/cua-test"), "/etc/cua-test exists already: an earlier run touched the host"
    made_home = not os.path.exists("/home/user")
    victim = Path("/home/user/x")
    victim.mkdir(parents=True, exist_ok=True)
    (victim / "keep").write_text("mine")
    try:
        yield victim
        assert (victim / "keep").read_text() == "mine"
        assert not os.path.exists("/etc/cua-test")
    finally:
        shutil.rmtree("/home/user" if made_home else victim, ignore_errors=True)


def _run(env: EnvClient, command: str) -> dict[str, Any]:
    result: dict[str, Any] = env.session("run_command", command=command, timeout=30)
    return result


def test_a_tasks_commands_stay_in_the_environment(isolated: LocalBackend, host_files: Path) -> None:
    marker = f"cua-host-process-{uuid.uuid4().hex[:8]}"
    host_process = subprocess.Popen(["bash", "-c", f"exec -a {marker} sleep 300"])
    computer = isolated.provision(width=640, height=480)  # the default 60 s: a suite starting up loads the cores
    try:
        assert computer.info["uid"] == UID_BASE + computer.info["pid"]
        with EnvClient(computer.address) as env:
            _, info = env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb"})
            # Frames still come through shared memory: the segment is given to the environment's user.
            assert info["frames"] == "shm", info.get("frames_refused")
            seen = _run(env, 'id -un; id -u; echo "$HOME"; pwd')["stdout"].split()
            assert seen == ["user", str(computer.info["uid"]), "/home/user", "/home/user"]
            pattern = f"{marker[:-1]}[{marker[-1]}]"  # not matching the shell's own command line
            harm = _run(
                env, f"rm -rf /home/user/x; touch /etc/cua-test; echo made > /home/user/m; pkill -f '{pattern}'"
            )
            assert "Permission denied" in harm["stderr"]
            # The environment's own /home/user and /tmp are what its file calls see.
            assert env.session("read_file", path="/home/user/m") == "made\n"
            env.session("write_file", path="/tmp/t.txt", content="t")
            assert _run(env, "cat /tmp/t.txt; ls /tmp")["stdout"].startswith("t")
            assert env.observe()["screenshot"].shape == (480, 640, 3)  # its own display works
            # Settings persist (dconf in its home), and it has no root.
            _run(env, "gsettings set org.gnome.desktop.interface font-name 'Iso 9'")
            assert _run(env, "gsettings get org.gnome.desktop.interface font-name")["stdout"].strip() == "'Iso 9'"
            assert _run(env, "sudo -n true")["returncode"] != 0
            # The server reads task files anywhere; what it starts has no capability at all.
            assert _run(env, "grep CapEff /proc/self/status")["stdout"].split() == ["CapEff:", "0" * 16]
        assert host_process.poll() is None, "a command in the environment killed a host process"
        assert not os.path.exists("/home/user/m")
    finally:
        isolated.teardown(computer)
        host_process.kill()
        host_process.wait()
    assert not Path(computer.info["sockets"]).exists()
    listed = subprocess.run(
        ["ps", "-o", "stat=,args=", "-u", str(computer.info["uid"])], capture_output=True, text=True, check=False
    )
    alive = [line for line in listed.stdout.splitlines() if not line.strip().startswith("Z")]  # zombies are dead
    assert alive == [], "processes of the environment's user outlived teardown"


def _task(folder: Path, task_id: str, command: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "id": task_id,
        "instruction": "Nothing to do.",
        "config": [{"type": "execute", "parameters": {"command": command, "shell": True}}],
        "evaluator": {"func": "infeasible"},
    }
    (folder / f"{task_id}.json").write_text(json.dumps(data))


def test_osworld_tasks_run_isolated_but_those_needing_root_are_skipped(
    isolated: LocalBackend, host_files: Path, tmp_path: Path
) -> None:
    _task(tmp_path / "tasks" / "os", "paths", "rm -rf /home/user/x; touch /etc/cua-test; mkdir -p /home/user/Desktop")
    _task(tmp_path / "tasks" / "os", "root", "echo password | sudo -S touch /etc/cua-test")
    out = tmp_path / "run"
    args = ["run", str(tmp_path / "tasks"), "--backend", "local", "--agent", "noop", "--output", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    episodes = {e["task"]: e for e in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())}
    assert episodes["paths"]["status"] == "ok", episodes["paths"]  # run, in its own /home/user
    assert episodes["root"]["status"] == "skipped"
    assert episodes["root"]["error"].startswith(
        "skipped: unsupported on an isolated local environment: its commands need root (sudo), which it does not give"
    )


def test_isolation_where_the_host_cannot_is_an_error_naming_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_LOCAL_ISOLATE", "1")
    monkeypatch.setattr("cua_bench.backends.local.isolation_unavailable", lambda: "isolation needs root; run as root")
    with pytest.raises(BackendError, match=r"isolation needs root; run as root \(CUA_LOCAL_ISOLATE=1\)"):
        LocalBackend().provision(width=320, height=240)


def test_a_host_entry_gone_between_the_listing_and_the_binding_is_skipped(tmp_path: Path) -> None:
    """The launcher lists the host's /tmp entries and binds each back over the new tmpfs; on a busy host
    (three test workers) one vanished in between and the launcher died, so the env server never started."""
    _can_isolate()
    folder = tmp_path / "covered"
    (folder / "stays").mkdir(parents=True)
    (folder / "goes").mkdir()
    script = f"""
import os, shutil
from cua_bench.backends.local import isolate
listed = list(os.scandir({str(folder)!r}))
shutil.rmtree({str(folder / "goes")!r})  # gone after the listing, before the binding
isolate.os.scandir = lambda path: iter(listed)
print(isolate._cover({str(folder)!r}, "mode=755", ()))
"""
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", sys.executable, "-c", script],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "['stays']"


def test_a_tmp_entry_removed_while_tmp_is_covered_is_left_out_not_fatal(tmp_path: Path) -> None:
    """A busy /tmp (pip, pytest) loses entries between the listing and the binding back: the isolated server
    once died on it at start ("mount /proc/self/fd/N on /tmp/pip-unpack-…: No such file or directory")."""
    _can_isolate()
    code = """
import os, tempfile
import cua_bench.backends.local.isolate as isolate
gone, kept = (tempfile.mkdtemp(prefix=p, dir="/tmp") for p in ("cua-gone-", "cua-kept-"))
real = isolate._mount
def mount(source, target, fstype, flags, data=None):
    if fstype == "tmpfs" and target == "/tmp":
        os.rmdir(gone)  # another process's temp folder, removed after the listing
    real(source, target, fstype, flags, data)
isolate._mount = mount
names = isolate._cover("/tmp", "mode=1777", (".X",))
print(os.path.basename(gone) in names, os.path.exists(gone), os.path.basename(kept) in names, os.path.isdir(kept), kept)
"""
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    *seen, kept = done.stdout.split()
    os.rmdir(kept)  # the host's, made in the namespace (a mount point there)
    assert seen == ["False", "False", "True", "True"]


def test_a_private_task_folder_made_after_the_server_started_runs(isolated: LocalBackend) -> None:
    """Root's 0700 temp folder, made after the environment covered /tmp: neither its user nor its view of /tmp
    reaches it, so the task's files travel to the server by content (``cua_bench.bundles``)."""
    computer = isolated.provision(width=320, height=240)
    private = Path(tempfile.mkdtemp())  # mode 0700, root's
    try:
        folder = task_folder(private)
        with EnvClient(computer.address) as env:
            env.reset(options={"task": str(folder)})
            assert env.evaluate() == 1.0
    finally:
        isolated.teardown(computer)
        shutil.rmtree(private)


def test_only_the_tmp_entries_the_server_names_are_bound_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CI machine's /tmp held 2,464 entries (1,271 of them old task caches); binding each back made an
    isolated server take over a minute to start under load. Now only what its setup names is."""
    from cua_bench.backends.local.isolate import named_in

    monkeypatch.setenv("CUA_LOCAL_ROOT", "/tmp/pytest-of-root/pytest-9/envs0")
    monkeypatch.setenv("PYTHONPATH", "/opt/x:/tmp/support-dir/lib:/tmp")
    monkeypatch.setenv("CUA_NOT_A_PATH", "tmp/relative /tmp/with space")
    monkeypatch.setattr("sys.path", ["/work/src", "/tmp/venv-x/lib/python3.11"])
    names = named_in("/tmp", ("/tmp/cua-0/env-1.sock", "/tmp/.X11-unix/"))
    assert {"pytest-of-root", "support-dir", "venv-x", "cua-0", ".X11-unix"} <= names
    assert "tmp" not in names and "relative" not in names and "" not in names
    assert all("/" not in name for name in names)


def _owned_on_host(kind: str, uid: int) -> list[str]:
    """The host's System V objects of ``kind`` ("sem", "shm") owned by ``uid``, one line each."""
    lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
    return [line for line in lines if str(uid) in line.split()]


def test_system_v_ipc_is_the_environments_own(isolated: LocalBackend) -> None:
    """Kate (a Qt single-application) keys a semaphore with ftok on a file in /tmp: every environment's fresh
    /tmp gave the same keys, and a killed app's objects, owned by an earlier environment's uid, refused the
    next one. An IPC namespace of its own: the host's objects are not seen, and its own go with it."""
    host = subprocess.run(["ipcmk", "-S", "1"], capture_output=True, text=True, check=True).stdout.split()[-1]
    computer = isolated.provision(width=640, height=480)
    try:
        with EnvClient(computer.address) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            made = _run(env, "ipcmk -S 1 && ipcmk -M 4096 && cat /proc/sysvipc/sem /proc/sysvipc/shm")
            assert made["returncode"] == 0, made
            inside = [line.split() for line in made["stdout"].splitlines() if line.split()[:1] != ["key"]]
            assert host not in {line[1] for line in inside if len(line) > 1}, "the host's semaphore is seen inside"
            assert not _owned_on_host("sem", computer.info["uid"]), "the environment's semaphore is on the host"
    finally:
        isolated.teardown(computer)
        subprocess.run(["ipcrm", "-s", host], check=False)
    assert not _owned_on_host("sem", computer.info["uid"]) and not _owned_on_host("shm", computer.info["uid"])
