"""The ``libvirt`` backend: each environment is a virtual machine running the local desktop and the env server.

The guest boots Debian's kernel directly from the image ``cua-bench image build libvirt`` made, on a
qcow2 overlay of its own. Its init starts the same env server (``--backend local``) the docker backend
runs, so tasks and rewards are the same; what a VM adds is a kernel of its own, real root and system
services. The server listens on the guest's side of QEMU's user network, and the host reaches it over
a forwarded port on its own loopback, with CURVE: the machine's key pair is made on the host and
handed to the guest on a second disk with its other settings, so the host never trusts a key the
guest announces, and no other user of the host can drive the desktop through the port.

Reset: once the server first answers, the machine is snapshotted with its memory; before every
episode after the first, ``restore`` reverts to it (OSWorld's reset: no boot, and nothing an episode
did to the kernel, services or system files survives). A boot that fails or stays silent past
``boot_timeout`` is an error whose message ends with the serial console, and the console is kept in
the run folder. Machines carry the kit's owner labels; ``prune`` removes those of killed runs.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import socket
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from cua_bench import Backend, BackendError, Computer, Session
from cua_bench.backend_kit import (
    APP_ALIASES,
    BuildResult,
    Capabilities,
    Option,
    hookimpl,
    labels,
    provisioning,
    wait_ready,
)
from cua_bench_libvirt.accel import Accel, choose_accel
from cua_bench_libvirt.domains import Domain, Hypervisor, make_overlay
from cua_bench_libvirt.guest import probe_guest
from cua_bench_libvirt.image import CMDLINE, GuestImage, build_image, current_image, image_root
from cua_bench_libvirt.seed import GUEST_PORT, seed_files, tar_disk
from cua_core import Register, SecurityError, check_public_key, load_or_create_keypair

__all__ = ["GUEST_PORT", "SNAPSHOT", "LibvirtBackend"]

SNAPSHOT = "ready"  # the memory snapshot every reset reverts to
SERIAL_TAIL = 40  # lines of the serial console an error quotes
Z85 = frozenset(
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
)  # a key's alphabet


def default_uri() -> str:
    """root's machines are the system's; anyone else's are their own (no root needed)."""
    return "qemu:///system" if os.geteuid() == 0 else "qemu:///session"


