"""The image: a Debian base from debootstrap (``docker import``), then the Dockerfile beside this module.

No registry is involved anywhere: the base is made here from Debian's packages, Python wheels are
downloaded on this host (its pip configuration applies) and copied in, and cua's own packages are
copied as they are installed here, so the container runs the same code as the host.
"""

from __future__ import annotations

import importlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from cua_bench import BackendError
from cua_bench.backend_kit import DEBIAN_MIRROR, debootstrap, rootfs_tar

__all__ = [
    "APT_PACKAGES",
    "BASE_IMAGE",
    "COMPUTER_PACKAGES",
    "IMAGE",
    "OSWORLD_APPS",
    "OSWORLD_IMAGE",
    "VARIANTS",
    "BuildResult",
    "Variant",
    "build_base",
    "build_image",
    "image_exists",
]

IMAGE = "cua-bench/desktop:0.1.0"
OSWORLD_IMAGE = "cua-bench/desktop-osworld:0.1.0"
BASE_IMAGE = "cua-bench/debian:bookworm"
SUITE = "bookworm"
IMAGE_PYTHON = "3.11.2"  # bookworm's python3, which runs the env server
MIRROR = DEBIAN_MIRROR
# The local backend's desktop (scripts/system-deps.sh) and the Python the env server runs on.
APT_PACKAGES = (
    "xvfb", "openbox", "dbus", "at-spi2-core", "xterm", "xdotool", "xclip", "x11-xserver-utils", "mousepad",
    "gnumeric", "pcmanfm", "chromium", "fonts-dejavu-core", "libatk-adaptor", "python3", "python3-venv", "procps",
)  # fmt: skip
# OSWorld's computer: sudo, python3 with what pyautogui needs from Debian (Xlib, Pillow, tk), the
# ``python`` command, a real settings backend (dconf on the session bus; dbus-x11 for dbus-launch),
# socat (OSWorld forwards Chrome's debugging port with it), passwd (useradd, chpasswd, usermod), xsel
# (OSWorld's getters read the clipboard with it), gnome-shell-common (GNOME Shell's settings schemas, which
# OSWorld's tasks set and read, such as org.gnome.shell favorite-apps; not the shell itself), gnome-terminal
# (the terminal OSWorld's tasks start by name and open with ctrl+alt+t, whose text ``vm_terminal_output`` reads),
# gnome-settings-daemon-common (the schemas of GNOME's power, media-keys ... settings, which OSWorld's tasks
# set and read, such as org.gnome.settings-daemon.plugins.power idle-dim; not the daemon).
COMPUTER_PACKAGES = (
    "sudo", "passwd", "python3-xlib", "python3-pil", "python3-tk", "python-is-python3", "dbus-x11",
    "dconf-service", "dconf-cli", "libglib2.0-bin", "gsettings-desktop-schemas", "socat", "x11-utils", "wmctrl",
    "xsel", "gnome-shell-common", "gnome-terminal", "gnome-settings-daemon-common",
)  # fmt: skip
# OSWorld's apps from Debian (Chromium stands in for Chrome, VS Code has no Debian package), Totem (GNOME's
# video player, the default one on OSWorld's VM, so that making VLC the default is work) and the fonts its
# documents use (Liberation and Carlito/Caladea for Office's metrics, Noto for other scripts).
OSWORLD_APPS = (
    "libreoffice-calc", "libreoffice-writer", "libreoffice-impress", "libreoffice-gtk3", "gimp", "vlc", "totem",
    "thunderbird", "fonts-liberation", "fonts-liberation2", "fonts-dejavu", "fonts-crosextra-carlito",
    "fonts-crosextra-caladea", "fonts-noto-core",
)  # fmt: skip
# pyautogui and its pure-Python dependencies (Debian has no python3-pyautogui), for the system python3.
PYAUTOGUI_WHEELS = (
    "pyautogui==0.9.54", "pymsgbox==2.0.1", "pytweening==1.2.0", "pyscreeze==1.0.1", "pygetwindow==0.0.9",
    "pyrect==0.2.0", "mouseinfo==0.1.3", "pyperclip==1.11.0",
)  # fmt: skip


@dataclass(frozen=True)
class Variant:
    """An image ``cua-bench image build docker --variant NAME`` builds."""

    tag: str
    dockerfile: str  # beside this module
    packages: tuple[str, ...]
    computer: bool = False  # OSWorld's computer: user ``user``, sudo, pyautogui (the ``osworld`` folder here)
    metrics: bool = False  # the env server gets cua-bench[osworld] and desktop-env: OSWorld's metrics score inside


