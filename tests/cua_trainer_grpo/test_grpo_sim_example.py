"""examples/training/grpo_sim.py's baselines: a fixed click and a fixed script are played and scored for
real (so a best fixed policy's 0.00 is what the screen gives, not a silent zero), and the oracle's
demonstrations are decisions that do what the oracle did."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest
from support.scripts import load_script

from cua_bench import Observes, make
from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import evaluate
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Taken, Turn
from cua_bench_rl.workers import EnvWorkers
from cua_core.actions import Click, Done, TypeText, action_from_dict


def example() -> ModuleType:
    return load_script("examples/training/grpo_sim.py", "grpo_sim_example")


def test_a_fixed_click_on_the_named_button_scores_and_elsewhere_does_not() -> None:
    grpo_sim = example()
    ref, other = EpisodeSpec("sim/click-button", 0, "train"), EpisodeSpec("sim/click-button", 1, "train")
    with make("sim/click-button", observes="none") as env:
        env.reset(options={"variant": ref.variant, "split": ref.split})
        actions = [action_from_dict(a) for a in env.solve(steps=1)["steps"][0]["actions"]]
    point = next(a.coordinate for a in actions if isinstance(a, Click) and a.coordinate is not None)
    with EnvWorkers("sim", 1) as workers:
        assert evaluate(workers, grpo_sim.FixedClick(point.x, point.y), [ref])["success"] == 1.0
        assert evaluate(workers, grpo_sim.FixedClick(point.x, point.y), [other])["success"] == 0.0


def test_the_oracles_decisions_replayed_do_its_task_and_not_another_variants() -> None:
    """``oracle_demos`` turns the phone oracle's taps and system buttons into the a11y policy's options,
    ending in done: replayed by name (``FixedScript``) they score 1 on their own variant, and 0 on a
    variant that asks for another switch (so the best fixed script's figure is earned, not given)."""
    from cua_bench_rl.build import build_policy
    from cua_bench_rl.config import TrainConfig

    grpo_sim = example()
    config = TrainConfig.from_dict({**grpo_sim.FAMILIES["phone-settings"], "seed": 0})
    reader = build_policy(config)
    demos, cut = grpo_sim.oracle_demos(config, reader, 2)
    assert cut == 0 and len(demos) == 2
    scripts = [[grpo_sim._said(reader, taken) for taken in episode] for episode in demos]
    assert all(script[-1] == "done" and len(script) >= 3 for script in scripts)
    assert scripts[0] != scripts[1]  # variants 0 and 1 ask for different switches
    refs = config.episodes("train", 2)
    with EnvWorkers("sim", 1) as workers:
        assert evaluate(workers, grpo_sim.FixedScript(reader, scripts[0]), [refs[0]])["success"] == 1.0
        assert evaluate(workers, grpo_sim.FixedScript(reader, scripts[0]), [refs[1]])["success"] == 0.0


def test_baseline_flags_are_checked_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    grpo_sim = example()
    with pytest.raises(SystemExit) as stopped:
        grpo_sim.main(["--family", "pixel", "--bc", "-1"])
    assert stopped.value.code == 2 and "give the minutes of behaviour cloning" in capsys.readouterr().err


def test_unseen_names_makes_up_each_quoted_name_in_the_instruction_and_on_screen_alike() -> None:
    """``UnseenNames`` (how far a trained policy carries to names it never saw): the quoted name becomes
    made-up words in the instruction, in every node that shows it and in earlier turns, and nowhere
    else (not inside a longer word); what the policy types in it is mapped back to the real name."""
    grpo_sim = example()
    seen: list[Turn] = []

    class Typist(Policy):
        observes = Observes(screenshot="none", a11y="nodes")

        def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
            seen.extend(turns)
            quoted = [t.instruction.split('"')[1] for t in turns]
            return [Decision([TypeText(q), TypeText("other")], [0], [0.0]) for q in quoted]

        def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
            raise NotImplementedError

    def screen(*names: str) -> dict[str, Any]:
        nodes = [
            {"role": "listitem", "name": n, "bounds": [0, 100 * i, 100, 100 * i + 90]} for i, n in enumerate(names)
        ]
        return {"a11y": [{"role": "list", "name": "Notes", "children": nodes}], "instruction": 'Delete "Call back".'}

    spec = EpisodeSpec("phone/notes-delete", 0, "test")
    first = Turn("e", spec, 'Delete "Call back".', 0, screen("Call back", "Callback list"))
    earlier = Taken(first, Decision([Done()], [0], [0.0]))
    turn = Turn("e", spec, 'Delete "Call back".', 1, screen("Call back", "Call back later"), history=[earlier])
    unseen = grpo_sim.UnseenNames(Typist())
    (decision,) = unseen.act([turn])
    (renamed,) = seen
    made_up = renamed.instruction.split('"')[1]
    assert "Call back" not in renamed.instruction and len(made_up.split()) == 2
    rows = [n["name"] for n in renamed.observation["a11y"][0]["children"]]
    assert rows == [made_up, f"{made_up} later"]
    past = [n["name"] for n in renamed.history[0].turn.observation["a11y"][0]["children"]]
    assert past == [made_up, "Callback list"]
    assert [a.text for a in decision.actions] == ["Call back", "other"]
    assert unseen.renamed == 1
