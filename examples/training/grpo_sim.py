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
random click, the random agent. ``--best-fixed`` adds the best that a policy which ignores the
instruction scores held out, chosen with hindsight of the train split: for ``pixel`` the best single
click point, for the a11y families the best of the oracle's train episodes replayed option by option.
``--bc [MINUTES]`` adds behaviour cloning: the same policy fitted to the oracle's decisions, for as
long as the GRPO run unless told otherwise. ``--unseen-names`` scores the trained policy held out once
more with every quoted name of the instruction made up, in the instruction and on the screen alike:
names no training variant held. The run folder holds ``curve.csv`` and ``curve.png``
(success against minutes), ``summary.json``, checkpoints and the replay buffer; the last line
printed is ``key=value`` pairs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from cua_bench import Observes
from cua_bench_rl.config import TrainConfig
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Taken, Turn
from cua_bench_rl.train import train
from cua_core.actions import Click, Done, Point, TypeText

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
# by step 100 (every held-out episode starts from the true start state: the launcher, or another app in front),
# and twice the explore floor: at 0.1 one settings seed of three sat at 0.60 from step 200 on, tapping Bluetooth
# whenever Wi-Fi was asked (no rollout of a group tapped Wi-Fi, so the group had no signal); at 0.2 all six
# runs of both families reached 0.9 (bench/RESULTS.md, 2026-12-07). Notes reads the quoted title only by
# comparison (A11yPolicy's compare_names): reading it as words, the trained policies found the named note
# 0.21-0.33 of the time when its title was one no train variant held.
for _family, _env, _options in (
    ("phone-settings", "sim:settings-toggle", {}),
    ("phone-notes", "sim:notes-delete", {"compare_names": True}),
):
    FAMILIES[_family] = {
        **FAMILIES["a11y"],
        "env": _env,
        "curriculum_steps": 100,
        "policy_options": {"explore": 0.2, **_options},
    }


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


class FixedScript(Policy):
    """The same options, by what they do, on every episode whatever its instruction asks: ``script[k]``
    on turn k (``done`` when the screen offers no such option or the script has ended). What an
    a11y policy that never reads the instruction can do, on a screen it does read."""

    def __init__(self, reader: Any, script: Sequence[str]) -> None:
        self.reader, self.script = reader, list(script)
        self.observes = reader.observes

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        decisions = []
        for turn in turns:
            view = self.reader.view(turn)
            said = [o.describe(view) for o in view.options]
            want = self.script[turn.step] if turn.step < len(self.script) else "done"
            index = said.index(want) if want in said else said.index("done")
            decisions.append(Decision(view.options[index].actions(view), [index], [0.0]))
        return decisions

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        raise NotImplementedError("FixedScript is a baseline; it is never trained")


def oracle_demos(config: TrainConfig, policy: Policy, variants: int | None) -> tuple[list[list[Taken]], int]:
    """The oracle's play of the first ``variants`` train variants as the decisions ``policy`` would have
    made (its ``token_for``): each episode's turns in order, then a turn that stops, where the policy
    has a decision for that. Oracle steps that only together make one decision (tap a field, select
    all, type) are joined. An episode is cut at the first step no decision does (a swipe, for a policy
    that cannot scroll); the second value counts the episodes cut."""
    from cua_bench import make
    from cua_bench_rl.loader import episode_spec
    from cua_core.actions import action_from_dict

    token_for = getattr(policy, "token_for", None)
    if token_for is None:
        raise SystemExit(f"policy {config.policy!r} cannot turn a demonstration into its decisions (no token_for)")
    demos: list[list[Taken]] = []
    cut = 0
    with make(backend=config.backend) as env:
        for ref in config.episodes(config.train_split, variants):
            spec = episode_spec(ref, policy.observes, None)
            obs, info = env.reset(options=spec)
            limit = spec.max_steps or int(info["task"].get("max_steps") or 50)
            played = env.solve(steps=limit)["steps"]
            steps = [[action_from_dict(a) for a in step["actions"]] for step in played]
            taken: list[Taken] = []
            at = 0
            while at < len(steps):
                turn = Turn(ref.key, spec, obs["instruction"], len(taken), obs, history=list(taken), max_steps=limit)
                token, end = None, at
                while token is None and end < min(at + 4, len(steps)):
                    end += 1
                    actions = [a for step in steps[at:end] for a in step]
                    token = token_for(turn, actions)
                if token is None:
                    cut += 1
                    break
                taken.append(Taken(turn, Decision(actions, [token], [0.0])))
                env.reset(options=spec)  # the oracle again from the start, to where this decision left it
                obs, at = env.solve(steps=end)["observation"], end
            else:
                turn = Turn(ref.key, spec, obs["instruction"], len(taken), obs, history=list(taken), max_steps=limit)
                stop = token_for(turn, [Done()])
                if stop is not None:
                    taken.append(Taken(turn, Decision([Done()], [stop], [0.0])))
            if taken:
                demos.append(taken)
    return demos, cut


