"""The docker backend on a real Docker Engine: conformance, limits, parity with local, faults, prune."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.docker import ours
from support.task_folders import copy_through_tmp

from cua_bench.backends.base import BackendError
from cua_bench.client import EnvClient
from cua_bench.conformance import CONFORMANCE_TASK, check_backend
from cua_bench.parity import run_parity
from cua_bench.registry import backends
from cua_bench.runner import RunConfig, Runner
from cua_bench.summary import load_results
from cua_bench.taskset import task_folders
from cua_bench_docker import DockerBackend, DockerSettings, connect
from cua_bench_docker.image import IMAGE, build_image
from cua_core.errors import RpcError

pytestmark = pytest.mark.timeout(900)  # the first test waits for the image build (minutes)


def test_docker_is_registered_through_its_entry_point() -> None:
    assert backends()["docker"] is DockerBackend


def test_docker_is_conformant(backend: DockerBackend) -> None:
    assert check_backend(backend) == []


def test_containers_are_limited_and_cut_off(backend: DockerBackend) -> None:
    computer = backend.provision(width=640, height=480)
    try:
        computer.handle.reload()
        host = computer.handle.attrs["HostConfig"]
        assert host["NetworkMode"] == "none" and not host["Privileged"]
        assert host["Memory"] == 2 * 2**30 and host["NanoCpus"] == 2 * 10**9 and host["PidsLimit"] == 1024
        assert not host.get("Devices") and host["Init"] is True
        assert computer.handle.labels["io.cua.backend"] == "docker"
        with EnvClient(computer.address) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            seen = env.session("run_command", command="ls /sys/class/net; ls /dev/kvm; id -u; echo $PATH")
            # The server runs as `user`, and so does what the agent starts: it cannot read the server's memory.
            server = 'ps -eo pid=,args= | awk \'$2 == "/opt/cua/venv/bin/python" && $4 == "import" {print $1}\''
            who = env.session("run_command", command=f"id -un; s=$({server}); echo $s; head -c1 /proc/$s/mem")
        interfaces, rest = seen["stdout"].split("\n", 1)[0], seen["stdout"]
        assert interfaces == "lo"  # network none: loopback only
        assert "No such file" in seen["stderr"]  # no /dev/kvm
        assert "/opt/cua" not in rest  # the env server's Python is off the apps' PATH
        name, pid = who["stdout"].split()[:2]
        assert name == "user" and pid.isdigit() and f"/proc/{pid}/mem" in who["stderr"], who
        assert "Permission denied" in who["stderr"], who
    finally:
        backend.teardown(computer)


def _tasks(folder: Path, names: list[str]) -> Path:
    """A taskset folder of some desktop tasks (links to the real ones)."""
    source = {path.name: path for path in task_folders("desktop")}
    folder.mkdir()
    for name in names:
        (folder / name).symlink_to(source[name], target_is_directory=True)
    return folder


def test_parity_with_local(backend: DockerBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle gets the same reward on local and docker for the same tasks and variants."""
    names = [
        "xterm-create-file",
        "mousepad-new-file",
        "gnumeric-fill-cells",
        "pcmanfm-rename-file",
        "chromium-fill-form",
    ]
    taskset = _tasks(tmp_path / "tasks", names)
    report = run_parity(str(taskset), ("local", "docker"), variants=2, max_parallel=2)
    assert report.episodes == 2 * len(names)
    assert report.same, report.format()


def test_a_missing_engine_says_how_to_start_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    with pytest.raises(BackendError, match=r"not reachable.*dockerd --iptables=false"):
        DockerBackend().provision()


def test_a_missing_image_says_how_to_build_it(docker_host: str) -> None:
    impl = DockerBackend(DockerSettings(image="cua-bench/desktop:missing"))
    with pytest.raises(BackendError, match=r"cua-bench/desktop:missing is missing: .*cua-bench image build docker"):
        impl.provision()


def test_a_container_that_never_gets_ready_is_removed(docker_image: str) -> None:
    client = connect()
    silent = "cua-bench/test-silent:1"
    dockerfile = f'FROM {docker_image}\nENTRYPOINT ["sh", "-c", "sleep 600", "--"]\n'  # ignores its arguments
    client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=silent, rm=True)
    impl = DockerBackend(DockerSettings(image=silent))
    try:
        with pytest.raises(BackendError, match=r"was not ready within 3 s"):
            impl.provision(timeout=3)
        assert ours(client) == []
    finally:
        client.images.remove(silent, force=True)


