"""What an image's env server is made of: the local desktop's Debian packages, wheels and our packages.

A container image (docker) and a VM disk (libvirt) run the same env server on the same Debian, so
they carry the same payload, and plugins may not import each other: it lives here. No registry is
involved: wheels are downloaded on this host (its pip configuration applies) for the image's Python,
and cua's own packages are copied as they are installed here, so the image runs the host's code.
"""

from __future__ import annotations

import importlib
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from cua_bench.backend_kit.errors import BackendError

__all__ = ["DESKTOP_PACKAGES", "IMAGE_PYTHON", "OFFICE_PACKAGES", "BuildResult", "server_payload"]


@dataclass
class BuildResult:
    """What ``cua-bench image build`` did: the image made (a tag, a folder), whether its base was made too,
    the seconds it took and the image's size."""

    image: str
    base_built: bool
    seconds: float
    size_mib: float


IMAGE_PYTHON = "3.11.2"  # Debian bookworm's python3, which runs the env server in an image
# The local backend's desktop (scripts/system-deps.sh) and the Python the env server runs on, as Debian packages.
DESKTOP_PACKAGES = (
    "xvfb", "openbox", "dbus", "at-spi2-core", "xterm", "xdotool", "xclip", "x11-xserver-utils", "mousepad",
    "gnumeric", "pcmanfm", "chromium", "fonts-dejavu-core", "libatk-adaptor", "libgail-common", "python3",
    "python3-venv", "procps",
)  # fmt: skip
# The desktop taskset's document, image and mail apps: LibreOffice, gedit, galculator, File Roller (with the
# archivers it runs), Evince, Inkscape, GIMP and Thunderbird (heavier than the default desktop, which the tests
# build: an image variant of their own).
OFFICE_PACKAGES = (
    "libreoffice-calc", "libreoffice-writer", "libreoffice-impress", "libreoffice-gtk3", "gedit", "galculator",
    "file-roller", "zip", "unzip", "xz-utils", "evince", "inkscape", "gimp", "thunderbird",
    "vlc", "qgis", "blender", "kate", "libreoffice-draw", "ffmpeg",
)  # fmt: skip
# What their evaluators read the apps' files with, in the env server (cua_bench.office and the taskset's readers).
OFFICE_DISTRIBUTIONS = (
    "odfpy",
    "defusedxml",
    "openpyxl",
    "et_xmlfile",
    "python-docx",
    "python-pptx",
    "lxml",
    "XlsxWriter",
    "typing_extensions",
    # Evince's tasks: PDFs written in setup (fpdf2) and read back by their evaluators (pypdf).
    "fpdf2",
    "fonttools",
    "pypdf",
    # VLC's tasks: the tags of the audio VLC converts and edits (mutagen; Pillow and numpy are the server's).
    "mutagen",
)
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


def server_payload(
    folder: Path,
    *,
    metrics: bool = False,
    office: bool = False,
    log: Log = print,
    platforms: Sequence[str] | None = None,
) -> None:
    """Write the env server's payload into ``folder`` (which exists, without ``wheels`` or ``lib`` yet).

    An image installs ``wheels`` with pip into the Python it runs the server on and puts ``lib`` on
    that Python's path.

    Args:
        folder: where to write ``wheels`` (the server's dependencies, wheels for ``IMAGE_PYTHON``) and
            ``lib`` (our packages, each with a dist-info holding its entry points).
        metrics: also the wheels of cua-bench's ``osworld`` extra and of desktop-env, whose metric
            modules the server imports to score OSWorld's tasks inside.
        office: also the wheels the LibreOffice tasks' evaluators read documents with (``OFFICE_DISTRIBUTIONS``).
        log: called with each line of progress.
        platforms: pip's platform tags of the image's Python (``["win_amd64"]`` for a Windows guest); None
            for the Linux images', manylinux for this host's machine.

    Raises:
        BackendError: a distribution is not installed here, or pip could not download or build a wheel
            (for other ``platforms``, a pin with no wheel for them: one cannot be built here).
    """
    (folder / "wheels").mkdir()
    pins = _pins(SERVER_DISTRIBUTIONS, "pip install './packages/cua-bench[local]' from a clone of cua")
    if metrics:  # OSWorld's metric modules, which the env server inside imports to score
        hint = "pip install --no-deps desktop-env==1.0.2"
        pins = list(dict.fromkeys([*pins, *_extra_closure("osworld"), *_pins(["desktop-env"], hint)]))
    if office:
        pins = list(dict.fromkeys([*pins, *_pins(OFFICE_DISTRIBUTIONS, "pip install './packages/cua-bench'")]))
    _download_wheels(folder / "wheels", log, pins, list(platforms) if platforms is not None else _linux_platforms())
    _copy_packages(folder / "lib")


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
    try:  # a dependency of the plugins that build images with metrics, not of cua-bench
        from packaging.requirements import Requirement
    except ImportError as exc:
        raise BackendError(f"reading cua-bench[{extra}]'s requirements needs packaging: pip install packaging") from exc

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


def _linux_platforms() -> list[str]:
    """The Linux images' platform tags: manylinux, for this host's machine."""
    machine = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(
        platform.machine().lower(), platform.machine()
    )
    return [f"manylinux_2_{minor}_{machine}" for minor in (36, 34, 28, 17)] + [f"manylinux2014_{machine}"]


def _download_wheels(folder: Path, log: Log, pins: list[str], platforms: list[str]) -> None:
    """Wheels of ``pins`` for the image's Python (3.11, on ``platforms``). A version that needs a
    newer Python than the image's (soupsieve 4.1 wants 3.11.5) gives way to the newest that fits, and
    a pin with only a source distribution is built into a wheel here (this host's Python must be 3.11),
    for the Linux images only: a wheel built here is a wheel for this host."""
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
        if platforms != _linux_platforms():
            raise BackendError(f"{sdist.name} has no wheel for {', '.join(platforms)}, and one built here would be "
                               "a wheel for this host: pin a version that has one")  # fmt: skip
        if sys.version_info[:2] != (3, 11):
            raise BackendError(f"{sdist.name} has no wheel: build the image from a host whose Python is 3.11")
        log(f"pip wheel {sdist.name}")
        built = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(sdist)],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"},
        )  # fmt: skip  (fixed timestamps: the same wheel bytes each build, so an image's layer cache holds)
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
