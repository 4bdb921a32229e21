"""Which accelerator this host's VMs run on: KVM where a guest really boots on it, TCG otherwise.

``/dev/kvm`` answering is not enough. On some hosts KVM_CREATE_VM and KVM_CREATE_VCPU succeed and a
guest still never prints its first line (measured on the machines this project is built on: QEMU 7.2
with ``-cpu host`` aborts setting MSR 0x10a, and with qemu64 the guest hangs before long mode, while
TCG boots the same kernel to its prompt in ~6 s). So the probe guest is booted with KVM once, and
the answer is kept for the host (its kernel, QEMU and who may open /dev/kvm); TCG is chosen with a warning saying why.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
import uuid
import warnings
from pathlib import Path

from cua_bench.backend_kit import BackendError, labels
from cua_bench_libvirt.domains import Domain, Hypervisor, make_overlay
from cua_bench_libvirt.guest import READY_LINE, ProbeGuest

__all__ = ["Accel", "boots", "choose_accel"]

PROBE_TIMEOUT = 30.0  # TCG boots the probe guest in ~6 s on two loaded cores; KVM, where it works, in ~1 s


class Accel(str):
    """``"kvm"`` or ``"tcg"``, with ``why`` it was chosen."""

    why: str

    def __new__(cls, name: str, why: str) -> Accel:
        made = super().__new__(cls, name)
        made.why = why
        return made


def _qemu_version() -> str:
    try:
        done = subprocess.run(
            ["qemu-system-x86_64", "--version"], check=False, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.splitlines()[0] if done.stdout else "unknown"


def boots(hv: Hypervisor, guest: ProbeGuest, folder: Path, accel: str, timeout: float = PROBE_TIMEOUT) -> str | None:
    """Boot the probe guest on ``accel`` in ``folder``: None when it said it was ready within ``timeout``,
    else what happened instead (the serial console stays in ``folder``)."""
    name = f"cua-probe-{uuid.uuid4().hex[:8]}"
    disk, log = folder / f"{name}.qcow2", folder / f"{name}.serial.log"
    make_overlay(guest.base, disk)
    domain = Domain(name, disk, log, guest.kernel, guest.initrd, "console=ttyS0 quiet panic=-1", 256, 1, accel,
                    labels("libvirt"))  # fmt: skip
    try:
        try:
            hv.start(domain)
        except BackendError as exc:
            return str(exc)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if log.exists() and READY_LINE in log.read_text(errors="replace"):
                return None
            if not hv.running(name):
                return f"the guest stopped before it was ready (serial console: {log})"
            time.sleep(0.2)
        size = log.stat().st_size if log.exists() else 0
        return f"no ready line from the guest within {timeout:g} s ({size} bytes on its serial console: {log})"
    finally:
        hv.remove(name)
        disk.unlink(missing_ok=True)


def choose_accel(hv: Hypervisor, guest: ProbeGuest, folder: Path, *, asked: str = "auto") -> Accel:
    """The accelerator for this host's machines: ``asked`` when it is kvm or tcg; with ``auto``, KVM when
    the probe guest boots on it (the answer kept in ``folder`` for this host's kernel and QEMU), else TCG
    with a warning that says why."""
    if asked in ("kvm", "tcg"):
        return Accel(asked, "asked for")
    if asked != "auto":
        raise BackendError(f"accel {asked!r}: give auto, kvm or tcg (--backend-option accel=...)")
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return _tcg("there is no /dev/kvm this user can open")
    device = os.stat("/dev/kvm")  # who may open it: a change (its group given to kvm) asks again
    host = {"kernel": platform.release(), "qemu": _qemu_version(), "uri": hv.uri,
            "kvm": f"{device.st_uid}:{device.st_gid}:{device.st_mode:o}"}  # fmt: skip
    kept = folder / "accel.json"
    try:
        known = json.loads(kept.read_text())
    except (OSError, ValueError):
        known = {}
    if known.get("host") == host:
        verdict = known["accel"]
        return Accel(verdict, known["why"]) if verdict == "kvm" else _tcg(known["why"])
    failed = boots(hv, guest, folder, "kvm")
    verdict, why = ("kvm", "the probe guest booted on KVM") if failed is None else ("tcg", f"KVM answers but {failed}")
    kept.write_text(json.dumps({"host": host, "accel": verdict, "why": why}))
    return Accel(verdict, why) if verdict == "kvm" else _tcg(why)


def _tcg(why: str) -> Accel:
    warnings.warn(f"libvirt: running VMs on TCG (QEMU's emulator, several times slower than KVM): {why}", stacklevel=3)
    return Accel("tcg", why)