def best_fixed_baseline(config: TrainConfig, variants: int = 40) -> float:
    """What a policy that reads nothing of the instruction scores held out, at best, chosen with
    hindsight of ``variants`` train variants (which no trained policy is given). ``pixel``: the best
    point of a 16 x 10 grid over the screen, clicked once. ``a11y``: the best of the oracle's own
    train episodes, replayed as the same options by name (``FixedScript``)."""
    from cua_bench_rl.build import build_policy
    from cua_bench_rl.loader import evaluate
    from cua_bench_rl.workers import EnvWorkers

    candidates: list[Policy]
    if config.policy == "pixel-click":
        columns, rows = 16, 10
        points = [((c + 0.5) * 1000 / columns, (r + 0.5) * 1000 / rows) for r in range(rows) for c in range(columns)]
        candidates = [FixedClick(*p) for p in points]
    else:
        reader = build_policy(config)
        demos, _ = oracle_demos(config, reader, variants)
        scripts = {tuple(_said(reader, t) for t in episode) for episode in demos}
        candidates = [FixedScript(reader, list(script)) for script in sorted(scripts)]
    train_refs = config.episodes(config.train_split, variants)
    held_out = config.episodes(config.eval_split, config.eval_episodes)
    with EnvWorkers(config.backend, config.workers) as workers:
        train_success = [evaluate(workers, c, train_refs)["success"] for c in candidates]
        best = candidates[max(range(len(candidates)), key=train_success.__getitem__)]
        return float(evaluate(workers, best, held_out)["success"])


def _said(reader: Any, taken: Taken) -> str:
    view = reader.view(taken.turn)
    return str(view.options[taken.decision.tokens[0]].describe(view))


