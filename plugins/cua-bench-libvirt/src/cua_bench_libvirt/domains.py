"""One virtual machine as libvirt defines it, and the hypervisor calls of its lifecycle.

A machine is a domain on a qcow2 overlay over a read-only base image: the overlay takes every write,
so the base serves any number of machines and a teardown deletes one file. Its reset is a revert to
a snapshot taken, memory included, when the machine was ready (OSWorld's reset): the guest resumes
where it stood, with no boot. Every domain carries the backend kit's owner labels in its metadata,
so ``prune`` finds the domains a killed run left and removes them with their overlays.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from cua_bench.backend_kit import BACKEND_LABEL, BackendError, stale

__all__ = ["LABELS_NS", "Domain", "Hypervisor", "labels_of", "make_overlay"]

LABELS_NS = "https://github.com/trycua/cua/libvirt"  # the namespace of our labels in a domain's <metadata>
ACCELS = {"kvm": "kvm", "tcg": "qemu"}  # our word for the accelerator -> libvirt's domain type


@dataclass(frozen=True)
class Domain:
    """What libvirt needs to define one machine.

    ``kernel``/``initrd``/``cmdline`` boot a kernel directly (Debian's, from the image's packages);
    ``disk`` is the machine's qcow2 overlay; ``serial_log`` receives the serial console, which is kept
    in the run folder when a boot fails. ``seed`` is a second disk the guest reads its settings from
    (``vdb``): a tar archive in a qcow2 file, since a memory snapshot needs every disk to be qcow2.
    """

    name: str
    disk: Path
    serial_log: Path
    kernel: Path
    initrd: Path
    cmdline: str = "console=ttyS0"
    memory_mib: int = 1024
    vcpus: int = 1
    accel: str = "kvm"
    labels: Mapping[str, str] = field(default_factory=dict)
    forwards: Mapping[int, int] = field(default_factory=dict)  # host loopback port -> guest port
    seed: Path | None = None

    def xml(self) -> str:
        """The domain's XML (``virDomainDefineXML``)."""
        if self.accel not in ACCELS:
            raise ValueError(f"accel {self.accel!r}: give one of {', '.join(ACCELS)}")
        domain = ElementTree.Element("domain", type=ACCELS[self.accel])
        if self.forwards:  # user networking's host forwards are a QEMU argument libvirt 9 has no element for
            domain.set("xmlns:qemu", "http://libvirt.org/schemas/domain/qemu/1.0")
        ElementTree.SubElement(domain, "name").text = self.name
        metadata = ElementTree.SubElement(ElementTree.SubElement(domain, "metadata"), "cua:labels")
        metadata.set("xmlns:cua", LABELS_NS)
        for key, value in sorted(self.labels.items()):
            ElementTree.SubElement(metadata, "cua:label", key=key).text = value
        ElementTree.SubElement(domain, "memory", unit="MiB").text = str(self.memory_mib)
        ElementTree.SubElement(domain, "vcpu").text = str(self.vcpus)
        os_ = ElementTree.SubElement(domain, "os")
        ElementTree.SubElement(os_, "type", arch="x86_64", machine="pc").text = "hvm"
        ElementTree.SubElement(os_, "kernel").text = str(self.kernel)
        ElementTree.SubElement(os_, "initrd").text = str(self.initrd)
        ElementTree.SubElement(os_, "cmdline").text = self.cmdline
        features = ElementTree.SubElement(domain, "features")  # ACPI: without it the guest cannot power off
        ElementTree.SubElement(features, "acpi")
        ElementTree.SubElement(features, "apic")
        # QEMU's default CPU (qemu64) is x86-64-v1, and numpy's wheels need v2 (SSE4.2, POPCNT): the env server
        # died of SIGILL. TCG emulates every feature it can ("maximum"); KVM passes the host's through.
        ElementTree.SubElement(domain, "cpu", mode="maximum" if self.accel == "tcg" else "host-passthrough")
        ElementTree.SubElement(domain, "on_poweroff").text = "destroy"
        ElementTree.SubElement(domain, "on_reboot").text = "destroy"  # a guest that reboots (a panic) is gone
        ElementTree.SubElement(domain, "on_crash").text = "destroy"
        devices = ElementTree.SubElement(domain, "devices")
        disk = ElementTree.SubElement(devices, "disk", type="file", device="disk")
        ElementTree.SubElement(disk, "driver", name="qemu", type="qcow2")
        ElementTree.SubElement(disk, "source", file=str(self.disk))
        ElementTree.SubElement(disk, "target", dev="vda", bus="virtio")
        if self.seed is not None:
            seed = ElementTree.SubElement(devices, "disk", type="file", device="disk")
            ElementTree.SubElement(seed, "driver", name="qemu", type="qcow2")
            ElementTree.SubElement(seed, "source", file=str(self.seed))
            ElementTree.SubElement(seed, "target", dev="vdb", bus="virtio")
        serial = ElementTree.SubElement(devices, "serial", type="file")
        # Appended, not truncated: a revert restarts QEMU's side of it, and the boot's lines must stay.
        ElementTree.SubElement(serial, "source", path=str(self.serial_log), append="on")
        ElementTree.SubElement(serial, "target", port="0")
        console = ElementTree.SubElement(devices, "console", type="file")  # the same port, as virsh console sees it
        ElementTree.SubElement(console, "source", path=str(self.serial_log), append="on")
        ElementTree.SubElement(console, "target", type="serial", port="0")
        ElementTree.SubElement(devices, "memballoon", model="none")
        # The host's entropy: a guest that makes keys or TLS sessions early in its boot must not wait for its own.
        rng = ElementTree.SubElement(devices, "rng", model="virtio")
        ElementTree.SubElement(rng, "backend", model="random").text = "/dev/urandom"
        if self.forwards:
            rules = ",".join(f"hostfwd=tcp:127.0.0.1:{h}-:{g}" for h, g in sorted(self.forwards.items()))
            command = ElementTree.SubElement(domain, "qemu:commandline")
            # A slot of its own at the bus's end: QEMU places a -device argument before libvirt's addresses,
            # so left unplaced it takes slot 2 and the disk that libvirt put there fails to start.
            card = "virtio-net-pci,netdev=cua,bus=pci.0,addr=0x1e"
            for arg in ("-netdev", f"user,id=cua,{rules}", "-device", card):
                ElementTree.SubElement(command, "qemu:arg", value=arg)
        return ElementTree.tostring(domain, encoding="unicode")


