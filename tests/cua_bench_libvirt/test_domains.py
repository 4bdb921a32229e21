"""A machine's lifecycle and prune, against libvirt's own test driver (``test:///default``): fast, on every run.

The test driver keeps domains in this process's memory and boots nothing; what a real boot, snapshot
and revert do is in test_machines.py on qemu:///system.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench.backend_kit import BACKEND_LABEL, OWNER_LABEL, BackendError, labels
from cua_bench_libvirt import Domain, Hypervisor, labels_of
from cua_bench_libvirt.domains import DESTROY_TRIES


@pytest.fixture
def hv() -> Iterator[Hypervisor]:
    hypervisor = Hypervisor("test:///default")
    yield hypervisor
    hypervisor.close()


def domain(tmp_path: Path, name: str, found: dict[str, str]) -> Domain:
    disk = tmp_path / f"{name}.qcow2"
    disk.write_bytes(b"overlay")
    return Domain(name, disk, tmp_path / f"{name}.log", tmp_path / "vmlinuz", tmp_path / "initrd", accel="tcg",
                  labels=found)  # fmt: skip


def gone_owner() -> str:
    """The owner label of a process that has exited."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], check=True, capture_output=True, text=True
    )
    return f"{labels('libvirt')[OWNER_LABEL].split(':')[0]}:{done.stdout.strip()}"


def test_the_xml_carries_the_overlay_the_kernel_the_appended_console_and_the_labels(tmp_path: Path) -> None:
    made = domain(tmp_path, "cua-x", labels("libvirt", "run-7"))
    xml = made.xml()
    assert '<domain type="qemu">' in xml  # TCG is libvirt's "qemu" domain type
    assert f'<source file="{tmp_path}/cua-x.qcow2" />' in xml and '<driver name="qemu" type="qcow2" />' in xml
    assert f'<source path="{tmp_path}/cua-x.log" append="on" />' in xml
    assert labels_of(xml) == {**labels("libvirt", "run-7")}
    assert labels_of("<domain><name>theirs</name></domain>") == {}
    with pytest.raises(ValueError, match="accel 'hvf': give one of kvm, tcg"):
        Domain("x", tmp_path, tmp_path, tmp_path, tmp_path, accel="hvf").xml()


def test_start_snapshot_revert_and_remove(hv: Hypervisor, tmp_path: Path) -> None:
    hv.start(domain(tmp_path, "cua-life", labels("libvirt")))
    assert hv.running("cua-life")
    hv.snapshot("cua-life", "ready")
    hv.revert("cua-life", "ready")
    assert hv.running("cua-life")
    assert hv.remove("cua-life") and not hv.running("cua-life")
    assert not hv.remove("cua-life")  # already gone: nothing to do, no error
    with pytest.raises(BackendError, match="could not revert cua-life to ready"):
        hv.revert("cua-life", "ready")


class _Busy:
    """A domain whose first ``fails`` destroys fail as libvirt's does for a QEMU that outlives SIGKILL's wait."""

    def __init__(self, dom: Any, fails: int) -> None:
        self.dom, self.fails, self.destroys = dom, fails, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dom, name)

    def destroy(self) -> int:
        import libvirt

        self.destroys += 1
        if self.destroys <= self.fails:
            raise libvirt.libvirtError("Failed to terminate process 4242 with SIGKILL: Device or resource busy")
        return int(self.dom.destroy())


@pytest.mark.parametrize("fails", [1, DESTROY_TRIES])
def test_a_machine_slow_to_die_is_destroyed_again_and_one_that_never_dies_is_an_error(
    hv: Hypervisor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: int
) -> None:
    hv.start(domain(tmp_path, "cua-busy", labels("libvirt")))
    busy = _Busy(hv.conn.lookupByName("cua-busy"), fails)
    monkeypatch.setattr(hv, "conn", _Conn(hv.conn, busy))
    if fails < DESTROY_TRIES:
        assert hv.remove("cua-busy") and busy.destroys == fails + 1
        assert not hv.running("cua-busy")
    else:  # still running after every try: the caller hears it, the machine is not forgotten
        with pytest.raises(Exception, match="Device or resource busy"):
            hv.remove("cua-busy")
        assert hv.running("cua-busy") and busy.destroys == DESTROY_TRIES


class _Conn:
    def __init__(self, conn: Any, busy: _Busy) -> None:
        self.conn, self.busy = conn, busy

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    def lookupByName(self, name: str) -> Any:
        return self.busy if name == self.busy.dom.name() else self.conn.lookupByName(name)


def test_prune_removes_only_ours_whose_owner_is_gone_with_their_overlays(hv: Hypervisor, tmp_path: Path) -> None:
    dead = {**labels("libvirt"), OWNER_LABEL: gone_owner()}
    hv.start(domain(tmp_path, "cua-dead", dead))
    hv.start(domain(tmp_path, "cua-live", labels("libvirt")))
    hv.start(domain(tmp_path, "cua-other", {**dead, BACKEND_LABEL: "someone-else"}))
    assert hv.prune("libvirt") == ["cua-dead"]
    assert not (tmp_path / "cua-dead.qcow2").exists() and (tmp_path / "cua-live.qcow2").exists()
    assert hv.running("cua-live") and hv.running("cua-other") and hv.running("test")  # the driver's own is not ours
    assert hv.prune("libvirt", everything=True) == ["cua-live"]
    assert hv.running("cua-other")


def test_a_name_that_is_taken_is_an_error_that_leaves_the_running_one_alone(hv: Hypervisor, tmp_path: Path) -> None:
    hv.start(domain(tmp_path, "cua-twice", labels("libvirt")))
    with pytest.raises(BackendError, match="libvirt could not define cua-twice"):
        hv.start(domain(tmp_path, "cua-twice", labels("libvirt")))
    assert hv.running("cua-twice")
    hv.remove("cua-twice")


def test_an_unreachable_libvirt_says_how_to_start_it() -> None:
    with pytest.raises(
        BackendError, match=r"libvirt at qemu\+unix:///system\?socket=/nonexistent.sock is not reachable"
    ):
        Hypervisor("qemu+unix:///system?socket=/nonexistent.sock")
