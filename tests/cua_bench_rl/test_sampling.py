"""Task sampling weighted by difficulty (``cua_bench_rl.sampling``): the weights by hand, and the draws."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.config import TrainConfig
from cua_bench_rl.rollouts import Group, Rollout
from cua_bench_rl.sampling import DifficultySampler
from cua_core.errors import CuaError

EASY, HARD = "sim/click-button", "sim/login"


def played(task: str, rewards: list[float], variant: int = 0) -> Group:
    ref = EpisodeSpec(task, variant, "train")
    return Group(ref, [Rollout(f"e{i}", ref, "do it", [], reward=r) for i, r in enumerate(rewards)])


def test_weights_are_the_variance_of_each_tasks_smoothed_success() -> None:
    sampler = DifficultySampler([EpisodeSpec(EASY, v, "train") for v in range(3)] + [EpisodeSpec(HARD, 0, "train")])
    assert sampler.weights() == {EASY: 0.25, HARD: 0.25}  # unplayed: p = 1/2
    sampler.record(played(EASY, [1.0] * 8 + [0.0, 0.0]))  # p = 9/12 = .75: .1875
    sampler.record(played(HARD, [0.0] * 10))  # p = 1/12: 11/144 = .076389
    assert sampler.weights() == pytest.approx({EASY: 0.1875, HARD: 11 / 144})
    for _ in range(3):
        sampler.record(played(HARD, [0.0] * 10))  # p = 1/42: 41/1764 = .0232
    assert sampler.weights()[HARD] == pytest.approx(41 / 1764)
    sampler.record(played(HARD, [0.0] * 100))  # p = 1/142: below the floor, which keeps it in play
    assert sampler.weights()[HARD] == 0.02


def test_draws_follow_the_weights_and_spread_over_variants() -> None:
    refs = [EpisodeSpec(EASY, v, "train") for v in range(3)] + [EpisodeSpec(HARD, 0, "train")]
    sampler = DifficultySampler(refs)
    sampler.record(played(EASY, [1.0] * 8 + [0.0, 0.0]))  # .1875
    sampler.record(played(HARD, [0.0] * 10))  # .076389: EASY is drawn .1875 / .263889 = 71% of the time
    rng = random.Random(0)
    draws = Counter(sampler(rng) for _ in range(4000))
    easy = sum(n for ref, n in draws.items() if ref.task == EASY)
    assert easy / 4000 == pytest.approx(0.1875 / (0.1875 + 11 / 144), abs=0.03)
    assert {ref.variant for ref in draws if ref.task == EASY} == {0, 1, 2}


def test_per_variant_each_variant_has_its_weight_from_its_last_groups() -> None:
    refs = [EpisodeSpec(EASY, v, "train") for v in range(3)]
    sampler = DifficultySampler(refs, per="variant", window=2)
    keys = [ref.key for ref in refs]
    assert sampler.weights() == dict.fromkeys(keys, 0.25)
    sampler.record(played(EASY, [0.0] * 16, variant=0))  # p = 1/18: 17/324 = .052469
    sampler.record(played(EASY, [1.0] * 4 + [0.0] * 12, variant=1))  # p = 5/18: 65/324 = .200617
    assert sampler.weights() == pytest.approx({keys[0]: 17 / 324, keys[1]: 65 / 324, keys[2]: 0.25})
    sampler.record(played(EASY, [1.0] * 16, variant=0))  # the window: 0/16 and 16/16, p = 17/34: .25
    assert sampler.weights()[keys[0]] == pytest.approx(0.25)
    sampler.record(played(EASY, [1.0] * 16, variant=0))  # the first group is forgotten: 32/32, p = 33/34
    assert sampler.weights()[keys[0]] == pytest.approx(max(0.02, 33 / 34 * 1 / 34))  # .028547
    sampler.record(played(EASY, [1.0] * 16, variant=0))  # 32/32 again: mastered stays at the same weight
    assert sampler.weights()[keys[0]] == pytest.approx(33 / 1156)
    rng = random.Random(0)
    draws = Counter(sampler(rng) for _ in range(6000))  # weights .028547, .200617, .25
    assert draws[refs[0]] / 6000 == pytest.approx((33 / 1156) / (33 / 1156 + 65 / 324 + 0.25), abs=0.02)
    assert draws[refs[2]] / 6000 == pytest.approx(0.25 / (33 / 1156 + 65 / 324 + 0.25), abs=0.03)


def test_without_a_window_per_variant_keeps_every_group() -> None:
    sampler = DifficultySampler([EpisodeSpec(EASY, 0, "train")], per="variant")
    for _ in range(3):
        sampler.record(played(EASY, [0.0] * 16))
    sampler.record(played(EASY, [1.0] * 16))  # 16/64: p = 17/66
    assert sampler.weights() == pytest.approx({EpisodeSpec(EASY, 0, "train").key: 17 / 66 * 49 / 66})


def test_the_setting_is_checked() -> None:
    with pytest.raises(CuaError, match="task_sampling must be one of uniform, difficulty, variant-difficulty"):
        TrainConfig(env="sim:click-button", task_sampling="hardest")
    with pytest.raises(ValueError, match="floor"):
        DifficultySampler([EpisodeSpec(EASY)], floor=0.5)
    with pytest.raises(ValueError, match="per must be 'task' or 'variant'"):
        DifficultySampler([EpisodeSpec(EASY)], per="split")
    with pytest.raises(ValueError, match="window must be at least 1"):
        DifficultySampler([EpisodeSpec(EASY)], per="variant", window=0)
