"""The pixel policy on real sim screens: its correlation, its reading of the instruction, its untrained
(random) clicks, its decisions and their log-probs, and that GRPO through the real env workers,
dataloader and trainer teaches it, from pixels and the reward alone, to click buttons on variants
it never trained on."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
import torch
from support.rl_training import grpo_steps
from support.sim_turns import SimTurns

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import evaluate
from cua_bench_rl.registry import policies
from cua_bench_rl.rollouts import Decision, Taken
from cua_bench_rl.workers import EnvWorkers
from cua_core.actions import Click, Done, Point, Tap
from cua_trainer_grpo import GRPOConfig
from cua_trainer_grpo.policies.pixel import PixelClickPolicy, correlate, fast_length, instruction_words
from cua_trainer_grpo.trainer import GRPOTrainer

CLICK = "sim/click-button"


@pytest.fixture
def buttons() -> Iterator[SimTurns]:
    turns = SimTurns(CLICK)
    yield turns
    turns.close()


def test_correlate_is_a_per_screen_convolution() -> None:
    """The FFT correlation gives what a grouped convolution with each screen's own filter gives, each
    value where the filter's centre sits, zero-padded at the edges (odd and even filter sizes)."""
    torch.manual_seed(0)
    for h, w in ((4, 20), (3, 5)):
        features, filters = torch.randn(3, 5, 17, 29), torch.randn(3, 5, h, w)
        padded = torch.nn.functional.pad(features, (w // 2, w - 1 - w // 2, h // 2, h - 1 - h // 2))
        direct = torch.nn.functional.conv2d(padded.reshape(1, 15, *padded.shape[2:]), filters, groups=3)[0]
        assert torch.allclose(correlate(features, filters), direct, atol=1e-4)
    # The transforms run at lengths with no prime factor above 5 (17 + 4 = 21 -> 24, 29 + 20 = 49 -> 50).
    assert [fast_length(n) for n in (1, 7, 21, 49, 103, 174)] == [1, 8, 24, 50, 108, 180]


def test_it_reads_the_instruction_as_lowercase_words() -> None:
    assert instruction_words('Click the "Save As" button.') == ["click", "the", "save", "as", "button"]
    assert instruction_words("") == []


def test_its_words_are_its_only_view_of_the_instruction(buttons: SimTurns) -> None:
    """Two instructions with the same words score alike; another word scores otherwise."""
    policy = PixelClickPolicy(seed=3)
    torch.nn.init.normal_(policy.words.weight, std=0.1)
    shot = torch.from_numpy(buttons.turn("train", 0, policy.observes).observation["screenshot"].copy())[None]
    with torch.no_grad():
        same = policy.scores(shot.repeat(2, 1, 1, 1), ['Click the "Save" button.', "click THE save, button"])
        other = policy.scores(shot, ['Click the "Open" button.'])
    assert torch.allclose(same[0], same[1]) and not torch.allclose(same[0], other[0])


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
    torch.nn.init.normal_(policy.words.weight, std=0.05)  # past the uniform start: log-probs differ by cell
    turns = [buttons.turn("train", v, policy.observes) for v in range(3)] * 2
    decisions = policy.act(turns)
    taken = [Taken(t, d) for t, d in zip(turns, decisions, strict=True)]
    scores, entropies = policy.logprobs_and_entropy(taken)
    assert all(s.shape == (1,) and s.requires_grad for s in scores)
    assert torch.allclose(torch.cat(scores).detach(), torch.tensor([d.logprobs[0] for d in decisions]), atol=1e-5)
    assert all(0 < float(e.detach()) <= torch.log(torch.tensor(4000.0)) + 1e-4 for e in entropies)
    torch.cat(scores).sum().backward()
    assert policy.words.weight.grad is not None and float(policy.words.weight.grad.abs().sum()) > 0
    first = policy.features[0].weight.grad  # the screen's features learn too
    assert first is not None and float(first.abs().sum()) > 0
    for decision in decisions:  # the click is the cell's centre, in the unified [0, 1000] space
        cell, point = decision.tokens[0], decision.actions[0].coordinate  # type: ignore[attr-defined]
        assert point.x == pytest.approx((cell % 80 + 0.5) / 80 * 1000)
        assert point.y == pytest.approx((cell // 80 + 0.5) / 50 * 1000)


def test_a_click_maps_back_to_the_cell_it_was_played_from(buttons: SimTurns) -> None:
    """``token_for`` (how a demonstration's click becomes a decision) inverts ``act``'s cell -> point,
    clamps a click on the screen's edge into the grid, and has no token for a step without a click."""
    policy = PixelClickPolicy(seed=4)
    turn = buttons.turn("train", 1, policy.observes)
    for decision in policy.act([turn] * 32):
        assert policy.token_for(turn, decision.actions) == decision.tokens[0]
    assert policy.token_for(turn, [Click(Point(1000, 1000))]) == 50 * 80 - 1
    assert policy.token_for(turn, [Tap(Point(0, 0))]) == 0
    assert policy.token_for(turn, [Done()]) is None


def test_wrong_inputs_are_refused_with_the_fix(buttons: SimTurns) -> None:
    policy = PixelClickPolicy()
    turn = buttons.turn("train", 0, policy.observes)
    with pytest.raises(ValueError, match="played by another policy"):
        policy.logprobs([Taken(turn, Decision([Done()], [4000], [0.0]))])
    with pytest.raises(ValueError, match="at least 8x8"):
        PixelClickPolicy(width=4)
    with pytest.raises(ValueError, match="two positive sizes"):
        PixelClickPolicy(channels=(8, 16, 16))
    with pytest.raises(ValueError, match="filter_size must be two positive sizes"):
        PixelClickPolicy(filter_size=(0, 4))
    with pytest.raises(ValueError, match="buckets must be positive"):
        PixelClickPolicy(buckets=0)
    flat = replace(turn, observation={**turn.observation, "screenshot": turn.observation["screenshot"][:, :, 0]})
    with pytest.raises(ValueError, match="HxWx3 RGB"):
        policy.act([flat])


def test_registered_as_pixel_click() -> None:
    policy = policies()["pixel-click"](width=320, height=200)
    assert isinstance(policy, PixelClickPolicy) and policy.observes.max_size == (320, 200)


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~3 minutes alone; several times that beside the rest of the suite on two cores
def test_grpo_teaches_it_to_click_the_named_button() -> None:
    """A CI-sized learning run on a fixed seed, from pixels and the 0/1 reward alone: 8 groups of 16 a
    step on train variants; after 30 steps the policy, greedy, clicks the named button on a share of
    held-out variants that the untrained one (the random agent: a button is ~0.5% of the screen)
    practically never reaches (0.22 measured; the bound leaves room for the loader's timing). The full
    run is examples/training/grpo_sim.py (bench/rl.py)."""
    torch.manual_seed(0)
    policy = PixelClickPolicy(seed=0)
    trainer = GRPOTrainer(policy, GRPOConfig(lr=2e-3, entropy_coef=0.01, micro_batch=256))
    train = [EpisodeSpec(CLICK, v, "train") for v in range(200)]
    held_out = [EpisodeSpec(CLICK, v, "test") for v in range(50)]
    with EnvWorkers("sim", 4) as workers:
        before = evaluate(workers, policy, held_out, greedy=False)["success"]
        steps = grpo_steps(workers, policy, trainer, train, steps=30, group_size=16, groups_per_step=8)
        after = evaluate(workers, policy, held_out)["success"]
    assert before <= 0.04
    assert after >= 0.1, f"held-out success {before:.2f} (random) -> {after:.2f} (greedy) after {steps} steps"
