"""Finding episodes: a taskset (registered name or folder of task folders) or one task folder.

Tasks are referred to by name where they can be (``sim/click-button``): an env server resolves a
name itself (``locate_task``), so a server in a container, a VM or on another computer is never
handed a path that exists only on the host.
"""

from __future__ import annotations

import difflib
import fnmatch
from pathlib import Path

from cua_bench.registry import resolve_task, tasksets
from cua_bench.spec import EpisodeSpec, Observes
from cua_bench.tasks import TaskError, TaskModule, find_tasks, load_task_module

__all__ = [
    "default_split",
    "locate_task",
    "resolve_episodes",
    "select_tasks",
    "task_folders",
    "task_name",
]


def task_folders(taskset: str | Path) -> list[Path]:
    """The task folders of a registered taskset name, a folder of tasks, or a single task folder."""
    path = Path(taskset)
    if not path.exists():
        registry = tasksets()
        if str(taskset) not in registry:
            raise TaskError(f"{taskset!r} is neither a folder nor a registered taskset ({', '.join(registry.names())})")
        path = Path(registry[str(taskset)])
    if (path / "main.py").is_file():
        return [path]
    folders = sorted(p for p in path.iterdir() if (p / "main.py").is_file()) if path.is_dir() else []
    # Tasks in a registered format (e.g. OSWorld's JSON files) when there are no task folders.
    folders = folders or find_tasks(path)
    if not folders:
        raise TaskError(f"{path}: no task folders (folders with a main.py) inside")
    return folders


def task_name(folder: Path) -> str:
    """A task's short name: its folder's name, or a task file's stem (OSWorld's JSON files)."""
    return folder.name if folder.is_dir() else folder.stem


def select_tasks(folders: list[Path], tasks: str | None) -> list[Path]:
    """The folders whose names match ``tasks``: names, globs (``gnumeric-*``), comma-separated.

    A pattern that matches nothing is an error naming the closest task, because a typo that
    silently selects nothing would run zero episodes and look like success.
    """
    if tasks is None:
        return folders
    patterns = [p.strip() for p in tasks.split(",") if p.strip()]
    if not patterns:
        raise TaskError("--tasks is empty: give task names or globs, like click-button,gnumeric-*")
    names = [task_name(f) for f in folders]
    chosen: set[str] = set()
    for pattern in patterns:
        short = pattern.rsplit("/", 1)[-1]  # "sim/click-button" names the same task as "click-button"
        matched = fnmatch.filter(names, short)
        if not matched:
            close = difflib.get_close_matches(short, names, n=1)
            hint = (
                f"; did you mean {close[0]!r}?"
                if close
                else f" (tasks: {', '.join(names[:8])}{', ...' if len(names) > 8 else ''})"
            )
            raise TaskError(f"--tasks: no task matches {pattern!r}{hint}")
        chosen.update(matched)
    return [f for f, n in zip(folders, names, strict=True) if n in chosen]


def resolve_episodes(
    taskset: str | Path,
    split: str | None = "test",
    variants: int | None = None,
    tasks: str | None = None,
    *,
    only: int | None = None,
    observes: Observes | None = None,
    max_steps: int | None = None,
) -> list[EpisodeSpec]:
    """The episodes of ``taskset``, importing each task module once: every variant of ``split``, the
    first ``variants`` of each task when given, of the tasks ``tasks`` selects (names or globs,
    comma-separated) when given; with ``only``, just that variant index of each task that has it.

    ``split`` None: the split the tasks run by default (``test``, or the one each declares, as Cua
    Bench's declare ``train``). A task is named by its registered name (``sim/click-button``) where
    it has one, so a server elsewhere resolves it itself, else by its folder's absolute path (sent by
    content).

    Raises:
        TaskError: no such taskset or task, or tasks whose default splits differ (choose one).
    """
    named = not Path(taskset).exists() and str(taskset) in tasksets()
    found: list[tuple[str, TaskModule, str]] = []
    for folder in select_tasks(task_folders(taskset), tasks):
        module: TaskModule = load_task_module(folder)
        ref = f"{taskset}/{task_name(folder)}" if named else str(folder.resolve())
        found.append((ref, module, module.resolve_split(split)))
    if split is None:
        _one_default_split(str(taskset), [(module.name, its) for _, module, its in found])
    episodes = []
    for ref, module, its_split in found:
        count = module.count(its_split)
        for variant in range(count if variants is None else min(variants, count)):
            if only is None or variant == only:
                episodes.append(EpisodeSpec(ref, variant, its_split, observes or Observes(), max_steps))
    return episodes


def default_split(taskset: str | Path, tasks: str | None = None) -> str:
    """The split a run of ``taskset`` takes when none is given (what ``resolve_episodes`` picks)."""
    specs = resolve_episodes(taskset, None, 1, tasks)
    return specs[0].split or "test" if specs else "test"


def _one_default_split(taskset: str, splits: list[tuple[str, str]]) -> None:
    chosen: dict[str, list[str]] = {}
    for name, split in splits:
        chosen.setdefault(split, []).append(name)
    if len(chosen) > 1:
        which = "; ".join(
            f"{split}: {', '.join(names[:3])}{', ...' if len(names) > 3 else ''}" for split, names in chosen.items()
        )
        raise TaskError(f"{taskset}: its tasks run in different splits by default ({which}): choose one with --split")


def locate_task(ref: str | Path) -> Path:
    """A task reference as given to ``reset``: a path on this computer, or a task name (``sim/click-button``)."""
    path = Path(ref)
    if path.exists():
        return path
    found = resolve_task(str(ref))
    if found is not None:
        return found
    names = tasksets().names()
    taskset, _, task = str(ref).partition("/")
    if taskset in names and task:
        known = [task_name(p) for p in task_folders(taskset)]
        close = difflib.get_close_matches(task, known, n=1)
        hint = f"; did you mean {taskset}/{close[0]}?" if close else f" ({len(known)} tasks: see `cua-bench list`)"
        raise TaskError(f"task {str(ref)!r}: taskset {taskset!r} has no task {task!r}{hint}")
    if path.is_absolute() or str(ref).startswith("."):
        raise TaskError(
            f"task path {str(ref)!r} does not exist on this computer (a server in a container, a VM or on "
            "another computer cannot see the host's paths: give a task name like sim/click-button)"
        )
    raise TaskError(
        f"task {str(ref)!r} is neither a path on this computer nor a task name <taskset>/<task> "
        f"(tasksets here: {', '.join(names) or 'none'})"
    )
