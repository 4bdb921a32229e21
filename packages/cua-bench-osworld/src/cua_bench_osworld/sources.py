"""Where a task's files come from: a local path, a loopback URL, or a local mirror of a remote one.

Environments never reach the network. A ``download`` step or ``cloud_file`` getter whose URL is
neither local nor loopback is supported only when a mirror folder holds the file: OSWorld's file
cache (the Hugging Face dataset ``xlangai/ubuntu_osworld_file_cache``) fetched once, laid out as
``<mirror>/<domain>/<task id>/<file>`` (the part of the URL after ``/resolve/<revision>/``), or
any other URL as ``<mirror>/<host>/<path>``. The mirror is ``CUA_OSWORLD_FILES`` or given;
``cua-bench osworld fetch`` fills it (``fetch``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from cua_bench_osworld.loader import TaskSkipped

__all__ = ["FILES_ENV", "Source", "classify", "default_mirror", "mirror_path", "read_source"]

FILES_ENV = "CUA_OSWORLD_FILES"


@dataclass(frozen=True)
class Source:
    kind: str  # "local", "loopback", "mirror" or "network"
    location: str  # a path for local and mirror, the URL otherwise
    url: str = ""

    @property
    def reachable(self) -> bool:
        return self.kind != "network"


def default_mirror() -> Path | None:
    value = os.environ.get(FILES_ENV)
    return Path(value) if value else None


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def mirror_path(url: str, mirror: Path) -> Path:
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.unquote(parts.path)
    marker = "/resolve/"
    if marker in path:
        # .../resolve/<revision>/<domain>/<id>/<file>
        rest = path.split(marker, 1)[1].split("/", 1)
        if len(rest) == 2:
            return mirror / rest[1]
    return mirror / (parts.hostname or "") / path.lstrip("/")


def classify(url: str, *, base: Path, mirror: Path | None = None) -> Source:
    """What ``url`` (from a task in folder ``base``) is; nothing is read or fetched."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "file":
        return Source("local", urllib.parse.unquote(parts.path), url)
    if not scheme:
        path = Path(url)
        return Source("local", str(path if path.is_absolute() else base / path), url)
    if scheme in ("http", "https") and _is_loopback(parts.hostname):
        return Source("loopback", url, url)
    if mirror is not None:
        local = mirror_path(url, mirror)
        if local.is_file():
            return Source("mirror", str(local), url)
    return Source("network", url, url)


async def read_source(source: Source, timeout: float = 60.0) -> bytes:
    if source.kind in ("local", "mirror"):
        return await asyncio.to_thread(Path(source.location).read_bytes)
    if source.kind == "loopback":

        def fetch() -> bytes:
            with urllib.request.urlopen(source.location, timeout=timeout) as response:
                data: bytes = response.read()
                return data

        return await asyncio.to_thread(fetch)
    raise TaskSkipped(
        f"unsupported: network download ({source.url}; fetch it with `cua-bench osworld fetch TASKS --mirror MIRROR` "
        f"and set {FILES_ENV}=MIRROR, or serve it on loopback)"
    )
