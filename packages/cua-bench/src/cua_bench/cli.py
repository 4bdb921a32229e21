"""`cua-bench`: run tasksets, list them, check tasks and backends, act by hand, report on runs."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import click
from PIL import Image

from cua_bench.agents.base import Observes
from cua_bench.checks import check_task
from cua_bench.client import EnvClient
from cua_bench.conformance import check_backend
from cua_bench.parity import run_parity
from cua_bench.registry import agents, backends, tasksets
from cua_bench.runner import RunConfig, Runner
from cua_bench.summary import EpisodeResult, format_summary, load_results, summarize
from cua_bench.tasks import load_task_module
from cua_bench.taskset import resolve_episodes, task_folders
from cua_core.actions import format_action, parse_actions
from cua_core.command import CONTEXT, CuaGroup
from cua_core.errors import ActionError, CuaError

__all__ = ["main"]


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-bench")
def main() -> None:
    """Verifiable computer-use tasks on the embedded desktop and on real ones."""


def _options(pairs: tuple[str, ...], hint: str = "--agent-option") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint=hint)
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


@main.command()
@click.argument("taskset")
@click.option("--backend", default="sim", show_default=True)
@click.option("--agent", default="oracle", show_default=True, help="A registered name, FILE.py:Class or module:Class.")
@click.option("--agent-option", "agent_options", multiple=True, help="KEY=VALUE passed to the agent (repeatable).")
@click.option("--model", help="Model agents: the model name (openai) or folder (hf).")
@click.option("--adapter", help="Model agents: the model family's adapter (see `cua-bench list`).")
@click.option("--base-url", help="The openai agent: the server, like http://127.0.0.1:8000/v1.")
@click.option("--history", help="Model agents: full, last=N, images=N or last=N,images=M.")
@click.option("--adapter-option", "adapter_options", multiple=True, help="KEY=VALUE for the adapter (repeatable).")
@click.option("--obs", help="What the agent observes: screenshot|png|none, a11y[=osworld], max=WxH (comma-separated).")
@click.option("--max-parallel", default=4, show_default=True, help="Environments at once.")
@click.option("--max-steps", type=int, help="Steps before an episode is truncated (default: each task's own).")
@click.option("--variants", type=int, help="Only the first K variants of each task.")
@click.option("--split", default="test", show_default=True)
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), help="Run folder (default runs/<time>).")
@click.option("--resume", is_flag=True, help="Continue the run in --output without redoing finished episodes.")
@click.option("--no-record", is_flag=True, help="Do not write trajectories (faster; the agent sees the same).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def run(
    taskset: str,
    backend: str,
    agent: str,
    agent_options: tuple[str, ...],
    model: str | None,
    adapter: str | None,
    base_url: str | None,
    history: str | None,
    adapter_options: tuple[str, ...],
    obs: str | None,
    max_parallel: int,
    max_steps: int | None,
    variants: int | None,
    split: str,
    output: Path | None,
    resume: bool,
    no_record: bool,
    as_json: bool,
) -> None:
    """Run every (task, variant) of TASKSET (a registered name or a folder) and summarise.

    A model in one line: `--agent openai --model NAME --adapter qwen3-vl --base-url URL`, or
    `--agent hf --model PATH --adapter qwen2.5-vl`.
    """
    output = output or Path("runs") / time.strftime("%Y%m%d-%H%M%S")
    options = _options(agent_options)
    shortcuts = {"model": model, "adapter": adapter, "base_url": base_url, "history": history}
    options |= {k: v for k, v in shortcuts.items() if v is not None}
    if adapter_options:
        options["adapter_options"] = _options(adapter_options, "--adapter-option")
    try:
        observes = Observes.parse(obs) if obs is not None else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--obs") from exc
    config = RunConfig(
        taskset,
        output,
        backend,
        agent,
        options,
        max_parallel,
        max_steps,
        variants,
        split,
        resume,
        not no_record,
        observes=observes,
    )
    try:
        runner = Runner(config, progress=_Progress(len(resolve_episodes(taskset, split, variants))))
        summary = runner.run()
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted: finished episodes are kept; continue with --resume --output {output}", err=True)
        sys.exit(130)
    except CuaError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(format_summary(summary))
        click.echo(f"run folder: {output}")


class _Progress:
    """One line on stderr per finished episode when stderr is a terminal, a count otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.live = sys.stderr.isatty()

    def __call__(self, result: EpisodeResult) -> None:
        self.done += 1
        if self.live:
            reward = "error" if result.status != "ok" else f"{result.reward:.2f}"
            click.echo(f"\r[{self.done}/{self.total}] {result.key}: {reward}".ljust(70), nl=False, err=True)
            if self.done == self.total:
                click.echo(err=True)


