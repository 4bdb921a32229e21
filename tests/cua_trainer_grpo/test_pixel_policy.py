"""The pixel policy on real sim screens: its match map, its untrained (random) clicks, its decisions
and their log-probs, and that GRPO through the real env workers, dataloader and trainer teaches it to
click the named button on variants it never trained on."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import torch
from support.rl_training import grpo_steps
from support.sim_turns import SimTurns

from cua_bench_rl.loader import evaluate
from cua_bench_rl.registry import policies
from cua_bench_rl.rollouts import Decision, Taken, TaskRef
from cua_bench_rl.trainer import TrainerConfig
from cua_bench_rl.workers import EnvWorkers
from cua_core.actions import Click, Done
from cua_trainer_grpo.policies.pixel import STRIDE, PixelClickPolicy, instruction_words, match_map, render_words
from cua_trainer_grpo.trainer import GRPOTrainer

CLICK = "sim/click-button"


@pytest.fixture
def buttons() -> Iterator[SimTurns]:
    turns = SimTurns(CLICK)
    yield turns
    turns.close()


def target_cells(sim: SimTurns, label: str, rows: int, cols: int) -> set[int]:
    """Grid cells whose centre lies inside the button called ``label`` (from the task's own tree)."""

    def walk(nodes: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for node in nodes:
            yield node
            yield from walk(node["children"])

    found = [
        n for n in walk(sim._run(sim.session.accessibility_tree())) if n["role"] == "button" and n["name"] == label
    ]
    assert len(found) == 1, f"one button {label!r} expected, got {found}"
    left, top, right, bottom = found[0]["bounds"]  # in the unified [0, 1000] space, as clicks are
    return {
        r * cols + c
        for r in range(rows)
        for c in range(cols)
        if left <= (c + 0.5) / cols * 1000 < right and top <= (r + 0.5) / rows * 1000 < bottom
    }


def test_the_match_map_peaks_on_the_named_button(buttons: SimTurns) -> None:
    """The fixed feature: on 12 held-out screens, the best-matching cell is inside the named button
    on at least 11 (it is what the policy learns to trust; the gain and head start at zero)."""
    policy = PixelClickPolicy()
    hits = 0
    for variant in range(12):
        turn = buttons.turn("test", variant, policy.observes)
        shot = torch.tensor(turn.observation["screenshot"], dtype=torch.float32)
        grey = (shot * torch.tensor([0.299, 0.587, 0.114])).sum(dim=2)
        match = match_map(grey, render_words(instruction_words(turn.instruction), 0.5))
        assert match.shape == grey.shape and float(match.abs().max()) <= 1.0 + 1e-4
        cells = torch.nn.functional.max_pool2d(match[None, None], STRIDE, ceil_mode=True)[0, 0]
        rows, cols = cells.shape
        hits += int(cells.flatten().argmax()) in target_cells(buttons, instruction_words(turn.instruction), rows, cols)
    assert hits >= 11, f"the match map's best cell is on the named button on {hits} of 12 screens"


def test_untrained_it_clicks_uniformly_and_then_stops(buttons: SimTurns) -> None:
    policy = PixelClickPolicy(seed=1)
    turn = buttons.turn("train", 0, policy.observes)
    assert turn.observation["screenshot"].shape == (400, 640, 3)  # the view the policy asked for
    decisions = policy.act([turn] * 64)
    cells = 50 * 80
    for decision in decisions:
        assert isinstance(decision.actions[0], Click) and isinstance(decision.actions[1], Done)
        assert decision.logprobs[0] == pytest.approx(-torch.log(torch.tensor(float(cells))).item(), abs=1e-4)
    assert len({d.tokens[0] for d in decisions}) > 50  # 64 uniform draws over 4000 cells barely repeat


def test_decisions_hold_one_cell_whose_logprob_the_policy_recomputes_with_grad(buttons: SimTurns) -> None:
    policy = PixelClickPolicy(seed=2)
    with torch.no_grad():
        policy.gain.fill_(0.01)  # past the uniform start: log-probs differ by cell
        policy.head.bias.fill_(0.3)
    turns = [buttons.turn("train", v, policy.observes) for v in range(3)] * 2
    decisions = policy.act(turns)
    taken = [Taken(t, d) for t, d in zip(turns, decisions, strict=True)]
    scores, entropies = policy.logprobs_and_entropy(taken)
    assert all(s.shape == (1,) and s.requires_grad for s in scores)
    assert torch.allclose(torch.cat(scores).detach(), torch.tensor([d.logprobs[0] for d in decisions]), atol=1e-5)
    assert all(0 < float(e.detach()) <= torch.log(torch.tensor(4000.0)) + 1e-4 for e in entropies)
    torch.cat(scores).sum().backward()
    assert policy.gain.grad is not None and float(policy.gain.grad.abs()) > 0
    assert policy.head.weight.grad is not None and float(policy.head.weight.grad.abs().sum()) > 0
    for decision in decisions:  # the click is the cell's centre, in the unified [0, 1000] space
        cell, point = decision.tokens[0], decision.actions[0].coordinate  # type: ignore[attr-defined]
        assert point.x == pytest.approx((cell % 80 + 0.5) / 80 * 1000)
        assert point.y == pytest.approx((cell // 80 + 0.5) / 50 * 1000)


def test_wrong_inputs_are_refused_with_the_fix(buttons: SimTurns) -> None:
    policy = PixelClickPolicy()
    turn = buttons.turn("train", 0, policy.observes)
    with pytest.raises(ValueError, match="played by another policy"):
        policy.logprobs([Taken(turn, Decision([Done()], [4000], [0.0]))])
    with pytest.raises(ValueError, match="at least 8x8"):
        PixelClickPolicy(width=4)
    with pytest.raises(ValueError, match="three positive sizes"):
        PixelClickPolicy(channels=(8, 16))
    flat = replace(turn, observation={**turn.observation, "screenshot": turn.observation["screenshot"][:, :, 0]})
    with pytest.raises(ValueError, match="HxWx3 RGB"):
        policy.act([flat])


def test_registered_as_pixel_click() -> None:
    policy = policies()["pixel-click"](width=320, height=200)
    assert isinstance(policy, PixelClickPolicy) and policy.observes.max_size == (320, 200)


@pytest.mark.slow
@pytest.mark.timeout(600)  # 76 s alone; 300 s beside the Docker image build and other training on two cores
def test_grpo_teaches_it_to_click_the_named_button() -> None:
    """A CI-sized learning run on a fixed seed: 8 groups of 12 a step on train variants; after 15 steps
    the policy, sampling as it is trained, clicks the named button on most held-out variants, where
    the untrained one (the random agent) almost never does."""
    torch.manual_seed(0)
    policy = PixelClickPolicy(seed=0)
    trainer = GRPOTrainer(policy, TrainerConfig(lr=3e-3, entropy_coef=0.01, micro_batch=256))
    train = [TaskRef(CLICK, v, "train") for v in range(64)]
    held_out = [TaskRef(CLICK, v, "test") for v in range(40)]
    with EnvWorkers("sim", 4) as workers:
        before = evaluate(workers, policy, held_out, greedy=False)["success"]
        steps = grpo_steps(workers, policy, trainer, train, steps=15, group_size=12, groups_per_step=8)
        after = evaluate(workers, policy, held_out, greedy=False)["success"]
    assert before <= 0.1
    assert after >= 0.6, f"held-out success (sampling) {before:.2f} -> {after:.2f} after {steps} steps"
