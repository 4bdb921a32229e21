"""The sim taskset is a distribution of its own that cua-bench finds by entry point, as a third party's."""

from __future__ import annotations

from support.taskset_plugins import disabling_takes_it_away, registers_by_entry_point

import cua_bench_tasks_sim


def test_it_registers_by_entry_point_from_its_own_distribution() -> None:
    registers_by_entry_point("sim", "cua-bench-tasks-sim", cua_bench_tasks_sim.FOLDER)


def test_disabling_the_plugin_takes_the_taskset_away() -> None:
    disabling_takes_it_away("sim", other="desktop")
