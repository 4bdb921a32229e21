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
import io
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import zmq.auth

from cua_bench import Backend, BackendError, Computer, Session
from cua_bench.backend_kit import (
    APP_ALIASES,
    BuildResult,
    Capabilities,
    Option,
    hookimpl,
    labels,
    provisioning,
    server_settings,
    wait_ready,
)
from cua_bench_libvirt.accel import Accel, choose_accel
from cua_bench_libvirt.domains import Domain, Hypervisor, make_overlay
from cua_bench_libvirt.guest import probe_guest
from cua_bench_libvirt.image import CMDLINE, build_image, current_image, image_root
from cua_core import Register, load_or_create_keypair

__all__ = ["GUEST_PORT", "SNAPSHOT", "LibvirtBackend"]

GUEST_PORT = 5555  # the env server's port on the guest's side of QEMU's user network
SNAPSHOT = "ready"  # the memory snapshot every reset reverts to
ENV_ROOT_IN_GUEST = "/var/lib/cua/env"  # the env server's folders: off the /tmp its reset empties
SERIAL_TAIL = 40  # lines of the serial console an error quotes
TCG_TIMEOUT_SCALE = "6"  # QEMU's emulator against a host CPU, with room for a loaded host


def default_uri() -> str:
    """root's machines are the system's; anyone else's are their own (no root needed)."""
    return "qemu:///system" if os.geteuid() == 0 else "qemu:///session"


class LibvirtBackend(Backend):
    name = "libvirt"
    # The local backend's desktop, with real root (the env server is root in its own machine) and snapshots.
    capabilities = Capabilities(
        os="linux", shell=True, root=True, browser=True, apps=frozenset(APP_ALIASES), snapshots=True
    )
    options = (
        Option("uri", str, "", "the libvirt connection (empty: qemu:///system as root, qemu:///session "
               "otherwise)", "CUA_LIBVIRT_URI"),
        Option("images", str, "", "the folder of images and machines (empty: /var/lib/libvirt/images/cua-bench "
               "for qemu:///system, ~/.local/share/cua-bench/libvirt otherwise); QEMU's user must reach it",
               "CUA_LIBVIRT_IMAGES"),
        Option("variant", Literal["default"], "default", "the image machines boot (cua-bench image build libvirt)",
               "CUA_LIBVIRT_VARIANT"),
        Option("memory", int, 2048, "each machine's memory in MiB", "CUA_LIBVIRT_MEMORY"),
        Option("cpus", int, 2, "each machine's virtual CPUs", "CUA_LIBVIRT_CPUS"),
        Option("accel", Literal["auto", "kvm", "tcg"], "auto", "auto: KVM where a probe guest boots on it, "
               "else TCG (with a warning); kvm or tcg to choose", "CUA_LIBVIRT_ACCEL"),
        Option("boot_timeout", float, 600.0, "seconds a machine may take from power-on to its env server "
               "answering (TCG on a loaded host takes minutes)", "CUA_LIBVIRT_BOOT_TIMEOUT"),
    )  # fmt: skip

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        """Inside a Windows guest (``--backend libvirt`` there), the Windows desktop's session; a Linux guest's
        server serves ``--backend local``, so anywhere else this is an error."""
        if sys.platform == "win32":
            from cua_bench_libvirt.windows import CtypesApi, WindowsSession

            return WindowsSession(CtypesApi(), width=width, height=height)
        raise BackendError(
            "the libvirt backend's session runs inside a Windows guest; Linux guests serve --backend local"
        )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.uri = self.option("uri") or default_uri()
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
        variant = self.option("variant")
        image = current_image(self.root, variant)
        if image is None:
            raise BackendError(
                f"no libvirt image {variant!r} under {self.root}: build it with `cua-bench image build libvirt` "
                "(as root for qemu:///system)"
            )
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
            keys = _seed(folder / "seed.qcow2", width, height, load_or_create_keypair().public.decode(), accel)
            port = _free_port()
            domain = Domain(
                name, folder / "disk.qcow2", folder / "serial.log", image.kernel, image.initrd, CMDLINE,
                self.option("memory"), self.option("cpus"), str(accel), labels(self.name, self.run_id),
                {port: GUEST_PORT}, folder / "seed.qcow2",
            )  # fmt: skip
            self.hypervisor.start(domain)
            undo.callback(self.hypervisor.remove, name)
            computer = Computer(
                self.name, f"tcp://127.0.0.1:{port}", width, height, None,
                {"server_key": keys, "domain": name, "serial": str(folder / "serial.log"), "accel": str(accel)},
            )  # fmt: skip
            self._wait(computer, max(timeout, self.option("boot_timeout")), "boot")
            self.hypervisor.snapshot(name, SNAPSHOT)
        return computer

    def _wait(self, computer: Computer, timeout: float, what: str) -> None:
        """Until the guest's server answers; a machine that stops or stays silent is an error ending with its
        serial console, which is also kept in the run folder."""
        name = computer.info["domain"]
        try:
            wait_ready(
                lambda: self.health(computer, timeout=5.0),
                lambda: None if self.hypervisor.running(name) else "the machine powered off",
                timeout=timeout,
                what=f"machine {name} ({computer.info['accel']})",
                detail=lambda: f"its serial console ends:\n{_tail(Path(computer.info['serial']))}",
                interval=1.0,
            )
        except BackendError:
            self._keep_serial(computer, what)
            raise

    def _keep_serial(self, computer: Computer, what: str) -> None:
        if self.run_dir is None:
            return
        kept = Path(self.run_dir) / "machines" / f"{computer.info['domain']}.{what}.serial.log"
        kept.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # no console was written (it never started): the error says why
            shutil.copy(computer.info["serial"], kept)

    def restore(self, computer: Computer) -> None:
        """Revert to the snapshot taken when the server first answered, memory included: no boot."""
        self.hypervisor.revert(computer.info["domain"], SNAPSHOT)
        self._wait(computer, self.option("boot_timeout"), "revert")

    def failure(self, computer: Computer) -> str | None:
        name = computer.info.get("domain", "")
        if self.hypervisor.running(name):
            return None
        return f"the machine {name} is off; its serial console ends:\n{_tail(Path(computer.info['serial']))}"

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