VARIANTS = {
    "default": Variant(IMAGE, "Dockerfile", APT_PACKAGES),
    "osworld": Variant(
        OSWORLD_IMAGE,
        "Dockerfile.osworld",
        APT_PACKAGES + COMPUTER_PACKAGES + OSWORLD_APPS,
        computer=True,
        metrics=True,
    ),
}

# What the env server imports (cua-core's, cua-bench's and its `local` extra's dependencies), at
# the versions installed here.
SERVER_DISTRIBUTIONS = (
    "pyzmq",
    "msgpack",
    "numpy",
    "pluggy",
    "click",
    "pillow",
    "python-xlib",
    "six",
    "mss",
    "jeepney",
    "websockets",  # Cua's HTML task windows: Chromium's DevTools protocol
)
# cua-bench and the tasksets and OSWorld plugin it brings, which register by entry point: each goes in
# with its distribution's entry points, so the server inside finds the same tasksets by name as the host.
OUR_PACKAGES = (
    "cua_core",
    "cua_data",
    "cua_bench",
    "cua_bench_tasks_sim",
    "cua_bench_tasks_desktop",
    "cua_bench_osworld",
)

Log = Callable[[str], None]


@dataclass
class BuildResult:
    image: str
    base_built: bool
    seconds: float
    size_mib: float


def image_exists(client: Any, name: str) -> bool:
    import docker.errors

    try:
        client.images.get(name)
    except docker.errors.ImageNotFound:
        return False
    return True


def build_base(client: Any, *, tag: str = BASE_IMAGE, mirror: str = MIRROR, log: Log = print) -> None:
    """debootstrap a minimal Debian (the kit's) into a temp folder and ``docker import`` it as ``tag``: made
    anew each time, since a base is rebuilt only when asked to (``--rebuild-base``) or missing."""
    with tempfile.TemporaryDirectory(prefix="cua-rootfs-") as folder:
        rootfs = debootstrap(Path(folder) / "rootfs", suite=SUITE, variant="minbase", mirror=mirror, log=log)
        archive = rootfs_tar(rootfs, Path(folder) / "rootfs.tar")
        repository, _, version = tag.partition(":")
        log(f"docker import as {tag}")
        client.api.import_image_from_file(str(archive), repository=repository, tag=version or "latest")


def _pins(names: Iterable[str], hint: str) -> list[str]:
    pins = []
    for name in names:
        try:
            pins.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError as exc:
            raise BackendError(f"{name} is not installed here; {hint}") from exc
    return pins


def _extra_closure(extra: str) -> list[str]:
    """What cua-bench's ``extra`` needs, with everything those need, as installed here (pinned)."""
    from packaging.requirements import Requirement

    wanted = [
        Requirement(text) for text in metadata.requires("cua-bench") or []
        if "extra ==" in text and Requirement(text).marker.evaluate({"extra": extra})  # type: ignore[union-attr]
    ]  # fmt: skip
    seen: dict[str, str] = {}
    while wanted:
        name = wanted.pop().name
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        seen[key] = name
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                wanted.append(requirement)
    return _pins(sorted(seen.values()), f"pip install './packages/cua-bench[{extra}]' from a clone of cua")


def _download_wheels(folder: Path, log: Log, pins: list[str]) -> None:
    """Wheels of ``pins`` for the image's Python (Debian's 3.11.2, manylinux). A version that needs a
    newer Python than the image's (soupsieve 4.1 wants 3.11.5) gives way to the newest that fits, and
    a pin with only a source distribution is built into a wheel here (this host's Python must be 3.11)."""
    machine = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(
        platform.machine().lower(), platform.machine()
    )
    platforms = [f"manylinux_2_{minor}_{machine}" for minor in (36, 34, 28, 17)] + [f"manylinux2014_{machine}"]
    log(f"pip download {' '.join(pins)}")
    for _ in range(len(pins) + 1):
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--prefer-binary", "--python-version",
             IMAGE_PYTHON, "--implementation", "cp", *(arg for p in platforms for arg in ("--platform", p)),
             "-d", str(folder), *pins],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        unfit = re.search(r"No matching distribution found for (\S+)==\S+", done.stderr)
        if done.returncode == 0 or unfit is None or unfit.group(0).split()[-1] not in pins:
            break
        pinned = unfit.group(0).split()[-1]
        log(f"{pinned} does not run on Python {IMAGE_PYTHON}: the newest {unfit.group(1)} that does")
        pins = [unfit.group(1) if pin == pinned else pin for pin in pins]
    if done.returncode != 0:
        raise BackendError(f"pip download of the env server's wheels failed:\n{done.stderr[-2000:]}")
    for sdist in [*folder.glob("*.tar.gz"), *folder.glob("*.zip")]:
        if sys.version_info[:2] != (3, 11):
            raise BackendError(f"{sdist.name} has no wheel: build the image from a host whose Python is 3.11")
        log(f"pip wheel {sdist.name}")
        built = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(sdist)],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"},
        )  # fmt: skip  (fixed timestamps: the same wheel bytes each build, so docker's layer cache holds)
        if built.returncode != 0:
            raise BackendError(f"pip wheel of {sdist.name} failed:\n{built.stderr[-2000:]}")
        sdist.unlink()


