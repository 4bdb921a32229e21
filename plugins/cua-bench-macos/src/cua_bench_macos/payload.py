"""The env server's payload for a macOS guest, made on the host: the kit's ``server_payload`` for Apple
silicon plus this plugin, as one gzipped tar that ``guest.install`` unpacks in the guest.

The wheels are for CPython 3.11 on ``macosx_14_0_arm64`` (pip also takes older macOS and universal2
wheels for that tag): guests run macOS 14 or later, as Lume's and tart's current images do. This
plugin goes in beside cua's packages with its entry points, since the server inside serves
``--backend macos``. The archive is made reproducibly (sorted, no times or owners), so its hash
changes only when what it holds does, and a golden VM stamped with that hash skips the install.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import shutil
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from cua_bench import BackendError
from cua_bench.backend_kit import server_payload

__all__ = ["MACOS_PLATFORMS", "build_payload", "stored_payload"]

MACOS_PLATFORMS = ("macosx_14_0_arm64",)
PLUGIN = "cua_bench_macos"
TARBALL, DIGEST = "payload.tar.gz", "payload.sha256"


def build_payload(folder: Path, log: Callable[[str], None] = print) -> tuple[Path, str]:
    """Write ``payload.tar.gz`` and its hash into ``folder`` (replacing a previous one); returns both."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="payload-", dir=folder) as scratch:
        root = Path(scratch) / "payload"
        root.mkdir()
        server_payload(root, log=log, platforms=MACOS_PLATFORMS)
        _copy_plugin(root / "lib")
        data = _archive(root)
    digest = hashlib.sha256(data).hexdigest()
    partial = folder / (TARBALL + ".partial")
    partial.write_bytes(data)
    partial.replace(folder / TARBALL)
    (folder / DIGEST).write_text(digest + "\n")
    log(f"the macOS payload: {len(data) / 2**20:.1f} MiB, sha256 {digest[:12]}")
    return folder / TARBALL, digest


def stored_payload(folder: Path) -> tuple[Path, str] | None:
    """The payload ``build_payload`` left in ``folder``, or None."""
    try:
        digest = (folder / DIGEST).read_text().strip()
    except OSError:
        return None
    return (folder / TARBALL, digest) if digest and (folder / TARBALL).is_file() else None


def _archive(root: Path) -> bytes:
    import gzip  # here, with tarfile: cua-bench loads this plugin in every env server, which builds no payload
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(root.rglob("*")):
            info = tar.gettarinfo(str(path), arcname=str(path.relative_to(root)))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if info.isfile():
                with open(path, "rb") as fh:
                    tar.addfile(info, fh)
            else:
                tar.addfile(info)
    return gzip.compress(buffer.getvalue(), compresslevel=6, mtime=0)  # mtime 0: the same bytes every build


def _copy_plugin(lib: Path) -> None:
    """This plugin into ``lib`` with a dist-info holding its entry points, as the kit copies cua's packages:
    the server inside finds ``--backend macos`` by its entry point."""
    source = Path(importlib.import_module(PLUGIN).__file__ or "").parent
    shutil.copytree(source, lib / PLUGIN, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    try:
        dist = metadata.distribution("cua-bench-macos")
    except metadata.PackageNotFoundError:
        raise BackendError(
            "cua_bench_macos is importable but not installed: pip install -e plugins/cua-bench-macos"
        ) from None
    info = lib / f"{PLUGIN}-{dist.version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist.metadata['Name']}\nVersion: {dist.version}\n")
    (info / "entry_points.txt").write_text(dist.read_text("entry_points.txt") or "")
