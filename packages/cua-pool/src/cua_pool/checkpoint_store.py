"""Job checkpoints kept by the controller: one file per (job, step), written whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cua_pool.store import Store, now

__all__ = ["CheckpointStore"]

MAX_CHECKPOINT = 1 << 30
KEEP = 3  # the newest few: enough to fall back if the newest is damaged, bounded on disk


class CheckpointStore:
    """The controller's side of job checkpoints: each job's bytes by step, on the controller's disk, with a row
    per checkpoint. A job reaches it through its host agent as :class:`cua_pool.Checkpoints`."""

    def __init__(self, store: Store, root: Path) -> None:
        self.store = store
        self.root = root
        root.mkdir(mode=0o700, parents=True, exist_ok=True)

    def _check(self, job: str) -> None:
        if self.store.job(job) is None:
            raise LookupError(f"no job {job!r}: checkpoints belong to a job of this pool")

    def save(self, job: str, step: int, data: bytes) -> dict[str, Any]:
        self._check(job)
        data = bytes(data)  # a large payload arrives as a read-only view of its frame
        if not isinstance(step, int) or step < 0:
            raise ValueError(f"checkpoint step must be an int >= 0, got {step!r}")
        if len(data) > MAX_CHECKPOINT:
            raise ValueError(f"checkpoint of {len(data)} bytes is over the {MAX_CHECKPOINT >> 20} MiB limit")
        folder = self.root / job
        folder.mkdir(mode=0o700, exist_ok=True)
        tmp = folder / f"{step}.tmp"
        with tmp.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(folder / f"{step}.ckpt")
        self.store.upsert("checkpoints", {"job": job, "step": step, "size": len(data), "created": now()})
        for old in self.store.all("SELECT step FROM checkpoints WHERE job = ? ORDER BY step DESC", job)[KEEP:]:
            (folder / f"{old['step']}.ckpt").unlink(missing_ok=True)
            self.store.one("DELETE FROM checkpoints WHERE job = ? AND step = ? RETURNING step", job, old["step"])
        return {"job": job, "step": step, "size": len(data)}

    def latest(self, job: str) -> int | None:
        self._check(job)
        row = self.store.one("SELECT MAX(step) AS step FROM checkpoints WHERE job = ?", job)
        return None if row is None or row["step"] is None else int(row["step"])

    def load(self, job: str, step: int | None = None) -> dict[str, Any] | None:
        self._check(job)
        if step is None:
            step = self.latest(job)
            if step is None:
                return None
        path = self.root / job / f"{step}.ckpt"
        if not path.exists():
            raise LookupError(f"job {job} has no checkpoint at step {step}")
        return {"step": step, "data": path.read_bytes()}
