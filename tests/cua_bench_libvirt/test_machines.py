"""Real machines on qemu:///system: the probe guest boots, the accelerator is one it really booted on
(or TCG, saying why), and a revert puts the running guest back, memory included, with no boot."""

from __future__ import annotations

import re
import shutil
import time
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench.backend_kit import labels
from cua_bench_libvirt import READY_LINE, Domain, Hypervisor, ProbeGuest, choose_accel, make_overlay, probe_guest

# One worker: the machines share two cores. A TCG boot beside the rest of the suite took over two minutes:
# each test has ten, its waits their own bounds.
pytestmark = [pytest.mark.xdist_group("libvirt"), pytest.mark.timeout(600)]
BOOT_TIMEOUT = 240.0  # TCG on two cores loaded by the rest of the suite: 6 s alone, a minute measured under load


@pytest.fixture
def folder(images: Path) -> Iterator[Path]:
    made = images / uuid.uuid4().hex[:8]
    made.mkdir()
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.fixture(scope="module")
def guest(images: Path) -> ProbeGuest:
    return probe_guest(images / "probe")


def ticks(log: Path) -> list[int]:
    return [int(n) for n in re.findall(r"cua-guest: tick (\d+)", log.read_text(errors="replace"))]


def wait_for(check: object, what: str, timeout: float = BOOT_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"no {what} within {timeout:g} s"
        time.sleep(0.2)


def test_the_accelerator_is_one_a_guest_booted_on_and_the_choice_is_kept(
    system_libvirt: str, guest: ProbeGuest, folder: Path
) -> None:
    """The choice is made in a folder of its own here, so that it is really probed on every run."""
    hv = Hypervisor(system_libvirt)
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            accel = choose_accel(hv, guest, folder)
        assert accel in ("kvm", "tcg")
        if accel == "tcg":  # never silently: the warning and the answer say why
            assert accel.why and any(accel.why in str(w.message) for w in said), (accel.why, said)
        started = time.monotonic()
        again = choose_accel(hv, guest, folder)  # kept for this host: no second probe boot
        assert (again, again.why) == (accel, accel.why) and time.monotonic() - started < 5
        assert choose_accel(hv, guest, folder, asked="tcg") == "tcg"
        assert not [name for name, _, _ in hv.ours() if name.startswith("cua-probe-")]  # the probe cleaned up
    finally:
        hv.close()


def test_a_revert_resumes_the_running_guest_from_its_snapshot_without_a_boot(
    system_libvirt: str, guest: ProbeGuest, folder: Path
) -> None:
    hv = Hypervisor(system_libvirt)
    name = f"cua-test-{folder.name}"
    disk, log = folder / "disk.qcow2", folder / "serial.log"
    make_overlay(guest.base, disk)
    accel = choose_accel(hv, guest, guest.kernel.parent)
    try:
        hv.start(Domain(name, disk, log, guest.kernel, guest.initrd, "console=ttyS0 quiet panic=-1", 256, 1, accel,
                        labels("libvirt")))  # fmt: skip
        wait_for(lambda: log.exists() and READY_LINE in log.read_text(errors="replace"), "ready line")
        wait_for(lambda: len(ticks(log)) >= 2, "ticks")
        hv.snapshot(name, "ready")
        at = ticks(log)[-1]
        wait_for(lambda: ticks(log)[-1] >= at + 3, "ticks after the snapshot")
        hv.revert(name, "ready")
        wait_for(lambda: len(ticks(log)) > ticks(log).index(max(ticks(log))) + 1, "ticks after the revert")
        counted = ticks(log)
        resumed = counted[counted.index(max(counted)) + 1]
        assert at <= resumed <= at + 2, (at, counted)  # the guest's memory is the snapshot's: its count went back
        assert log.read_text(errors="replace").count(READY_LINE) == 1  # and it did not boot again
        assert hv.running(name)
    finally:
        hv.remove(name)
        hv.close()
    assert not hv_names(system_libvirt, name)


def hv_names(uri: str, name: str) -> list[str]:
    hv = Hypervisor(uri)
    try:
        return [found for found, _, _ in hv.ours() if found == name]
    finally:
        hv.close()