@main.command("list")
@click.option("--json", "as_json", is_flag=True)
def list_cmd(as_json: bool) -> None:
    """Registered tasksets with their tasks and variant counts, backends, agents and model adapters."""
    from cua_data.registry import adapters

    data: dict[str, Any] = {
        "tasksets": {},
        "backends": backends().names(),
        "agents": agents().names(),
        "adapters": adapters().names(),
    }
    for name in tasksets().names():
        tasks = {}
        for folder in task_folders(name):
            module = load_task_module(folder)
            tasks[module.name] = {split: len(module.variants(split)) for split in module.splits()}
        data["tasksets"][name] = tasks
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for name, tasks in data["tasksets"].items():
        total = sum(n for splits in tasks.values() for n in splits.values())
        click.echo(f"{name}: {len(tasks)} tasks, {total} variants")
        for task, splits in tasks.items():
            click.echo(f"  {task:32} " + "  ".join(f"{s}={n}" for s, n in splits.items()))
    click.echo(f"backends: {', '.join(data['backends'])}")
    click.echo(f"agents: {', '.join(data['agents'])}")
    click.echo(f"adapters: {', '.join(data['adapters']) or '(none installed: pip install plugins/cua-adapters-*)'}")


@main.command()
@click.argument("task", type=click.Path(exists=True, path_type=Path))
@click.option("--backend", default="sim", show_default=True)
@click.option("--variants", type=int, help="Only the first K variants.")
def check(task: Path, backend: str, variants: int | None) -> None:
    """Reset -> oracle -> evaluate on every variant of TASK; exit 1 listing each failure."""
    problems = check_task(task, backend=backend, variants=variants)
    for problem in problems:
        click.echo(problem)
    click.echo(f"{len(problems)} problem(s)" if problems else "every variant: oracle 1.0, doing nothing 0")
    sys.exit(1 if problems else 0)


@main.command()
@click.argument("backend")
def conformance(backend: str) -> None:
    """Run the backend conformance suite against a fresh computer of BACKEND."""
    problems = check_backend(backend)
    for problem in problems:
        click.echo(f"- {problem}")
    click.echo(f"{backend}: " + ("conformant" if not problems else f"{len(problems)} problem(s)"))
    sys.exit(1 if problems else 0)


