"""Checkpoints in cua-bench-rl: an RL run's step folders, and the store an SFT trainer keeps its states in.

An RL run (``cua_bench_rl.train``) keeps ``checkpoints/step-NNNNNN/`` folders that the trainer's ``save``
fills (:func:`save_checkpoint`, :func:`newest_checkpoint`). Each is written under a temporary name and
renamed into place, so a kill -9 mid-write leaves the previous one as the newest; ``meta.json`` is
written last and marks it complete.

An SFT trainer gets a :class:`Checkpoints` store: ``save(state, step)``, ``latest()``, ``load(step=None)``.
Two implement it: ``cua_pool.Checkpoints`` inside a ``cua run`` job (a restarted gang may land on other
computers, and only the pool's store is reachable from all of them; the controller keeps it, in
``cua_pool.checkpoint_store``) and :class:`FolderCheckpoints` under ``torchrun`` or in a plain process;
:func:`checkpoints_in` picks. So a trainer resumes the same way wherever it runs.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["Checkpoints", "FolderCheckpoints", "checkpoints_in", "newest_checkpoint", "save_checkpoint"]

_PREFIX = "step-"
_SUFFIX = ".ckpt"


def _step(path: Path) -> int | None:
    name = path.name
    if not name.startswith(_PREFIX) or not name[len(_PREFIX) :].isdigit() or not (path / "meta.json").exists():
        return None
    return int(name[len(_PREFIX) :])


def newest_checkpoint(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    """The newest complete checkpoint under ``folder`` and its meta, or None."""
    found = sorted((s, p) for p in folder.glob(f"{_PREFIX}*") if (s := _step(p)) is not None)
    if not found:
        return None
    path = found[-1][1]
    return path, json.loads((path / "meta.json").read_text())


def save_checkpoint(folder: Path, step: int, write: Callable[[Path], None], meta: dict[str, Any], *, keep: int) -> Path:
    """``write(tmp_folder)`` fills a fresh folder; it becomes ``folder/step-NNNNNN`` with ``meta.json``.
    Older checkpoints beyond the newest ``keep`` are removed, and so are leftovers of killed writes."""
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{_PREFIX}{step:06d}"
    tmp = folder / f".{final.name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    write(tmp)
    meta_tmp = tmp / "meta.json.tmp"
    meta_tmp.write_text(json.dumps({"step": step, **meta}, indent=2, sort_keys=True))
    with meta_tmp.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(meta_tmp, tmp / "meta.json")
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    complete = sorted((s, p) for p in folder.glob(f"{_PREFIX}*") if (s := _step(p)) is not None)
    for _, old in complete[: max(0, len(complete) - keep)]:
        shutil.rmtree(old, ignore_errors=True)
    for leftover in folder.glob(f".{_PREFIX}*.tmp"):
        if leftover != tmp:
            shutil.rmtree(leftover, ignore_errors=True)
    return final


@runtime_checkable
class Checkpoints(Protocol):
    """Where an SFT trainer keeps its newest states (``SFTTrainer.store``), implemented by
    ``cua_pool.Checkpoints`` and :class:`FolderCheckpoints`."""

    def save(self, state: Any, step: int) -> None:
        """Keep ``state`` (anything picklable) as ``step``; a kill mid-save leaves the previous newest."""

    def latest(self) -> int | None:
        """The newest saved step, or None when nothing was saved yet."""

    def load(self, step: int | None = None) -> Any:
        """The state saved at ``step`` (default: the newest), or None when there is none."""


class FolderCheckpoints:
    """``step-NNNNNNNN.ckpt`` pickles in one folder; each is complete or absent (written aside, then
    renamed), so a kill -9 while saving leaves the previous one as the newest."""

    def __init__(self, folder: Path, *, keep: int = 3) -> None:
        self.folder = Path(folder)
        self.keep = keep

    def _steps(self) -> list[int]:
        found = []
        for path in self.folder.glob(f"{_PREFIX}*{_SUFFIX}"):
            digits = path.name[len(_PREFIX) : -len(_SUFFIX)]
            if digits.isdigit():
                found.append(int(digits))
        return sorted(found)

    def _path(self, step: int) -> Path:
        return self.folder / f"{_PREFIX}{step:08d}{_SUFFIX}"

    def save(self, state: Any, step: int) -> None:
        if not isinstance(step, int) or step < 0:
            raise ValueError(f"checkpoint step must be an int >= 0, got {step!r}")
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{_PREFIX}{step:08d}.{os.getpid()}.tmp"
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


def checkpoints_in(folder: Path) -> Checkpoints:
    """The job's own checkpoints (the pool's) inside a ``cua run`` job, which any member on any host sees;
    else those in ``folder``."""
    if os.environ.get("CUA_POOL_SPACE") and os.environ.get("CUA_POOL_TOKEN"):
        import cua_pool

        store: Checkpoints = cua_pool.checkpoints()
        return store
    return FolderCheckpoints(folder)