def _free_port() -> int:
    """A port free on the host's loopback now, for QEMU to forward (it binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _tail(log: Path, lines: int = SERIAL_TAIL) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "(nothing was written)"
    return "\n".join(text.replace("\r", "").splitlines()[-lines:]) or "(empty)"


def _seed(out: Path, width: int, height: int, allow: str, accel: str) -> str:
    """The guest's settings disk (``seed.qcow2``): a tar archive of ``env`` (what init.sh sources) and the
    machine's CURVE key pair, made here. Returns the public key, which clients check the server by."""
    with tempfile.TemporaryDirectory() as scratch:
        public_file, secret_file = zmq.auth.create_certificates(scratch, "default")
        public = zmq.auth.load_certificate(public_file)[0].decode()
        settings = {
            "CUA_GUEST_PORT": str(GUEST_PORT), "CUA_GUEST_ALLOW": allow, "CUA_GUEST_WIDTH": str(width),
            "CUA_GUEST_HEIGHT": str(height), "CUA_CONFIG_DIR": "/run/cua/config",
            # The desktop's timeouts are sized for a host CPU: openbox took over 10 s to start on TCG under load.
            # The host's own scale, where it set one, wins.
            "CUA_LOCAL_TIMEOUT_SCALE": os.environ.get(
                "CUA_LOCAL_TIMEOUT_SCALE", TCG_TIMEOUT_SCALE if accel == "tcg" else "1"
            ),
        }  # fmt: skip
        settings |= server_settings(ENV_ROOT_IN_GUEST, folders=False)  # a machine sees none of the host's folders
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            _add(tar, "env", "".join(f"{key}={shlex.quote(value)}\n" for key, value in settings.items()).encode())
            _add(tar, "config/keys/default.key", Path(public_file).read_bytes())
            _add(tar, "config/keys/default.key_secret", Path(secret_file).read_bytes(), 0o600)
        raw = Path(scratch) / "seed.tar"
        raw.write_bytes(archive.getvalue())
        argv = ["qemu-img", "convert", "-q", "-f", "raw", "-O", "qcow2", str(raw), str(out)]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BackendError(f"qemu-img could not make the machine's settings disk: {done.stderr.strip()}")
        out.chmod(0o600)
    return public


def _add(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("libvirt", LibvirtBackend)
