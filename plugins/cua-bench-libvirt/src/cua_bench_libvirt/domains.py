"""One virtual machine as libvirt defines it, and the hypervisor calls of its lifecycle.

A machine is a domain on a qcow2 overlay over a read-only base image: the overlay takes every write,
so the base serves any number of machines and a teardown deletes one file. Its reset is a revert to
a snapshot taken, memory included, when the machine was ready (OSWorld's reset): the guest resumes
where it stood, with no boot. Every domain carries the backend kit's owner labels in its metadata,
so ``prune`` finds the domains a killed run left and removes them with their overlays.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from cua_bench.backend_kit import BACKEND_LABEL, BackendError, stale

__all__ = ["LABELS_NS", "Domain", "Hypervisor", "labels_of", "make_overlay"]

LABELS_NS = "https://github.com/trycua/cua/libvirt"  # the namespace of our labels in a domain's <metadata>
ACCELS = {"kvm": "kvm", "tcg": "qemu"}  # our word for the accelerator -> libvirt's domain type
DESTROY_TRIES = 4  # each of libvirt's destroys waits ~15 s for QEMU to die


@dataclass(frozen=True)
class Domain:
    """What libvirt needs to define one machine.

    ``kernel``/``initrd``/``cmdline`` boot a kernel directly (Debian's, from the image's packages);
    ``disk`` is the machine's qcow2 overlay; ``serial_log`` receives the serial console, which is kept
    in the run folder when a boot fails. ``seed`` is a second disk the guest reads its settings from
    (``vdb``): a tar archive in a qcow2 file, since a memory snapshot needs every writable disk to be qcow2.

    ``windows`` lays the machine out as Windows' own drivers need it, since a Windows image has no
    virtio drivers unless its user added them: it boots its disk through SeaBIOS (no kernel), on SATA,
    with an e1000e card, a VGA screen and a clock in local time; ``seed`` is then an ISO on a SATA
    CD-ROM (Windows reads no tar), which a memory snapshot skips as read-only. Setup and updates
    restart Windows, so a reboot restarts the machine rather than ending it.
    """

    name: str
    disk: Path
    serial_log: Path
    kernel: Path | None
    initrd: Path | None
    cmdline: str = "console=ttyS0"
    memory_mib: int = 1024
    vcpus: int = 1
    accel: str = "kvm"
    labels: Mapping[str, str] = field(default_factory=dict)
    forwards: Mapping[int, int] = field(default_factory=dict)  # host loopback port -> guest port
    seed: Path | None = None
    listen: str = "127.0.0.1"  # the host address the forwarded ports bind
    windows: bool = False
    cdroms: tuple[Path, ...] = ()  # more read-only drives (Windows' install media and the kit)

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
        if self.windows:
            ElementTree.SubElement(os_, "boot", dev="hd")
            ElementTree.SubElement(os_, "boot", dev="cdrom")  # an empty disk: Setup from the install media
        else:
            if self.kernel is None or self.initrd is None:
                raise ValueError(f"domain {self.name}: a Linux machine boots a kernel and initrd directly; give both")
            ElementTree.SubElement(os_, "kernel").text = str(self.kernel)
            ElementTree.SubElement(os_, "initrd").text = str(self.initrd)
            ElementTree.SubElement(os_, "cmdline").text = self.cmdline
        features = ElementTree.SubElement(domain, "features")  # ACPI: without it the guest cannot power off
        ElementTree.SubElement(features, "acpi")
        ElementTree.SubElement(features, "apic")
        if self.windows and self.accel == "kvm":  # Hyper-V's enlightenments are KVM's to give; TCG has none
            hyperv = ElementTree.SubElement(features, "hyperv", mode="custom")
            for name in ("relaxed", "vapic"):
                ElementTree.SubElement(hyperv, name, state="on")
            ElementTree.SubElement(hyperv, "spinlocks", state="on", retries="8191")
        # QEMU's default CPU (qemu64) is x86-64-v1, and numpy's wheels need v2 (SSE4.2, POPCNT): the env server
        # died of SIGILL. TCG emulates every feature it can ("maximum"); KVM passes the host's through.
        ElementTree.SubElement(domain, "cpu", mode="maximum" if self.accel == "tcg" else "host-passthrough")
        if self.windows:  # Windows keeps the hardware clock in local time
            ElementTree.SubElement(domain, "clock", offset="localtime")
        ElementTree.SubElement(domain, "on_poweroff").text = "destroy"
        # A Linux guest that reboots panicked, and is gone; Windows restarts during Setup and updates.
        ElementTree.SubElement(domain, "on_reboot").text = "restart" if self.windows else "destroy"
        ElementTree.SubElement(domain, "on_crash").text = "destroy"
        devices = ElementTree.SubElement(domain, "devices")
        bus = "sata" if self.windows else "virtio"
        self._disk(devices, self.disk, "sda" if self.windows else "vda", bus)
        if self.seed is not None:
            self._disk(devices, self.seed, "sdb" if self.windows else "vdb", bus, cdrom=self.windows)
        for index, drive in enumerate(self.cdroms):
            self._disk(devices, drive, f"sd{chr(ord('c') + index)}", "sata", cdrom=True)
        serial = ElementTree.SubElement(devices, "serial", type="file")
        # Appended, not truncated: a revert restarts QEMU's side of it, and the boot's lines must stay.
        ElementTree.SubElement(serial, "source", path=str(self.serial_log), append="on")
        ElementTree.SubElement(serial, "target", port="0")
        console = ElementTree.SubElement(devices, "console", type="file")  # the same port, as virsh console sees it
        ElementTree.SubElement(console, "source", path=str(self.serial_log), append="on")
        ElementTree.SubElement(console, "target", type="serial", port="0")
        if self.windows:  # Windows draws on the machine's own screen (the Linux guest's desktop is Xvfb)
            ElementTree.SubElement(ElementTree.SubElement(devices, "video"), "model", type="vga")
        ElementTree.SubElement(devices, "memballoon", model="none")
        # The host's entropy: a guest that makes keys or TLS sessions early in its boot must not wait for its own.
        rng = ElementTree.SubElement(devices, "rng", model="virtio")
        ElementTree.SubElement(rng, "backend", model="random").text = "/dev/urandom"
        if self.forwards:
            rules = ",".join(f"hostfwd=tcp:{self.listen}:{h}-:{g}" for h, g in sorted(self.forwards.items()))
            command = ElementTree.SubElement(domain, "qemu:commandline")
            # A slot of its own at the bus's end: QEMU places a -device argument before libvirt's addresses,
            # so left unplaced it takes slot 2 and the disk that libvirt put there fails to start.
            card = f"{'e1000e' if self.windows else 'virtio-net-pci'},netdev=cua,bus=pci.0,addr=0x1e"
            for arg in ("-netdev", f"user,id=cua,{rules}", "-device", card):
                ElementTree.SubElement(command, "qemu:arg", value=arg)
        return ElementTree.tostring(domain, encoding="unicode")

    @staticmethod
    def _disk(devices: ElementTree.Element, file: Path, dev: str, bus: str, *, cdrom: bool = False) -> None:
        disk = ElementTree.SubElement(devices, "disk", type="file", device="cdrom" if cdrom else "disk")
        ElementTree.SubElement(disk, "driver", name="qemu", type="raw" if cdrom else "qcow2")
        ElementTree.SubElement(disk, "source", file=str(file))
        ElementTree.SubElement(disk, "target", dev=dev, bus=bus)
        if cdrom:
            ElementTree.SubElement(disk, "readonly")


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

    def screenshot(self, name: str, out: Path) -> Path | None:
        """The machine's screen as QEMU draws it, written beside ``out`` with the suffix of its format (QEMU 7
        writes PPM); None when the machine has no screen or is off. A Windows boot says nothing on the serial
        console, so its screen is what shows why it did not come up."""
        libvirt = self._libvirt
        data = bytearray()
        try:
            stream = self.conn.newStream(0)
            mime = self.conn.lookupByName(name).screenshot(stream, 0, 0)
            stream.recvAll(lambda _stream, chunk, sink: sink.extend(chunk), data)
            stream.finish()
        except libvirt.libvirtError:
            return None
        written = out.with_suffix(".png" if mime == "image/png" else ".ppm")
        written.write_bytes(bytes(data))
        return written

    def shutdown(self, name: str, timeout: float) -> None:
        """Ask ``name`` to power off (ACPI's power button, as a person presses it) and wait until it is off."""
        try:
            self.conn.lookupByName(name).shutdown()
        except self._libvirt.libvirtError as exc:
            raise BackendError(f"libvirt could not ask {name} to shut down: {exc.get_error_message()}") from exc
        deadline = time.monotonic() + timeout
        while self.running(name):
            if time.monotonic() > deadline:
                raise BackendError(f"machine {name} did not power off within {timeout:g} s of being asked to")
            time.sleep(1.0)

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
        # libvirt gives up on a QEMU that takes over its ~15 s to die after SIGKILL ("Device or resource busy":
        # a process in uninterruptible I/O on a loaded host); it dies in the end, so ask again before failing.
        for attempt in range(DESTROY_TRIES):
            if not dom.isActive():
                break
            try:
                dom.destroy()
            except libvirt.libvirtError:
                if dom.isActive() and attempt == DESTROY_TRIES - 1:
                    raise  # a machine powering off by itself meanwhile is off now: undefined all the same
        dom.undefineFlags(libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA)  # no NVRAM: SeaBIOS or a direct kernel
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
