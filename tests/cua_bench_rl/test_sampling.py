"""Task sampling weighted by difficulty (``cua_bench_rl.sampling``): the weights by hand, and the draws."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cua_bench_rl.config import TrainConfig
from cua_bench_rl.rollouts import Episode, Group, TaskRef
from cua_bench_rl.sampling import DifficultySampler
from cua_core.errors import CuaError

EASY, HARD = "sim/click-button", "sim/login"


def played(task: str, rewards: list[float]) -> Group:
    ref = TaskRef(task, 0, "train")
    return Group(ref, [Episode(f"e{i}", ref, "do it", [], reward=r) for i, r in enumerate(rewards)])


def test_weights_are_the_variance_of_each_tasks_smoothed_success() -> None:
    sampler = DifficultySampler([TaskRef(EASY, v, "train") for v in range(3)] + [TaskRef(HARD, 0, "train")])
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
    refs = [TaskRef(EASY, v, "train") for v in range(3)] + [TaskRef(HARD, 0, "train")]
    sampler = DifficultySampler(refs)
    sampler.record(played(EASY, [1.0] * 8 + [0.0, 0.0]))  # .1875
    sampler.record(played(HARD, [0.0] * 10))  # .076389: EASY is drawn .1875 / .263889 = 71% of the time
    rng = random.Random(0)
    draws = Counter(sampler(rng) for _ in range(4000))
    easy = sum(n for ref, n in draws.items() if ref.name == EASY)
    assert easy / 4000 == pytest.approx(0.1875 / (0.1875 + 11 / 144), abs=0.03)
    assert {ref.variant for ref in draws if ref.name == EASY} == {0, 1, 2}


def test_the_setting_is_checked() -> None:
    with pytest.raises(CuaError, match="task_sampling must be one of uniform, difficulty"):
        TrainConfig(env="sim:click-button", task_sampling="hardest")
    with pytest.raises(ValueError, match="floor"):
        DifficultySampler([TaskRef(EASY)], floor=0.5)
