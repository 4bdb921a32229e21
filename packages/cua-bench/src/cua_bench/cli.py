"""`cua-bench`: run tasksets, list them, check tasks and backends, act by hand, report on runs."""

from __future__ import annotations

import io
import json
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import click
from PIL import Image

from cua_bench.backend_kit import export_options
from cua_bench.checks import MutationTally, check_task
from cua_bench.conformance import check_backend
from cua_bench.connect import client_for
from cua_bench.parity import run_parity
from cua_bench.progress import Progress
from cua_bench.registry import agents, backends, commands, tasksets
from cua_bench.runner import RunConfig, RunHalted, Runner
from cua_bench.settings import load_settings
from cua_bench.spec import EpisodeSpec, Observes
from cua_bench.summary import EpisodeResult, format_summary, load_results, summarize
from cua_bench.tasks import load_task_module
from cua_bench.taskset import default_split, locate_task, select_tasks, task_folders
from cua_core import CONTEXT, ActionError, CuaError, CuaGroup, format_action, parse_actions, parse_pairs

__all__ = ["main"]

POSITIVE = click.IntRange(min=1)
BACKEND_OPTION = click.option(
    "--backend-option",
    "backend_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="An option the backend declares (repeatable); a key it does not take is refused, naming those it does.",
)
PLACEMENT_OPTION = click.option(
    "--placement",
    default="here",
    show_default=True,
    help="Where the environments run: here, pool[:HOST,...] or ray[:ADDRESS] (the last two: cua-bench-rl).",
)


class PluggedGroup(CuaGroup):
    """cua-bench's own commands, then those plugins register (``cua_bench_register_commands``): asked for
    only when a name is not one of ours or the commands are listed, so a plain run loads no plugin early."""

    plugged = False

    def _plug(self) -> None:
        if self.plugged:
            return
        self.plugged = True
        registry = commands()
        for name in registry.names():
            if name in self.commands:
                raise click.ClickException(
                    f"plugin {registry.plugin_of(name)!r} registers the command {name!r}, which cua-bench has; "
                    "rename it in the plugin"
                )
            self.add_command(registry[name], name)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            self._plug()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._plug()
        return super().list_commands(ctx)


