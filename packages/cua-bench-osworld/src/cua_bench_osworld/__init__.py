"""OSWorld's tasks on cua-bench: its published task files, our getters, its metrics.

    cua-bench osworld report evaluation_examples/examples      # what runs here, what is skipped
    CUA_OSWORLD_TASKS=evaluation_examples/examples cua-bench run osworld --backend docker

Task files load as tasks through the ``osworld`` task format (``taskset``); setup and postconfig
steps run through the Session (``config``); getters read the computer through it (``getters``);
scoring combines metrics exactly as OSWorld does (``evaluate``), with OSWorld's own metric
functions when ``desktop-env`` is installed (``official``) and built-in ones otherwise
(``metrics``). Tasks that need what we lack, an app the backend's desktop lacks included
(``apps``), are skipped with the reason (``support``); a getter or step the computer fails is a
``PlatformError``, an errored episode, never a 0.
"""

from typing import TYPE_CHECKING

from cua_core import lazy_getattr

if TYPE_CHECKING:
    from cua_bench_osworld.evaluate import combine, metric_function
    from cua_bench_osworld.loader import (
        Evaluator,
        OSWorldFormatError,
        OSWorldTask,
        PlatformError,
        Step,
        TaskSkipped,
        load_task,
        load_tasks,
    )
    from cua_bench_osworld.metrics import BUILTIN_METRICS
    from cua_bench_osworld.official import OfficialMetrics, official_metrics
    from cua_bench_osworld.report import Report, build_report, format_report
    from cua_bench_osworld.support import Support, check_support
    from cua_bench_osworld.taskset import OSWorldFormat, task_module

# Imported on first use: cua-bench loads this plugin (its ``taskset`` entry point, and so this package) in
# every env server, which needs the metrics, getters and report (sqlite3, zoneinfo, ...) only for an
# OSWorld task.
_LAZY = {
    "combine": "cua_bench_osworld.evaluate",
    "metric_function": "cua_bench_osworld.evaluate",
    "Evaluator": "cua_bench_osworld.loader",
    "OSWorldFormatError": "cua_bench_osworld.loader",
    "OSWorldTask": "cua_bench_osworld.loader",
    "PlatformError": "cua_bench_osworld.loader",
    "Step": "cua_bench_osworld.loader",
    "TaskSkipped": "cua_bench_osworld.loader",
    "load_task": "cua_bench_osworld.loader",
    "load_tasks": "cua_bench_osworld.loader",
    "BUILTIN_METRICS": "cua_bench_osworld.metrics",
    "OfficialMetrics": "cua_bench_osworld.official",
    "official_metrics": "cua_bench_osworld.official",
    "Report": "cua_bench_osworld.report",
    "build_report": "cua_bench_osworld.report",
    "format_report": "cua_bench_osworld.report",
    "Support": "cua_bench_osworld.support",
    "check_support": "cua_bench_osworld.support",
    "OSWorldFormat": "cua_bench_osworld.taskset",
    "task_module": "cua_bench_osworld.taskset",
}

__getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = [
    "BUILTIN_METRICS",
    "Evaluator",
    "OSWorldFormat",
    "OSWorldFormatError",
    "OSWorldTask",
    "OfficialMetrics",
    "PlatformError",
    "Report",
    "Step",
    "Support",
    "TaskSkipped",
    "build_report",
    "check_support",
    "combine",
    "format_report",
    "load_task",
    "load_tasks",
    "metric_function",
    "official_metrics",
    "task_module",
]