class UnseenNames(Policy):
    """``policy`` where every quoted name of the instruction is replaced by made-up words, in the
    instruction and on the screen alike (what it types is mapped back): names no training variant
    held, with everything else as it was. Clicks land where they would have, so the task scores the
    episode as it stands."""

    def __init__(self, policy: Any, seed: int = 0) -> None:
        self.policy, self.seed = policy, seed
        self.observes = policy.observes
        self.renamed = 0  # turns that had a name to make up

    def _made_up(self, word: str) -> str:
        digest = hashlib.sha256(f"{self.seed}:{word}".encode()).digest()
        letters = "".join("bdfgklmnprstvz"[b % 14] + "aeiou"[b // 14 % 5] for b in digest[:3])
        return letters.capitalize() if word[:1].isupper() else letters

    def _names(self, instruction: str) -> dict[str, str]:
        spans = re.findall(r'"([^"]+)"', instruction)
        return {span: " ".join(self._made_up(w) for w in span.split()) for span in spans if span.strip()}

    @staticmethod
    def _swap(text: str, names: dict[str, str]) -> str:
        for old, new in sorted(names.items(), key=lambda kv: -len(kv[0])):
            text = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, text)
        return text

    def _renamed(self, turn: Turn, names: dict[str, str]) -> Turn:
        def nodes(tree: Any) -> Any:
            if isinstance(tree, list):
                return [nodes(n) for n in tree]
            if not isinstance(tree, dict):
                return tree
            node = {**tree, "children": nodes(tree.get("children") or [])}
            for key in ("name", "value"):
                if isinstance(node.get(key), str):
                    node[key] = self._swap(node[key], names)
            return node

        observation = {**turn.observation, "a11y": nodes(turn.observation.get("a11y"))}
        if isinstance(observation.get("instruction"), str):
            observation["instruction"] = self._swap(observation["instruction"], names)
        history = [Taken(self._renamed(t.turn, names), t.decision) for t in turn.history]
        return replace(turn, instruction=self._swap(turn.instruction, names), observation=observation, history=history)

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        named = [self._names(t.instruction) for t in turns]
        self.renamed += sum(bool(n) for n in named)
        decisions = self.policy.act([self._renamed(t, n) for t, n in zip(turns, named, strict=True)], greedy=greedy)
        back = [{new: old for old, new in n.items()} for n in named]
        return [
            replace(
                d, actions=[replace(a, text=b.get(a.text, a.text)) if isinstance(a, TypeText) else a for a in d.actions]
            )
            for d, b in zip(decisions, back, strict=True)
        ]

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        raise NotImplementedError("UnseenNames only plays a trained policy; it is never trained")


def unseen_names_success(config: TrainConfig, folder: Path) -> float:
    """The run's last checkpoint, greedy on the held-out variants with every quoted name made up
    (``UnseenNames``): how far what it learned carries to names it never saw."""
    import torch
    from safetensors.torch import load_model

    from cua_bench_rl.build import build_policy
    from cua_bench_rl.checkpoints import newest_checkpoint
    from cua_bench_rl.loader import evaluate
    from cua_bench_rl.workers import EnvWorkers

    found = newest_checkpoint(folder / "checkpoints")
    if found is None:
        raise SystemExit(f"--unseen-names: {folder / 'checkpoints'} holds no checkpoint")
    policy = build_policy(config)
    if not isinstance(policy, torch.nn.Module):
        raise SystemExit(f"--unseen-names: policy {config.policy!r} is no torch module; its weights cannot be loaded")
    load_model(policy, str(found[0] / "model.safetensors"))
    with EnvWorkers(config.backend, config.eval_workers) as workers:
        held_out = config.episodes(config.eval_split, config.eval_episodes)
        unseen = UnseenNames(policy)
        success = float(evaluate(workers, unseen, held_out)["success"])
    if not unseen.renamed:
        raise SystemExit(f"--unseen-names: no held-out instruction of {config.env} quotes a name, so none was made up")
    return success


def bc_baseline(config: TrainConfig, minutes: float, batch: int = 16) -> float:
    """Behaviour cloning: the same untrained policy fitted by cross-entropy to the oracle's decisions on
    the train variants (``oracle_demos``) for ``minutes``, then scored held out, greedily, as the GRPO
    run is. The oracle's demonstrations are what GRPO never sees."""
    import random

    import torch

    from cua_bench_rl.build import build_policy
    from cua_bench_rl.loader import evaluate
    from cua_bench_rl.workers import EnvWorkers

    policy = build_policy(config)
    demos, cut = oracle_demos(config, policy, config.train_variants)
    turns = [taken for episode in demos for taken in episode]
    if not turns:
        raise SystemExit(f"--bc: no step of the oracle on {config.env} is a decision of policy {config.policy!r}")
    print(f"behaviour cloning on {len(turns)} decisions of {len(demos)} oracle episodes ({cut} cut short)")
    trainer_options = config.trainer_options or {}
    optimiser = torch.optim.Adam(policy.trainable().parameters(), lr=float(trainer_options.get("lr", 1e-3)))
    rng, ends = random.Random(config.seed), time.monotonic() + 60 * minutes
    while time.monotonic() < ends:
        loss = -torch.cat(policy.logprobs(rng.sample(turns, min(batch, len(turns))))).mean()
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
                        help="also measure the best policy that ignores the instruction: pixel's best fixed click, "
                             "a11y's best replay of an oracle episode (after training; a few minutes)")  # fmt: skip
    parser.add_argument("--bc", type=float, nargs="?", const=0.0, metavar="MINUTES",
                        help="also fit the policy to the oracle's decisions for MINUTES (default: as long as "
                             "the GRPO run's budget), and score it")  # fmt: skip
    parser.add_argument("--unseen-names", action="store_true",
                        help="also score the trained policy held out with the instruction's quoted names made "
                             "up, on the screen alike (names no training variant held)")  # fmt: skip
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
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
        print(f"best fixed policy on {config.eval_episodes} held-out variants: {baselines['best_fixed_success']:.3f}")
    if args.bc is not None:
        bc_minutes = args.bc or budget  # the same budget as GRPO unless told otherwise
        baselines["bc_success"] = bc_baseline(config, bc_minutes)
        print(f"behaviour cloning ({bc_minutes:g} min), held out: {baselines['bc_success']:.3f}")
    if args.unseen_names:
        baselines["unseen_names_success"] = unseen_names_success(config, folder)
        print(f"trained, held out with made-up names: {baselines['unseen_names_success']:.3f}")
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
