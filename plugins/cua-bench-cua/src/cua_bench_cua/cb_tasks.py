"""`cb task` and `cb dataset`: Cua's verbs for task folders and datasets, over cua-bench's tasksets.

What Cua's `cb` has and this one does not is refused in one line naming the `cua-bench` command to
use (``Unsupported``, ``unsupported_command``); `cb run` and `cb interact` live in ``cua_bench_cua.cb``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from cua_bench import TaskError, load_task_module
from cua_bench.registry import resolve_task, tasksets
from cua_bench.taskset import task_folders, task_name
from cua_core import CONTEXT, CuaGroup

__all__ = ["Unsupported", "dataset", "task", "unsupported_command"]


class Unsupported(click.ClickException):
    """Something Cua's `cb` has and this one does not: one line, exit 1, naming what to use."""

    def __init__(self, what: str, instead: str) -> None:
        super().__init__(f"{what} is not supported by this cb: {instead}")


def unsupported_command(group: click.Group, name: str, instead: str, what: str | None = None) -> None:
    @group.command(name, hidden=True, context_settings={**CONTEXT, "ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        # cb's own group is named "main"; a command of it is "cb NAME", one of a group "cb GROUP NAME"
        raise Unsupported(what or f"cb {(str(group.name) + ' ') if group.name != 'main' else ''}{name}", instead)


# --- cb task ---------------------------------------------------------------------------------------------


@click.group(cls=CuaGroup)
def task() -> None:
    """Inspect and manage task environments."""


def _task_dirs(path: str) -> list[Path]:
    if not Path(path).exists() and path not in tasksets():
        raise click.ClickException(f"Path not found: {path} (nor a registered dataset: cb dataset list)")
    return task_folders(path)


@task.command("list", context_settings=CONTEXT)
@click.argument("path", default=".")
@click.option("--json", "as_json", is_flag=True, help="Print the tasks as JSON (cb's own).")
def task_list(path: str, as_json: bool) -> None:
    """List tasks in a directory (default: the current one) or a registered dataset, with variant counts."""
    rows: list[dict[str, Any]] = []
    for folder in _task_dirs(path):
        try:
            module = load_task_module(folder)
            rows.append(
                {
                    "name": task_name(folder),
                    "path": str(folder),
                    "variants": {s: module.count(s) for s in module.splits()},
                }
            )
        except TaskError as exc:
            rows.append({"name": task_name(folder), "path": str(folder), "error": str(exc)})
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        click.echo(f"Tasks in {path}\n{'NAME':<28}  VARIANTS")
        for row in rows:
            counts = "  ".join(f"{s}={n}" for s, n in row.get("variants", {}).items())
            click.echo(f"{row['name']:<28}  {counts or 'error: ' + row['error']}")
        click.echo("\nTip: cb task info <path> for one task's details")
    if any("error" in row for row in rows):
        sys.exit(1)


@task.command("info", context_settings=CONTEXT)
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="Print the details as JSON (cb's own).")
def task_info(path: str, as_json: bool) -> None:
    """Show detailed information about a task (a directory with main.py, or a name like sim/click-button)."""
    folder = Path(path) if Path(path).exists() else resolve_task(path)
    if folder is None:
        raise click.ClickException(
            f"Path not found: {path} (a directory with main.py, or a name like sim/click-button)"
        )
    if folder.is_dir() and not (folder / "main.py").is_file() and len(task_folders(folder)) != 1:
        raise click.ClickException(f"{folder} is a dataset, not a task: cb task list {path}")
    module = load_task_module(folder)
    split = module.default_split()
    count = module.count(split)
    first = module.variant(split, 0) if count else None
    info: dict[str, Any] = {
        "name": module.name,
        "path": str(folder),
        "splits": {s: module.count(s) for s in module.splits()},
        "default_split": split,
        "variants": count,
        "description": first.description if first else None,
        "computer": first.computer if first else {},
        "functions": {
            role: module.function(role, split) is not None for role in ("setup_task", "evaluate_task", "solve_task")
        },
        "oracle": module.function("solve_task", split) is not None,
        "wrong_ways": sorted(module.wrong_ways(split)),
    }
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    click.echo(f"Task: {info['name']}  ({folder})")
    click.echo(f"Splits: {'  '.join(f'{s}={n}' for s, n in info['splits'].items())}  (default: {split})")
    click.echo(f"Variants: {info['variants']}")
    click.echo(f"Variant 0: {info['description']}")
    setup = info["computer"].get("setup_config", {}) if isinstance(info["computer"], dict) else {}
    if setup:
        click.echo(f"Computer: {', '.join(f'{k}={v}' for k, v in setup.items())}")
    marks = "  ".join(
        f"{role.removesuffix('_task')}: {'yes' if ok else 'no'}" for role, ok in info["functions"].items()
    )
    click.echo(f"Functions: {marks}")
    click.echo(f"Oracle: {'yes (solve_task)' if info['oracle'] else 'no'}")
    click.echo(f"Wrong ways: {', '.join(info['wrong_ways']) or 'none'}")
    click.echo(f"\nRun it: cb run {path} --oracle   (check every variant: cua-bench check {path})")


SCAFFOLD = '''"""{name}: a task in Cua Bench's style (made by `cb task create`).

Run it with its oracle (reward 1): cb run {name} --oracle
Doing nothing scores 0:            cb run {name} --noop
"""

import cua_bench as cb

ANSWER = "/tmp/answer.txt"
WORDS = ["hello", "world", "bench"]


@cb.tasks_config(split="train")
def load():
    return [
        cb.Task(
            description=f"Create the file {{ANSWER}} containing only the word '{{word}}'.",
            task_id=f"{name}-{{i}}",
            metadata={{"word": word}},
            computer={{"provider": "native", "setup_config": {{"os_type": "linux", "width": 1024, "height": 768}}}},
        )
        for i, word in enumerate(WORDS)
    ]


@cb.setup_task(split="train")
async def start(task_cfg: cb.Task, session: cb.DesktopSession):
    pass


@cb.evaluate_task(split="train")
async def evaluate(task_cfg: cb.Task, session: cb.DesktopSession) -> list[float]:
    if not await session.file_exists(ANSWER):
        return [0.0]
    answer = (await session.read_file(ANSWER)).strip()
    return [1.0 if answer == task_cfg.metadata["word"] else 0.0]


@cb.solve_task(split="train")
async def solve(task_cfg: cb.Task, session: cb.DesktopSession):
    await session.write_file(ANSWER, task_cfg.metadata["word"] + "\\n")
'''


@task.command("create", context_settings=CONTEXT)
@click.argument("path", default=".")
@click.option(
    "--dir",
    "parent",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    help="Create PATH inside this directory (cb's own; default: the current one).",
)
def task_create(path: str, parent: Path) -> None:
    """Scaffold a new task environment in PATH (default: the current directory, which must be empty).

    The task (main.py: tasks_config, setup, evaluate, solve; split train) passes `cb run PATH --oracle`.
    """
    target = parent / path
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise click.ClickException(f"Target directory is not empty: {target}")
    name = target.resolve().name.replace("_", "-").replace(" ", "-") or "task"
    target.mkdir(parents=True, exist_ok=True)
    (target / "main.py").write_text(SCAFFOLD.format(name=name))
    click.echo(f"Created task at: {target}\n  - {target / 'main.py'}\n\nRun it: cb run {target} --oracle")


unsupported_command(task, "generate", "write main.py by hand, starting from cb task create PATH")


# --- cb dataset ------------------------------------------------------------------------------------------


@click.group(cls=CuaGroup)
def dataset() -> None:
    """Manage datasets (cua-bench's registered tasksets)."""


@dataset.command("list", context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="Print the datasets as JSON (cb's own).")
def dataset_list(as_json: bool) -> None:
    """List available datasets (cua-bench's registered tasksets; cua-bench list has variant counts)."""
    registry = tasksets()
    rows = [{"name": name, "path": str(registry[name]), "tasks": len(task_folders(name))} for name in registry.names()]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        click.echo("Available Datasets:")
        for row in rows:
            click.echo(f"  • {row['name']:<12} {row['tasks']:>4} tasks  {row['path']}")
        click.echo("\nUse with: cb run <dataset-name>\n      or: cb interact <task-name> --dataset <dataset-name>")
    if not rows:
        sys.exit(1)


unsupported_command(dataset, "build", "trajectories are written as a cua-data dataset already: RUN_FOLDER/trajectories")
