"""``cua-bench-rl sft``: supervised fine-tuning on LiteSample data, here or on the pool.

cua-bench-rl sft --data runs/oracle/trajectories --model PATH --adapter qwen2.5-vl --trainer ddp
cua-bench-rl sft ... --trainer mlx --nodes 1:2      # a gang through `cua run`, one rank per computer
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from cua_bench_rl.world import World
from cua_core import CuaError

__all__ = ["register"]


def register(main: click.Group, parse_options: Any) -> None:
    @main.command()
    @click.option("--data", help="A LiteSample dataset folder, or a `cua-bench run` folder (its trajectories/).")
    @click.option("--model", help="A checkpoint folder (transformers layout: config.json, weights, tokenizer).")
    @click.option("--adapter", help="The model family's adapter (default qwen2.5-vl).")
    @click.option("--trainer", help="ddp, mlx, trl, or another installed SFT trainer (see `cua-bench-rl list`).")
    @click.option("--trainer-option", "trainer_option", multiple=True, metavar="KEY=VALUE", help="A trainer's own.")
    @click.option("--steps", type=click.IntRange(min=1), help="Optimiser steps.")
    @click.option("--lr", type=click.FloatRange(min=0, min_open=True))
    @click.option("--micro-batch", type=click.IntRange(min=1), help="Examples per forward/backward, per rank.")
    @click.option(
        "--grad-accumulation", type=click.IntRange(min=1), help="Micro-batches per step: gradients exchanged once."
    )
    @click.option("--lora/--full", default=None, help="LoRA adapter (default) or full fine-tuning.")
    @click.option("--lora-rank", type=click.IntRange(min=1))
    @click.option("--lora-targets", help="Module names, comma-separated (default q_proj,k_proj,v_proj,o_proj).")
    @click.option("--checkpoint-every", type=click.IntRange(min=1))
    @click.option("--seed", type=int)
    @click.option("--threads", type=click.IntRange(min=1), help="Compute threads per rank.")
    @click.option("--output", type=click.Path(file_okay=False), help="Final adapter and local checkpoints.")
    @click.option("--nodes", help="N or MIN:MAX: run as a gang on the pool through `cua run`.")
    @click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True, help="Gang restarts (pool).")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    @click.pass_context
    def sft(
        ctx: click.Context,
        /,
        trainer_option: tuple[str, ...],
        nodes: str | None,
        retries: int,
        as_json: bool,
        **given: Any,
    ) -> None:
        """Fine-tune a model on LiteSample trajectories (ranks from torchrun or the pool when set)."""
        from cua_bench_rl.sft import SFTConfig, SFTStep, preflight, run_sft

        settings = {k: v for k, v in given.items() if ctx.get_parameter_source(k) == ParameterSource.COMMANDLINE}
        if "lora_targets" in settings:
            settings["lora_targets"] = [t.strip() for t in settings["lora_targets"].split(",") if t.strip()]
        for key in ("data", "model", "output"):
            if key in settings:  # ranks may run in other folders (a pool space): absolute paths
                settings[key] = str(Path(settings[key]).resolve())
        if trainer_option:
            settings["options"] = parse_options(trainer_option, "--trainer-option")
        # Every mistake (a wrong path, name or --trainer-option) fails here, before a job is submitted or a
        # rank starts; the trainer's options go on typed by its Options.
        config = preflight(SFTConfig.from_dict(settings))
        if nodes is not None:
            ctx.exit(_on_pool(config.to_dict(), nodes, retries))

        def show(step: SFTStep) -> None:
            click.echo(f"step {step.step}: loss {step.loss:.4f} tokens {step.tokens} {step.seconds:.2f} s", err=True)

        result = run_sft(config, on_step=show)
        if not World.from_env().main:
            return  # under torchrun every rank runs this command; rank 0 reports
        if as_json:
            click.echo(json.dumps(result.to_dict()))
        elif result.adapter is not None:
            click.echo(
                f"{result.trainer}: steps {result.start_step} -> {result.steps} on {result.world_size} rank(s), "
                f"{result.tokens_per_s:.0f} tokens/s; weights in {result.adapter}"
            )
        if result.steps == result.start_step:
            raise CuaError(f"no step was trained: the newest checkpoint is already at step {result.steps}")


def _on_pool(config: dict[str, Any], nodes: str, retries: int) -> int:
    """`cua run` the job file with the settings; its exit status (it streams every rank's log)."""
    from cua_bench_rl.sft_job import JOB_FILE, JOB_FN

    try:
        import cua_pool  # noqa: F401
    except ImportError as exc:
        raise CuaError(
            f"--nodes runs on the pool and needs cua-pool ({exc}): pip install './packages/cua-bench-rl[pool]'"
        ) from exc
    with tempfile.TemporaryDirectory(prefix="cua-sft-") as folder:
        job = Path(folder) / JOB_FILE
        job.write_bytes(resources.files("cua_bench_rl").joinpath("sft_job.py").read_bytes())
        command = [sys.executable, "-m", "cua_pool.cli", "run", f"{job}::{JOB_FN}", json.dumps(config)]
        command += ["--nodes", nodes, "--retries", str(retries)]
        return subprocess.run(command, check=False).returncode
