"""The image: a Debian base from debootstrap (``docker import``), then the Dockerfile beside this module.

No registry is involved anywhere: the base is made here from Debian's packages, Python wheels are
downloaded on this host (its pip configuration applies) and copied in, and cua's own packages are
copied as they are installed here, so the container runs the same code as the host. That payload is
the backend kit's (``server_payload``, ``DESKTOP_PACKAGES``), which a VM image carries too.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_bench import BackendError
from cua_bench.backend_kit import (
    COMPUTER_PACKAGES,
    DEBIAN_MIRROR,
    DESKTOP_PACKAGES,
    OFFICE_PACKAGES,
    OSWORLD_APPS,
    BuildResult,
    computer_files,
    debootstrap,
    rootfs_tar,
    server_payload,
)

__all__ = [
    "APT_PACKAGES",
    "BASE_IMAGE",
    "COMPUTER_PACKAGES",
    "IMAGE",
    "OFFICE_IMAGE",
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
OFFICE_IMAGE = "cua-bench/desktop-office:0.1.0"
BASE_IMAGE = "cua-bench/debian:bookworm"
SUITE = "bookworm"
MIRROR = DEBIAN_MIRROR
# The local backend's desktop and the Python the env server runs on (the kit's, which a VM image shares).
APT_PACKAGES = DESKTOP_PACKAGES


@dataclass(frozen=True)
class Variant:
    """An image ``cua-bench image build docker --variant NAME`` builds."""

    tag: str
    dockerfile: str  # beside this module
    packages: tuple[str, ...]
    computer: bool = False  # OSWorld's computer: user ``user``, sudo, pyautogui (the ``osworld`` folder here)
    metrics: bool = False  # the env server gets cua-bench[osworld] and desktop-env: OSWorld's metrics score inside
    office: bool = False  # the env server gets the readers of the document apps' formats: their tasks score inside


VARIANTS = {
    "default": Variant(IMAGE, "Dockerfile", APT_PACKAGES),
    # The default desktop plus LibreOffice Calc, Writer and Impress: the desktop taskset's calc-, writer-,
    # impress- and multi- tasks (the default image stays light).
    "office": Variant(OFFICE_IMAGE, "Dockerfile", APT_PACKAGES + OFFICE_PACKAGES, office=True),
    "osworld": Variant(
        OSWORLD_IMAGE,
        "Dockerfile.osworld",
        APT_PACKAGES + COMPUTER_PACKAGES + OSWORLD_APPS,
        computer=True,
        metrics=True,
    ),
}

Log = Callable[[str], None]


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
        shutil.copy(Path(__file__).with_name("start-user"), context / "start")  # every image's entrypoint
        if chosen.computer:  # the kit's files of OSWorld's computer (setup.sh, reset-machine, google-chrome, ...)
            computer_files(context / "computer", log)
        server_payload(context, metrics=chosen.metrics if metrics is None else metrics, office=chosen.office, log=log)
        log(f"docker build {tag}")
        last: list[str] = []
        stream = client.api.build(
            path=str(context), tag=tag, rm=True, forcerm=True, decode=True, network_mode="host",
            buildargs={"BASE": base, "APT_PACKAGES": " ".join(chosen.packages if packages is None else packages)},
        )  # fmt: skip
        for chunk in stream:
            if "error" in chunk:
                raise BackendError(f"docker build of {tag} failed: {chunk['error'].strip()}\n" + "".join(last[-80:]))
            text = chunk.get("stream", "")
            if text:
                last.append(text)
                if text.startswith("Step "):
                    log(text.strip())
    size = client.images.get(tag).attrs.get("Size", 0) / 2**20
    return BuildResult(tag, base_built, time.monotonic() - started, round(size, 1))
