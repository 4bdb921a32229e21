"""``cua-bench-rl``: train a policy with RL on cua-bench environments.

cua-bench-rl train --env sim:click-button --policy pixel-click --trainer grpo --group-size 8 --minutes 15
cua-bench-rl train --config grpo.yaml --output runs/rl/pixel
cua-bench-rl train --output runs/rl/pixel --resume       # continue from the newest checkpoint
cua-bench-rl list                                         # installed trainers and policies
cua-bench-rl sft --data D --model M --trainer ddp|mlx|trl [--nodes 1:2]   # supervised fine-tuning
cua-bench-rl pipeline --model M --env sim:click-button --sft-steps 50 --output runs/pipeline   # all of it
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from click.decorators import FC

from cua_bench_rl import cli_pipeline, cli_sft
from cua_bench_rl.config import TrainConfig, layered_settings
from cua_bench_rl.sampling import SAMPLINGS
from cua_core import CONTEXT, CuaError, CuaGroup, parse_pairs

__all__ = ["main"]


def _options(pairs: tuple[str, ...], flag: str) -> dict[str, Any]:
    """``key=value`` pairs as text; the config they go to types each (``cua_core.options``) before anything starts."""
    return dict(parse_pairs(pairs, flag))


# TrainConfig's defaults, shown in --help; a plain option the command line does not give stays out of the
# settings (its source is click's default), so --config and --resume still set it.
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(TrainConfig) if f.default is not MISSING}


def _setting(flag: str, help: str | None = None, type: Any = None) -> Callable[[FC], FC]:
    """An option for the TrainConfig field named like ``flag``, its default shown in --help."""
    name = flag.removeprefix("--").replace("-", "_")
    return click.option(flag, type=type, help=help, default=_DEFAULTS[name], show_default=True)


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-bench-rl")
def main() -> None:
    """RL on cua-bench environments: env workers, GRPO, trainers as plugins."""


@main.command()
@_setting("--env", "BACKEND:TASK[,TASK...], e.g. sim:click-button or sim:login,fill-form.")
@_setting("--policy", "A registered policy (see `cua-bench-rl list`).")
@click.option("--policy-option", "policy_option", multiple=True, metavar="KEY=VALUE", help="Policy constructor option.")
@_setting("--trainer", "A registered trainer (see `cua-bench-rl list`).")
@click.option("--trainer-option", "trainer_option", multiple=True, metavar="KEY=VALUE", help="e.g. lr=3e-4, lora=true.")
@_setting("--group-size", "Rollouts per (task, variant): a GRPO group.", click.IntRange(min=2))
@_setting("--groups-per-step", "Groups per optimiser step.", click.IntRange(min=1))
@_setting("--workers", "Env workers for rollouts.", click.IntRange(min=1))
@_setting("--eval-workers", "Env workers for held-out evaluation.", click.IntRange(min=1))
@_setting("--placement", "Where env workers run: here, pool[:HOST,...] or ray[:ADDRESS].")
@click.option(
    "--backend-option", "backend_option", multiple=True, metavar="KEY=VALUE",
    help="An option the backend declares, e.g. per_server=16 (sim); set for the workers wherever placed.",
)  # fmt: skip
@_setting("--steps", "Optimiser steps.", click.IntRange(min=1))
@click.option("--minutes", type=click.FloatRange(min=0, min_open=True), help="Wall-clock budget for the whole run.")
@click.option("--max-steps", type=click.IntRange(min=1), help="Step limit in training and eval (default: the task's).")
@_setting("--max-staleness", "Versions a group may lag and still be trained on.", click.IntRange(min=0))
@click.option("--lockstep", is_flag=True, help="Rollouts wait for each step (reproducible with one worker; slower).")
@click.option("--train-variants", type=click.IntRange(min=1), help="Only the first K train variants of each task.")
@_setting("--eval-episodes", "Held-out variants evaluated per task.", click.IntRange(min=1))
@_setting("--eval-every", "Steps between held-out evaluations (0: start, end).", click.IntRange(min=0))
@_setting("--checkpoint-every", "Steps between checkpoints.", click.IntRange(min=1))
@_setting("--curriculum-start", "Oracle steps played first, at most, at step 0.", click.IntRange(min=0))
@_setting("--curriculum-steps", "Optimiser step by which that is annealed away.", click.IntRange(min=0))
@_setting("--task-sampling", "Which task or variant the next group plays.", click.Choice(SAMPLINGS))
@_setting("--seed", type=int)
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), help="YAML or JSON settings.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), help="The run folder.")
@click.option("--resume", is_flag=True, help="Continue the run in --output from its newest checkpoint.")
@click.option("-v", "--verbose", is_flag=True, help="Log each step.")
@click.pass_context
def train(
    ctx: click.Context,
    /,
    policy_option: tuple[str, ...],
    trainer_option: tuple[str, ...],
    backend_option: tuple[str, ...],
    config_file: Path | None,
    output: Path | None,
    resume: bool,
    verbose: bool,
    **given: Any,
) -> None:
    """Train a policy; settings come from --config, then the options given here."""
    from cua_bench_rl.train import CONFIG_FILE, train

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(message)s")
    stored = None
    if resume:
        if output is None:
            raise CuaError("--resume needs --output FOLDER: the run folder to continue")
        stored = output / CONFIG_FILE
        if not stored.exists():
            raise CuaError(f"{output} holds no run to resume (no {CONFIG_FILE}); start one without --resume")
    # each plain option is named after its TrainConfig field
    typed = {k: v for k, v in given.items() if ctx.get_parameter_source(k) == ParameterSource.COMMANDLINE}
    settings = layered_settings(stored, config_file, typed)
    if policy_option:
        settings["policy_options"] = {
            **settings.get("policy_options", {}),
            **_options(policy_option, "--policy-option"),
        }
    if trainer_option:
        settings["trainer_options"] = {
            **settings.get("trainer_options", {}),
            **_options(trainer_option, "--trainer-option"),
        }
    if backend_option:
        settings["backend_options"] = {
            **settings.get("backend_options", {}),
            **_options(backend_option, "--backend-option"),
        }
    config = TrainConfig.from_dict(settings)
    folder = (
        output
        or Path("runs") / "rl" / f"{config.env.replace(':', '-').replace(',', '+')}-{time.strftime('%Y%m%d-%H%M%S')}"
    )

    def progress(row: dict[str, Any]) -> None:
        held = f" held-out {row['eval_success']:.3f}" if row.get("eval_success") is not None else ""
        click.echo(
            f"step {int(row['step'])}: reward {row['reward_mean']:.3f} success {row['success']:.3f} "
            f"loss {row['loss']:.4f} {row['steps_per_s']:.0f} env steps/s{held}",
            err=True,
        )

    result = train(config, folder, resume=resume, on_step=progress)
    start = result.start_eval["success"] if result.start_eval else None
    final = result.final_eval["success"] if result.final_eval else None
    click.echo(f"run folder: {folder}")
    click.echo(
        f"{result.status}: {result.steps} steps in {result.seconds / 60:.1f} min; held-out success "
        f"{'n/a' if start is None else f'{start:.3f}'} -> {'n/a' if final is None else f'{final:.3f}'}"
    )
    if result.status == "no_signal":
        raise CuaError(
            f"stopped at step {result.steps}: {config.resample_limit} rounds in a row drew "
            f"{config.groups_per_step * config.resample_limit} groups each, and in every group all episodes scored "
            "the same: nothing to learn from. The policy never (or always) succeeds here: try easier variants, "
            "a curriculum (--curriculum-start), larger groups, or a higher resample_limit"
        )
    if result.steps == 0:
        raise CuaError("no optimiser step was taken (the budget ran out before the first batch of groups)")


@main.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--merge", is_flag=True, required=True, help="Merge a LoRA model folder into its base's weights.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), required=True, help="The merged model.")
def export(folder: Path, merge: bool, output: Path) -> None:
    """Write a trained model folder (OUTPUT/model of sft or train) as a full model: `export PATH --merge`."""
    from cua_data import merged

    if output.resolve() == folder.resolve():
        raise click.BadParameter("give another folder than the adapter's own", param_hint="--output")
    try:
        done = merged(folder, output)
    except (ValueError, ImportError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"merged model: {done} (cua-bench run --agent hf --model {done})")


@main.command(name="list")
@click.option("--json", "as_json", is_flag=True)
def list_(as_json: bool) -> None:
    """Installed trainers, SFT trainers and policies."""
    from cua_bench_rl.registry import policies, sft_trainers, trainers

    found = {"trainers": sorted(trainers()), "sft trainers": sorted(sft_trainers()), "policies": sorted(policies())}
    if as_json:
        click.echo(json.dumps(found))
        return
    for kind, names in found.items():
        click.echo(f"{kind}: {', '.join(names) or 'none installed'}")


cli_sft.register(main, _options)
cli_pipeline.register(main, _options)

if __name__ == "__main__":
    main()