@click.group(cls=PluggedGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-bench")
def main() -> None:
    """Verifiable computer-use tasks on the embedded desktop and on real ones."""


def parse_options(pairs: tuple[str, ...], hint: str = "--agent-option") -> dict[str, Any]:
    """``KEY=VALUE`` pairs as text by key; what takes them types them by its annotations (the agent's
    constructor in ``agent_factory``, the adapter's in ``make_adapter``), before anything starts."""
    return dict(parse_pairs(pairs, hint))


def use_backend_options(backend: str, pairs: tuple[str, ...]) -> None:
    """``--backend-option`` pairs checked against ``backend``'s declared options before anything starts, then
    set as their variables in this process: the runner and the checks build the backend by name."""
    if pairs:
        export_options(backends()[backend], pairs)


@main.command()
@click.argument("taskset")
@click.option("--backend", default="sim", show_default=True)
@BACKEND_OPTION
@PLACEMENT_OPTION
@click.option("--agent", default="oracle", show_default=True, help="A registered name, FILE.py:Class or module:Class.")
@click.option("--agent-option", "agent_options", multiple=True, help="KEY=VALUE passed to the agent (repeatable).")
@click.option("--model", help="Model agents: the model name (openai) or folder (hf).")
@click.option("--adapter", help="Model agents: the model family's adapter (see `cua-bench list`).")
@click.option("--base-url", help="The openai agent: the server, like http://127.0.0.1:8000/v1.")
@click.option("--history", help="Model agents: full, last=N, images=N or last=N,images=M.")
@click.option("--adapter-option", "adapter_options", multiple=True, help="KEY=VALUE for the adapter (repeatable).")
@click.option("--obs", help="What the agent observes: screenshot|png|none, a11y[=osworld], max=WxH (comma-separated).")
@click.option("--tasks", help="Only these tasks: names or globs, comma-separated (click-button,gnumeric-*).")
@click.option("--max-parallel", default=4, show_default=True, type=POSITIVE, help="Environments at once.")
@click.option("--max-steps", type=POSITIVE, help="Steps before an episode is truncated (default: each task's own).")
@click.option("--variants", type=POSITIVE, help="Only the first K variants of each task.")
@click.option("--variant", type=click.IntRange(min=0), help="Only this variant index of each task.")
@click.option("--split", help="Default: test, or the one split the tasks declare (Cua Bench tasks: train).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), help="Run folder (default runs/<time>).")
@click.option("--resume", is_flag=True, help="Continue the run in --output (same settings) without redoing episodes.")
@click.option("--no-record", is_flag=True, help="Do not write trajectories (faster; the agent sees the same).")
@click.option("--allow-errors", is_flag=True, help="Exit 0 even when episodes errored (they are never scored).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def run(
    taskset: str,
    backend: str,
    backend_options: tuple[str, ...],
    placement: str,
    agent: str,
    agent_options: tuple[str, ...],
    model: str | None,
    adapter: str | None,
    base_url: str | None,
    history: str | None,
    adapter_options: tuple[str, ...],
    obs: str | None,
    tasks: str | None,
    max_parallel: int,
    max_steps: int | None,
    variants: int | None,
    variant: int | None,
    split: str | None,
    output: Path | None,
    resume: bool,
    no_record: bool,
    allow_errors: bool,
    as_json: bool,
) -> None:
    """Run every (task, variant) of TASKSET (a registered name or a folder) and summarise.

    Exits 1 when an episode errored (a platform failure, never scored as 0) unless --allow-errors,
    and when nothing was scored.

    A model in one line: `--agent openai --model NAME --adapter qwen3-vl --base-url URL`, or
    `--agent hf --model PATH --adapter qwen2.5-vl`.
    """
    if resume and output is None:
        raise click.UsageError("--resume needs --output RUN_FOLDER: the run to continue")
    output = output or Path("runs") / time.strftime("%Y%m%d-%H%M%S")
    if variant is not None and variants is not None:
        raise click.UsageError("give --variant or --variants, not both")
    use_backend_options(backend, backend_options)
    options = parse_options(agent_options)
    shortcuts = {"model": model, "adapter": adapter, "base_url": base_url, "history": history}
    options |= {k: v for k, v in shortcuts.items() if v is not None}
    if adapter_options:
        options["adapter_options"] = parse_options(adapter_options, "--adapter-option")
    try:
        observes = Observes.parse(obs) if obs is not None else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--obs") from exc
    config = RunConfig(
        taskset, output, backend, agent, options, max_parallel, max_steps, variants, split, resume, not no_record,
        observes=observes, tasks=tasks, variant=variant, full_tracebacks=CuaGroup.debug, placement=placement,
    )  # fmt: skip
    run_and_report(config, as_json=as_json, allow_errors=allow_errors)


def run_and_report(config: RunConfig, *, as_json: bool = False, allow_errors: bool = False) -> None:
    """Run ``config`` with progress, then print its summary and exit as ``run`` does (``cb run`` too).

    Ctrl-C keeps the finished episodes and exits 130 naming the ``--resume`` to continue."""
    runner = Runner(config, progress=lambda r: progress.advance(f"{r.key}: {_outcome(r)}"))
    config = runner.config  # the split resolved
    episodes = runner.episodes()
    if not episodes:
        raise click.ClickException(
            f"{config.taskset}: nothing to run (no task has "
            + (f"variant {config.variant}" if config.variant is not None else "a variant")
            + f" in split {config.split!r}{f' among tasks {config.tasks!r}' if config.tasks else ''})"
        )
    already = len(load_results(config.output / "episodes.jsonl")) if config.resume else 0
    progress = Progress(len(episodes), already=already)
    try:
        summary = runner.run()
    except KeyboardInterrupt:
        progress.close()
        click.echo(
            f"interrupted: finished episodes are kept; continue with --resume --output {config.output}", err=True
        )
        sys.exit(130)
    except RunHalted as halted:  # the summary of what finished, then the one error line saying why and what next
        progress.close()
        shown = {k: v for k, v in halted.summary.items() if k != "stopped"}  # the error line says it
        click.echo(json.dumps(halted.summary, indent=2) if as_json else format_summary(shown))
        raise
    finally:
        progress.close()
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(format_summary(summary))
        click.echo(f"run folder: {config.output}")
    _exit_for(summary, config.output, allow_errors)


def _outcome(result: EpisodeResult) -> str:
    return f"{result.reward:.2f}" if result.status == "ok" and result.reward is not None else result.status


def _exit_for(summary: dict[str, Any], output: Path, allow_errors: bool) -> None:
    """Non-zero when episodes errored (their first reasons shown) or nothing was scored at all."""
    errored = [r for r in load_results(output / "episodes.jsonl").values() if r.status == "error"]
    for result in errored[:5]:
        click.echo(_problem(result), err=True)
    if len(errored) > 5:
        click.echo(f"... and {len(errored) - 5} more: cua-bench report {output}", err=True)
    if errored and not allow_errors:
        click.echo(f"Error: {len(errored)} episode(s) errored (never scored); --allow-errors to exit 0", err=True)
        sys.exit(1)
    if summary["scored"] == 0:
        click.echo("Error: no episode was scored (every one errored or was skipped)", err=True)
        sys.exit(1)


def _problem(result: EpisodeResult) -> str:
    """An errored or skipped episode: one line with its reason, then where its task's code failed."""
    line = f"{'skipped' if result.status == 'skipped' else 'errored'}: {result.key}: {result.error}"
    return line + ("\n" + textwrap.indent(result.traceback, "    ") if result.traceback else "")


@main.command("list")
@click.option("--paths", is_flag=True, help="Also each task's folder (what check and interact also take).")
@click.option("--json", "as_json", is_flag=True)
def list_cmd(paths: bool, as_json: bool) -> None:
    """Registered tasksets with their tasks and variant counts, backends, agents and model adapters."""
    from cua_data.registry import adapters

    data: dict[str, Any] = {
        "tasksets": {},
        "backends": backends().names(),
        "agents": agents().names(),
        "adapters": adapters().names(),
    }
    where: dict[str, str] = {}
    for name in tasksets().names():
        tasks = {}
        for folder in task_folders(name):
            module = load_task_module(folder)
            tasks[module.name] = {split: module.count(split) for split in module.splits()}
            where[f"{name}/{module.name}"] = str(folder)
        data["tasksets"][name] = tasks
    if paths:
        data["paths"] = where
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for name, tasks in data["tasksets"].items():
        total = sum(n for splits in tasks.values() for n in splits.values())
        click.echo(f"{name}: {len(tasks)} tasks, {total} variants")
        for task, splits in tasks.items():
            counts = "  ".join(f"{s}={n}" for s, n in splits.items())
            click.echo(f"  {name}/{task:28} {counts}" + (f"  {where[f'{name}/{task}']}" if paths else ""))
    click.echo(f"backends: {', '.join(data['backends'])}")
    click.echo(f"agents: {', '.join(data['agents'])}")
    click.echo(f"adapters: {', '.join(data['adapters']) or '(none installed: pip install plugins/cua-adapters-*)'}")


def _task_folders(target: str, tasks: str | None) -> list[Path]:
    """A task name (sim/click-button), a task folder or file, or a taskset (name or folder) narrowed by --tasks."""
    path = Path(target)
    if not path.exists() and "/" in target and target.split("/", 1)[0] in tasksets():
        folders = [locate_task(target)]
    else:
        folders = task_folders(target)
    return select_tasks(folders, tasks)


@main.command()
@click.argument("target")
@click.option("--backend", default="sim", show_default=True)
@BACKEND_OPTION
@click.option("--tasks", help="Only these tasks of a taskset: names or globs, comma-separated.")
@click.option("--variants", type=POSITIVE, help="Only the first K variants of each task.")
@click.option(
    "--no-adversary", is_flag=True, help="Skip the generic end-state mutations (cua_bench.adversary) after the oracle."
)
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
def check(
    target: str,
    backend: str,
    backend_options: tuple[str, ...],
    tasks: str | None,
    variants: int | None,
    no_adversary: bool,
    as_json: bool,
) -> None:
    """Every variant of TARGET: the oracle scores 1.0, doing nothing 0, each declared wrong way 0, and each
    mutation of the oracle's end state (a hidden file for a deleted one, a hard link for a copy, ...) 0
    unless the task waives it with a reason; exit 1 listing each failure.

    TARGET is a task name (sim/click-button), a task folder, or a taskset (with --tasks to pick).
    """
    backends()[backend]  # an unknown backend fails here, before anything starts
    use_backend_options(backend, backend_options)
    folders = _task_folders(target, tasks)
    counts = [_variant_count(folder, variants) for folder in folders]
    progress = Progress(sum(counts), what="variants checked")
    problems: list[str] = []
    tally = MutationTally()
    try:
        for folder in folders:
            problems += check_task(
                folder,
                backend=backend,
                variants=variants,
                progress=progress.advance,
                adversary=not no_adversary,
                tally=tally,
            )
    finally:
        progress.close()
    if as_json:
        report = {"tasks": len(folders), "variants": sum(counts), "problems": problems}
        report["mutations"] = {
            "applied": tally.applied,
            "passing": len(tally.passing),
            "waived": tally.waived,
            "unscored": tally.unscored,
        }
        click.echo(json.dumps(report, indent=2))
    else:
        for problem in problems:
            click.echo(problem)
        for what, reason in sorted(tally.waived.items()):
            click.echo(f"waived {what}: {reason}")
        for line in tally.unscored:  # not a reward earned; an episode a run would count as an error
            click.echo(f"note: {line} (a run ending like this counts an error, not a 0)")
        splits = sorted({split for folder in folders for split in load_task_module(folder).splits()})
        ok = f"{len(folders)} task(s), {sum(counts)} variant(s) ({' and '.join(splits)}): oracle 1.0, doing nothing 0"
        if not no_adversary:
            ok += f", {tally.applied} mutation(s) of the oracle's end state 0"
        click.echo(f"{len(problems)} problem(s)" if problems else ok)
    sys.exit(1 if problems else 0)


def _variant_count(folder: Path, variants: int | None) -> int:
    module = load_task_module(folder)
    counts = [module.count(split) for split in module.splits()]
    return sum(c if variants is None else min(variants, c) for c in counts)


@main.command()
@click.argument("backend")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def conformance(backend: str, as_json: bool) -> None:
    """Run the backend conformance suite against a fresh computer of BACKEND."""
    problems = check_backend(backend)
    if as_json:
        click.echo(json.dumps({"backend": backend, "conformant": not problems, "problems": problems}, indent=2))
    else:
        for problem in problems:
            click.echo(f"- {problem}")
        click.echo(f"{backend}: " + ("conformant" if not problems else f"{len(problems)} problem(s)"))
    sys.exit(1 if problems else 0)


@main.command()
@click.argument("taskset")
@click.option("--backends", "pair", required=True, help="Two backends to compare, e.g. local,docker.")
@click.option("--agent", default="oracle", show_default=True)
@click.option("--variants", type=int, help="Only the first K variants of each task.")
@click.option("--tasks", help="Only these tasks: names or globs, comma-separated (as cua-bench run --tasks).")
@click.option("--split", help="Default: test, or the one split the tasks declare (Cua Bench tasks: train).")
@click.option("--max-parallel", default=2, show_default=True, help="Environments at once, per backend.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), help="Keep both runs here.")
def parity(
    taskset: str,
    pair: str,
    agent: str,
    variants: int | None,
    tasks: str | None,
    split: str | None,
    max_parallel: int,
    output: Path | None,
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
            taskset, (names[0], names[1]), agent=agent, variants=variants, split=split or default_split(taskset),
            max_parallel=max_parallel, output=output, tasks=tasks,
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
@click.option(
    "--variant",
    help="One of the backend's images (docker: default, office: with LibreOffice and the other document apps, "
    "or osworld: OSWorld's computer).",
)
@BACKEND_OPTION
def image_build(backend: str, rebuild_base: bool, variant: str | None, backend_options: tuple[str, ...]) -> None:
    """Build BACKEND's image (docker: a Debian base from debootstrap, then the desktop on top; libvirt: the same
    desktop as a bootable disk with Debian's kernel)."""
    use_backend_options(backend, backend_options)  # libvirt: images=FOLDER, uri=...
    try:
        result = backends()[backend]().build_image(
            rebuild_base=rebuild_base, variant=variant, log=lambda line: click.echo(line, err=True)
        )
    except CuaError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(result)


@main.command()
@click.option("--backend", "names", multiple=True, help="Only this backend (repeatable; default: all).")
@BACKEND_OPTION
@click.option("--all", "everything", is_flag=True, help="Also what running processes own.")
def prune(names: tuple[str, ...], backend_options: tuple[str, ...], everything: bool) -> None:
    """Remove containers and other leftovers of stopped runs."""
    if backend_options and not names:
        raise click.UsageError("--backend-option needs --backend NAME: options belong to a backend")
    for name in names:
        use_backend_options(name, backend_options)
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


INTERACT_HELP = """\
Type actions in the unified text form, one or more per line, separated by ';':
  click(500, 300)   double: click(500, 300, clicks=2)   right: click(500, 300, button="right")
  type("hello")   type("query", press_enter=True)   key(("ctrl", "s"))   scroll("down", 3)
  drag((100, 100), (400, 300))   wait(1)          coordinates are 0-1000 on both axes
Commands:
  evaluate         the reward of the screen as it is now
  a11y             write the accessibility tree to a11y_NNN.json beside the screenshots (all of it)
  a11y print       print the whole tree here
  done / done("answer") / fail("reason")   end the episode (scored)
  help             this text
  quit             leave without ending the episode"""


@main.command()
@click.argument("task")
@click.option("--variant", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--split", help="Default: test, or the one split the tasks declare (Cua Bench tasks: train).")
@click.option("--backend", default="sim", show_default=True)
@BACKEND_OPTION
@click.option(
    "--screenshots", type=click.Path(file_okay=False, path_type=Path), default=Path("interact"), show_default=True
)
def interact(
    task: str, variant: int, split: str | None, backend: str, backend_options: tuple[str, ...], screenshots: Path
) -> None:
    """Act by hand on TASK (a name like sim/click-button, or a task folder); each screen is saved as PNG.

    Type `help` at the prompt for the actions and commands.
    """
    use_backend_options(backend, backend_options)
    folder = locate_task(task)
    load_task_module(folder)  # a folder that is no task is refused here, by the path given, before a computer starts
    impl = backends()[backend]()
    computer = impl.provision()
    screenshots.mkdir(parents=True, exist_ok=True)
    try:
        with client_for(computer) as env:
            obs, info = env.reset(options=EpisodeSpec(str(folder), variant, split, Observes("png")))
            click.echo(f"task: {info['task']['description']}  (type help for the commands)")
            step = 0
            _save(screenshots, step, obs)
            for line in sys.stdin if not sys.stdin.isatty() else iter(lambda: input("action> "), None):
                text = line.strip()
                if not text:
                    continue
                if text in ("quit", "exit", "q"):
                    break
                if text in ("help", "?"):
                    click.echo(INTERACT_HELP)
                    continue
                if text == "evaluate":
                    click.echo(f"reward {env.evaluate()}")
                    continue
                if text in ("a11y", "a11y print"):
                    tree = json.dumps(env.session("accessibility_tree"), indent=1)
                    if text == "a11y print":
                        click.echo(tree)
                    else:
                        path = screenshots / f"a11y_{step:03d}.json"
                        path.write_text(tree)
                        click.echo(f"accessibility tree ({len(tree):,} characters) -> {path}")
                    continue
                if text in ("done", "fail"):
                    text += "()"
                try:
                    actions = parse_actions(text)
                except ActionError as exc:
                    click.echo(f"not an action: {exc} (type help)")
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
    """Summarise a run folder (complete or interrupted) from its recorded episodes and settings; lists
    the episodes that errored or were skipped, and every setup step that failed."""
    results = load_results(run_dir / "episodes.jsonl")
    if not results:
        raise click.ClickException(f"{run_dir}: no episodes.jsonl with results; is it a `cua-bench run` folder?")
    about: dict[str, Any] = {}
    wall_s = 0.0
    saved = run_dir / "summary.json"
    if saved.exists():
        previous = json.loads(saved.read_text())
        about = {k: v for k, v in previous.items() if k in ("taskset", "backend", "agent", "split", "agent_usage")}
        wall_s = float(previous.get("timings", {}).get("wall_s", 0.0))
    settings = load_settings(run_dir)
    if settings is not None:
        about["settings"] = settings.get("results", {})
    summary = summarize(results.values(), wall_s=wall_s, **about)
    errors = [r for r in results.values() if r.status != "ok"]
    if as_json:
        click.echo(json.dumps({**summary, "errored": [r.key for r in errors]}, indent=2))
        return
    click.echo(format_summary(summary))
    if settings is not None:
        click.echo(f"command: {' '.join(settings.get('run', {}).get('command', []))}")
        click.echo(f"commit: {settings.get('run', {}).get('commit')}")
    for result in errors:
        click.echo(_problem(result))
    for result in results.values():
        for failure in result.setup_failures:
            click.echo(f"setup failed: {result.key}: {failure}")


if __name__ == "__main__":  # pragma: no cover
    main()
