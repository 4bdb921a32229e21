"""`cb`: Cua Bench's command line, as a thin layer over `cua-bench` (its pieces: ``cua_bench.command_kit``).

Cua's verbs and flags are translated here and handed to what `cua-bench` itself runs (the Runner,
`report`, `interact`, the taskset functions); nothing here scores, runs or stores anything its own
way. What Cua's `cb` has and we do not is a one-line error naming the `cua-bench` command to use.
`cua-bench` stays the primary command; `cb` only spares Cua's users relearning theirs.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from cua_bench import RunConfig, load_results, marker_alive, read_run_marker
from cua_bench import command_kit as cli
from cua_bench.command_kit import choose_backend, episodes_of
from cua_bench.registry import agents, backends, resolve_task, tasksets
from cua_bench.taskset import default_split, select_tasks, task_folders
from cua_bench_cua.cb_tasks import Unsupported, dataset, task, unsupported_command
from cua_core import CONTEXT, CuaGroup

__all__ = ["main"]

POSITIVE = click.IntRange(min=1)
F = TypeVar("F", bound=Callable[..., Any])
RUNS = Path("runs")  # where `cua-bench run` (and so `cb run`) puts its run folders by default
RUNS_DIR = click.option(
    "--runs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=RUNS,
    show_default=True,
    help="Where the run folders are (cb's own).",
)


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-bench", prog_name="cb")
def main() -> None:
    """cb: run computer-use tasks and benchmark datasets (Cua Bench's command, over cua-bench).

    \b
    Run a task with its oracle solution:   cb run ./tasks/my_task
    List the tasks in a directory:         cb task list ./tasks
    List runs:                             cb run list

    Everything here runs through cua-bench (`cua-bench --help`), which has more.
    """


# --- cb run ------------------------------------------------------------------------------------------


def _is_task(path: str) -> bool:
    """A directory with main.py, or a registered task's name (sim/click-button); anything else is a dataset."""
    if Path(path).exists():
        return (Path(path) / "main.py").is_file()
    return "/" in path and resolve_task(path) is not None


class _RunGroup(CuaGroup):
    """`cb run PATH ...` means `cb run task|dataset PATH ...` (as in Cua's cb): a first word that is not
    one of run's subcommands is a path or a name to run. (A task folder named like a subcommand: ./list.)"""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["task" if _is_task(args[0]) else "dataset", *args]
        return super().parse_args(ctx, args)


@main.group(cls=_RunGroup)
def run() -> None:
    """Run a task or dataset, and manage runs.

    `cb run PATH` runs a task (a directory with main.py: its variant 0, or --variant-id N) or a
    dataset (a directory of task directories, or a registered name like `sim`: every variant of
    every task), with the task's oracle solution unless an agent is given. Each run gets a folder
    under runs/ (printed); `cb run list` and `cb run info RUN` show them.

    \b
      cb run ./tasks/my_task
      cb run ./tasks --task-filter 'click*' --max-variants 1 -j 8
      cb run sim --noop
      cb run list
    """


def _unsupported_flags(**given: Any) -> None:
    alternatives = {
        "on": "cb runs on a cua-bench backend: --backend sim|local|docker",
        "kind": "the backend decides what the computer is: --backend sim|local|docker",
        "runtime": "the backend decides what the computer is: --backend sim|local|docker",
        "image": "the docker backend builds its own image: cua-bench image build docker",
        "cpu": "cua-bench backends take no per-sandbox resources",
        "memory": "cua-bench backends take no per-sandbox resources",
        "detach": "run it in the background from your shell (nohup cb run ... &) and follow with cb run list",
        "attempts": "run again with another --output-dir and compare with cb run info",
        "retries": "an episode the computer failed is an error, never a 0: continue the run with "
        "cua-bench run TASKSET --resume --output RUN_FOLDER",
        "keep_runs": "delete old folders under runs/ yourself",
        "max_age": "delete old folders under runs/ yourself",
        "max_results_size": "delete old folders under runs/ yourself",
    }
    for name, value in given.items():
        if value not in (None, False):
            flag = "--" + name.replace("_", "-")
            raise Unsupported(flag, alternatives[name])


def _agent(oracle: bool, noop: bool, agent: str | None, import_path: str | None, model: str | None) -> str:
    """Cua's agent flags as one of our agent specs (a registered name or module:Class)."""
    if noop and (oracle or agent or import_path):
        raise click.UsageError("--noop runs no solver: drop --agent/--agent-import-path/--oracle")
    if oracle and (agent or import_path):
        raise click.UsageError("--oracle runs the task's solution: drop --agent/--agent-import-path")
    if agent and import_path:
        raise click.UsageError("give --agent or --agent-import-path, not both")
    if agent is not None and agent not in agents():
        raise Unsupported(
            f"--agent {agent}",
            f"agents here are {', '.join(agents().names())} (a model: --agent openai --model NAME "
            "--agent-option adapter=qwen3-vl --agent-option base_url=URL, or the same through "
            "cua-bench run --agent openai --model NAME --adapter ... --base-url ...)",
        )
    spec = "noop" if noop else agent or import_path or "oracle"
    if model is not None and spec in ("oracle", "noop", "random", "random-a11y", "replay"):
        raise click.UsageError(f"--model is for a model agent (--agent openai or hf), not {spec}")
    return spec


def _target(path: str) -> tuple[str, str | None]:
    """PATH as (what the Runner takes, --tasks): a folder, a registered dataset, or a registered task
    name (sim/click-button) run as its dataset narrowed to that task."""
    if Path(path).exists() or path in tasksets():
        return path, None
    if resolve_task(path) is not None:
        dataset, _, task = path.partition("/")
        return dataset, task
    raise click.ClickException(
        f"{path}: no such task or dataset (a directory with main.py, a directory of them, or a registered "
        f"dataset: {', '.join(tasksets().names())}; see cb dataset list)"
    )


def _run_options() -> Callable[[F], F]:
    """Cua's `cb run task|dataset` flags, plus ours (--backend, --split, --agent-option, --json)."""

    def decorate(fn: F) -> F:
        options = [
            click.argument("path"),
            click.option("--agent", help="Agent to use (here: oracle, noop, random, openai, hf, ...: cua-bench list)."),
            click.option(
                "--agent-import-path",
                help="A custom agent as module:Class or FILE.py:Class (cua-bench's agent contract).",
            ),
            click.option("--model", help="Model for a model agent (--agent openai or hf)."),
            click.option(
                "--oracle", is_flag=True, help="Run the oracle solution (the default when no agent is given)."
            ),
            click.option("--noop", is_flag=True, help="Set up and evaluate with no actions (the null baseline)."),
            click.option("--max-steps", type=POSITIVE, help="Maximum steps per episode (default: the task's own)."),
            click.option(
                "--output-dir",
                type=click.Path(file_okay=False, path_type=Path),
                help="Output directory for the run (default: runs/<time>).",
            ),
            click.option(
                "--variant-id",
                type=click.IntRange(min=0),
                help="Only this variant index (a task's default: 0; a dataset's: all).",
            ),
            click.option("--max-variants", type=POSITIVE, help="Maximum number of variants to run per task."),
            click.option(
                "--max-parallel", "-j", type=POSITIVE, default=4, show_default=True, help="Variants running at once."
            ),
            click.option("--task-filter", help="Only tasks whose names match (globs, comma-separated)."),
            click.option("--dry-run", is_flag=True, help="Print each variant that would run, then exit."),
            click.option(
                "--backend",
                help="cua-bench's computer: sim, local or docker (cb's own flag; default: one that serves "
                "what the tasks use, said on a line of its own).",
            ),
            cli.BACKEND_OPTION,
            click.option("--split", help="cua-bench's --split (default: the split the tasks declare)."),
            click.option("--agent-option", "agent_options", multiple=True, help="KEY=VALUE for the agent (cb's own)."),
            click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (cb's own)."),
            click.option(
                "--allow-errors", is_flag=True, help="Exit 0 even when episodes errored (cua-bench run's own)."
            ),
        ]
        hidden = ["--on", "--kind", "--runtime", "--image", "--cpu", "--memory", "--attempts", "--retries"]
        hidden += ["--keep-runs", "--max-age", "--max-results-size"]
        options += [click.option(flag, hidden=True) for flag in hidden]
        options.append(click.option("--detach", "-d", is_flag=True, hidden=True))
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def _run(what: str, path: str, **flags: Any) -> None:
    unsupported: tuple[str, ...] = ("on", "kind", "runtime", "image", "cpu", "memory", "detach", "attempts", "retries")
    unsupported += ("keep_runs", "max_age", "max_results_size")
    _unsupported_flags(**{name: flags.pop(name) for name in unsupported})
    spec = _agent(flags["oracle"], flags["noop"], flags["agent"], flags["agent_import_path"], flags["model"])
    if flags["backend"] is not None:
        backends()[flags["backend"]]  # an unknown backend fails here, before anything is resolved
    taskset, only_task = _target(path)
    if only_task is not None and flags["task_filter"] is not None:
        raise click.UsageError(f"{path} names one task already: drop --task-filter")
    tasks = only_task or flags["task_filter"]
    variant = flags["variant_id"]
    if what == "task" and variant is None and flags["max_variants"] is None:
        variant = 0  # Cua's `cb run task` runs one variant, 0 unless --variant-id says
    if variant is not None and flags["max_variants"] is not None:
        raise click.UsageError("give --variant-id or --max-variants, not both")
    split = flags["split"] or default_split(taskset, tasks)
    if flags["backend"] is None:
        flags["backend"], why = choose_backend(select_tasks(task_folders(taskset), tasks), split)
        click.echo(f"cb: backend {flags['backend']} ({why}; --backend overrides)", err=True)
    cli.use_backend_options(flags["backend"], flags["backend_options"])
    options = cli.parse_options(flags["agent_options"])
    if flags["model"] is not None:
        options["model"] = flags["model"]
    output = flags["output_dir"] or RUNS / time.strftime("%Y%m%d-%H%M%S")
    config = RunConfig(
        taskset,
        output,
        flags["backend"],
        spec,
        options,
        flags["max_parallel"],
        flags["max_steps"],
        flags["max_variants"],
        split,
        tasks=tasks,
        variant=variant,
        full_tracebacks=CuaGroup.debug,
    )
    if flags["dry_run"]:
        episodes = episodes_of(config)  # no agent built: a dry run must not load a model
        for episode in episodes:
            click.echo(f"  {episode.name} v{episode.variant} ({episode.split}) on {flags['backend']} with {spec}")
        click.echo(f"Dry run: {len(episodes)} variant(s); nothing was started.")
        sys.exit(0 if episodes else 1)
    click.echo(f"Output: {output}", err=True)
    cli.run_and_report(config, as_json=flags["as_json"], allow_errors=flags["allow_errors"])
    if spec == "oracle":
        _check_oracle(output)


def _check_oracle(output: Path) -> None:
    """The oracle is the task's own solution, so anything below 1.0 is a broken task or a backend that
    cannot serve it, never an agent's score: name the episodes and exit 1."""
    results = load_results(output / "episodes.jsonl").values()
    low = [r for r in results if r.status == "ok" and r.reward is not None and r.reward < 1.0]
    if not low:
        return
    for result in low[:10]:
        click.echo(f"oracle scored {result.reward:g}: {result.task} variant {result.variant} ({result.key})", err=True)
    if len(low) > 10:
        click.echo(f"... and {len(low) - 10} more: cua-bench report {output}", err=True)
    worst = min(r.reward for r in low if r.reward is not None)
    click.echo(
        f"Error: the task's own solution scored {worst:.1f} in {len(low)} episode(s): its solve or evaluate "
        "is wrong, or the backend cannot serve it",
        err=True,
    )
    sys.exit(1)


@run.command("task", context_settings=CONTEXT)
@_run_options()
def run_task(path: str, **flags: Any) -> None:
    """Run one task variant (PATH: a directory with main.py, or a name like sim/click-button)."""
    _run("task", path, **flags)


@run.command("dataset", context_settings=CONTEXT)
@_run_options()
def run_dataset(path: str, **flags: Any) -> None:
    """Run every task and variant of a dataset (PATH: a directory of tasks, or a registered name)."""
    _run("dataset", path, **flags)


def _run_folders(runs_dir: Path) -> list[Path]:
    if not runs_dir.is_dir():
        raise click.ClickException(f"{runs_dir}: no runs directory here (cb run writes runs/; --runs-dir DIR)")
    found = [
        p for p in runs_dir.iterdir() if p.is_dir() and ((p / "run.json").is_file() or (p / "episodes.jsonl").is_file())
    ]
    return sorted(found, key=lambda p: (read_run_marker(p) or {}).get("started", p.stat().st_mtime), reverse=True)


def _describe(folder: Path) -> dict[str, Any]:
    """One run folder as `cb run list` shows it: from run.json, summary.json and episodes.jsonl."""
    marker = read_run_marker(folder) or {}
    summary: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        summary = json.loads((folder / "summary.json").read_text())
    results = load_results(folder / "episodes.jsonl")
    done = len(results)
    total = marker.get("episodes") or summary.get("episodes") or done
    if not summary and marker_alive(marker):
        status = "running"
    elif summary.get("complete"):
        status = "completed"
    else:
        status = "incomplete"
    errors = sum(r.status == "error" for r in results.values())
    rewards = [r.reward for r in results.values() if r.status == "ok" and r.reward is not None]
    return {
        "run_id": marker.get("run", folder.name),
        "folder": str(folder),
        "kind": marker.get("kind", "bench"),
        "started": marker.get("started"),
        "dataset": summary.get("taskset", "-"),
        "backend": summary.get("backend", "-"),
        "agent": summary.get("agent", "-"),
        "status": status,
        "episodes": total,
        "done": done,
        "errors": errors,
        "avg_reward": sum(rewards) / len(rewards) if rewards else None,
    }


@run.command("list", context_settings=CONTEXT)
@RUNS_DIR
@click.option("--verbose", "-v", is_flag=True, help="Also each run's folder and start time.")
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON (cb's own).")
def run_list(runs_dir: Path, verbose: bool, as_json: bool) -> None:
    """List all runs with status (the run folders under runs/, newest first)."""
    rows = [_describe(folder) for folder in _run_folders(runs_dir)]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo(f"No runs found in {runs_dir}.\n\nStart one with:\n  cb run <task|dataset>")
        return
    click.echo(f"{'RUN ID':<10}  {'DATASET':<24}  {'AGENT':<12}  {'BACKEND':<8}  {'STATUS':<24}  AVG REWARD")
    for row in rows:
        avg = "-" if row["avg_reward"] is None else f"{row['avg_reward']:.3f}"
        status = f"{row['status']}({row['done']}/{row['episodes']})" + (
            f" errors({row['errors']})" if row["errors"] else ""
        )
        click.echo(
            f"{row['run_id'][:10]:<10}  {str(row['dataset'])[:24]:<24}  {str(row['agent'])[:12]:<12}  "
            f"{str(row['backend'])[:8]:<8}  {status[:24]:<24}  {avg}"
        )
        if verbose:
            started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row["started"])) if row["started"] else "-"
            click.echo(f"  {row['folder']}  started {started}  kind {row['kind']}")
    click.echo("\ncb run info <id>  (or cua-bench report <folder>)")


def _find_run(run_id: str, runs_dir: Path) -> Path:
    """A run by its id (run.json), its folder's name under runs/, or its folder."""
    path = Path(run_id)
    if path.is_dir():
        return path
    folders = _run_folders(runs_dir)
    named = [f for f in folders if f.name == run_id]
    by_id = [f for f in folders if str((read_run_marker(f) or {}).get("run", "")).startswith(run_id)]
    found = named or by_id
    if not found:
        raise click.ClickException(f"no run {run_id!r} in {runs_dir} (cb run list shows them)")
    if len(found) > 1:
        raise click.ClickException(
            f"{run_id!r} names {len(found)} runs ({', '.join(f.name for f in found)}): give more"
        )
    return found[0]


@run.command("info", context_settings=CONTEXT)
@click.argument("run_id")
@RUNS_DIR
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (cb's own).")
@click.pass_context
def run_info(ctx: click.Context, run_id: str, runs_dir: Path, as_json: bool) -> None:
    """Show detailed info about a run (RUN_ID: its id, its folder's name, or its folder): cua-bench report."""
    folder = _find_run(run_id, runs_dir)
    marker = read_run_marker(folder) or {}
    if not as_json:
        click.echo(f"Run: {marker.get('run', folder.name)}  Folder: {folder}")
    ctx.invoke(cli.report, run_dir=folder, as_json=as_json)


unsupported_command(run, "watch", "runs are in the foreground here; cb run info RUN shows one (also while it runs)")
unsupported_command(
    run,
    "stop",
    "stop a run with Ctrl-C (finished episodes are kept; continue with cua-bench run "
    "TASKSET --resume --output RUN_FOLDER)",
)
unsupported_command(
    run,
    "logs",
    "cb run info RUN (cua-bench report RUN_FOLDER) lists each error; trajectories are in RUN_FOLDER/trajectories",
)


# --- cb interact ---------------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT)
@click.argument("env_path")
@click.option("--variant-id", type=click.IntRange(min=0), default=0, show_default=True, help="Task variant index.")
@click.option("--dataset", help="Registered dataset to resolve the task from (cb dataset list).")
@click.option(
    "--dataset-path", type=click.Path(exists=True, file_okay=False), help="Dataset directory holding the task."
)
@click.option("--split", help="cua-bench's --split (default: the split the task declares).")
@click.option(
    "--backend", help="cua-bench's computer: sim, local or docker (default: one that serves what the task uses)."
)
@cli.BACKEND_OPTION
@click.option(
    "--screenshots",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("interact"),
    show_default=True,
    help="Where each screen is saved as PNG (cb's own).",
)
@click.option("--oracle", is_flag=True, hidden=True)
@click.option("--screenshot", hidden=True)
@click.option("--trace-out", hidden=True)
@click.option("--view", is_flag=True, hidden=True)
@click.option("--no-wait", is_flag=True, hidden=True)
@click.option("--max-steps", hidden=True)
@click.option("--no-browser", is_flag=True, help="Accepted and ignored: cb interact never opens a browser.")
@click.pass_context
def interact(
    ctx: click.Context,
    env_path: str,
    variant_id: int,
    dataset: str | None,
    dataset_path: str | None,
    split: str | None,
    backend: str | None,
    backend_options: tuple[str, ...],
    screenshots: Path,
    oracle: bool,
    screenshot: str | None,
    trace_out: str | None,
    view: bool,
    no_wait: bool,
    max_steps: str | None,
    no_browser: bool,
) -> None:
    """Act by hand on a task (cua-bench interact): type actions at the prompt, each screen saved as PNG.

    ENV_PATH is a task directory, or a task name with --dataset or --dataset-path.
    """
    alternatives = {
        "--oracle": (
            oracle,
            "cb run ENV_PATH --oracle scores the oracle; cua-bench check ENV_PATH runs it on every variant",
        ),
        "--screenshot": (screenshot, "each screen is saved under --screenshots DIR"),
        "--trace-out": (trace_out, "cb run records trajectories in RUN_FOLDER/trajectories"),
        "--view": (view, "the screens are PNG files under --screenshots DIR"),
        "--no-wait": (no_wait, "pipe the actions in: echo evaluate | cb interact ENV_PATH"),
        "--max-steps": (max_steps, "type quit (or done) at the prompt"),
    }
    for flag, (value, instead) in alternatives.items():
        if value not in (None, False):
            raise Unsupported(f"cb interact {flag}", instead)
    if dataset and dataset_path:
        raise click.UsageError("give --dataset or --dataset-path, not both")
    task = env_path
    if dataset:
        task = f"{dataset}/{env_path}"
    elif dataset_path:
        task = str(Path(dataset_path) / env_path)
    if backend is None and Path(task).is_dir():  # a folder: chosen from what it uses, as cb run does
        backend, why = choose_backend([Path(task)], split or default_split(task, None))
        click.echo(f"cb: backend {backend} ({why}; --backend overrides)", err=True)
    ctx.invoke(
        cli.interact,
        task=task,
        variant=variant_id,
        split=split,
        backend=backend or "sim",
        backend_options=backend_options,
        screenshots=screenshots,
    )


main.add_command(task)
main.add_command(dataset)


# --- Cua's other verbs ------------------------------------------------------------------------------------

for _name, _instead in {
    "agent": "the agents are cua-bench's: cua-bench list shows them; cb run --agent NAME uses one",
    "platform": "the computers are cua-bench's backends: cua-bench list shows them; cb run --backend NAME",
    "image": "cua-bench image build BACKEND",
    "status": "cb run list (runs) and cua-bench list (datasets, backends, agents)",
    "trace": "each run's trajectories are a cua-data dataset in RUN_FOLDER/trajectories",
    "prune": "cua-bench prune",
    "env": "there are no cloud pools here: cb run --backend sim|local|docker",
    "login": "there is no cloud sign-in here: everything runs on this computer",
}.items():
    unsupported_command(main, _name, _instead)


if __name__ == "__main__":  # pragma: no cover
    main()
