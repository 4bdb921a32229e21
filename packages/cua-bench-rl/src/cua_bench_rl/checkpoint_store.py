"""Where an SFT trainer keeps its newest states: the pool's store in a `cua run` job, else a folder.

Both answer ``save(state, step)``, ``latest()`` and ``load(step=None)``, so a trainer resumes the
same way under ``cua run --nodes`` (where a restarted gang may land on other computers and only
the pool's store is reachable from all of them), under ``torchrun`` and in a plain process.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any, Protocol

__all__ = ["CheckpointStore", "FolderCheckpoints", "checkpoint_store"]

_SUFFIX = ".ckpt"


class CheckpointStore(Protocol):
    def save(self, state: Any, step: int) -> None: ...
    def latest(self) -> int | None: ...
    def load(self, step: int | None = None) -> Any: ...


class FolderCheckpoints:
    """``step-NNNNNNNN.ckpt`` pickles in one folder; each is complete or absent (written aside, then
    renamed), so a kill -9 while saving leaves the previous one as the newest."""

    def __init__(self, folder: Path, *, keep: int = 3) -> None:
        self.folder = Path(folder)
        self.keep = keep

    def _steps(self) -> list[int]:
        found = []
        for path in self.folder.glob(f"step-*{_SUFFIX}"):
            digits = path.name[len("step-") : -len(_SUFFIX)]
            if digits.isdigit():
                found.append(int(digits))
        return sorted(found)

    def _path(self, step: int) -> Path:
        return self.folder / f"step-{step:08d}{_SUFFIX}"

    def save(self, state: Any, step: int) -> None:
        if not isinstance(step, int) or step < 0:
            raise ValueError(f"checkpoint step must be an int >= 0, got {step!r}")
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".step-{step:08d}.{os.getpid()}.tmp"
        with tmp.open("wb") as f:
            pickle.dump(state, f, protocol=5)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._path(step))
        for old in self._steps()[: -self.keep]:
            self._path(old).unlink(missing_ok=True)

    def latest(self) -> int | None:
        steps = self._steps()
        return steps[-1] if steps else None

    def load(self, step: int | None = None) -> Any:
        step = self.latest() if step is None else step
        if step is None or not self._path(step).exists():
            return None
        with self._path(step).open("rb") as f:
            return pickle.load(f)  # our own run's states, written by save() above

    def __repr__(self) -> str:
        return f"FolderCheckpoints({str(self.folder)!r})"


def checkpoint_store(folder: Path) -> CheckpointStore:
    """The job's pool store inside a `cua run` job (any member on any host sees it), else ``folder``."""
    if os.environ.get("CUA_POOL_SPACE") and os.environ.get("CUA_POOL_TOKEN"):
        import cua_pool

        store: CheckpointStore = cua_pool.checkpoints()
        return store
    return FolderCheckpoints(folder)
