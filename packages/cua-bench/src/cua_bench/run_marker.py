"""Which run last worked in a run folder: its id, kind, start time and process, in ``run.json``.

Events on the bus carry only the run's id; a TUI opened mid-run (or listing old folders) matches
them to folders by this file. A resumed run writes it again with its new id. The write is atomic
(written aside, then renamed), so a reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

__all__ = ["KINDS", "RUN_FILE", "marker_alive", "read_run_marker", "write_run_marker"]

RUN_FILE = "run.json"
KINDS = ("bench", "rl")


def write_run_marker(folder: Path, run: str, kind: str, *, episodes: int | None = None) -> Path:
    """Record that run ``run`` (a ``kind`` of run: bench or rl) works in ``folder`` from now on;
    ``episodes``, an evaluation's whole count, lets a reader show progress out of it."""
    if kind not in KINDS:
        raise ValueError(f"a run marker's kind is one of {', '.join(KINDS)}, not {kind!r}")
    path = Path(folder) / RUN_FILE
    aside = path.with_name(f".{RUN_FILE}.{os.getpid()}.tmp")
    marker: dict[str, Any] = {"run": run, "kind": kind, "started": time.time(), "pid": os.getpid()}
    if episodes is not None:
        marker["episodes"] = episodes
    aside.write_text(json.dumps(marker) + "\n")
    os.replace(aside, path)
    return path


def read_run_marker(folder: Path) -> dict[str, Any] | None:
    """The marker of the run that last worked in ``folder``; None when there is none or it is unreadable."""
    try:
        data = json.loads((Path(folder) / RUN_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def marker_alive(marker: dict[str, Any]) -> bool:
    """Whether the process a marker names still runs (on this computer: a pid means nothing elsewhere)."""
    pid = marker.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True
