"""GRPO on the sim desktop, from the random agent to held-out success, on a laptop CPU.

    python examples/training/grpo_sim.py --family pixel --minutes 15 --seed 0
    python examples/training/grpo_sim.py --family a11y --minutes 15 --seed 0 --output runs/rl/a11y

Two families, each a small policy of ``cua-trainer-grpo`` trained by ``cua_bench_rl.train`` (env
workers, the multi-turn dataloader, the replay buffer and the GRPO trainer; nothing duplicated here):

* ``pixel``: ``sim/click-button`` seen as pixels (the 1280x800 screen scaled to 640x400), one click
  on a grid, by ``pixel-click``;
* ``a11y``: ``sim/login`` seen as its accessibility tree (click a field, type, sign in, done), by
  ``a11y``, with a curriculum that starts episodes after the oracle's first steps and anneals that
  away (the held-out score always starts from the true start state).

Training uses the train split's variants; held-out success is measured, greedily, on the test
split's variants at the start and the end (and every ``--eval-every`` steps). Before training, the
untrained policy is also played *sampling* on the same variants: for ``pixel`` that is a uniformly
random click, the random agent. The run folder holds ``curve.csv`` and ``curve.png`` (success against
minutes), ``summary.json``, checkpoints and the replay buffer; the last line printed is ``key=value``
pairs.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from cua_bench_rl.config import TrainConfig
from cua_bench_rl.train import train

# What each family trains with. Calibrated on a 2-core CPU shared with other work (see README.md).
FAMILIES: dict[str, dict[str, Any]] = {
    "pixel": {
        "env": "sim:click-button",
        "policy": "pixel-click",
        "minutes": 5.0,
        "group_size": 16,
        "groups_per_step": 8,
        "workers": 8,
        "eval_workers": 4,
        "max_staleness": 1,
        "buffer_capacity": 32,
        "eval_every": 10,
        "trainer_options": {"lr": 1e-3, "entropy_coef": 0.01, "micro_batch": 256},
    },
    "a11y": {
        "env": "sim:login",
        "policy": "a11y",
        "minutes": 14.5,  # the final evaluations take the rest of the 15 minutes
        "group_size": 8,
        "groups_per_step": 8,
        "workers": 4,
        "eval_workers": 4,
        "max_staleness": 1,
        "buffer_capacity": 64,
        "eval_every": 100,
        "policy_options": {"explore": 0.1},
        "curriculum_start": 4,
        "curriculum_steps": 500,
        "trainer_options": {"lr": 2e-3, "entropy_coef": 0.1, "micro_batch": 512},
    },
}


def random_baseline(config: TrainConfig) -> float:
    """The untrained policy, sampling, on the held-out variants: for ``pixel`` a uniformly random click."""
    from cua_bench_rl.loader import evaluate
    from cua_bench_rl.train import build_policy
    from cua_bench_rl.workers import EnvWorkers

    policy = build_policy(config)
    refs = config.task_refs(config.eval_split, config.eval_episodes)
    with EnvWorkers(config.backend, config.eval_workers) as workers:
        return float(evaluate(workers, policy, refs, greedy=False)["success"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), required=True)
    parser.add_argument("--minutes", type=float, help="wall-clock budget, evaluations included (pixel 5, a11y 15)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, help="the run folder (default runs/rl/grpo-FAMILY-SEED-TIME)")
    parser.add_argument("--eval-episodes", type=int, default=100, help="held-out variants played per evaluation")
    parser.add_argument("--eval-every", type=int, help="optimiser steps between held-out evaluations")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                        help="override a TrainConfig setting, e.g. --set group_size=16")  # fmt: skip
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")

    settings = {**FAMILIES[args.family], "seed": args.seed, "steps": 100_000}
    budget = float(args.minutes if args.minutes is not None else settings["minutes"])
    settings["eval_episodes"] = args.eval_episodes
    if args.eval_every is not None:
        settings["eval_every"] = args.eval_every
    for pair in args.set:
        key, eq, value = pair.partition("=")
        if not eq:
            parser.error(f"--set {pair!r}: expected KEY=JSON, like group_size=16")
        try:
            settings[key] = json.loads(value)
        except ValueError:
            settings[key] = value
    config = TrainConfig.from_dict(settings)
    folder = args.output or Path("runs/rl") / f"grpo-{args.family}-{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"

    started = time.monotonic()
    baseline = random_baseline(config)
    print(f"random baseline (untrained policy, sampling) on {config.eval_episodes} held-out variants: {baseline:.3f}")
    config.minutes = max(0.5, budget - (time.monotonic() - started) / 60)  # one budget for everything
    result = train(config, folder, on_step=_progress)
    start = result.start_eval["success"] if result.start_eval else float("nan")
    final = result.final_eval["success"] if result.final_eval else float("nan")
    sampled = result.final_eval["sampled_success"] if result.final_eval else float("nan")
    minutes = (time.monotonic() - started) / 60
    (folder / "baseline.json").write_text(json.dumps({"random_success": baseline}))
    print(f"run folder: {folder}")
    print(
        f"family={args.family} seed={args.seed} random_success={baseline:.3f} start_success={start:.3f} "
        f"final_success={final:.3f} final_sampled_success={sampled:.3f} steps={result.steps} "
        f"minutes={minutes:.2f} folder={folder}"
    )
    return 0


def _progress(row: dict[str, Any]) -> None:
    held = f" held-out {row['eval_success']:.3f}" if row.get("eval_success") is not None else ""
    print(
        f"step {int(row['step'])} ({row['minutes']:.1f} min): train success {row['success']:.3f}{held}",
        file=sys.stderr,
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
