"""A Debian root filesystem from Debian's own packages, for images made without any registry.

The docker backend imports one as its base image; a VM backend would make its disk from one. Made
with ``debootstrap`` (root, and a reachable mirror) into a folder once: a later call for the same
suite, variant, mirror and packages finds it there and returns at once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from cua_bench.backend_kit.errors import BackendError

__all__ = ["DEBIAN_MIRROR", "debootstrap", "rootfs_tar"]

DEBIAN_MIRROR = "http://deb.debian.org/debian"
# Emptied after debootstrap: downloaded packages and package lists are of no use in an image, only its size.
_APT_CACHES = ("var/cache/apt/archives", "var/lib/apt/lists")


def _marker(target: Path) -> Path:
    """Beside the root filesystem, not in it: an image made from the folder must not carry it."""
    return target.with_name(f"{target.name}.debootstrap.json")


def debootstrap(
    target: Path,
    *,
    suite: str = "bookworm",
    variant: str = "minbase",
    mirror: str = DEBIAN_MIRROR,
    include: Sequence[str] = (),
    log: Callable[[str], None] = print,
) -> Path:
    """A Debian ``suite`` root filesystem in ``target`` (``include``: more packages), its apt caches emptied;
    returns ``target``. Kept: a folder made by an earlier call with the same arguments is used as it is, and
    one made otherwise (or left half made) is made again."""
    wanted = {"suite": suite, "variant": variant, "mirror": mirror, "include": sorted(include)}
    marker = _marker(target)
    try:
        if target.is_dir() and json.loads(marker.read_text()) == wanted:
            log(f"debootstrap {suite}: kept in {target}")
            return target
    except (OSError, ValueError):
        pass
    if shutil.which("debootstrap") is None:
        raise BackendError("making a Debian root filesystem needs debootstrap: apt-get install debootstrap")
    marker.unlink(missing_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    log(f"debootstrap {suite} from {mirror} (a minute or two)")
    extra = [f"--include={','.join(include)}"] if include else []
    done = subprocess.run(
        ["debootstrap", f"--variant={variant}", *extra, suite, str(target), mirror],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(target, ignore_errors=True)
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
        raise BackendError(f"debootstrap failed (exit {done.returncode}); is {mirror} reachable?\n{tail}")
    for cache in _APT_CACHES:
        for entry in (target / cache).glob("*"):
            if entry.is_file():
                entry.unlink()
    marker.write_text(json.dumps(wanted))
    return target


def rootfs_tar(rootfs: Path, archive: Path) -> Path:
    """``rootfs`` as a tar archive of its contents (what ``docker import`` and disk-image tools take)."""
    import tarfile  # here: the kit is imported by every env server, which never builds an image

    with tarfile.open(archive, "w") as tar:
        tar.add(rootfs, arcname=".")
    return archive
