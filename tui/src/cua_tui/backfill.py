"""History the bus cannot give: runs read from their folders, so a TUI opened mid-run shows the whole run.

A run folder is what ``cua-bench run`` or ``cua-bench-rl train`` writes (``--output``); its
``run.json`` names the run id its live events carry, so folder and events fold into one row.
Only the packages' public readers are used (``load_results``, ``read_curve``, ``read_run_marker``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cua_bench import load_results, marker_alive, read_run_marker
from cua_bench.settings import SETTINGS_FILE
from cua_bench_rl import read_curve
from cua_tui.model import Run

__all__ = ["find_run_folders", "read_run", "scan_runs"]

MAX_DEPTH = 2  # runs/<name> and runs/<group>/<name>: deep enough for sweeps, cheap on big trees


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _summary(folder: Path, marker: dict[str, Any]) -> dict[str, Any] | None:
    """The summary of the session that last worked here; one left by an earlier session of a resumed run
    (older than the marker) does not count."""
    path = folder / "summary.json"
    try:
        if path.stat().st_mtime < float(marker.get("started") or 0.0):
            return None
    except (OSError, ValueError, TypeError):
        return None
    return _json(path)


def _is_run(folder: Path) -> bool:
    return (folder / "episodes.jsonl").exists() or (folder / "curve.csv").exists() or (folder / "run.json").exists()


def find_run_folders(roots: Iterable[Path]) -> list[Path]:
    """Run folders at or below each root (a root may itself be a run folder)."""
    found: list[Path] = []

    def walk(folder: Path, depth: int) -> None:
        if _is_run(folder):
            found.append(folder)
            return
        if depth >= MAX_DEPTH:
            return
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            return
        for child in children:
            walk(child, depth + 1)

    for root in roots:
        if root.is_dir():
            walk(root, 0)
    return found


def read_run(folder: Path) -> Run | None:
    """The run in ``folder`` as the TUI shows it; None when the folder holds no run."""
    folder = folder.resolve()
    marker = read_run_marker(folder) or {}
    run_id = str(marker.get("run") or folder.name)
    alive = marker_alive(marker)
    if (folder / "curve.csv").exists() or marker.get("kind") == "rl":
        return _rl_run(folder, run_id, marker, alive)
    if (folder / "episodes.jsonl").exists() or marker.get("kind") == "bench":
        return _bench_run(folder, run_id, marker, alive)
    return None


def _bench_run(folder: Path, run_id: str, marker: dict[str, Any], alive: bool) -> Run:
    run = Run(run_id, "bench", folder=str(folder), started=float(marker.get("started") or 0.0))
    for key, result in load_results(folder / "episodes.jsonl").items():
        run.add_result(key, result.task, result.reward, result.status, result.error)
    settings = (_json(folder / SETTINGS_FILE) or {}).get("results") or {}
    if settings:
        run.title = (
            f"{settings.get('agent', '?')} on {settings.get('taskset', '?')} "
            f"({settings.get('backend', '?')}, {settings.get('split', '?')})"
        )
    summary = _summary(folder, marker)
    if summary is not None:
        run.status = "finished" if summary.get("complete") else "interrupted"
        run.total = int(summary.get("episodes") or run.done) if summary.get("complete") else None
    else:
        run.status = "running" if alive else "stopped"
    if isinstance(marker.get("episodes"), int):
        run.total = marker["episodes"]
    return run


def _rl_run(folder: Path, run_id: str, marker: dict[str, Any], alive: bool) -> Run:
    run = Run(run_id, "rl", folder=str(folder), started=float(marker.get("started") or 0.0))
    config = _json(folder / "config.json") or {}
    if config:
        run.title = (
            f"{config.get('trainer', '?')} · {config.get('policy', '?')} · {config.get('env', '?')} "
            f"× G={config.get('group_size', '?')}"
        )
    for row in read_curve(folder / "curve.csv"):
        if row.get("loss") is None:  # a held-out evaluation row, not an optimiser step
            if row.get("eval_success") is not None:
                run.eval_success = row["eval_success"]
            continue
        run.curve.append({k: (int(v) if k in _INTS and v is not None else v) for k, v in row.items()})
    summary = _summary(folder, marker)
    if summary is not None:
        run.status = str(summary.get("status") or "finished")
    else:
        run.status = "running" if alive else "stopped"
    return run


_INTS = {"step", "policy_version", "episodes", "buffer_size", "groups_dropped", "stale_dropped"}


def scan_runs(roots: Iterable[Path]) -> list[Run]:
    runs = []
    for folder in find_run_folders(roots):
        run = read_run(folder)
        if run is not None:
            runs.append(run)
    return runs
