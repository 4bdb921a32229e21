"""Rewards you can train on, swept: the oracle, doing nothing, every declared wrong way, and random play.

For every task of the ``sim`` and ``phone`` tasksets (and ``desktop`` with ``--desktop``, on the local
backend), on every variant of both splits (``--variants K`` for the first K of each):

- ``oracle_ok_ratio``: the share of variants whose oracle scores 1.0 (target 1.0);
- ``noop_zero_ratio``: the share where doing nothing scores 0 (target 1.0);
- ``wrong_ways_passing``: declared wrong solutions (``@cb.wrong_way``) that scored above 0 (target 0);
- ``tasks_with_wrong_ways``: the share of tasks that declare at least one (target 1.0);
- ``mutations_passing``: generic mutations of the oracle's end state (``cua_bench.adversary``: a
  hidden file for a deleted one, a hard link for a copy, a chmod'ed neighbour, blank lines, numbers
  as text, a forged write to what the evaluator reads, ...) that scored above 0 (target 0), over
  ``mutations_applied`` played; ``tasks_mutated``: the share of tasks with a mutation played or
  waived with a reason;
- ``random_over_chance``: families where a random agent beats the chance level the task states
  (``Task.chance``; 0 when it states none) by more than sampling noise (three binomial standard
  errors plus one episode's worth), for either of two random agents: ``random`` (clicks anywhere,
  keys, words) and ``random-a11y`` (clicks accessibility-tree nodes, words) on every test variant
  (target 0).

Baseline in the same run: the reward the ``noop`` agent earns through the runner, which every
evaluator must hold at 0.

Last line: ``wrong_ways_passing=… tasks_with_wrong_ways=… oracle_ok_ratio=… noop_zero_ratio=…
random_over_chance=… mutations_passing=… mutations_applied=… tasks_mutated=…``.
Run: .venv/bin/python bench/rewards.py [--variants K] [--desktop | --only sim|phone|desktop] [--jobs N]
[--task NAME ...] [--record FILE [--part sweep|random] [--redo-errors]]

The whole ``--desktop`` sweep takes hours on two cores (some 13,000 episodes, each starting real apps):
``--record FILE`` appends each task's sweep and each random agent's play to FILE as it finishes, and a
rerun with the same FILE and settings skips what it holds, so the sweep can stop and go on (in another
session, after a reboot); the figures are computed over everything recorded. Random play, one run per
taskset and agent, keeps its run folder under ``runs/rewards/<FILE's stem>/`` and resumes it episode by
episode. A variant that errors (a harness timeout on a loaded machine) counts in no figure but
``errors``; ``--redo-errors`` plays the errored variants of recorded sweeps again, alone, and completes
their counts.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cua_bench.adversary import waivers
from cua_bench.checks import MutationTally, play_mutations
from cua_bench.client import EnvClient
from cua_bench.registry import backends
from cua_bench.runner import RunConfig, Runner
from cua_bench.tasks import load_task_module
from cua_bench.taskset import task_folders
from cua_core.errors import CuaError


@dataclass
class Sweep:
    task: str
    variants: int = 0
    oracle_ok: int = 0
    noop_zero: int = 0
    wrong_ways: int = 0  # declared (names, over splits)
    wrong_played: int = 0
    wrong_passing: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)  # variants whose oracle scored below 1 or nothing above 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # cua_bench.adversary's mutations of the oracle's end state: played, scoring above 0, waived by the task
    mutations_applied: int = 0
    mutations_passing: list[str] = field(default_factory=list)
    mutations_waived: list[str] = field(default_factory=list)
    # A variant that errored counts in ``variants`` and ``errors`` only, so that replaying it alone
    # (``--redo-errors``) completes the counts exactly. Records made before counted its parts up to
    # the error: they cannot be completed so, only swept again.
    atomic: bool = False


ERRORED = re.compile(r"^\S+ (train|test)/(\d+): ")


def sweep(folder: str, backend: str, limit: int | None, only: list[tuple[str, int]] | None = None) -> Sweep:
    """Every variant of both splits of one task (or ``only`` those): oracle, nothing, each wrong way."""
    module = load_task_module(folder)
    waived = waivers(module.module)
    out = Sweep(module.name, atomic=True, mutations_waived=sorted(waived))
    started = time.monotonic()
    impl = backends()[backend]()
    computer = impl.provision()
    try:
        with EnvClient(computer.address, step_timeout=120) as env:
            for split in module.splits():
                count = module.count(split)
                ways = sorted(module.wrong_ways(split))
                out.wrong_ways += len(ways)
                for variant in range(count if limit is None else min(limit, count)):
                    if only is not None and (split, variant) not in only:
                        continue
                    where = f"{module.name} {split}/{variant}"
                    options = {"task": folder, "variant": variant, "split": split, "observes": "none"}
                    out.variants += 1
                    try:
                        env.reset(options=options)
                        idle = env.evaluate()  # on the episode the oracle plays, as check_task does
                        env.adversary("begin")
                        solved = env.solve()["reward"]
                        planned = list(env.adversary("plan")) if solved == 1.0 else []
                        tally = MutationTally()  # the mutations first: they start from the oracle's episode
                        holes = play_mutations(env, options, where, planned, waived, tally)
                        passing = []
                        for name in ways:
                            env.reset(options=options)
                            reward = env.wrong(name)["reward"]
                            if reward > 0:
                                passing.append(f"{where} {name}={reward}")
                    except CuaError as exc:
                        out.errors.append(f"{where}: {exc}")
                        continue
                    out.noop_zero += idle == 0.0
                    out.oracle_ok += solved == 1.0
                    if idle != 0.0:
                        out.misses.append(f"{where} nothing={idle}")
                    if solved != 1.0:
                        out.misses.append(f"{where} oracle={solved}")
                    out.wrong_played += len(ways)
                    out.wrong_passing += passing
                    out.mutations_applied += tally.applied
                    out.mutations_passing += holes
    finally:
        impl.teardown(computer)
    out.seconds = time.monotonic() - started
    return out


def redo_errors(folder: str, backend: str, limit: int | None, kept: Sweep) -> Sweep:
    """``kept`` (an ``atomic`` record) with its errored variants played again, alone: their counts added,
    their new errors kept."""
    errored = [(match[1], int(match[2])) for match in map(ERRORED.match, kept.errors) if match]
    again = sweep(folder, backend, limit, only=errored)
    return Sweep(
        kept.task,
        variants=kept.variants,
        oracle_ok=kept.oracle_ok + again.oracle_ok,
        noop_zero=kept.noop_zero + again.noop_zero,
        wrong_ways=kept.wrong_ways,
        wrong_played=kept.wrong_played + again.wrong_played,
        wrong_passing=kept.wrong_passing + again.wrong_passing,
        misses=kept.misses + again.misses,
        errors=again.errors,
        seconds=kept.seconds + again.seconds,
        atomic=True,
        mutations_applied=kept.mutations_applied + again.mutations_applied,
        mutations_passing=kept.mutations_passing + again.mutations_passing,
        mutations_waived=kept.mutations_waived,
    )


def random_play(taskset: str, backend: str, agent: str, limit: int | None, output: Path) -> dict[str, float]:
    """Mean reward per family of ``agent`` on every test variant (through the runner). A run folder
    ``output`` that holds part of the play is resumed (the runner refuses one made with other settings)."""
    config = RunConfig(taskset, output, backend, agent, max_parallel=2, variants=limit, record=False, resume=True)
    summary = Runner(config).run()
    return {task: row["mean_reward"] for task, row in summary["tasks"].items()}


RUNS = Path(__file__).resolve().parent.parent / "runs" / "rewards"  # random play's run folders (--record)


def sweep_key(taskset: str, folder: str) -> str:
    """``sweep:TASKSET/TASK``, by the taskset's registered name: the same in every clone and wherever its
    package keeps the folders (``Record`` reads the keys of older records: a folder's absolute path, and
    the name of the package folder the tasks moved into, ``cua_bench_tasks_desktop``)."""
    return f"sweep:{taskset}/{Path(folder).name}"


def _recorded_key(key: str) -> str:
    """An older record's key as ``sweep_key`` gives it now."""
    if key.startswith("sweep:/"):  # an absolute path: the folder's parent was the taskset's folder
        path = Path(key.removeprefix("sweep:"))
        key = f"sweep:{path.parent.name}/{path.name}"
    return key.replace("sweep:cua_bench_tasks_", "sweep:", 1)


