"""``libvirt-windows``: Windows machines from the user's own Windows, each on an overlay of one image.

The image is made once, by ``cua-bench image build libvirt-windows --backend-option media=PATH``:

- from the user's **install ISO** and a kit folder (``windows_kit``; ``kit=FOLDER``): a machine boots the
  media with the kit's drive and a settings drive beside it; Setup runs from the kit's answer file,
  firstboot.ps1 installs Python and the env server, and the build waits until that server answers over
  CURVE (the proof that the image works), then powers the machine off: its disk is the image;
- from a **qcow2** of a Windows already made a guest with the kit (by hand, or on another host): copied,
  flattened, as the image.

A machine is then the Linux backend's, laid out for Windows' own drivers (``Domain(windows=True)``: SATA,
e1000e, a VGA screen, SeaBIOS) with its settings on an ISO. Reset is the same memory snapshot revert.
Windows says nothing on a serial console: a machine that does not come up has its screen kept instead.
None of this has booted Windows here (no Windows image can be fetched): see the plugin's README.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cua_bench import BackendError, Computer, Session
from cua_bench.backend_kit import BuildResult, Capabilities, Option, labels, wait_ready
from cua_bench_libvirt.accel import Accel
from cua_bench_libvirt.backend import LibvirtBackend, free_port
from cua_bench_libvirt.domains import Domain
from cua_bench_libvirt.image import GuestImage, current_image, new_build
from cua_bench_libvirt.seed import GUEST_PORT, iso_drive, seed_files
from cua_bench_libvirt.windows.kit import kit_iso
from cua_bench_libvirt.windows.session import APPS
from cua_core import load_or_create_keypair

__all__ = ["VARIANT", "LibvirtWindowsBackend", "media_kind"]

VARIANT = "windows"  # the image's folder under images/
ISO_MAGIC = (0x8001, b"CD001")
SHARED_OPTIONS = (
    "uri",
    "images",
    "cpus",
    "accel",
    "listen",
    "allow",
)  # the Linux machines' own, as they are  # ISO 9660's volume descriptor: where, and what


def media_kind(path: Path) -> str:
    """``"iso"`` (install media) or ``"qcow2"`` (a provisioned disk); BackendError for anything else."""
    if not path.is_file():
        raise BackendError(
            f"media {path}: no such file; give a Windows install ISO or a qcow2 of a provisioned Windows"
        )
    with path.open("rb") as file:
        head = file.read(ISO_MAGIC[0] + len(ISO_MAGIC[1]))
    if head[:4] == b"QFI\xfb":
        return "qcow2"
    if head[ISO_MAGIC[0] :] == ISO_MAGIC[1]:
        return "iso"
    raise BackendError(
        f"media {path} is neither an ISO 9660 image nor a qcow2 disk: give Windows' install ISO (with kit=FOLDER), "
        "or a qcow2 of a Windows provisioned with the kit (`qemu-img convert -O qcow2` makes one of any disk)"
    )


class LibvirtWindowsBackend(LibvirtBackend):
    name = "libvirt-windows"
    # browser: False, since Cua's HTML windows need the Chromium the Linux desktop drives; apps: the session's.
    capabilities = Capabilities(os="windows", shell=True, root=True, apps=frozenset(APPS), snapshots=True)
    options = (
        *(option for option in LibvirtBackend.options if option.name in SHARED_OPTIONS),
        Option("memory", int, 4096, "each machine's memory in MiB (Windows 10 and 11 want 4096)",
               "CUA_LIBVIRT_WINDOWS_MEMORY"),
        Option("boot_timeout", float, 3600.0, "seconds a machine may take from power-on to its env server "
               "answering (Windows on TCG boots in many minutes)", "CUA_LIBVIRT_WINDOWS_BOOT_TIMEOUT"),
        Option("media", str, "", "image build: Windows' install ISO (with kit), or a qcow2 of a Windows "
               "already provisioned with the kit", "CUA_LIBVIRT_WINDOWS_MEDIA"),
        Option("kit", str, "", "image build from an ISO: the folder windows_kit wrote", "CUA_LIBVIRT_WINDOWS_KIT"),
        Option("disk_gib", int, 64, "image build from an ISO: the Windows disk's size in GiB",
               "CUA_LIBVIRT_WINDOWS_DISK_GIB"),
        Option("install_timeout", float, 6 * 3600.0, "image build from an ISO: seconds Setup and first boot "
               "may take until the env server answers", "CUA_LIBVIRT_WINDOWS_INSTALL_TIMEOUT"),
    )  # fmt: skip

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        """Inside the Windows guest (start-server.ps1 serves ``--backend libvirt-windows``): the Windows session."""
        if sys.platform == "win32":
            from cua_bench_libvirt.windows import CtypesApi, WindowsSession

            return WindowsSession(CtypesApi(), width=width, height=height)
        raise BackendError("the libvirt-windows backend's session runs inside a Windows guest only")

    @classmethod
    def unavailable(cls) -> str | None:
        """Why no machine can start here (backend choice asks before it picks this backend)."""
        try:
            root = cls().root
        except (BackendError, ValueError) as exc:
            return str(exc)
        if current_image(root, VARIANT) is None:
            return (f"no Windows image under {root}: make one from your Windows with `cua-bench image build "
                    "libvirt-windows --backend-option media=PATH` (the plugin's README says how)")  # fmt: skip
        return None

    def image(self) -> GuestImage:
        image = current_image(self.root, VARIANT)
        if image is None:
            raise BackendError(self.unavailable() or f"no Windows image under {self.root}")
        return image

    def write_seed(self, folder: Path, files: dict[str, tuple[bytes, int]]) -> Path:
        return iso_drive(folder / "seed.iso", files)

    def domain(
        self, name: str, folder: Path, image: GuestImage, seed: Path, accel: Accel, forwards: dict[int, int]
    ) -> Domain:
        return self._windows_domain(name, folder / "disk.qcow2", folder, seed, accel, forwards, ())

    def _windows_domain(
        self, name: str, disk: Path, folder: Path, seed: Path, accel: Accel, forwards: dict[int, int],
        cdroms: tuple[Path, ...],
    ) -> Domain:  # fmt: skip
        return Domain(
            name, disk, folder / "serial.log", None, None, "", self.option("memory"), self.option("cpus"), str(accel),
            labels(self.name, self.run_id), forwards, seed, self.listen, windows=True, cdroms=cdroms,
        )  # fmt: skip

    def evidence(self, computer: Computer, what: str) -> str:
        """The machine's screen (Windows writes no serial console), kept in the run folder, or in the images
        folder's ``failed`` when there is none (an image build, whose own folder goes)."""
        name = computer.info["domain"]
        where = Path(self.run_dir) / "machines" if self.run_dir is not None else self.root / "failed"
        where.mkdir(parents=True, exist_ok=True)
        shot = self.hypervisor.screenshot(name, where / f"{name}.{what}.screen")
        seen = f"its screen is kept at {shot}" if shot else "its screen could not be taken (the machine is off)"
        return f"{seen}; inside the guest, C:\\cua\\logs\\firstboot.log and server.log say what the server did"

    def build_image(
        self, *, rebuild_base: bool = False, variant: str | None = None, log: Callable[[str], None] = print
    ) -> BuildResult:
        if variant not in (None, VARIANT):
            raise BackendError(f"libvirt-windows builds one image, {VARIANT!r}; not {variant!r}")
        if not self.option("media"):
            raise BackendError(
                "the Windows image is made from your Windows: --backend-option media=PATH, an install ISO (with "
                "--backend-option kit=FOLDER, from windows_kit) or a qcow2 of a Windows provisioned with the kit"
            )
        media = Path(self.option("media")).expanduser().resolve()
        started = time.monotonic()
        if media_kind(media) == "qcow2":
            folder, info = self._import(media, log)
        else:
            folder, info = self._install(media, log)
        log(f"libvirt image {VARIANT}: {folder} ({info['size_mib']:.0f} MiB)")
        return BuildResult(str(folder), False, time.monotonic() - started, float(info["size_mib"]))

    def _import(self, media: Path, log: Callable[[str], None]) -> tuple[Path, dict[str, Any]]:
        log(f"qemu-img convert {media} (flattened: the image names no other file)")
        with new_build(self.root, VARIANT) as (folder, info):
            _qemu_img("convert", "-q", "-O", "qcow2", str(media), str(folder / "base.qcow2"))
            info |= {"from": str(media), "how": "imported: provisioned with the kit elsewhere"}
        return folder, info

    def _install(self, media: Path, log: Callable[[str], None]) -> tuple[Path, dict[str, Any]]:
        """Setup from ``media`` with the kit, until the installed env server answers; then the disk, powered off."""
        if not self.option("kit"):
            raise BackendError("an install ISO needs the kit beside it: --backend-option kit=FOLDER (windows_kit's)")
        name = f"cua-build-{uuid.uuid4().hex[:12]}"
        work = self.root / "build" / name
        # The build's machine and its drives go however the build ends; only the disk stays, as the image.
        with new_build(self.root, VARIANT) as (folder, info), contextlib.ExitStack() as undo:
            work.mkdir(parents=True, mode=0o711)
            undo.callback(shutil.rmtree, work, ignore_errors=True)
            kit = kit_iso(Path(self.option("kit")).expanduser(), work / "kit.iso")  # a kit not whole: refused here
            accel = self.accel()  # the probe boots a guest: after every check of the user's input
            disk = folder / "base.qcow2"
            _qemu_img("create", "-q", "-f", "qcow2", str(disk), f"{self.option('disk_gib')}G")
            public, files = seed_files(1280, 800, [load_or_create_keypair().public.decode()], str(accel))
            seed = iso_drive(work / "seed.iso", files)
            port = free_port(self.listen)
            machine = self._windows_domain(name, disk, work, seed, accel, {port: GUEST_PORT}, (media, kit))
            log(f"Windows Setup in machine {name} ({accel}; hours under TCG): waiting for its env server")
            self.hypervisor.start(machine)
            undo.callback(self.hypervisor.remove, name)
            computer = Computer(self.name, f"tcp://{self.listen}:{port}", 1280, 800, None,
                                {"server_key": public, "domain": name, "serial": str(work / "serial.log"),
                                 "accel": str(accel)})  # fmt: skip
            wait_ready(
                lambda: self.health(computer, timeout=5.0),
                lambda: None if self.hypervisor.running(name) else "the machine powered off",
                timeout=self.option("install_timeout"), what=f"Windows Setup in machine {name}",
                detail=lambda: self.evidence(computer, "install"), interval=10.0,
            )  # fmt: skip
            log("the env server answered: powering the machine off")
            self.hypervisor.shutdown(name, timeout=600.0)
            info |= {"from": str(media), "how": "installed with the kit", "kit": self.option("kit")}
        return folder, info


def _qemu_img(*argv: str) -> None:
    done = subprocess.run(["qemu-img", *argv], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackendError(f"qemu-img {argv[0]} failed: {done.stderr.strip()[-1500:]}")