def _copy_packages(folder: Path) -> None:
    """Each package's source, and beside it a dist-info holding its distribution's name, version and
    entry points (what ``importlib.metadata`` reads from a folder on ``sys.path``)."""
    for name in OUR_PACKAGES:
        source = Path(importlib.import_module(name).__file__ or "").parent
        shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        try:
            dist = metadata.distribution(name)  # each is its distribution's name with "_" for "-"
        except metadata.PackageNotFoundError:
            raise BackendError(f"{name} is importable but not installed: pip install it (-e is fine)") from None
        info = folder / f"{dist.metadata['Name'].replace('-', '_')}-{dist.version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist.metadata['Name']}\nVersion: {dist.version}\n"
        )
        (info / "entry_points.txt").write_text(dist.read_text("entry_points.txt") or "")


def _computer(folder: Path, log: Log) -> None:
    """The osworld variant's own files: its setup script, entrypoint, google-chrome and pyautogui's wheels."""
    shutil.copytree(Path(__file__).with_name("osworld"), folder)
    log(f"pip wheel {' '.join(PYAUTOGUI_WHEELS)}")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder / "pywheels"), *PYAUTOGUI_WHEELS],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise BackendError(f"pip wheel of pyautogui for the osworld image failed:\n{done.stderr[-2000:]}")


def build_image(
    client: Any,
    *,
    variant: str = "default",
    tag: str | None = None,
    base: str = BASE_IMAGE,
    rebuild_base: bool = False,
    packages: tuple[str, ...] | None = None,
    metrics: bool | None = None,
    log: Log = print,
) -> BuildResult:
    """Build ``variant``'s image as ``tag`` (default: the variant's; the base first when it is missing);
    ``packages`` replaces the variant's Debian packages and ``metrics`` whether OSWorld's metric modules go
    in (the tests build OSWorld's computer without its apps and metrics).
    Returns what was done and the size."""
    if variant not in VARIANTS:
        raise BackendError(f"no image variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    chosen = VARIANTS[variant]
    tag = tag or chosen.tag
    started = time.monotonic()
    base_built = rebuild_base or not image_exists(client, base)
    if base_built:
        build_base(client, tag=base, log=log)
    with tempfile.TemporaryDirectory(prefix="cua-image-") as folder:
        context = Path(folder)
        shutil.copy(Path(__file__).with_name(chosen.dockerfile), context / "Dockerfile")
        if chosen.computer:
            _computer(context / "computer", log)
        (context / "wheels").mkdir()
        pins = _pins(SERVER_DISTRIBUTIONS, "pip install './packages/cua-bench[local]' from a clone of cua")
        if (
            chosen.metrics if metrics is None else metrics
        ):  # OSWorld's metric modules, which the env server inside imports to score
            hint = "pip install --no-deps desktop-env==1.0.2"
            pins = list(dict.fromkeys([*pins, *_extra_closure("osworld"), *_pins(["desktop-env"], hint)]))
        _download_wheels(context / "wheels", log, pins)
        _copy_packages(context / "lib")
        log(f"docker build {tag}")
        last: list[str] = []
        stream = client.api.build(
            path=str(context), tag=tag, rm=True, forcerm=True, decode=True, network_mode="host",
            buildargs={"BASE": base, "APT_PACKAGES": " ".join(chosen.packages if packages is None else packages)},
        )  # fmt: skip
        for chunk in stream:
            if "error" in chunk:
                raise BackendError(f"docker build of {tag} failed: {chunk['error'].strip()}\n" + "".join(last[-15:]))
            text = chunk.get("stream", "")
            if text:
                last.append(text)
                if text.startswith("Step "):
                    log(text.strip())
    size = client.images.get(tag).attrs.get("Size", 0) / 2**20
    return BuildResult(tag, base_built, time.monotonic() - started, round(size, 1))
