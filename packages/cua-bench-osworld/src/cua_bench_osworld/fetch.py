"""``cua-bench osworld fetch DIR --mirror MIRROR``: every remote file the tasks under DIR use, once.

Environments never reach the network (``sources``): a task whose ``download`` step or
``cloud_file`` getter names a remote URL runs only when the mirror holds the file, at
``sources.mirror_path``. This fills the mirror, on a machine that may reach those hosts:

- each file is written to ``<dest>.part`` and renamed to ``<dest>`` only once all of it has
  arrived (its Content-Length checked), so a download killed at any point (``kill -9`` included)
  never leaves a file at ``<dest>`` that passes for complete;
- a rerun skips files that are there, and continues a ``.part`` with an HTTP Range request (or
  starts it again where the server ignores ranges);
- ``manifest.json`` in the mirror lists each file's URL, path, size and sha256, rewritten
  (atomically) after every file, so an interrupted run's manifest is true as far as it goes;
- a file that fails is reported with its URL and why, and the others still come; the command
  exits non-zero with the count.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench_osworld.loader import OSWorldFormatError, OSWorldTask, find_task_files, load_task
from cua_bench_osworld.sources import mirror_path

__all__ = ["MANIFEST", "FetchResult", "fetch", "remote_urls", "task_urls"]

MANIFEST = "manifest.json"
_PART = ".part"
_CHUNK = 1 << 20


def task_urls(task: OSWorldTask) -> list[str]:
    """The http(s) URLs of files ``task`` uses: its ``download`` steps' (setup and postconfig) and
    its ``cloud_file`` getters' (results and expected, ``multi`` lists included)."""
    urls: list[str] = []
    for step in task.steps():
        if step.type == "download":
            files = step.parameters.get("files", [])
            urls += [str(f.get("url", "")) for f in files if isinstance(f, dict)] if isinstance(files, list) else []
    for getter in task.evaluator.getters():
        if getter["type"] == "cloud_file":
            paths = getter.get("path")
            urls += [str(p) for p in (paths if isinstance(paths, list) else [paths])]
    return [u for u in urls if urllib.parse.urlsplit(u).scheme.lower() in ("http", "https")]


def remote_urls(folder: Path | str) -> tuple[list[str], dict[str, str]]:
    """Every remote file URL the task files under ``folder`` use, once each, in task order; and the
    files that are not valid tasks (path -> why), which are left out."""
    urls: dict[str, None] = {}
    invalid: dict[str, str] = {}
    for path in find_task_files(folder):
        try:
            task = load_task(path)
        except OSWorldFormatError as exc:
            invalid[str(path)] = str(exc).removeprefix(f"{path}: ")
            continue
        urls.update(dict.fromkeys(task_urls(task)))
    return list(urls), invalid


@dataclass
class FetchResult:
    mirror: Path
    fetched: list[str] = field(default_factory=list)  # downloaded whole this run
    resumed: list[str] = field(default_factory=list)  # continued from a .part this run
    present: list[str] = field(default_factory=list)  # already complete in the mirror
    failed: dict[str, str] = field(default_factory=dict)  # url -> why

    @property
    def total(self) -> int:
        return len(self.fetched) + len(self.resumed) + len(self.present) + len(self.failed)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _load_manifest(mirror: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((mirror / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): v for k, v in files.items() if isinstance(v, dict)} if isinstance(files, dict) else {}


def _write_manifest(mirror: Path, files: dict[str, dict[str, Any]]) -> None:
    temporary = mirror / f".{MANIFEST}.tmp"
    temporary.write_text(json.dumps({"version": 1, "files": dict(sorted(files.items()))}, indent=2) + "\n")
    os.replace(temporary, mirror / MANIFEST)


def _download(url: str, dest: Path, timeout: float) -> bool:
    """Bring ``url`` to ``dest`` through ``dest.part``; True when an earlier part was continued."""
    part = dest.with_name(dest.name + _PART)
    dest.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    headers = {"User-Agent": "cua-bench osworld fetch", "Accept-Encoding": "identity"}
    if have:
        headers["Range"] = f"bytes={have}-"
    try:
        response = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # the part is not a prefix of what is there now: start again
            part.unlink()
            return _download(url, dest, timeout)
        raise
    with response:
        resumed = bool(have) and response.status == 206
        start = have if resumed else 0
        length = response.headers.get("Content-Length")
        with part.open("ab" if resumed else "wb") as out:
            while chunk := response.read(_CHUNK):
                out.write(chunk)
    size = part.stat().st_size
    if length is not None and size != start + int(length):
        raise OSError(f"the connection ended after {size} of {start + int(length)} bytes (kept: rerun to continue)")
    os.replace(part, dest)
    return resumed


def fetch(
    folder: Path | str, mirror: Path | str, *, timeout: float = 60.0, log: Callable[[str], None] | None = None
) -> FetchResult:
    """Fetch every remote file the tasks under ``folder`` use into ``mirror`` (see the module doc)."""
    mirror = Path(mirror)
    mirror.mkdir(parents=True, exist_ok=True)
    say = log or (lambda line: None)
    urls, _invalid = remote_urls(folder)
    manifest = _load_manifest(mirror)
    result = FetchResult(mirror)
    root = mirror.resolve()
    for url in urls:
        dest = mirror_path(url, mirror)
        known = manifest.get(url)
        try:
            if not dest.resolve().is_relative_to(root):
                raise ValueError(f"its mirror path {dest} is outside the mirror {mirror}: refused")
            relative = str(dest.relative_to(mirror))
            if dest.is_file() and (known is None or known.get("size") == dest.stat().st_size):
                # Only a finished download is ever renamed to dest: it is complete.
                result.present.append(url)
                if known is not None and known.get("path") == relative:
                    continue
                # Put there by hand, or by a run killed before it wrote the manifest: record it.
            else:
                if dest.is_file():  # not the size the manifest recorded: fetch it again
                    dest.unlink()
                resumed = _download(url, dest, timeout)
                (result.resumed if resumed else result.fetched).append(url)
                say(f"{'resumed' if resumed else 'fetched'}: {url} -> {relative} ({dest.stat().st_size} bytes)")
            manifest[url] = {"path": relative, "size": dest.stat().st_size, "sha256": _sha256(dest)}
            _write_manifest(mirror, manifest)
        except (OSError, http.client.HTTPException, ValueError) as exc:  # URLError is an OSError
            why = f"{type(exc).__name__}: {exc}"
            result.failed[url] = why
            say(f"failed: {url}: {why}")
    with contextlib.suppress(OSError):
        if not (mirror / MANIFEST).exists():
            _write_manifest(mirror, manifest)
    return result