def test_a_container_killed_for_memory_is_named_and_the_episode_errored(
    docker_image: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task whose setup eats memory: the env server is OOM-killed, retried once, then errored with why."""
    task = tmp_path / "tasks" / "eat-memory"
    task.mkdir(parents=True)
    (task / "main.py").write_text(
        textwrap.dedent("""
        import cua_bench as cb

        @cb.tasks_config(split="test")
        def load():
            return [cb.Task(description="eat memory")]

        @cb.setup_task(split="test")
        async def setup(task, session):
            # The env server (setup runs in it) made the OOM killer's first pick: the apps and commands, which
            # run as `user` like the server, cannot raise its score, but a kernel may pick it all the same.
            with open("/proc/self/oom_score_adj", "w") as own:
                own.write("1000")
            # The eater inherits the score: its shell puts it back to 0 (the floor it may go down to) first.
            await session.run_command(
                "echo 0 > /proc/self/oom_score_adj; exec python3 -c 'x = bytearray(1 << 30)'", timeout=60)

        @cb.evaluate_task(split="test")
        async def evaluate(task, session):
            return 1.0
    """)
    )
    monkeypatch.setenv("CUA_DOCKER_MOUNTS", str(tmp_path / "tasks"))
    monkeypatch.setenv("CUA_DOCKER_MEMORY", "400m")
    output = tmp_path / "run"
    Runner(RunConfig(str(tmp_path / "tasks"), output, "docker", record=False, heartbeat_timeout=3)).run()
    (result,) = load_results(output / "episodes.jsonl").values()
    assert result.status == "error" and result.attempts == 2
    assert "OOM-killed at its memory limit of 400m" in (result.error or "")
    assert ours(connect()) == []


def test_prune_removes_what_a_killed_runner_left(docker_image: str, tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import os, sys
        from cua_bench_docker import DockerBackend
        computer = DockerBackend().provision(width=320, height=240)
        print(computer.info["container"], flush=True)
        os.kill(os.getpid(), 9)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    orphan = done.stdout.strip()
    assert orphan.startswith("cua-env-"), done.stderr
    live = DockerBackend()
    computer = live.provision(width=320, height=240)
    try:
        names = {c.name for c in live.client.containers.list(all=True)}
        assert {orphan, computer.info["container"]} <= names
        assert orphan in live.prune()
        names = {c.name for c in live.client.containers.list(all=True)}
        assert orphan not in names and computer.info["container"] in names  # a live owner's container stays
    finally:
        live.teardown(computer)
    assert ours(live.client) == []


def test_a_dead_container_is_noticed(backend: DockerBackend) -> None:
    computer = backend.provision(width=320, height=240)
    try:
        computer.handle.kill()
        with pytest.raises(RpcError), EnvClient(computer.address, step_timeout=5) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
        assert backend.failure(computer) is not None
        assert not backend.health(computer, timeout=1)
    finally:
        backend.teardown(computer)


def test_a_rebuild_reuses_every_layer_but_the_code(docker_image: str) -> None:
    client = connect()
    before = [layer["Id"] for layer in client.images.get(IMAGE).history()]  # newest first
    result = build_image(client)
    after = [layer["Id"] for layer in client.images.get(IMAGE).history()]
    assert not result.base_built
    # Only the newest three (cua's code, its .pth, the entrypoint) may differ: base, apps and wheels are cached.
    assert after[3:] == before[3:] and len(after) == len(before)


def test_cli_builds_from_cache_and_prunes(docker_image: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cua_bench.cli import main

    out = CliRunner().invoke(main, ["image", "build", "docker"])
    assert out.exit_code == 0, out.output
    assert "base_built=False" in out.output and re.search(r"Step (\d+)/\1\b", out.output), out.output  # the last step
    out = CliRunner().invoke(main, ["prune", "--backend", "docker"])
    assert out.exit_code == 0 and out.output.startswith("docker: removed"), out.output
    out = CliRunner().invoke(main, ["image", "build", "sim"])
    assert out.exit_code == 1 and "backend 'sim' has no image to build" in out.output
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    out = CliRunner().invoke(main, ["prune", "--backend", "docker"])
    assert out.exit_code == 1 and "not reachable" in out.output


def test_the_task_layers_settings_and_folders_reach_the_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OSWorld's file mirror set on the host must hold in the container: passed on, made absolute, mounted
    (without it every mirror-supported task was skipped on docker-osworld while the host's report said runs)."""
    from cua_bench_docker.backend import _passed_env, task_mounts

    (tmp_path / "mirror").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUA_OSWORLD_FILES", "mirror")
    monkeypatch.setenv("CUA_OSWORLD_PASSWORD", "hunter2")
    monkeypatch.delenv("CUA_OSWORLD_TASKS", raising=False)
    passed = _passed_env(computer=True)
    assert passed["CUA_OSWORLD_FILES"] == str(tmp_path / "mirror") and passed["CUA_OSWORLD_PASSWORD"] == "hunter2"
    assert "CUA_LOCAL_PRIVATE_TMP" not in passed  # OSWorld's computer is a whole machine: /tmp is the real one
    # The default image's /tmp is the environment's own, and the server's folders are off it.
    assert _passed_env(computer=False)["CUA_LOCAL_PRIVATE_TMP"] == "1"
    assert not _passed_env(computer=False)["CUA_LOCAL_ROOT"].startswith("/tmp")
    assert str(tmp_path / "mirror") in task_mounts()
    monkeypatch.setenv("CUA_OSWORLD_FILES", str(tmp_path / "nowhere"))
    with pytest.raises(BackendError, match=r"CUA_OSWORLD_FILES=.*nowhere is not a folder here"):
        task_mounts()


def test_a_task_folder_anywhere_runs_and_its_shell_and_file_calls_share_tmp(
    docker_image: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Cua-style task in a folder no mount names (it travels by content) that passes a file through /tmp
    between run_command and the file calls: its oracle scores 1 in the container, as on local."""
    monkeypatch.delenv("CUA_DOCKER_MOUNTS", raising=False)
    tasks, _ = copy_through_tmp(tmp_path)
    output = tmp_path / "run"
    Runner(RunConfig(str(tasks), output, "docker", split="train", max_parallel=1, record=False)).run()
    results = load_results(output / "episodes.jsonl").values()
    assert sorted((r.status, r.reward) for r in results) == [("ok", 1.0), ("ok", 1.0)], results
