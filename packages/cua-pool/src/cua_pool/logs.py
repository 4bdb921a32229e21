"""Job logs on the controller: one append-only file per (job, rank), readable from any offset.

A member's space writes its own log from offset 0; the controller places each attempt's log at a
base offset in the rank's file (recorded with the member), so a gang restart continues the same
file. An append is accepted only at the exact end of the file, which makes shipping idempotent:
after any restart the agent asks where to continue and re-sends from there, never twice.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["LogStore"]

MAX_READ = 1 << 20


class LogStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._version = 0

    def path(self, job: str, rank: int) -> Path:
        return self.root / job / f"rank-{rank}.log"

    def size(self, job: str, rank: int) -> int:
        try:
            return self.path(job, rank).stat().st_size
        except FileNotFoundError:
            return 0

    def begin(self, job: str, rank: int, banner: str) -> int:
        """Start a new attempt's log for a rank: write its banner line; returns the attempt's base."""
        with self._lock:
            path = self.path(job, rank)
            path.parent.mkdir(mode=0o700, exist_ok=True)
            with path.open("ab") as out:
                if banner:
                    out.write(banner.encode() + b"\n")
                base = out.tell()
            self._notify()
            return base

    def append(self, job: str, rank: int, at: int, data: bytes) -> int:
        """Write ``data`` if ``at`` is the file's end; returns the end either way (where to resume)."""
        with self._lock:
            path = self.path(job, rank)
            path.parent.mkdir(mode=0o700, exist_ok=True)
            with path.open("ab") as out:
                end = out.tell()
                if at == end and data:
                    # One write call: a kill -9 of the controller leaves all of it or none in the file.
                    os.write(out.fileno(), data)
                    end += len(data)
                    self._notify()
            return end

    def read(self, job: str, rank: int, offset: int, limit: int = MAX_READ) -> tuple[bytes, int]:
        if offset < 0:
            raise ValueError(f"log offset must be >= 0, got {offset}")
        try:
            with self.path(job, rank).open("rb") as src:
                src.seek(offset)
                data = src.read(min(limit, MAX_READ))
        except FileNotFoundError:
            return b"", offset
        return data, offset + len(data)

    def ranks(self, job: str) -> list[int]:
        folder = self.root / job
        if not folder.is_dir():
            return []
        return sorted(int(p.stem.removeprefix("rank-")) for p in folder.glob("rank-*.log"))

    def wait(self, version: int, timeout: float) -> int:
        """Block until some log grew after ``version`` (or the timeout); returns the new version."""
        with self._changed:
            if self._version == version:
                self._changed.wait(timeout)
            return self._version

    @property
    def version(self) -> int:
        return self._version

    def _notify(self) -> None:
        self._version += 1
        self._changed.notify_all()