def labels_of(xml: str) -> dict[str, str]:
    """The labels a domain's XML carries in our namespace ({} for a domain that is not ours)."""
    root = ElementTree.fromstring(xml)
    return {
        label.get("key", ""): label.text or ""
        for label in root.iterfind(f"metadata/{{{LABELS_NS}}}labels/{{{LABELS_NS}}}label")
    }


def make_overlay(base: Path, overlay: Path) -> None:
    """A qcow2 overlay at ``overlay`` over the read-only ``base`` (which it names by absolute path)."""
    command = ["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", str(base.resolve()), str(overlay)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackendError(f"qemu-img could not make an overlay over {base}: {done.stderr.strip()}")


class Hypervisor:
    """The libvirt calls of a machine's lifecycle, on one connection (``qemu:///system``,
    ``qemu:///session``, or ``test:///default`` for tests)."""

    def __init__(self, uri: str) -> None:
        import libvirt

        libvirt.registerErrorHandler(lambda _context, _error: None, None)  # errors are raised, not printed too
        self.uri = uri
        self._libvirt = libvirt
        try:
            self.conn = libvirt.open(uri)
        except libvirt.libvirtError as exc:
            raise BackendError(
                f"libvirt at {uri} is not reachable ({exc.get_error_message()}); start libvirtd and virtlogd "
                "(`libvirtd -d; virtlogd -d` as root, or your system's service) or give another --backend-option uri="
            ) from exc

    def close(self) -> None:
        self.conn.close()

    def start(self, domain: Domain) -> None:
        """Define ``domain`` and boot it."""
        try:
            defined = self.conn.defineXML(domain.xml())
        except self._libvirt.libvirtError as exc:  # nothing was defined: a domain of that name stays as it was
            raise BackendError(f"libvirt could not define {domain.name}: {exc.get_error_message()}") from exc
        try:
            defined.create()
        except self._libvirt.libvirtError as exc:
            defined.undefineFlags(self._libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA)
            raise BackendError(f"libvirt could not start {domain.name}: {exc.get_error_message()}") from exc

    def snapshot(self, name: str, snapshot: str) -> None:
        """Take ``snapshot`` of the running machine ``name``, its memory included."""
        xml = f"<domainsnapshot><name>{snapshot}</name></domainsnapshot>"
        try:
            self.conn.lookupByName(name).snapshotCreateXML(xml, 0)
        except self._libvirt.libvirtError as exc:
            raise BackendError(f"libvirt could not snapshot {name}: {exc.get_error_message()}") from exc

    def revert(self, name: str, snapshot: str) -> None:
        """Put ``name`` back as it was at ``snapshot``, running: no boot."""
        try:
            dom = self.conn.lookupByName(name)
            dom.revertToSnapshot(dom.snapshotLookupByName(snapshot), self._libvirt.VIR_DOMAIN_SNAPSHOT_REVERT_RUNNING)
        except self._libvirt.libvirtError as exc:
            raise BackendError(f"libvirt could not revert {name} to {snapshot}: {exc.get_error_message()}") from exc

    def running(self, name: str) -> bool:
        try:
            return bool(self.conn.lookupByName(name).isActive())
        except self._libvirt.libvirtError:
            return False

    def remove(self, name: str) -> bool:
        """Destroy and undefine ``name`` with its snapshots' metadata; False when there was none."""
        libvirt = self._libvirt
        try:
            dom = self.conn.lookupByName(name)
        except libvirt.libvirtError:
            return False
        if dom.isActive():
            dom.destroy()
        dom.undefineFlags(libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA)  # no NVRAM: the kernel boots directly
        return True

    def ours(self) -> Iterator[tuple[str, dict[str, str], list[Path]]]:
        """Every domain that carries our backend label: its name, labels and disk files."""
        for dom in self.conn.listAllDomains():
            xml = dom.XMLDesc(0)
            found = labels_of(xml)
            if found.get(BACKEND_LABEL):
                disks = [Path(s.get("file", "")) for s in ElementTree.fromstring(xml).iterfind("devices/disk/source")]
                yield dom.name(), found, [d for d in disks if str(d)]

    def prune(self, backend: str, *, everything: bool = False) -> list[str]:
        """Remove the domains ``backend`` labelled whose owner is gone (all of them with ``everything``),
        and their overlays; the names removed."""
        removed = []
        for name, found, disks in list(self.ours()):
            if found.get(BACKEND_LABEL) != backend or not stale(found, everything=everything):
                continue
            self.remove(name)
            for disk in disks:
                disk.unlink(missing_ok=True)
            removed.append(name)
        return removed
