"""The sim taskset is a distribution of its own that cua-bench finds by entry point, as a third party's."""

from __future__ import annotations

import subprocess
import sys

import cua_bench_tasks_sim
from cua_bench.registry import plugin_manager, tasksets


def test_it_registers_by_entry_point_from_its_own_distribution() -> None:
    pm = plugin_manager()
    dists = {name: dist.project_name for plugin, dist in pm.list_plugin_distinfo() for name in [pm.get_name(plugin)]}
    assert dists.get("sim") == "cua-bench-tasks-sim"
    assert tasksets()["sim"] == cua_bench_tasks_sim.FOLDER


def test_disabling_the_plugin_takes_the_taskset_away() -> None:
    # A fresh process: the plugin manager is built once per process.
    code = "from cua_bench.registry import tasksets; print(sorted(tasksets().names()))"
    shown = subprocess.run(
        [sys.executable, "-c", code],
        env={"CUA_BENCH_DISABLE_PLUGINS": "sim", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "'sim'" not in shown and "'desktop'" in shown