class Record:
    """Finished pieces of a sweep in a JSONL file: one line per task swept or random play done."""

    def __init__(self, path: Path | None, settings: dict[str, Any]) -> None:
        self.path, self.settings = path, settings
        self.done: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:  # a line cut by a kill: that piece is simply done again
                    print(f"{path}:{number}: an incomplete line, ignored", file=sys.stderr)
                    continue
                if entry.get("settings") != settings:
                    sys.exit(
                        f"{path} was recorded with {entry.get('settings')}, not {settings}: use another --record file"
                    )
                key = entry["key"]
                self.done[_recorded_key(key)] = entry["value"]  # a later line of a task replaces an earlier

    def get(self, key: str) -> dict[str, Any] | None:
        return self.done.get(key)

    def put(self, key: str, value: dict[str, Any]) -> None:
        self.done[key] = value
        if self.path is not None:
            with self.path.open("a") as out:  # one write of one line: a kill leaves whole lines
                out.write(json.dumps({"key": key, "settings": self.settings, "value": value}) + "\n")


def over_chance(mean: float, chance: float, n: int) -> bool:
    noise = 3 * math.sqrt(max(chance * (1 - chance), 1e-9) / max(n, 1)) + 1 / max(n, 1)
    return mean > chance + noise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, help="only the first K variants of each split")
    parser.add_argument("--desktop", action="store_true", help="also the desktop taskset (local backend; slow)")
    parser.add_argument("--only", choices=["sim", "phone", "desktop"], help="only this taskset")
    parser.add_argument("--jobs", type=int, default=2, help="tasks swept at once")
    parser.add_argument("--record", type=Path, help="JSONL file of finished pieces: a rerun skips them")
    parser.add_argument(
        "--part",
        choices=["all", "sweep", "random"],
        default="all",
        help="only the sweeps or only random play (two runs on one --record file can do both at once)",
    )
    parser.add_argument("--task", action="append", help="only this task (repeatable; default every task)")
    parser.add_argument(
        "--redo-errors",
        action="store_true",
        help="play the variants that errored in recorded sweeps again, alone, and complete their counts",
    )
    args = parser.parse_args()
    if args.redo_errors and args.record is None:
        parser.error("--redo-errors needs --record FILE, which holds the sweeps whose errored variants to play again")
    if args.part != "all" and args.record is None:
        parser.error("--part sweep or random needs --record FILE, where the other part's results are kept")
    backends = {"sim": "sim", "phone": "sim", "desktop": "local"}  # each taskset's backend
    tasksets = [(name, backends[name]) for name in ("sim", "phone", *(["desktop"] if args.desktop else []))]
    if args.only is not None:
        tasksets = [(args.only, backends[args.only])]
    # "adversary": records made before the mutations existed hold no mutation counts: refused, not mixed in.
    settings = {"variants": args.variants, "tasksets": [name for name, _ in tasksets], "adversary": True}
    record = Record(args.record, settings)
    started = time.monotonic()
    sweeps: list[Sweep] = []
    folders = [(str(folder), backend) for name, backend in tasksets for folder in task_folders(name)]
    taskset_of = {str(folder): name for name, _ in tasksets for folder in task_folders(name)}
    if args.task:
        unknown = set(args.task) - {Path(folder).name for folder, _ in folders}
        if unknown:
            parser.error(f"no task {', '.join(sorted(unknown))} in {', '.join(name for name, _ in tasksets)}")
        folders = [(folder, backend) for folder, backend in folders if Path(folder).name in args.task]
    pending: list[str] = []
    redo: list[tuple[str, str, Sweep]] = []
    if args.redo_errors:
        for folder, backend in folders:
            recorded = record.get(sweep_key(taskset_of[folder], folder))
            if recorded is not None and recorded["errors"]:
                redo.append((folder, backend, Sweep(**recorded)))
        old = [partial.task for _, _, partial in redo if not partial.atomic]
        if old:
            parser.error(
                f"{', '.join(old)}: recorded before a variant's error voided its counts, so their errored variants "
                f"cannot be completed alone; delete their lines from {args.record} to sweep them again"
            )
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = {
            folder: pool.submit(sweep, folder, backend, args.variants)
            for folder, backend in folders
            if record.get(sweep_key(taskset_of[folder], folder)) is None and args.part != "random"
        }
        for folder, backend, partial in redo:
            futures[folder] = pool.submit(redo_errors, folder, backend, args.variants, partial)
        for folder, _ in folders:
            kept = record.get(sweep_key(taskset_of[folder], folder))
            if kept is not None and folder not in futures:
                sweeps.append(Sweep(**kept))
                continue
            if folder not in futures:
                pending.append(f"the sweep of {Path(folder).name}")
                continue
            result = futures[folder].result()
            record.put(sweep_key(taskset_of[folder], folder), asdict(result))
            sweeps.append(result)
            flag = " WRONG WAY PASSES" if result.wrong_passing else ""
            flag += " MUTATION PASSES" if result.mutations_passing else ""
            print(
                f"{result.task:28} {result.variants:4} variants  oracle {result.oracle_ok}/{result.variants}  "
                f"noop-0 {result.noop_zero}/{result.variants}  wrong ways {result.wrong_ways} "
                f"({result.wrong_played} played)  mutations {result.mutations_applied}"
                f"{' waived ' + ','.join(result.mutations_waived) if result.mutations_waived else ''}{flag}  "
                f"{result.seconds:.0f} s",
                flush=True,
            )
            for line in result.wrong_passing[:3] + result.mutations_passing[:3] + result.misses[:3] + result.errors[:3]:
                print(f"    {line}", file=sys.stderr)
    chances: dict[str, float] = {}
    for name, _ in tasksets:
        for path in task_folders(name):
            module = load_task_module(path)
            chances[module.name] = statistics.fmean(t.chance or 0.0 for t in module.variants("test"))
    beaten: list[str] = []
    noop_means: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        # With --record, random play runs where a later run resumes it: the desktop's is hours of episodes.
        plays = RUNS / args.record.stem if args.record else Path(scratch)
        for name, backend in tasksets:
            count = load_task_module(task_folders(name)[0]).count("test")
            n = count if args.variants is None else min(args.variants, count)
            for agent in ("random", "random-a11y", "noop"):
                key = f"noop:{name}" if agent == "noop" else f"random:{name}:{agent}"  # as recorded before
                played = record.get(key)
                if played is None and args.part == "sweep":
                    pending.append(f"{agent} play on {name}")
                    continue
                if played is None:
                    played = random_play(name, backend, agent, args.variants, plays / f"{name}-{agent}")
                    record.put(key, played)
                if agent == "noop":
                    noop_means += list(played.values())
                    continue
                for task, mean in played.items():
                    if over_chance(mean, chances.get(task, 0.0), n):
                        beaten.append(f"{task} ({agent}: {mean:.3f} against chance {chances.get(task, 0.0):.3f})")
    for line in beaten:
        print(f"random beats chance: {line}")
    if pending:  # this run did its part; the figures need the other's
        print(f"figures pending ({len(pending)} pieces not in {args.record}): {'; '.join(pending)}")
        return
    variants = sum(s.variants for s in sweeps)
    passing = sum(len(s.wrong_passing) for s in sweeps)
    with_ways = sum(s.wrong_ways > 0 for s in sweeps) / len(sweeps)
    oracle = sum(s.oracle_ok for s in sweeps) / variants
    noop = sum(s.noop_zero for s in sweeps) / variants
    errors = sum(len(s.errors) for s in sweeps)
    mutated = sum(s.mutations_applied > 0 or bool(s.mutations_waived) for s in sweeps) / len(sweeps)
    print(
        f"{len(sweeps)} tasks, {variants} variants, {sum(s.wrong_played for s in sweeps)} wrong-way episodes, "
        f"{errors} errors, {time.monotonic() - started:.0f} s; noop through the runner: mean "
        f"{statistics.fmean(noop_means) if noop_means else 0.0:.3f}"
    )
    print(
        f"wrong_ways_passing={passing} tasks_with_wrong_ways={with_ways:.3f} oracle_ok_ratio={oracle:.4f} "
        f"noop_zero_ratio={noop:.4f} random_over_chance={len(beaten)} errors={errors} variants={variants} "
        f"mutations_passing={sum(len(s.mutations_passing) for s in sweeps)} "
        f"mutations_applied={sum(s.mutations_applied for s in sweeps)} tasks_mutated={mutated:.3f}"
    )


if __name__ == "__main__":
    main()