class LibvirtBackend(Backend):
    name = "libvirt"
    # The local backend's desktop, with real root (the env server is root in its own machine) and snapshots.
    capabilities = Capabilities(
        os="linux", shell=True, root=True, browser=True, apps=frozenset(APP_ALIASES), snapshots=True
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option("uri", str, "", "the libvirt connection (empty: qemu:///system as root, qemu:///session "
               "otherwise)", "CUA_LIBVIRT_URI"),
        Option("images", str, "", "the folder of images and machines (empty: /var/lib/libvirt/images/cua-bench "
               "for qemu:///system, ~/.local/share/cua-bench/libvirt otherwise); QEMU's user must reach it",
               "CUA_LIBVIRT_IMAGES"),
        Option("variant", Literal["default", "osworld"], "default", "the image machines boot (cua-bench image "
               "build libvirt --variant NAME): default, or osworld (OSWorld's computer and apps; 4096 MiB advised)",
               "CUA_LIBVIRT_VARIANT"),
        Option("memory", int, 2048, "each machine's memory in MiB", "CUA_LIBVIRT_MEMORY"),
        Option("cpus", int, 2, "each machine's virtual CPUs", "CUA_LIBVIRT_CPUS"),
        Option("accel", Literal["auto", "kvm", "tcg"], "auto", "auto: KVM where a probe guest boots on it, "
               "else TCG (with a warning); kvm or tcg to choose", "CUA_LIBVIRT_ACCEL"),
        Option("listen", str, "127.0.0.1", "the host's IPv4 address machines' env servers are reached at (their "
               "forwarded ports bind it); beyond loopback, CURVE alone guards them", "CUA_LIBVIRT_LISTEN"),
        Option("allow", str, "", "another client key (Z85, 40 characters) machines' servers answer besides this "
               "user's own (`cua-bus keys show`), which readiness and restore use", "CUA_LIBVIRT_ALLOW"),
        Option("boot_timeout", float, 600.0, "seconds a machine may take from power-on to its env server "
               "answering (TCG on a loaded host takes minutes)", "CUA_LIBVIRT_BOOT_TIMEOUT"),
    )  # fmt: skip

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        """A Linux guest's server serves the local backend's session (``--backend local``): none of its own."""
        raise BackendError(
            "the libvirt backend's guests serve --backend local; Windows guests serve --backend libvirt-windows"
        )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.uri = self.option("uri") or default_uri()
        try:
            self.listen = str(ipaddress.IPv4Address(self.option("listen")))
        except ValueError:
            raise BackendError(
                f"listen={self.option('listen')!r} is not an IPv4 address of this host (QEMU forwards IPv4 only): "
                "give one such as 127.0.0.1"
            ) from None
        self.allow = self.option("allow")
        if self.allow:
            try:
                check_public_key(self.allow)
            except SecurityError:
                raise BackendError(
                    f"allow={self.allow!r} is not a CURVE public key (40 Z85 characters, `cua-bus keys show`)"
                ) from None
        self.root = Path(self.option("images")) if self.option("images") else image_root(self.uri)
        self._hypervisor: Hypervisor | None = None
        self._accel: Accel | None = None

    @property
    def hypervisor(self) -> Hypervisor:
        if self._hypervisor is None:
            self._hypervisor = Hypervisor(self.uri)
        return self._hypervisor

    def accel(self) -> Accel:
        """KVM or TCG for this host (the probe's verdict is kept per host kernel and QEMU)."""
        if self._accel is None:
            probes = self.root / "probe"
            self._accel = choose_accel(self.hypervisor, probe_guest(probes), probes, asked=self.option("accel"))
        return self._accel

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        image = self.image()
        accel = self.accel()
        name = f"cua-env-{uuid.uuid4().hex[:12]}"
        folder = self.root / "machines" / name
        with provisioning() as undo:
            # QEMU's user (qemu:///system) enters it to reach the disks but lists nothing; libvirt hands it the
            # disks themselves while the machine runs, so the seed's secret key stays private to root and QEMU.
            folder.mkdir(parents=True, mode=0o711)
            folder.chmod(0o711)  # whatever the umask
            undo.callback(shutil.rmtree, folder, ignore_errors=True)
            make_overlay(image.base, folder / "disk.qcow2")
            # This user's key always: readiness and restore ping the server from here; and ``allow``'s beside it.
            allow = list(dict.fromkeys([load_or_create_keypair().public.decode(), *filter(None, [self.allow])]))
            public, files = seed_files(width, height, allow, accel, computer=bool(image.info.get("computer")))
            seed = self.write_seed(folder, files)
            port = free_port(self.listen)
            domain = self.domain(name, folder, image, seed, accel, {port: GUEST_PORT})
            self.hypervisor.start(domain)
            undo.callback(self.hypervisor.remove, name)
            computer = Computer(
                self.name, f"tcp://{self.listen}:{port}", width, height, None,
                {"server_key": public, "domain": name, "serial": str(folder / "serial.log"), "accel": str(accel)},
            )  # fmt: skip
            self._wait(computer, max(timeout, self.option("boot_timeout")), "boot")
            self.hypervisor.snapshot(name, SNAPSHOT)
        return computer

    def image(self) -> GuestImage:
        """The current build of the variant machines boot; an error naming how to build it where there is none."""
        variant = self.option("variant")
        image = current_image(self.root, variant)
        if image is None:
            raise BackendError(
                f"no libvirt image {variant!r} under {self.root}: build it with `cua-bench image build libvirt"
                f"{'' if variant == 'default' else ' --variant ' + variant}` "
                "(as root for qemu:///system)"
            )
        return image

    def write_seed(self, folder: Path, files: dict[str, tuple[bytes, int]]) -> Path:
        """The guest's settings drive: a tar archive in a qcow2 disk, which init.sh unpacks."""
        return tar_disk(folder / "seed.qcow2", files)

    def domain(
        self, name: str, folder: Path, image: GuestImage, seed: Path, accel: Accel, forwards: dict[int, int]
    ) -> Domain:
        return Domain(
            name, folder / "disk.qcow2", folder / "serial.log", image.kernel, image.initrd, CMDLINE,
            self.option("memory"), self.option("cpus"), str(accel), labels(self.name, self.run_id), forwards, seed,
            self.listen,
        )  # fmt: skip

    def _wait(self, computer: Computer, timeout: float, what: str) -> None:
        """Until the guest's server answers; a machine that stops or stays silent is an error saying what the
        machine showed (``evidence``), which is also kept in the run folder."""
        name = computer.info["domain"]
        wait_ready(
            lambda: self.health(computer, timeout=5.0),
            lambda: None if self.hypervisor.running(name) else "the machine powered off",
            timeout=timeout,
            what=f"machine {name} ({computer.info['accel']})",
            detail=lambda: self.evidence(computer, what),
            interval=1.0,
        )

    def evidence(self, computer: Computer, what: str) -> str:
        """What shows why ``computer`` did not come up: its serial console's end, which is also kept in the run
        folder."""
        if self.run_dir is not None:
            kept = Path(self.run_dir) / "machines" / f"{computer.info['domain']}.{what}.serial.log"
            kept.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # no console was written (it never started): the error says why
                shutil.copy(computer.info["serial"], kept)
        return f"its serial console ends:\n{_tail(Path(computer.info['serial']))}"

    def restore(self, computer: Computer) -> None:
        """Revert to the snapshot taken when the server first answered, memory included: no boot."""
        self.hypervisor.revert(computer.info["domain"], SNAPSHOT)
        self._wait(computer, self.option("boot_timeout"), "revert")

    def failure(self, computer: Computer) -> str | None:
        name = computer.info.get("domain", "")
        if self.hypervisor.running(name):
            return None
        return f"the machine {name} is off; {self.evidence(computer, 'stop')}"

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        name = computer.info["domain"]
        try:
            self.hypervisor.remove(name)
        finally:
            shutil.rmtree(self.root / "machines" / name, ignore_errors=True)

    def prune(self, *, everything: bool = False) -> list[str]:
        """Remove machines of ours whose owner process is gone (all of ours with ``everything``), and their files."""
        removed = self.hypervisor.prune(self.name, everything=everything)
        for name in removed:
            shutil.rmtree(self.root / "machines" / name, ignore_errors=True)
        return removed

    def build_image(
        self, *, rebuild_base: bool = False, variant: str | None = None, log: Callable[[str], None] = print
    ) -> BuildResult:
        return build_image(self.root, variant=variant or self.option("variant"), rebuild_base=rebuild_base, log=log)


def free_port(address: str = "127.0.0.1") -> int:
    """A port free on ``address`` now, for QEMU to forward (it binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind((address, 0))
        port: int = probe.getsockname()[1]
        return port


def _tail(log: Path, lines: int = SERIAL_TAIL) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "(nothing was written)"
    return "\n".join(text.replace("\r", "").splitlines()[-lines:]) or "(empty)"


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    from cua_bench_libvirt.windows.machines import LibvirtWindowsBackend  # it builds on this module

    register("libvirt", LibvirtBackend)
    register("libvirt-windows", LibvirtWindowsBackend)
