"""Finding episodes: a taskset (registered name or folder of task folders) or one task folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cua_bench.registry import tasksets
from cua_bench.tasks import TaskError, TaskModule, find_tasks, load_task_module

__all__ = ["Episode", "resolve_episodes", "task_folders"]


@dataclass(frozen=True)
class Episode:
    path: Path
    task: str
    variant: int
    split: str

    @property
    def key(self) -> str:
        return f"{self.task}/{self.split}/{self.variant}"


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


def resolve_episodes(taskset: str | Path, split: str = "test", variants: int | None = None) -> list[Episode]:
    """Every (task, variant) of ``split``, the first ``variants`` of each task when given."""
    episodes = []
    for folder in task_folders(taskset):
        module: TaskModule = load_task_module(folder)
        count = len(module.variants(split))
        for variant in range(count if variants is None else min(variants, count)):
            episodes.append(Episode(folder, module.name, variant, split))
    return episodes
