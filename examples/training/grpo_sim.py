"""GRPO on the sim desktop, from the random agent to held-out success, on a laptop CPU.

    python examples/training/grpo_sim.py --family pixel --minutes 20 --seed 0 --best-fixed
    python examples/training/grpo_sim.py --family a11y --minutes 15 --seed 0 --output runs/rl/a11y

Four families, each a small policy of ``cua-trainer-grpo`` trained by ``cua_bench_rl.train`` (env
workers, the multi-turn dataloader, the replay buffer and the GRPO trainer; nothing duplicated here):

* ``pixel``: ``sim/click-button`` seen as pixels (the 1280x800 screen scaled to 640x400), one click
  on a grid, by ``pixel-click``: learned convolutions and one learned filter per instruction word,
  nothing that knows what a label looks like (see its module);
* ``a11y``: ``sim/login`` seen as its accessibility tree (click a field, type, sign in, done), by
  ``a11y``, with a curriculum that starts episodes after the oracle's first steps and anneals that
  away (the held-out score always starts from the true start state);
* ``phone-settings`` and ``phone-notes``: ``phone/settings-toggle`` and ``phone/notes-delete`` on the
  sim's phone (360x720), seen as its accessibility tree, by ``a11y`` with the same kind of curriculum.

Training uses the train split's variants; held-out success is measured, greedily, on the test
split's variants at the start and the end (and every ``--eval-every`` steps). Before training, the
untrained policy is also played *sampling* on the same variants: for ``pixel`` that is a uniformly
random click, the random agent. ``--best-fixed`` (pixel) adds what the best single click point,
chosen on the train split, scores held out: all that a policy which reads nothing can do. ``--bc
[MINUTES]`` (pixel) adds behaviour cloning: the same policy fitted to the oracle's clicks, for as
long as the GRPO run unless told otherwise. The run
folder holds ``curve.csv`` and ``curve.png`` (success against minutes), ``summary.json``, checkpoints
and the replay buffer; the last line printed is ``key=value`` pairs.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cua_bench import Observes
from cua_bench_rl.config import TrainConfig
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Taken, Turn
from cua_bench_rl.train import train
from cua_core.actions import Click, Done, Point

# What each family trains with. Calibrated on a 2-core CPU shared with other work (see README.md).
FAMILIES: dict[str, dict[str, Any]] = {
    "pixel": {
        "env": "sim:click-button",
        "policy": "pixel-click",
        "minutes": 20.0,
        "group_size": 16,
        "groups_per_step": 8,
        "workers": 8,
        "eval_workers": 4,
        "max_staleness": 1,
        "buffer_capacity": 32,
        "eval_every": 25,
        "trainer_options": {"lr": 2e-3, "entropy_coef": 0.01, "micro_batch": 256},
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
# The phone (360x720, its accessibility tree): a11y's settings on a phone family, the curriculum annealed away
# by step 100 (every held-out episode starts from the true start state: the launcher, or another app in front).
for _family, _env in (("phone-settings", "sim:settings-toggle"), ("phone-notes", "sim:notes-delete")):
    FAMILIES[_family] = {**FAMILIES["a11y"], "env": _env, "curriculum_steps": 100}


def random_baseline(config: TrainConfig) -> float:
    """The untrained policy, sampling, on the held-out variants: for ``pixel`` a uniformly random click."""
    from cua_bench_rl.build import build_policy
    from cua_bench_rl.loader import evaluate
    from cua_bench_rl.workers import EnvWorkers

    policy = build_policy(config)
    refs = config.episodes(config.eval_split, config.eval_episodes)
    with EnvWorkers(config.backend, config.eval_workers) as workers:
        return float(evaluate(workers, policy, refs, greedy=False)["success"])


class FixedClick(Policy):
    """One click at a fixed point, whatever the screen shows: what a policy that reads nothing can do."""

    observes = Observes(screenshot="none")

    def __init__(self, x: float, y: float) -> None:
        self.point = Point(x, y)

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        return [Decision([Click(self.point), Done()], [0], [0.0]) for _ in turns]

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        raise NotImplementedError("FixedClick is a baseline; it is never trained")


def best_fixed_baseline(config: TrainConfig, columns: int = 16, rows: int = 10, variants: int = 40) -> float:
    """The best fixed click for ``pixel``: every point of a ``columns`` x ``rows`` grid over the screen
    played on ``variants`` train variants, and the best of them played on the held-out variants. It
    is chosen with hindsight of the train split, which no trained policy is given."""
    from cua_bench_rl.loader import evaluate
    from cua_bench_rl.workers import EnvWorkers

    train_refs = config.episodes(config.train_split, variants)
    held_out = config.episodes(config.eval_split, config.eval_episodes)
    points = [((c + 0.5) * 1000 / columns, (r + 0.5) * 1000 / rows) for r in range(rows) for c in range(columns)]
    with EnvWorkers(config.backend, config.workers) as workers:
        train_success = [evaluate(workers, FixedClick(*p), train_refs)["success"] for p in points]
        best = points[max(range(len(points)), key=train_success.__getitem__)]
        return float(evaluate(workers, FixedClick(*best), held_out)["success"])


def bc_baseline(config: TrainConfig, minutes: float, batch: int = 16) -> float:
    """Behaviour cloning for ``pixel``: the same untrained policy fitted by cross-entropy to the oracle's
    click on every train variant (the cell it falls in) for ``minutes``, then scored held out, greedily,
    as the GRPO run is. The oracle's demonstrations are what GRPO never sees."""
    import random

    import torch

    from cua_bench import make
    from cua_bench_rl.build import build_policy
    from cua_bench_rl.loader import episode_spec, evaluate
    from cua_bench_rl.workers import EnvWorkers
    from cua_core.actions import action_from_dict

    policy = build_policy(config)
    cell_for = getattr(policy, "cell_for", None)
    if cell_for is None:
        raise SystemExit(f"--bc: policy {config.policy!r} cannot turn a click into its decision (no cell_for)")
    demos: list[Taken] = []
    with make(backend=config.backend) as env:
        for ref in config.episodes(config.train_split, config.train_variants):
            obs, _ = env.reset(options=episode_spec(ref, policy.observes, None))  # as the policy observes it
            turn = Turn(ref.key, ref, obs["instruction"], 0, obs)
            actions = [action_from_dict(a) for a in env.solve(steps=1)["steps"][0]["actions"]]
            click = next(a for a in actions if isinstance(a, Click) and a.coordinate is not None)
            demos.append(Taken(turn, Decision(actions, [cell_for(turn, click.coordinate)], [0.0])))
    trainer_options = config.trainer_options or {}
    optimiser = torch.optim.Adam(policy.trainable().parameters(), lr=float(trainer_options.get("lr", 1e-3)))
    rng, ends = random.Random(config.seed), time.monotonic() + 60 * minutes
    while time.monotonic() < ends:
        loss = -torch.cat(policy.logprobs(rng.sample(demos, min(batch, len(demos))))).mean()
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()
    with EnvWorkers(config.backend, config.eval_workers) as workers:
        return float(evaluate(workers, policy, config.episodes(config.eval_split, config.eval_episodes))["success"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), required=True)
    parser.add_argument("--minutes", type=float, help="wall-clock budget, evaluations included (pixel 20, a11y 15)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, help="the run folder (default runs/rl/grpo-FAMILY-SEED-TIME)")
    parser.add_argument("--eval-episodes", type=int, default=100, help="held-out variants played per evaluation")
    parser.add_argument("--eval-every", type=int, help="optimiser steps between held-out evaluations")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                        help="override a TrainConfig setting, e.g. --set group_size=16")  # fmt: skip
    parser.add_argument("--best-fixed", action="store_true",
                        help="pixel: also measure the best fixed click (after training; a few minutes)")  # fmt: skip
    parser.add_argument("--bc", type=float, nargs="?", const=0.0, metavar="MINUTES",
                        help="pixel: also fit the policy to the oracle's clicks for MINUTES (default: as long as "
                             "the GRPO run's budget), and score it")  # fmt: skip
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.family != "pixel" and (args.best_fixed or args.bc is not None):  # before any training starts
        parser.error("--best-fixed and --bc are for --family pixel (its decision is one click)")
    if args.bc is not None and args.bc < 0:
        parser.error(f"--bc {args.bc:g}: give the minutes of behaviour cloning (above 0), or none for the run's")
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
    baselines = {"random_success": baseline}
    if args.best_fixed:
        baselines["best_fixed_success"] = best_fixed_baseline(config)
        print(f"best fixed click on {config.eval_episodes} held-out variants: {baselines['best_fixed_success']:.3f}")
    if args.bc is not None:
        bc_minutes = args.bc or budget  # the same budget as GRPO unless told otherwise
        baselines["bc_success"] = bc_baseline(config, bc_minutes)
        print(f"behaviour cloning ({bc_minutes:g} min), held out: {baselines['bc_success']:.3f}")
    (folder / "baseline.json").write_text(json.dumps(baselines))
    print(f"run folder: {folder}")
    extra = "".join(f" {k}={v:.3f}" for k, v in baselines.items() if k != "random_success")
    print(
        f"family={args.family} seed={args.seed} random_success={baseline:.3f}{extra} start_success={start:.3f} "
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