@main.command()
@click.argument("taskset")
@click.option("--backends", "pair", required=True, help="Two backends to compare, e.g. local,docker.")
@click.option("--agent", default="oracle", show_default=True)
@click.option("--variants", type=int, help="Only the first K variants of each task.")
@click.option("--split", default="test", show_default=True)
@click.option("--max-parallel", default=2, show_default=True, help="Environments at once, per backend.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), help="Keep both runs here.")
def parity(
    taskset: str, pair: str, agent: str, variants: int | None, split: str, max_parallel: int, output: Path | None
) -> None:
    """Run TASKSET on two backends with the same agent; print every episode whose reward differs (exit 1 if any)."""
    names = tuple(name.strip() for name in pair.split(","))
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise click.BadParameter(
            f"give two different backends, like local,docker (got {pair!r})", param_hint="--backends"
        )
    for name in names:
        backends()[name]  # an unknown name fails here, before anything runs
    try:
        report = run_parity(
            taskset, (names[0], names[1]), agent=agent, variants=variants, split=split,
            max_parallel=max_parallel, output=output,
        )  # fmt: skip
    except CuaError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(report.format())
    sys.exit(0 if report.same else 1)


@main.group()
def image() -> None:
    """Images that backends boot their computers from."""


@image.command("build")
@click.argument("backend")
@click.option("--rebuild-base", is_flag=True, help="Also rebuild the base (e.g. debootstrap) the image starts from.")
def image_build(backend: str, rebuild_base: bool) -> None:
    """Build BACKEND's image (docker: a Debian base from debootstrap, then the desktop on top)."""
    try:
        result = backends()[backend]().build_image(
            rebuild_base=rebuild_base, log=lambda line: click.echo(line, err=True)
        )
    except CuaError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(result)


@main.command()
@click.option("--backend", "names", multiple=True, help="Only this backend (repeatable; default: all).")
@click.option("--all", "everything", is_flag=True, help="Also what running processes own.")
def prune(names: tuple[str, ...], everything: bool) -> None:
    """Remove containers and other leftovers of stopped runs."""
    failed = False
    for name in names or tuple(backends().names()):
        try:
            removed = backends()[name]().prune(everything=everything)
        except CuaError as exc:
            click.echo(f"{name}: {exc}", err=True)
            failed = bool(names)  # asked for by name: its failure is the command's
            continue
        click.echo(f"{name}: removed {len(removed)}" + (f" ({', '.join(removed)})" if removed else ""))
    sys.exit(1 if failed else 0)


@main.command()
@click.argument("task", type=click.Path(exists=True, path_type=Path))
@click.option("--variant", default=0, show_default=True)
@click.option("--split", default="test", show_default=True)
@click.option("--backend", default="sim", show_default=True)
@click.option(
    "--screenshots", type=click.Path(file_okay=False, path_type=Path), default=Path("interact"), show_default=True
)
def interact(task: Path, variant: int, split: str, backend: str, screenshots: Path) -> None:
    """Act by hand: type actions like `click(500, 300)` or `type("hi")`; each screen is saved as PNG.

    `evaluate` prints the reward, `a11y` the accessibility tree, `done` ends the episode.
    """
    impl = backends()[backend]()
    computer = impl.provision()
    screenshots.mkdir(parents=True, exist_ok=True)
    try:
        with EnvClient(computer.address) as env:
            obs, info = env.reset(options={"task": str(task), "variant": variant, "split": split, "obs": "png"})
            click.echo(f"task: {info['task']['description']}")
            step = 0
            _save(screenshots, step, obs)
            for line in sys.stdin if not sys.stdin.isatty() else iter(lambda: input("action> "), None):
                text = line.strip()
                if not text:
                    continue
                if text == "evaluate":
                    click.echo(f"reward {env.evaluate()}")
                    continue
                if text == "a11y":
                    click.echo(json.dumps(env.session("accessibility_tree"), indent=1)[:4000])
                    continue
                try:
                    actions = parse_actions(text)
                except ActionError as exc:
                    click.echo(f"not an action: {exc}")
                    continue
                obs, reward, terminated, truncated, info = env.step(actions)
                step += 1
                path = _save(screenshots, step, obs)
                shown = "; ".join(format_action(a) for a in actions)
                click.echo(
                    f"step {step}: {shown} -> {path}" + (f"  invalid: {info['invalid']}" if info["invalid"] else "")
                )
                if terminated or truncated:
                    click.echo(f"episode over: reward {reward}")
                    break
    except (EOFError, KeyboardInterrupt):
        pass
    except CuaError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        impl.teardown(computer)


def _save(folder: Path, step: int, obs: dict[str, Any]) -> Path:
    path = folder / f"step_{step:03d}.png"
    Image.open(io.BytesIO(bytes(obs["screenshot"]))).save(path)
    return path


@main.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True)
def report(run_dir: Path, as_json: bool) -> None:
    """Summarise a run folder (complete or interrupted) from its recorded episodes."""
    results = load_results(run_dir / "episodes.jsonl")
    if not results:
        raise click.ClickException(f"{run_dir}: no episodes.jsonl with results; is it a `cua-bench run` folder?")
    about = {}
    saved = run_dir / "summary.json"
    if saved.exists():
        about = {
            k: v for k, v in json.loads(saved.read_text()).items() if k in ("taskset", "backend", "agent", "split")
        }
    summary = summarize(results.values(), **about)
    errors = [r for r in results.values() if r.status != "ok"]
    if as_json:
        click.echo(json.dumps({**summary, "errored": [r.key for r in errors]}, indent=2))
        return
    click.echo(format_summary(summary))
    for result in errors:
        click.echo(f"{'skipped' if result.status == 'skipped' else 'errored'}: {result.key}: {result.error}")


@main.group()
def osworld() -> None:
    """OSWorld's task files: what runs here, and OSWorld's own metrics."""


@osworld.command("report")
@click.argument("folder", type=click.Path(exists=True, path_type=Path))
@click.option("--files", type=click.Path(file_okay=False, path_type=Path), help="Local mirror of remote task files.")
@click.option("--builtin-metrics", is_flag=True, help="Count only our built-in metrics, not desktop-env's.")
@click.option("--json", "as_json", is_flag=True)
def osworld_report(folder: Path, files: Path | None, builtin_metrics: bool, as_json: bool) -> None:
    """Supported and skipped tasks under FOLDER (e.g. evaluation_examples/examples), by reason and domain."""
    from cua_bench.osworld.report import build_report, format_report

    report = build_report(folder, official=() if builtin_metrics else None, mirror=files if files else True)
    if not report.entries and not report.invalid:
        raise click.ClickException(f"{folder}: no OSWorld task files (JSON with id, instruction, evaluator)")
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else format_report(report))


@osworld.command("metrics")
def osworld_metrics() -> None:
    """Which of OSWorld's metric functions are installed (desktop-env), and why the others are not."""
    from cua_bench.osworld.official import INSTALL_HINT, official_metrics

    loaded = official_metrics()
    if not loaded.installed:
        click.echo(f"desktop-env is not installed: built-in metrics only. {INSTALL_HINT}")
        return
    click.echo(f"desktop-env {loaded.version}: {len(loaded.functions)} of {len(loaded.names)} metric functions")
    for sub, why in sorted(loaded.failed.items()):
        click.echo(f"  {sub}: not loaded ({why})")


if __name__ == "__main__":  # pragma: no cover
    main()
