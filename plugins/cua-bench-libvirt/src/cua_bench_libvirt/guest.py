"""The probe guest: the smallest machine that shows whether this host boots a VM, and how.

Debian's kernel and a busybox initramfs whose init says ``cua-guest: ready`` on the serial console
and then a numbered tick each second. Built from Debian's packages only (``apt-get download``), and
cached. It answers two questions no capability flag does: whether QEMU really boots with KVM here
(``accel.choose``: ``/dev/kvm`` can answer KVM_CREATE_VM and still never run a guest to its first
line), and whether a revert restores memory (the tick count goes back, and no second boot line).
"""

from __future__ import annotations

import stat
import subprocess
import tempfile
from pathlib import Path

from cua_bench.backend_kit import BackendError

__all__ = ["READY_LINE", "ProbeGuest", "newc", "probe_guest"]

READY_LINE = "cua-guest: ready"
KERNEL_PACKAGE = "linux-image-amd64"  # Debian's meta-package: it names the kernel of the day
BUSYBOX_PACKAGE = "busybox-static"

INIT = f"""#!/bin/busybox sh
/bin/busybox mkdir -p /proc /dev
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t devtmpfs dev /dev
echo "{READY_LINE}"
i=0
while true; do i=$((i+1)); echo "cua-guest: tick $i"; /bin/busybox sleep 1; done
"""


class ProbeGuest:
    """The probe guest's kernel and initramfs, and an empty base disk to put overlays on (QEMU keeps
    a snapshot's memory in the machine's qcow2 disk, so even this guest has one)."""

    def __init__(self, kernel: Path, initrd: Path, base: Path) -> None:
        self.kernel, self.initrd, self.base = kernel, initrd, base


def newc(entries: list[tuple[str, int, bytes]]) -> bytes:
    """An initramfs: the ``(path, mode, data)`` entries as a cpio archive in the kernel's "newc" form."""
    out = bytearray()
    for number, (name, mode, data) in enumerate([*entries, ("TRAILER!!!", 0, b"")], start=1):
        encoded = name.encode() + b"\0"
        fields = [number, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0]
        out += b"070701" + "".join(f"{value:08x}" for value in fields).encode() + encoded
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def _download(package: str, folder: Path) -> Path:
    """``package``'s .deb from the host's Debian mirror (its dependency, for a meta-package)."""
    found = sorted(folder.glob(f"{package}_*.deb"))
    if found:
        return found[-1]
    done = subprocess.run(["apt-get", "download", package], cwd=folder, capture_output=True, text=True, check=False)
    found = sorted(folder.glob(f"{package}_*.deb"))
    if done.returncode != 0 or not found:
        raise BackendError(f"apt-get download {package} failed: {done.stderr.strip()[-300:]} (is this Debian?)")
    return found[-1]


def _extract(deb: Path, folder: Path) -> None:
    subprocess.run(["dpkg-deb", "-x", str(deb), str(folder)], check=True, capture_output=True)


def probe_guest(cache: Path) -> ProbeGuest:
    """The probe guest under ``cache`` (built on first use: two Debian packages, about 70 MB)."""
    cache.mkdir(parents=True, exist_ok=True)
    kernel, initrd, base = cache / "vmlinuz", cache / "initrd.cpio", cache / "base.qcow2"
    if not (kernel.is_file() and initrd.is_file() and base.is_file()):
        with tempfile.TemporaryDirectory(dir=cache) as scratch:
            work = Path(scratch)
            meta = _download(KERNEL_PACKAGE, work)
            depends = subprocess.run(
                ["dpkg-deb", "-f", str(meta), "Depends"], capture_output=True, text=True, check=True
            )
            image = depends.stdout.split(",")[0].split()[0]  # linux-image-6.1.0-NN-amd64
            _extract(_download(image, work), work / "kernel")
            _extract(_download(BUSYBOX_PACKAGE, work), work / "busybox")
            (vmlinuz,) = (work / "kernel" / "boot").glob("vmlinuz-*")
            busybox = (work / "busybox" / "bin" / "busybox").read_bytes()
            entries = [
                ("bin", stat.S_IFDIR | 0o755, b""),
                ("bin/busybox", stat.S_IFREG | 0o755, busybox),
                ("init", stat.S_IFREG | 0o755, INIT.encode()),
            ]
            initrd.write_bytes(newc(entries))
            kernel.write_bytes(vmlinuz.read_bytes())
        done = subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", str(base), "64M"], check=False, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise BackendError(f"qemu-img could not make {base}: {done.stderr.strip()}")
        for path in (kernel, initrd, base):
            path.chmod(0o644)  # QEMU under qemu:///system runs as its own user: it reads them
    return ProbeGuest(kernel, initrd, base)
