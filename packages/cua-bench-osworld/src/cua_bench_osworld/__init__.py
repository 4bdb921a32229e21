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
