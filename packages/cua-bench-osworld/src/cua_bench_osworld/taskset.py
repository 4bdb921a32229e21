"""The OSWorld plugin of cua-bench: OSWorld's JSON task files run as cua-bench tasks on any backend.

It registers the task format ``osworld`` (so ``load_task_module`` and ``cua-bench run`` accept a
task file or a folder of them, e.g. ``evaluation_examples/examples``), the command ``cua-bench
osworld`` and, when ``CUA_OSWORLD_TASKS`` names a folder, the taskset ``osworld`` on it.

Each file is one task (named by its id) with one variant. Setup skips a task we cannot run —
raising ``TaskSkipped`` with the reason, so the run lists it instead of scoring 0 — then runs its
config steps; evaluation scores it as OSWorld does (``evaluate``), with OSWorld's metric functions
when ``desktop-env`` is installed and ours otherwise.

Setup steps that ran but failed are listed, as text, in the variant's ``metadata["setup_failures"]``:
the env server returns the variant in reset's info, so the runner records them with the episode and
counts them in the summary (``SETUP_FAILURES``).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from cua_bench import REPLACE_COMPUTER, Session, Task, TaskFormat, TaskModule, hookimpl
from cua_bench_osworld.loader import OSWorldTask, find_task_files, is_task_file, load_task
from cua_core import Register

# What runs an OSWorld task (its steps, getters, metrics: sqlite3, zoneinfo, spreadsheets) is imported in
# ``task_module``: cua-bench loads this module in every env server, which mostly serves other tasks.
if TYPE_CHECKING:
    from cua_bench_osworld.evaluate import Metric

__all__ = ["SETUP_FAILURES", "TASKS_ENV", "OSWorldFormat", "task_module"]

log = logging.getLogger(__name__)

TASKS_ENV = "CUA_OSWORLD_TASKS"
SETUP_FAILURES = "setup_failures"  # the key in Task.metadata the runner reads (cua_bench.runner)


def _official() -> dict[str, Metric]:
    from cua_bench_osworld.support import METRICS_ENV

    if os.environ.get(METRICS_ENV, "auto").strip().lower() == "builtin":
        return {}
    from cua_bench_osworld.official import official_metrics

    return official_metrics().functions


class _Episode:
    """One variant's run: its cache folder (removed with the variant) and its context."""

    def __init__(self, session: Session, task: OSWorldTask, mirror: Path | None) -> None:
        from cua_bench_osworld.config import Context

        cache = Path(tempfile.mkdtemp(prefix=f"cua-osworld-{task.id[:8]}-"))
        self.context = Context(session, task.path.parent, cache, mirror)


def task_module(path: Path | str, *, mirror: Path | bool | None = True) -> TaskModule:
    """The task module of one OSWorld task file. ``mirror``: local copies of remote files
    (True: ``CUA_OSWORLD_FILES`` when set)."""
    from cua_bench_osworld.apps import apps_lacking, needed_apps
    from cua_bench_osworld.config import has_shell, run_steps
    from cua_bench_osworld.evaluate import combine, metric_function
    from cua_bench_osworld.getters import get
    from cua_bench_osworld.loader import TaskSkipped
    from cua_bench_osworld.sources import default_mirror
    from cua_bench_osworld.support import check_support, host_reason

    task = load_task(path)
    episodes: dict[int, _Episode] = {}

    def files() -> Path | None:
        return default_mirror() if mirror is True else (mirror or None)

    def episode(variant: Task, session: Session) -> _Episode:
        current = episodes.get(id(variant))
        if current is None or current.context.session is not session:
            current = episodes[id(variant)] = _Episode(session, task, files())
            weakref.finalize(variant, _forget, episodes, id(variant), current.context.cache_dir)
        return current

    def load() -> list[Task]:
        metadata = {"osworld": task.raw, "domain": task.domain, "path": str(task.path)}
        return [Task(description=task.instruction, metadata=metadata)]

    async def setup(variant: Task, session: Session) -> None:
        support = check_support(task, mirror=files())
        if support.reason is not None:
            raise TaskSkipped(support.reason)
        if support.needs_shell and not await has_shell(session):
            raise TaskSkipped("backend has no shell")
        shared = host_reason(task, shared=session.shares_host) if session.shares_host or not session.has_root else None
        if shared is not None:
            raise TaskSkipped(shared)
        lacking = await apps_lacking(session, needed_apps(task))
        if lacking:
            # Done without the app, the task would score a 0 the agent did not earn.
            missing = "; ".join(f"{app.name} is not on this computer ({app.how()})" for app in lacking)
            raise TaskSkipped(f"unsupported app: {missing}")
        ctx = episode(variant, session).context
        ctx.failures.clear()
        variant.metadata[SETUP_FAILURES] = []
        if session.has_root:
            # What the task or the agent changes as root outside home (packages, /etc, users) a reset does
            # not put back: the next episode gets a new computer, as OSWorld reverts its VM per task.
            variant.metadata[REPLACE_COMPUTER] = "it gave the episode root (sudo), whose changes reset does not undo"
        try:
            await run_steps(task.config, ctx, phase="setup")
        finally:
            variant.metadata[SETUP_FAILURES] = [str(f) for f in ctx.failures]

    async def evaluate(variant: Task, session: Session) -> float:
        ctx = episode(variant, session).context
        official = _official()
        return await combine(
            task.evaluator,
            failed=(variant.ended or {}).get("kind") == "fail",
            get=functools.partial(get, ctx),
            metric=lambda name: metric_function(name, official)[0],
            postconfig=lambda: run_steps(task.evaluator.postconfig, ctx, phase="postconfig"),
        )

    functions: dict[tuple[str, str | None], Callable[..., Any]] = {
        ("tasks_config", None): load,
        ("setup_task", None): setup,
        ("evaluate_task", None): evaluate,
    }
    module = ModuleType(f"cua_bench_osworld_{task.id.replace('-', '_')}")
    module.__file__ = str(task.path)
    module.__dict__.update(load=load, setup=setup, evaluate=evaluate, task=task)
    return TaskModule(task.id, task.path, module, functions)


def _forget(episodes: dict[int, _Episode], key: int, cache: Path) -> None:
    episodes.pop(key, None)
    shutil.rmtree(cache, ignore_errors=True)


class OSWorldFormat:
    """OSWorld's task files: ``find`` lists them under a folder, ``load`` makes one a task module."""

    def find(self, path: Path) -> list[Path]:
        return find_task_files(path)

    def load(self, path: Path) -> TaskModule | None:
        return task_module(path) if is_task_file(path) else None


@hookimpl
def cua_bench_register_task_formats(register: Register[TaskFormat]) -> None:
    register("osworld", OSWorldFormat())


@hookimpl
def cua_bench_register_commands(register: Register[Any]) -> None:
    from cua_bench_osworld.cli import osworld  # click and the command's help, only for the command line

    register("osworld", osworld, description="OSWorld's task files: what runs here, and OSWorld's own metrics")


@hookimpl
def cua_bench_register_tasksets(register: Register[str | Path]) -> None:
    folder = os.environ.get(TASKS_ENV)
    if not folder:
        return
    if not Path(folder).is_dir():
        log.warning("%s=%s is not a folder; the osworld taskset is not registered", TASKS_ENV, folder)
        return
    register("osworld", Path(folder), description="OSWorld's tasks, from their published JSON files")
