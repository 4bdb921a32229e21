"""The start-state curriculum: annealed to the true start, one k per group, weighted toward unsolved levels."""

from __future__ import annotations

import collections

import pytest
from support.rl_episodes import episode

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.curriculum import Curriculum
from cua_bench_rl.rollouts import Group

TASK = EpisodeSpec("sim/login", 0, "train")


def solved_group(level: int, solved: int, size: int = 4) -> Group:
    episodes = [episode(f"e{level}-{i}", task=TASK, reward=float(i < solved)) for i in range(size)]
    for e in episodes:
        e.started_after = level
    return Group(TASK, episodes)


def test_the_bound_anneals_linearly_to_the_true_start() -> None:
    step = [0]
    curriculum = Curriculum(4, 100, lambda: step[0])
    seen = []
    for at in (0, 30, 60, 90, 100, 500):
        step[0] = at
        seen.append(curriculum.most())
        assert all(curriculum(TASK) <= curriculum.most() for _ in range(50))
    assert seen == [4, 3, 2, 0, 0, 0]
    assert {curriculum(TASK) for _ in range(20)} == {0}  # past the end: every group starts at the start


def test_levels_already_solved_are_drawn_rarely() -> None:
    curriculum = Curriculum(3, 1000, lambda: 0, seed=1)
    for _ in range(30):  # levels 2 and 3 mastered, 0 and 1 not
        curriculum.record(solved_group(3, 4))
        curriculum.record(solved_group(2, 4))
        curriculum.record(solved_group(1, 0))
        curriculum.record(solved_group(0, 0))
    assert curriculum.success[3] == pytest.approx(1.0) and curriculum.success[0] == pytest.approx(0.0)
    drawn = collections.Counter(curriculum(TASK) for _ in range(2000))
    assert drawn[0] > 700 and drawn[1] > 700  # weight 1.05 each
    assert drawn[2] < 100 and drawn[3] < 100  # weight 0.05 each: still drawn, a policy can unlearn


def test_success_is_a_moving_average_per_level() -> None:
    curriculum = Curriculum(2, 10, lambda: 0)
    curriculum.record(solved_group(1, 2))  # first group: its own success
    assert curriculum.success == {1: 0.5}
    curriculum.record(solved_group(1, 4))
    assert curriculum.success[1] == pytest.approx(0.8 * 0.5 + 0.2 * 1.0)
    curriculum.record(Group(TASK, []))  # an empty group counts for nothing
    assert set(curriculum.success) == {1}


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="start and steps must be >= 0"):
        Curriculum(-1, 10, lambda: 0)
