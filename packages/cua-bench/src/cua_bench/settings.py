"""A run's settings, stored in its folder: what produced these results, and what --resume must match.

``settings.json`` holds two parts. ``results``: everything that changes what an episode scores
(taskset, tasks, backend, agent and its options, observation, step limit, variants, split,
screen size); ``--resume`` refuses when any of them differs, naming it, because mixing episodes
of two settings under one summary is a silently wrong result. ``run``: how this run was made
(command line, parallelism, package versions, the commit, the machine); it is recorded, not
compared.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import socket
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cua_core import CuaError

if TYPE_CHECKING:
    from cua_bench.runner import RunConfig

__all__ = ["SETTINGS_FILE", "check_resume", "load_settings", "run_settings", "write_settings"]

SETTINGS_FILE = "settings.json"


def _plain(value: Any) -> Any:
    """JSON-ready: options a Python caller passed may be any object; their repr is what we can keep."""
    return json.loads(json.dumps(value, default=repr, sort_keys=True))


def _commit() -> str | None:
    """The git commit of this cua checkout (``-dirty`` when it has uncommitted changes), None for an install."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}-dirty" if dirty else head


def _versions() -> dict[str, str]:
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"] or ""
        if name.startswith("cua") or name in ("transformers", "torch"):
            found[name] = dist.version
    return dict(sorted(found.items()))


def _backend_options(name: str) -> dict[str, Any]:
    from cua_bench.backend_kit import resolve_options
    from cua_bench.registry import backends

    return resolve_options(backends()[name], {})


def _backend_defaults(name: str) -> dict[str, Any]:
    from cua_bench.registry import backends

    return {option.name: option.default for option in getattr(backends()[name], "options", ())}


def run_settings(config: RunConfig, agent_name: str) -> dict[str, Any]:
    observes = asdict(config.observes) if config.observes is not None else None
    return {
        "results": _plain(
            {
                "taskset": config.taskset,
                "tasks": config.tasks,
                "backend": config.backend,
                # What the backend ran with, however it was set (--backend-option or its variable).
                "backend_options": _backend_options(config.backend),
                "agent": agent_name,
                "agent_options": config.agent_options or {},
                "observes": observes,
                "max_steps": config.max_steps,
                "variants": config.variants,
                # only when given, so that runs recorded before it existed still resume
                **({"variant": config.variant} if config.variant is not None else {}),
                "split": config.split,
                "screen": [config.width, config.height],
                "seed": "the variant index (reset(seed=None))",
                # Since EpisodeSpec: a named task's key holds its taskset (sim/click-button/test/0). A run
                # recorded before has other keys, and resuming it would play its episodes again.
                "episode_keys": "EpisodeSpec.key",
            }
        ),
        "run": _plain(
            {
                "command": [Path(sys.argv[0]).name, *sys.argv[1:]],
                "placement": config.placement,  # where it ran changes no score, so --resume may move it
                "max_parallel": config.max_parallel,
                "record": config.record,
                "step_timeout": config.step_timeout,
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "versions": _versions(),
                "commit": _commit(),
                "python": platform.python_version(),
                "host": socket.gethostname(),
                "pid": os.getpid(),
            }
        ),
    }


def load_settings(folder: Path) -> dict[str, Any] | None:
    path = folder / SETTINGS_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise CuaError(f"{path} is not valid JSON ({exc}); restore it or pick a new --output") from exc
    return dict(data)


def write_settings(folder: Path, settings: dict[str, Any]) -> None:
    """Atomically, so a kill mid-write leaves the previous file whole."""
    path = folder / SETTINGS_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(settings, indent=2))
    tmp.replace(path)


def check_resume(folder: Path, current: dict[str, Any]) -> None:
    """Refuse to continue a run whose results were made with other settings, naming each difference."""
    saved = load_settings(folder)
    if saved is None:
        # A run folder from before settings were stored: its summary still names the essentials.
        summary_path = folder / "summary.json"
        if not summary_path.exists():
            return
        summary = json.loads(summary_path.read_text())
        known = {k: summary.get(k) for k in ("taskset", "backend", "agent", "split") if k in summary}
        wanted = {k: current["results"][k] for k in known}
    else:
        known, wanted = dict(saved.get("results", {})), current["results"]
        options = known.get("backend_options")
        if isinstance(options, dict) and known.get("backend") == wanted.get("backend"):
            # An option the backend added after the run was recorded ran at its default then.
            known["backend_options"] = dict(sorted({**_backend_defaults(str(wanted["backend"])), **options}.items()))
    differ = [key for key in sorted(set(known) | set(wanted)) if known.get(key) != wanted.get(key)]
    if differ:
        details = "; ".join(f"{key}: the run has {known.get(key)!r}, now {wanted.get(key)!r}" for key in differ)
        raise CuaError(
            f"--resume {folder}: the settings differ ({details}); resume with the run's own settings "
            "(see its settings.json), or pick a new --output"
        )
