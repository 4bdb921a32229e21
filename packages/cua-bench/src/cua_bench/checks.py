"""``check_task``: every variant's oracle scores 1.0, doing nothing 0, every declared wrong way 0, and
every generic mutation of the oracle's end state 0 (``cua_bench.adversary``) unless the task waives it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench.adversary import MUTATIONS, waivers
from cua_bench.client import EnvClient
from cua_bench.connect import client_for
from cua_bench.registry import backends
from cua_bench.tasks import load_task_module
from cua_core import CuaError

__all__ = ["MutationTally", "check_task", "play_mutations"]


@dataclass
class MutationTally:
    """What the adversary did over the variants checked: for ``bench/rewards.py`` and ``check``'s output."""

    applied: int = 0  # mutations that changed an end state and were scored
    passing: list[str] = field(default_factory=list)  # those that scored above 0: holes
    waived: dict[str, str] = field(default_factory=dict)  # mutation -> the task's reason
    # Mutated end states the evaluator could not score (it raised): no reward was earned, so no hole,
    # but a run whose agent left that state would count an error there, not a 0.
    unscored: list[str] = field(default_factory=list)

    def add(self, other: MutationTally) -> None:
        self.applied += other.applied
        self.passing += other.passing
        self.waived |= other.waived
        self.unscored += other.unscored


def check_task(
    path: Path | str,
    *,
    backend: str = "sim",
    split: str | None = None,
    variants: int | None = None,
    progress: Callable[[str], None] | None = None,
    adversary: bool = True,
    tally: MutationTally | None = None,
    wrong_ways: bool = True,
) -> list[str]:
    """Reset -> oracle -> evaluate on every variant (and reset -> evaluate for doing nothing, and with
    ``wrong_ways`` each declared wrong way); then, with ``adversary``, each mutation that applies to the
    oracle's end state. The failures, one line each; ``tally`` (when given) gets the mutations applied,
    passing and waived."""
    module = load_task_module(path)
    waived = waivers(module.module) if adversary else {}
    impl = backends()[backend]()
    problems: list[str] = []
    tally = tally if tally is not None else MutationTally()
    tally.waived |= {f"{module.name}: {name}": reason for name, reason in waived.items()}
    computer = impl.provision()
    try:
        with client_for(computer, step_timeout=120) as env:
            for chosen_split in [split] if split else module.splits():
                count = module.count(chosen_split)
                for variant in range(count if variants is None else min(count, variants)):
                    where = f"{module.name} {chosen_split}/{variant}"
                    options = {"task": str(module.path), "variant": variant, "split": chosen_split, "observes": "none"}
                    try:
                        problems += _variant(env, options, where, adversary, waived, tally, wrong_ways)
                    except CuaError as exc:
                        problems.append(f"{where}: {exc}")
                    if progress is not None:
                        progress(where)
    finally:
        impl.teardown(computer)
    return problems


def _variant(
    env: EnvClient,
    options: dict[str, Any],
    where: str,
    adversary: bool,
    waived: dict[str, str],
    tally: MutationTally,
    wrong_ways: bool,
) -> list[str]:
    problems = []
    # Doing nothing is judged on the episode the oracle then plays: an evaluator only reads the state
    # (the adversary's ``begin``, after it, keeps setup's state as the evaluation left it), and a heavy
    # app's reset takes seconds.
    _, info = env.reset(options=options)
    idle = env.evaluate()
    if idle != 0.0:
        problems.append(f"{where}: doing nothing scores {idle}, not 0")
    if adversary:
        env.adversary("begin")
    solved = env.solve()
    if solved["reward"] != 1.0:
        problems.append(
            f"{where}: the oracle scores {solved['reward']} after {len(solved['steps'])} steps{_why(solved)}"
        )
    # Mutations start from the oracle's end state: there is none to start from when it failed. They
    # come before the wrong ways, so the first starts from the end state this episode left.
    planned = list(env.adversary("plan")) if adversary and solved["reward"] == 1.0 else []
    problems += play_mutations(env, options, where, planned, waived, tally)
    for name in info.get("wrong_ways", []) if wrong_ways else []:
        env.reset(options=options)
        wrong = env.wrong(name)
        if wrong["reward"] != 0.0:
            problems.append(f"{where}: the wrong way {name!r} scores {wrong['reward']}, not 0{_why(wrong)}")
    return problems


def _why(played: dict[str, Any]) -> str:
    """What the evaluator said (``Task.explain``) about an oracle's or a wrong way's end state."""
    why = played.get("why") or []  # an older server says nothing
    return f" ({'; '.join(why)})" if why else ""


def play_mutations(
    env: EnvClient,
    options: dict[str, Any],
    where: str,
    planned: list[str],
    waived: dict[str, str],
    tally: MutationTally,
) -> list[str]:
    """Each mutation in ``planned`` (from ``adversary.plan``, called on the oracle's episode just before)
    not ``waived``, then evaluate. The holes, one line each (also in ``tally``).

    A mutation of the oracle's end state starts from it: the first one from the episode ``plan`` saw;
    after a mutation of files only (``Mutation.on_files``), from the files put back by
    ``adversary.restore`` when the evaluator still gives them 1.0; otherwise from a fresh episode with the
    oracle played again, as every mutation that plays instead of the oracle does. Putting files back
    takes a second where playing a heavy app's oracle takes half a minute."""
    problems = []
    names = sorted((n for n in planned if n not in waived), key=lambda n: not MUTATIONS[n].on_files)
    at_end = True  # the episode holds the oracle's end state, or one that only files were changed in
    for index, name in enumerate(names):
        mutation = MUTATIONS[name]
        if not (mutation.after_oracle and at_end and _back_at_the_end(env, first=index == 0)):
            env.reset(options=options)
            env.adversary("begin")
            if mutation.after_oracle:
                env.solve()
        at_end = mutation.after_oracle and mutation.on_files
        done = env.adversary("mutate", name=name)
        if not done:
            continue
        tally.applied += 1
        try:
            reward = env.evaluate()
        except CuaError as exc:
            tally.unscored.append(f"{where}: after the mutation {name!r} ({'; '.join(done)}) evaluate raised: {exc}")
            continue
        if reward != 0.0:
            hole = f"{where}: the mutation {name!r} ({'; '.join(done)}) scores {reward}, not 0"
            tally.passing.append(hole)
            problems.append(hole)
    return problems


def _back_at_the_end(env: EnvClient, *, first: bool) -> bool:
    """Whether the episode holds the oracle's end state: as ``plan`` saw it (``first``), or with the files a
    mutation changed put back and the evaluator giving 1.0 again."""
    if first:
        return True
    try:
        return bool(env.adversary("restore")) and env.evaluate() == 1.0
    except CuaError:
        return False  # an older server, or one whose evaluator failed on the state put back: play it again
