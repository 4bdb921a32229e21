"""The guest image: our Linux desktop as a bootable qcow2, from Debian's packages only.

Made in four stages, each kept until what it was made from changes, so a code change rebuilds in
about a minute: debootstrap (the kit's); Debian's kernel, initramfs-tools and the desktop's packages
installed with apt in a chroot (the same list the docker image and the local backend use);
the env server's Python environment and cua's packages under /opt/cua with ``init.sh`` as the
guest's init (the kit's ``server_payload``: the same wheels and code as the docker image); and the
root file system made with ``mkfs.ext4 -d`` and converted to qcow2. The kernel and initramfs are
copied out beside it, since machines boot them directly.

Each build goes into a folder of its own and ``current`` points at the newest: machines' overlays
name their base by path, so a running machine keeps the build it started on. A new build removes the
older ones that no machine's overlay names, but for the one it replaces (a machine may be starting on
it), so rebuilding does not fill the disk (each build is 1-3 GiB).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import struct
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from cua_bench.backend_kit import (
    COMPUTER_PACKAGES,
    DEBIAN_MIRROR,
    DESKTOP_PACKAGES,
    OSWORLD_APPS,
    BackendError,
    BuildResult,
    computer_files,
    debootstrap,
    server_payload,
)

__all__ = [
    "GUEST_PACKAGES", "VARIANTS", "GuestImage", "Variant", "build_image", "current_image", "image_root", "new_build",
]  # fmt: skip

# What the guest needs beyond the desktop: Debian's kernel with an initramfs that finds a virtio disk
# (initramfs-tools' MODULES=most has virtio_blk and ext4), the network tools init.sh uses, and tini.
GUEST_PACKAGES = ("linux-image-amd64", "initramfs-tools", "iproute2", "tini")


@dataclass(frozen=True)
class Variant:
    """An image ``cua-bench image build libvirt --variant NAME`` builds (the docker backend's, as a VM)."""

    packages: tuple[str, ...]
    computer: bool = False  # OSWorld's computer (the kit's computer_files): the server runs as ``user``
    metrics: bool = False  # the env server gets cua-bench[osworld]'s metric modules: OSWorld's metrics score inside


VARIANTS = {
    "default": Variant(DESKTOP_PACKAGES),
    "osworld": Variant(DESKTOP_PACKAGES + COMPUTER_PACKAGES + OSWORLD_APPS, computer=True, metrics=True),
}
FREE_SPACE_MIB = 2048  # room in the guest's root file system for what episodes write
CMDLINE = "console=ttyS0 root=/dev/vda rw init=/opt/cua/init quiet panic=-1"
Log = Callable[[str], None]


@dataclass(frozen=True)
class GuestImage:
    """One build: the root disk (read-only base of every machine's overlay), the kernel and initramfs."""

    folder: Path

    @property
    def base(self) -> Path:
        return self.folder / "base.qcow2"

    @property
    def kernel(self) -> Path:
        return self.folder / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.folder / "initrd.img"

    @property
    def info(self) -> dict[str, object]:
        data: dict[str, object] = json.loads((self.folder / "image.json").read_text())
        return data


def image_root(uri: str) -> Path:
    """Where images and machines live: a folder QEMU can read. Under ``qemu:///system`` QEMU runs as its own
    user, which cannot enter root's home, so libvirt's own images folder; under ``qemu:///session`` it runs
    as this user, so this user's data folder."""
    if uri.startswith("qemu:///system"):
        return Path("/var/lib/libvirt/images/cua-bench")
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "cua-bench" / "libvirt"


def current_image(root: Path, variant: str = "default") -> GuestImage | None:
    """The newest complete build of ``variant`` under ``root``, or None."""
    link = root / "images" / variant / "current"
    if not link.exists():
        return None
    image = GuestImage(link.resolve())
    return image if (image.folder / "image.json").is_file() else None


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _unmount_under(folder: Path) -> None:
    """Unmount whatever is mounted under ``folder``, deepest first: a build killed inside the chroot
    leaves its /proc, /sys and /dev mounted, and the next build must not copy or delete through them."""
    prefix = str(folder.resolve()) + "/"
    with open("/proc/mounts") as mounts:
        points = [line.split()[1] for line in mounts if line.split()[1].startswith(prefix)]
    for point in sorted(points, key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)


# The device nodes a package's scripts use, as debootstrap makes them: (name, major, minor).
DEVICES = (("null", 1, 3), ("zero", 1, 5), ("full", 1, 7), ("random", 1, 8), ("urandom", 1, 9), ("tty", 5, 0))


def _private_dev(dev: Path) -> None:
    """A /dev of the chroot's own (a tmpfs with fresh nodes), never the host's bound in: the image's packages'
    scripts chgrp and chmod devices by the image's own groups, and through a bind mount that reached the host's
    /dev/kvm (it was left in the group whose gid the image's kvm had, and QEMU's user lost KVM)."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755,size=16m", "cua-dev", str(dev)], check=True,
                   capture_output=True)  # fmt: skip
    for name, major, minor in DEVICES:
        os.mknod(dev / name, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
        (dev / name).chmod(0o666)  # whatever the umask
    (dev / "shm").mkdir(mode=0o1777)
    (dev / "pts").mkdir()
    subprocess.run(["mount", "-t", "devpts", "-o", "newinstance,ptmxmode=0666,mode=620", "cua-pts", str(dev / "pts")],
                   check=True, capture_output=True)  # fmt: skip
    (dev / "ptmx").symlink_to("pts/ptmx")


@contextlib.contextmanager
def _chroot(rootfs: Path) -> Iterator[Callable[..., None]]:
    """A function that runs a command in ``rootfs`` with the kernel's file systems mounted, and services
    kept from starting (a package's postinst would start them on the build host)."""
    policy = rootfs / "usr/sbin/policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)
    _unmount_under(rootfs)
    for kind, point in (("proc", "proc"), ("sysfs", "sys")):
        subprocess.run(["mount", "-t", kind, kind, str(rootfs / point)], check=True, capture_output=True)
    _private_dev(rootfs / "dev")

    def run(*argv: str, what: str) -> None:
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive", "LANG": "C.UTF-8"}
        done = subprocess.run(["chroot", str(rootfs), *argv], env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BackendError(f"{what} failed in the image's root file system:\n{(done.stdout + done.stderr)[-3000:]}")

    try:
        yield run
    finally:
        _unmount_under(rootfs)
        policy.unlink(missing_ok=True)


def _desktop(work: Path, debian: Path, packages: Sequence[str], log: Log) -> Path:
    """The debootstrapped root with ``packages`` installed (kept per package list)."""
    packages = [*GUEST_PACKAGES, *packages]
    rootfs = work / f"desktop-{_digest(sorted(packages), debian.name)}"
    done = rootfs.with_name(rootfs.name + ".done")
    if rootfs.is_dir() and done.is_file():
        log(f"apt: kept {rootfs}")
        return rootfs
    _unmount_under(rootfs)
    shutil.rmtree(rootfs, ignore_errors=True)
    subprocess.run(["cp", "-a", str(debian), str(rootfs)], check=True)
    log(f"apt-get install {len(packages)} packages (minutes)")
    with _chroot(rootfs) as run:
        run("apt-get", "update", "-qq", what="apt-get update")
        run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages, what="apt-get install")
        run("apt-get", "clean", what="apt-get clean")
    for junk in ("var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/info"):
        shutil.rmtree(rootfs / junk, ignore_errors=True)
        (rootfs / junk).mkdir(parents=True, exist_ok=True)
    done.write_text(json.dumps(sorted(packages)))
    return rootfs


def _install_server(rootfs: Path, metrics: bool, computer: bool, log: Log) -> None:
    """/opt/cua made anew: the env server's venv, cua's packages, and init.sh as the guest's init; with
    ``computer``, OSWorld's computer made by the kit's setup.sh (user ``user``, sudo, pyautogui ...)."""
    opt = rootfs / "opt" / "cua"
    shutil.rmtree(opt, ignore_errors=True)
    opt.mkdir(parents=True)
    server_payload(opt, metrics=metrics, log=log)
    if computer:
        computer_files(opt / "computer", log)
    shutil.copy(Path(__file__).with_name("init.sh"), opt / "init")
    (opt / "init").chmod(0o755)
    log("the env server's Python environment" + (" and OSWorld's computer" if computer else ""))
    with _chroot(rootfs) as run:
        run("python3", "-m", "venv", "/opt/cua/venv", what="python3 -m venv")
        run("sh", "-c", "/opt/cua/venv/bin/pip install -q --no-index --no-cache-dir --disable-pip-version-check "
            "/opt/cua/wheels/*.whl", what="pip install of the env server's wheels")  # fmt: skip
        run("sh", "-c", "echo /opt/cua/lib > \"$(/opt/cua/venv/bin/python -c 'import sysconfig; "
            "print(sysconfig.get_path(\"purelib\"))')/cua.pth\"", what="the .pth of cua's packages")  # fmt: skip
        run("/opt/cua/venv/bin/python", "-c", "import cua_bench.server, cua_bench.backends.local.session",
            what="importing the env server")  # fmt: skip
        if computer:
            run("sh", "/opt/cua/computer/setup.sh", what="OSWorld's computer (setup.sh)")
    shutil.rmtree(opt / "wheels")


def _disk(rootfs: Path, out: Path, log: Log) -> None:
    """``rootfs`` as an ext4 file system on a whole qcow2 disk (no partition table: the kernel is booted
    directly, with root=/dev/vda)."""
    used = int(subprocess.run(["du", "-sm", str(rootfs)], capture_output=True, text=True, check=True).stdout.split()[0])
    raw = out.with_suffix(".raw")
    log(f"mkfs.ext4 -d ({used} MiB used, {FREE_SPACE_MIB} MiB free)")
    size = f"{int(used * 1.15) + FREE_SPACE_MIB}M"  # ext4's own metadata takes ~10% of what it holds
    for argv in (
        ["mkfs.ext4", "-q", "-F", "-L", "cua-root", "-d", str(rootfs), str(raw), size],
        ["qemu-img", "convert", "-q", "-O", "qcow2", str(raw), str(out)],
    ):  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raw.unlink(missing_ok=True)
            raise BackendError(f"{argv[0]} failed making the image's disk: {done.stderr.strip()[-1500:]}")
    raw.unlink()


def _needs() -> None:
    if os.geteuid() != 0:
        raise BackendError("building the libvirt image needs root (debootstrap, chroot, mount): run it as root")
    missing = [tool for tool in ("debootstrap", "mkfs.ext4", "qemu-img", "chroot") if shutil.which(tool) is None]
    if missing:
        raise BackendError(
            f"building the libvirt image needs {', '.join(missing)}: apt-get install debootstrap e2fsprogs qemu-utils"
        )


def build_image(
    root: Path,
    *,
    variant: str = "default",
    packages: Sequence[str] | None = None,
    rebuild_base: bool = False,
    metrics: bool | None = None,
    mirror: str = DEBIAN_MIRROR,
    log: Log = print,
) -> BuildResult:
    """Build ``variant``'s guest image under ``root`` and make it the current one; ``packages`` replaces
    the variant's Debian packages and ``metrics`` whether OSWorld's metric modules go in (the tests build a
    smaller desktop, and OSWorld's computer without its apps and metrics). Returns what was done and the size."""
    if variant not in VARIANTS:
        raise BackendError(f"no libvirt image variant {variant!r}; this backend builds: {', '.join(VARIANTS)}")
    _needs()
    chosen = VARIANTS[variant]
    started = time.monotonic()
    wanted = tuple(chosen.packages if packages is None else packages)
    work = root / "build"
    work.mkdir(parents=True, exist_ok=True)
    debian = work / "debian"
    base_built = rebuild_base or not (work / "debian.debootstrap.json").is_file()
    if rebuild_base:
        _unmount_under(debian)
        shutil.rmtree(debian, ignore_errors=True)
    debootstrap(debian, mirror=mirror, log=log)
    if base_built:  # what was installed on the old base goes with it
        for stale_rootfs in work.glob("desktop-*"):
            _unmount_under(stale_rootfs)
            if stale_rootfs.is_dir():
                shutil.rmtree(stale_rootfs)
            stale_rootfs.unlink(missing_ok=True)
    rootfs = _desktop(work, debian, wanted, log)
    with contextlib.ExitStack() as scratch:
        if chosen.computer:  # setup.sh changes the whole tree: on a copy, so the kept stage stays as apt left it
            copy = work / f"{rootfs.name}-{variant}"
            _unmount_under(copy)
            shutil.rmtree(copy, ignore_errors=True)
            subprocess.run(["cp", "-a", str(rootfs), str(copy)], check=True)
            scratch.callback(shutil.rmtree, copy, ignore_errors=True)
            scratch.callback(_unmount_under, copy)
            rootfs = copy
        _install_server(rootfs, chosen.metrics if metrics is None else metrics, chosen.computer, log)
        with new_build(root, variant) as (folder, info):
            _disk(rootfs, folder / "base.qcow2", log)
            (kernel,) = sorted((rootfs / "boot").glob("vmlinuz-*"))[-1:]
            (initrd,) = sorted((rootfs / "boot").glob("initrd.img-*"))[-1:]
            shutil.copy(kernel, folder / "vmlinuz")
            shutil.copy(initrd, folder / "initrd.img")
            info |= {"packages": list(wanted), "kernel": kernel.name, "cmdline": CMDLINE, "computer": chosen.computer}
    log(f"libvirt image {variant}: {folder} ({info['size_mib']:.0f} MiB)")
    return BuildResult(str(folder), base_built, time.monotonic() - started, cast(float, info["size_mib"]))


@contextlib.contextmanager
def new_build(root: Path, variant: str) -> Iterator[tuple[Path, dict[str, object]]]:
    """A new build's folder under ``root/images/variant`` and its ``image.json`` record to fill: when the block
    ends well the record is written, every file made readable by QEMU's user (qemu:///system runs QEMU as its
    own user) and ``current`` pointed at the build; when it fails the folder is gone and ``current`` unchanged."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = root / "images" / variant / stamp
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    info: dict[str, object] = {"variant": variant, "built": stamp}
    try:
        yield folder, info
        info["size_mib"] = round(sum(path.stat().st_size for path in folder.iterdir()) / 2**20, 1)
        (folder / "image.json").write_text(json.dumps(info, indent=1))
        for path in [folder, *folder.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    link = folder.parent / "current"
    replaced = link.resolve().name if link.exists() else None
    temporary = folder.parent / f".current-{os.getpid()}"
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(stamp)
    os.replace(temporary, link)  # atomic: a machine started meanwhile gets the old build or the new, whole
    for path in (root, root / "images", folder.parent):
        path.chmod(0o755)
    _drop_builds(root, folder.parent, keep={stamp, replaced})


def _backing_file(disk: Path) -> str | None:
    """The backing file a qcow2 names in its header (qcow2 spec: offset u64 at byte 8, size u32 at 16),
    or None when it names none or is no qcow2."""
    try:
        with disk.open("rb") as file:
            header = file.read(20)
            if len(header) < 20 or header[:4] != b"QFI\xfb":
                return None
            offset, size = struct.unpack(">QI", header[8:20])
            if not offset or not 0 < size <= 4096:
                return None
            file.seek(offset)
            return file.read(size).decode(errors="replace")
    except OSError:
        return None


def _drop_builds(root: Path, builds: Path, keep: set[str | None]) -> None:
    """Remove the builds in ``builds`` that are not kept and that no machine's overlay under ``root`` names."""
    named = {_backing_file(disk) for disk in (root / "machines").glob("*/*.qcow2")}
    in_use = {Path(name).parent.name for name in named if name and Path(name).parent.parent == builds.resolve()}
    for build in builds.iterdir():
        if build.is_dir() and not build.is_symlink() and build.name not in keep | in_use:
            shutil.rmtree(build, ignore_errors=True)
