"""``cua-bench-rl pipeline``: baseline evaluation, optional SFT, GRPO and the held-out report, as one job.

cua-bench-rl pipeline --model /models/qwen25-vl --env sim:click-button,login --held-out fill-form \\
    --sft-steps 50 --grpo-option steps=40 --output runs/pipeline
cua-bench-rl pipeline --output runs/pipeline --resume     # after a kill: finished stages are skipped
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from cua_core import CuaError

__all__ = ["register"]


def register(main: click.Group, parse_options: Any) -> None:
    @main.command()
    @click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                  help="YAML or JSON with the pipeline's settings (cua_bench_rl.pipeline.PipelineConfig).")  # fmt: skip
    @click.option("--model", help="The base checkpoint folder (transformers layout).")
    @click.option("--env", help="BACKEND:TASK[,TASK...]: the tasks trained on.")
    @click.option("--held-out", "held_out_tasks", help="Tasks never trained on, comma-separated, evaluated apart.")
    @click.option("--adapter", help="The model family's adapter (default qwen2.5-vl).")
    @click.option("--history", type=click.IntRange(min=1), help="Past turns each prompt keeps, in every stage.")
    @click.option("--eval-variants", type=click.IntRange(min=1), help="Held-out variants per task (eval split).")
    @click.option("--max-steps", type=click.IntRange(min=1), help="Episode step limit in every stage.")
    @click.option("--sft-steps", type=click.IntRange(min=0), help="SFT optimiser steps (0: no SFT).")
    @click.option(
        "--sft-variants", type=click.IntRange(min=1), help="Train variants per task the oracle plays for SFT."
    )
    @click.option("--sft-data", help="A LiteSample folder for SFT (default: the oracle on the train split).")
    @click.option(
        "--sft-option", multiple=True, metavar="KEY=VALUE", help="An SFTConfig setting (trainer=ddp, lr=...)."
    )
    @click.option("--grpo-option", multiple=True, metavar="KEY=VALUE", help="A TrainConfig setting (steps=40, ...).")
    @click.option("--policy-option", multiple=True, metavar="KEY=VALUE", help="A qwen-vl option (max_size=640x400).")
    @click.option("--seed", type=int)
    @click.option("--output", type=click.Path(file_okay=False, path_type=Path), required=True, help="The folder.")
    @click.option("--resume", is_flag=True, help="Continue the pipeline in --output; finished stages are skipped.")
    @click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
    @click.pass_context
    def pipeline(
        ctx: click.Context,
        /,
        config_file: Path | None,
        sft_option: tuple[str, ...],
        grpo_option: tuple[str, ...],
        policy_option: tuple[str, ...],
        output: Path,
        resume: bool,
        as_json: bool,
        **given: Any,
    ) -> None:
        """Take a taskset to a trained model and its held-out re-evaluation (baseline, SFT, GRPO, report)."""
        from cua_bench_rl.config import layered_settings
        from cua_bench_rl.pipeline import CONFIG_FILE, PipelineConfig, format_report, run_pipeline

        logging.basicConfig(level=logging.INFO, format="%(message)s")
        stored = output / CONFIG_FILE if resume else None
        if stored is not None and not stored.is_file():
            raise CuaError(f"{output} holds no pipeline to resume (no {CONFIG_FILE}); start one without --resume")
        typed = {k: v for k, v in given.items() if ctx.get_parameter_source(k) == ParameterSource.COMMANDLINE}
        settings = layered_settings(stored, config_file, typed)
        if isinstance(settings.get("held_out_tasks"), str):
            settings["held_out_tasks"] = [t.strip() for t in settings["held_out_tasks"].split(",") if t.strip()]
        for key, pairs, flag in (("sft", sft_option, "--sft-option"), ("grpo", grpo_option, "--grpo-option"),
                                 ("policy_options", policy_option, "--policy-option")):  # fmt: skip
            if pairs:
                settings[key] = {**settings.get(key, {}), **parse_options(pairs, flag)}
        for key in ("model", "sft_data"):
            if settings.get(key):  # stages run in their own folders: absolute paths
                settings[key] = str(Path(settings[key]).resolve())
        report = run_pipeline(PipelineConfig.from_dict(settings), output, resume=resume)
        click.echo(json.dumps(report) if as_json else format_report(report))
