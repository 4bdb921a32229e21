"""Checkpoints of a training run: ``checkpoints/step-NNNNNN/`` folders, each complete or absent.

A checkpoint is written under a temporary name and renamed into place, so a kill -9 mid-write
leaves the previous one as the newest; ``meta.json`` is written last and marks it complete.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["newest_checkpoint", "save_checkpoint"]

_PREFIX = "step-"


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
