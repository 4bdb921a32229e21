"""The ``libvirt`` backend on real machines (qemu:///system): an image built from Debian's packages boots,
its env server passes the conformance suite over CURVE only, a reset reverts the whole machine, and a
boot that fails says why and keeps the serial console in the run folder.

The image is the tests' smaller desktop (conftest's ``image_root``). One machine serves most of the
module's tests, since each boot costs a minute of TCG on two loaded cores."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench import BackendError, Computer, EnvClient, client_for
from cua_bench.backend_kit import RUN_LABEL
from cua_bench.conformance import check_backend
from cua_bench_libvirt import LibvirtBackend
from cua_core import RpcError

pytestmark = [pytest.mark.xdist_group("libvirt"), pytest.mark.timeout(1800), pytest.mark.usefixtures("session_keys")]


@pytest.fixture(scope="module")
def backend(system_libvirt: str, image_root: Path) -> Iterator[LibvirtBackend]:
    impl = LibvirtBackend(uri=system_libvirt, images=str(image_root), memory=1024, cpus=1)
    yield impl
    left = [name for name, found, _ in impl.hypervisor.ours() if found.get(RUN_LABEL) == "libvirt-tests"]
    impl.prune(everything=False)
    assert left == [], f"machines left behind: {left}"


@pytest.fixture(scope="module")
def machine(backend: LibvirtBackend) -> Iterator[Computer]:
    backend.run_id = "libvirt-tests"
    computer = backend.provision(width=1024, height=768)
    yield computer
    backend.teardown(computer)
    assert not backend.hypervisor.running(computer.info["domain"])
    assert not (backend.root / "machines" / computer.info["domain"]).exists()


def test_the_guest_server_answers_the_machines_key_holder_only(backend: LibvirtBackend, machine: Computer) -> None:
    assert machine.address.startswith("tcp://127.0.0.1:") and len(machine.info["server_key"]) == 40
    with client_for(machine, step_timeout=30) as env:
        assert env.session("run_command", command="id -u")["stdout"].strip() == "0"  # real root, in its own kernel
    # The port is on the host's loopback, which every user of the host reaches: without CURVE nothing answers.
    with pytest.raises(RpcError), EnvClient(machine.address, step_timeout=5, heartbeat_timeout=5) as plain:
        plain.reset(options={"task": "sim/click-button"})


def test_a_reset_reverts_the_whole_machine_without_a_boot(backend: LibvirtBackend, machine: Computer) -> None:
    marker = f"/etc/cua-{uuid.uuid4().hex[:8]}"
    serial = Path(machine.info["serial"])

    def exists() -> bool:
        with client_for(machine, step_timeout=60) as env:
            return bool(env.session("run_command", command=f"test -e {marker}")["return_code"] == 0)

    with client_for(machine, step_timeout=60) as env:
        env.session("run_command", command=f"echo episode > {marker}")  # a system file, out of reset's reach
    assert exists()
    backend.restore(machine)
    assert not exists()
    assert serial.read_text(errors="replace").count("cua-guest: starting the env server") == 1, "the guest booted again"


def test_the_machine_passes_the_backend_conformance_suite(backend: LibvirtBackend) -> None:
    """A machine of its own: the suite provisions and tears down as any user of the backend would."""
    assert check_backend(backend) == []


def test_a_boot_that_does_not_finish_says_why_and_keeps_the_serial_console(
    system_libvirt: str, image_root: Path, tmp_path: Path
) -> None:
    impl = LibvirtBackend(uri=system_libvirt, images=str(image_root), memory=1024, cpus=1, boot_timeout=3.0)
    impl.run_dir = tmp_path
    with pytest.raises(BackendError, match="serial console ends") as raised:
        impl.provision(width=640, height=480, timeout=1.0)
    assert "was not ready within 3 s" in str(raised.value)
    kept = list((tmp_path / "machines").glob("*.boot.serial.log"))  # what the guest said by then, maybe nothing
    assert len(kept) == 1
    assert [name for name, _, _ in impl.hypervisor.ours() if name in kept[0].name] == [], "the failed machine stayed"


def test_desktop_tasks_score_in_a_machine_as_on_this_host(
    system_libvirt: str, image_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cua-bench parity --backends local,libvirt desktop`` on tasks of the small image's app (xterm): the oracle
    scores 1 on each, the same on both, two episodes on one machine (a revert between them)."""
    from click.testing import CliRunner

    from cua_bench.cli import main
    from cua_bench.summary import load_results

    for key, value in (("URI", system_libvirt), ("IMAGES", str(image_root)), ("MEMORY", "1024"), ("CPUS", "1")):
        monkeypatch.setenv(f"CUA_LIBVIRT_{key}", value)
    out = CliRunner().invoke(main, [
        "parity", "desktop", "--backends", "local,libvirt", "--tasks", "xterm-create-file,xterm-rename-file",
        "--variants", "1", "--max-parallel", "1", "--output", str(tmp_path),
    ])  # fmt: skip
    assert out.exit_code == 0, out.output
    assert out.output.startswith("local vs libvirt: 2 episodes, 0 differ"), out.output
    rewards = {key: result.reward for key, result in load_results(tmp_path / "libvirt" / "episodes.jsonl").items()}
    assert len(rewards) == 2 and set(rewards.values()) == {1.0}, rewards


def test_rl_env_workers_place_machines_like_any_backend(
    backend: LibvirtBackend, caplog: pytest.LogCaptureFixture
) -> None:
    """cua-bench-rl's env workers on machines: two rollouts of a desktop task on one machine (the oracle's
    steps as the curriculum, then the policy says done), with a revert between them, and a teardown that
    removes the machine (the workers log a failed one and go on: the reason is asserted here, where it shows)."""
    from cua_bench.spec import EpisodeSpec
    from cua_bench_rl import Decision, Policy, Taken, Turn
    from cua_bench_rl.loader import evaluate
    from cua_bench_rl.workers import EnvWorkers
    from cua_core.actions import Done

    class SaysDone(Policy):
        def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
            return [Decision([Done()], [turn.step], [0.0]) for turn in turns]

        def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
            raise NotImplementedError("evaluation never trains")

    tasks = [EpisodeSpec("desktop/xterm-create-file", variant) for variant in range(2)]
    with EnvWorkers(backend, 1, width=800, height=600) as workers:
        found = evaluate(workers, SaysDone(), tasks, curriculum=lambda _task: 50, heartbeat_timeout=30.0)
        assert (found["episodes"], found["success"]) == (2.0, 1.0), found
        assert workers.replaced == 0
    failed = [
        r.getMessage() for r in caplog.records if r.name == "cua_bench_rl.workers" and "teardown" in r.getMessage()
    ]
    assert failed == []
