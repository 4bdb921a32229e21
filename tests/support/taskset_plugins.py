"""What every taskset distribution's registration test checks: found by entry point from its own
distribution, and gone when disabled (the sim and desktop tasksets' test_registration.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cua_bench.registry import plugin_manager, tasksets


def registers_by_entry_point(name: str, distribution: str, folder: Path) -> None:
    pm = plugin_manager()
    dists = {pm.get_name(plugin): dist.project_name for plugin, dist in pm.list_plugin_distinfo()}
    assert dists.get(name) == distribution
    assert tasksets()[name] == folder


def disabling_takes_it_away(name: str, other: str) -> None:
    """``CUA_BENCH_DISABLE_PLUGINS=name`` in a fresh process (the plugin manager is built once per
    process): ``name`` is gone, ``other`` is still there."""
    code = "from cua_bench.registry import tasksets; print(sorted(tasksets().names()))"
    shown = subprocess.run(
        [sys.executable, "-c", code],
        env={"CUA_BENCH_DISABLE_PLUGINS": name, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"'{name}'" not in shown and f"'{other}'" in shown
