"""The multi-turn dataloader on real sim env servers, with small scripted policies (no torch)."""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.bench_tasks import make_taskset

from cua_bench import Observes
from cua_bench.nodes import center, find
from cua_bench.spec import EpisodeSpec
from cua_bench_rl import events as rl_events
from cua_bench_rl.loader import RolloutError, RolloutLoader, evaluate
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Group, Taken, Turn
from cua_bench_rl.workers import EnvWorkers
from cua_core.actions import Action, Click, Done, Fail, Point

BUTTON = "sim/click-button"


class Scripted(Policy):
    """Answers each turn with ``script(turn)``; ``delay`` seconds per batch stands in for a forward pass."""

    def __init__(self, script: Callable[[Turn], list[Action]], *, observes: Observes | None = None, delay: float = 0):
        self.script = script
        self.observes = observes or Observes("none")
        self.delay = delay
        self.batches: list[int] = []
        self.greedy: list[bool] = []

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        self.batches.append(len(turns))
        self.greedy.append(greedy)
        time.sleep(self.delay)
        return [Decision(self.script(t), [t.step], [-0.5]) for t in turns]

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        raise NotImplementedError("rollout tests never train")


def press_the_named_button(turn: Turn) -> list[Action]:
    """Reads the a11y tree, clicks the button the instruction names, then says done."""
    if turn.step > 0:
        return [Done()]
    name = re.search(r'"(.+?)"', turn.instruction).group(1)  # type: ignore[union-attr]
    return [Click(center(find(turn.observation["a11y"], role="button", name=name)))]


def solver() -> Scripted:
    return Scripted(press_the_named_button, observes=Observes("none", a11y="nodes"))


@pytest.fixture(scope="module")
def workers() -> Iterator[EnvWorkers]:
    with EnvWorkers("sim", 3, width=640, height=400) as pool:
        yield pool


def _run(
    loader: RolloutLoader, policy: Policy, groups: int, *, on_batch: Callable[[int], None] | None = None
) -> list[Group]:
    """Answer turns (version = batch number) until ``groups`` groups are out."""
    found: list[Group] = []
    with loader:
        for number, batch in enumerate(loader.batches(max_batch=8), 1):
            batch.respond(policy.act(batch.turns), version=number)
            if on_batch is not None:
                on_batch(number)
            found += loader.pop_groups()
            if len(found) >= groups:
                break
    return found


def test_groups_are_complete_same_task_and_stamped(workers: EnvWorkers) -> None:
    policy = solver()
    tasks = [EpisodeSpec(BUTTON, 0, "train"), EpisodeSpec(BUTTON, 1, "train")]
    loader = RolloutLoader(workers, tasks, group_size=4, observes=policy.observes, seed=3)
    groups = _run(loader, policy, 3)
    assert len(groups) >= 3
    ids = [e.id for g in groups for e in g.episodes]
    assert len(ids) == len(set(ids))
    for group in groups:
        assert group.task in tasks and len(group.episodes) == 4
        for episode in group.episodes:
            assert episode.task == group.task
            assert (episode.status, episode.reward, len(episode.turns)) == ("completed", 1.0, 2)
            assert episode.instruction.startswith("Click the")
            versions = episode.versions
            assert versions[0] >= 1 and versions[1] > versions[0]  # one batch answered each turn
            for step, taken in enumerate(episode.turns):
                assert taken.turn.step == step and taken.turn.episode == episode.id
                assert taken.turn.history == episode.turns[:step]  # earlier turns, as played
                assert taken.turn.max_steps == 5 and "a11y" in taken.turn.observation
                assert "screenshot" not in taken.turn.observation  # it observes no pixels
            assert episode.turns[-1].reward == 1.0 and episode.seconds > 0
    stats = loader.stats
    assert stats["groups"] >= 3 and stats["episodes"] >= 12 and stats["env_steps"] >= 24
    assert stats["env_steps_per_s"] > 0
    assert (stats["retried"], stats["dropped"], stats["replaced"], stats["groups_dropped"]) == (0, 0, 0, 0)


def test_episodes_end_on_done_fail_and_the_step_limit(workers: EnvWorkers) -> None:
    def by_variant(turn: Turn) -> list[Action]:
        if turn.task.variant == 0:
            return [Fail("cannot")]
        if turn.task.variant == 1:
            return [Click(Point(2, 2))]  # never done: runs into the step limit
        return press_the_named_button(turn)

    policy = Scripted(by_variant, observes=Observes("rgb", a11y="nodes"))
    tasks = [EpisodeSpec(BUTTON, v) for v in range(3)]
    loader = RolloutLoader(workers, tasks, group_size=2, observes=policy.observes, max_steps=3, seed=0)
    seen: dict[int, Group] = {}
    with loader:
        for batch in loader.batches():
            batch.respond(policy.act(batch.turns))
            for group in loader.pop_groups():
                seen.setdefault(group.task.variant, group)
            if len(seen) == 3:
                break
    outcomes = {v: {(e.status, e.reward, len(e.turns)) for e in g.episodes} for v, g in seen.items()}
    assert outcomes == {
        0: {("completed", 0.0, 1)},
        1: {("truncated", 0.0, 3)},
        2: {("completed", 1.0, 2)},
    }
    first = seen[1].episodes[0].turns[0].turn
    assert first.max_steps == 3 and first.observation["screenshot"].shape == (400, 640, 3)
    assert seen[1].episodes[0].turns[1].turn.observation["errors"] == []


def test_envs_keep_busy_while_the_policy_thinks(workers: EnvWorkers) -> None:
    policy = Scripted(lambda t: [Click(Point(500, 500))], delay=0.25)
    loader = RolloutLoader(workers, [EpisodeSpec(BUTTON, 0)], group_size=2, observes=policy.observes, max_steps=4)
    with loader:
        for number, batch in enumerate(loader.batches(max_batch=8), 1):
            batch.respond(policy.act(batch.turns), version=number)
            if number == 6:
                break
    # The three environments step at once after each answer and wait together for the next: one
    # loader driving them one at a time would only ever hand over batches of one. (How fast: bench/rl.py;
    # how many wait together in a batch depends on the load, so only "more than one" is checked.)
    assert max(policy.batches) >= 2 and len(policy.batches) == 6


@pytest.mark.parametrize("retries", [1, 0])
def test_a_worker_killed_with_9_is_replaced_and_rollouts_go_on(retries: int, caplog: pytest.LogCaptureFixture) -> None:
    policy = Scripted(lambda t: [Click(Point(500, 500))])
    replaced: list[int] = []
    with EnvWorkers("sim", 3, width=320, height=200, on_replaced=lambda i, _: replaced.append(i)) as pool:
        victim = pool[0].computer.handle
        loader = RolloutLoader(
            pool, [EpisodeSpec(BUTTON, 0), EpisodeSpec(BUTTON, 1)], group_size=3, observes=policy.observes,
            max_steps=4, episode_retries=retries, heartbeat_timeout=5.0,
        )  # fmt: skip

        groups: list[Group] = []
        after = 0  # groups completed since the replacement
        with caplog.at_level(logging.WARNING), loader:
            for number, batch in enumerate(loader.batches(max_batch=8), 1):
                batch.respond(policy.act(batch.turns), version=number)
                if number == 3:
                    os.kill(victim.pid, signal.SIGKILL)
                popped = loader.pop_groups()
                groups += popped
                after += len(popped) if loader.stats["replaced"] else 0
                if after >= 3:
                    break
        stats = loader.stats
        assert victim.poll() is not None and pool[0].computer.handle is not victim
        assert pool.replaced == 1 and replaced == [0] and stats["replaced"] == 1
    if retries:
        assert (stats["retried"], stats["dropped"], stats["groups_dropped"]) == (1, 0, 0)
        assert "retried from reset" in caplog.text
    else:
        assert (stats["retried"], stats["dropped"], stats["groups_dropped"]) == (0, 1, 1)
        assert "dropped after 1 attempts" in caplog.text
    assert "env worker 0 died during an episode" in caplog.text
    assert after >= 3  # rollouts went on
    for group in groups:  # a retried episode's turns were discarded, never half-kept
        assert len(group.episodes) == 3
        for episode in group.episodes:
            assert episode.status == "truncated" and [t.turn.step for t in episode.turns] == [0, 1, 2, 3]


def test_a_task_that_asks_for_a_new_computer_gets_one_after_each_episode(tmp_path: Path) -> None:
    """OSWorld's tasks given root leave state reset cannot undo: the loader replaces the worker's
    computer after each of their episodes (a group's next episode must not start from another's work)."""
    tasks = make_taskset(tmp_path / "ts", {"renew": ("renew", 1)})
    policy = Scripted(lambda t: [Done()])
    with EnvWorkers("sim", 1, width=320, height=200) as pool:
        first = pool[0].computer.handle
        loader = RolloutLoader(pool, [EpisodeSpec(str(tasks / "renew"), 0)], group_size=3, observes=policy.observes)
        with loader:
            for number, batch in enumerate(loader.batches(max_batch=8), 1):
                batch.respond(policy.act(batch.turns), version=number)
                if loader.stats["episodes"] >= 3:
                    break
        assert pool.replaced >= 3 and pool[0].computer.handle is not first


def test_a_bad_task_name_is_raised_with_its_message(workers: EnvWorkers) -> None:
    policy = Scripted(lambda t: [Done()])
    loader = RolloutLoader(workers, [EpisodeSpec("sim/clik-button")], group_size=2, observes=policy.observes)
    with loader, pytest.raises(RolloutError, match=r"sim/clik-button/default/0 .*did you mean sim/click-button"):
        _run(loader, policy, 1)


def test_a_curriculum_starts_episodes_past_the_oracles_first_steps(workers: EnvWorkers) -> None:
    policy = Scripted(lambda t: [Done()], observes=Observes("none", a11y="nodes"))
    prefix = {0: 2, 1: 50}  # variant 1: the whole oracle, so the policy's Done scores
    tasks = [EpisodeSpec("sim/login", 0), EpisodeSpec("sim/login", 1)]
    loader = RolloutLoader(
        workers, tasks, group_size=2, observes=policy.observes, curriculum=lambda t: prefix[t.variant]
    )
    seen: dict[int, Group] = {}
    with loader:
        for batch in loader.batches():
            batch.respond(policy.act(batch.turns))
            for group in loader.pop_groups():
                seen.setdefault(group.task.variant, group)
            if len(seen) == 2:
                break
    partial, whole = seen[0].episodes[0], seen[1].episodes[0]
    assert partial.started_after == 2 and partial.turns[0].turn.observation["step"] == 2
    assert partial.reward == 0.0
    assert whole.started_after > 2 and whole.turns[0].turn.observation["step"] == whole.started_after
    assert whole.reward == 1.0 and len(whole.turns) == 1


def test_a_curriculum_gives_every_episode_of_a_group_the_same_start(workers: EnvWorkers) -> None:
    """GRPO compares a group's episodes with each other: one that got more oracle steps than its
    siblings would earn its actions an advantage for the head start (a bug found by training)."""
    policy = Scripted(lambda t: [Done()], observes=Observes("none", a11y="nodes"))
    draws = iter([0, 3, 1, 2, 0, 3, 1, 2] * 8)
    loader = RolloutLoader(
        workers, [EpisodeSpec("sim/login", v) for v in range(4)], group_size=4, observes=policy.observes,
        curriculum=lambda _t: next(draws),
    )  # fmt: skip
    groups: list[Group] = []
    with loader:
        for batch in loader.batches():
            batch.respond(policy.act(batch.turns))
            groups += loader.pop_groups()
            if len(groups) >= 3:
                break
    starts = [{e.started_after for e in g.episodes} for g in groups]
    assert all(len(s) == 1 for s in starts), f"episodes of one group started after different prefixes: {starts}"
    assert len(set().union(*starts)) > 1  # and the groups themselves did differ


def test_evaluate_plays_each_task_once(workers: EnvWorkers) -> None:
    refs = [EpisodeSpec(BUTTON, v) for v in range(4)]
    policy = solver()
    assert evaluate(workers, policy, refs) == {"success": 1.0, "reward": 1.0, "episodes": 4.0, "dropped": 0.0}
    assert set(policy.greedy) == {True}
    quitter = Scripted(lambda t: [Fail()])
    figures = evaluate(workers, quitter, refs[:3], greedy=False)
    assert (figures["success"], figures["episodes"]) == (0.0, 3.0) and set(quitter.greedy) == {False}
    stopper = Scripted(lambda t: [Done()])  # from after the whole oracle, stopping at once is success
    assert evaluate(workers, stopper, refs[:2])["success"] == 0.0
    assert evaluate(workers, stopper, refs[:2], curriculum=lambda _t: 50)["success"] == 1.0


def test_each_episode_after_a_computers_first_starts_from_a_restored_computer() -> None:
    from cua_bench.backends.base import Computer
    from cua_bench.backends.sim import SimBackend

    class RestoringSim(SimBackend):
        def __init__(self) -> None:
            self.restored: list[Computer] = []

        def restore(self, computer: Computer) -> None:
            self.restored.append(computer)

    backend = RestoringSim()
    with EnvWorkers(backend, 1, width=320, height=200) as pool:
        assert evaluate(pool, solver(), [EpisodeSpec(BUTTON, v) for v in range(3)])["episodes"] == 3.0
        assert backend.restored == [pool[0].computer] * 2 and pool.replaced == 0


def test_misuse_is_refused_clearly(workers: EnvWorkers) -> None:
    policy = Scripted(lambda t: [Done()])
    with pytest.raises(ValueError, match="at least one EpisodeSpec"):
        RolloutLoader(workers, [], observes=policy.observes)
    with pytest.raises(TypeError, match="tasks must be EpisodeSpec objects"):
        RolloutLoader(workers, ["sim/click-button"], observes=policy.observes)  # type: ignore[list-item]
    wrong = RolloutLoader(workers, lambda rng: BUTTON, group_size=2)  # type: ignore[arg-type, return-value]
    with wrong, pytest.raises(TypeError, match="the tasks function returned 'sim/click-button', not an EpisodeSpec"):
        next(wrong.batches())
    loader = RolloutLoader(workers, lambda rng: EpisodeSpec(BUTTON, rng.randrange(3)), group_size=2)
    with loader:
        batches = loader.batches()
        batch = next(batches)
        with pytest.raises(ValueError, match=r"one decision per turn: \d+ turns, 0 decisions"):
            batch.respond([])
        with pytest.raises(RuntimeError, match="respond to each batch"):
            next(batches)


def test_closing_with_a_batch_unanswered_stops_every_worker_at_once(workers: EnvWorkers) -> None:
    """Each worker's thread sleeps until its turn is answered: close must answer the turns still queued
    and those in a batch the caller walked away from, or it would wait for threads that never wake."""
    loader = RolloutLoader(workers, [EpisodeSpec(BUTTON, 0)], group_size=2, max_steps=5)
    loader.start()
    batch = next(loader.batches(max_batch=1))  # one turn out, the others queued
    assert len(batch) == 1
    started = time.monotonic()
    loader.close()
    assert time.monotonic() - started < 5
    assert not any(thread.is_alive() for thread in threading.enumerate() if thread.name.startswith("env-worker-"))


class _Bus:
    """Publishes into a list, checked as the training loop's bus checks."""

    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []

    def publish(self, topic: str, body: dict[str, Any]) -> None:
        self.published.append((topic, rl_events.check_bus(topic, {"run": "rl-1", **body})))


def test_every_rollout_step_is_published_as_env_step(workers: EnvWorkers) -> None:
    bus = _Bus()
    refs = [EpisodeSpec(BUTTON, v) for v in range(3)]
    assert evaluate(workers, solver(), refs, bus=bus)["episodes"] == 3.0
    steps = [body for topic, body in bus.published if topic == "env.step"]
    assert len(steps) == 6  # two turns each: the click, then done
    by_episode: dict[str, list[dict[str, Any]]] = {}
    for body in steps:
        by_episode.setdefault(body["episode"], []).append(body)
    assert len(by_episode) == 3
    for played in by_episode.values():
        assert [b["step"] for b in played] == [1, 2] and [b["done"] for b in played] == [False, True]
        assert played[0]["action"].startswith("click(") and played[1]["action"] == "done()"
        assert played[-1]["reward"] == 1.0 and played[0]["task"] == BUTTON
        env = played[0]["env"]
        assert env in {"e0", "e1", "e2"} and played[0]["address"] == workers[int(env[1:])].address
    assert {b["variant"] for b in steps} == {0, 1, 2}


def test_a_batch_waits_for_more_turns_no_longer_than_the_policy_takes(workers: EnvWorkers) -> None:
    # 16 sim envs stepped in lockstep by a 5 ms batch wait ran at 0.65-0.75 of their raw speed
    # under a policy that answers in microseconds (bench/rl.py); waiting pays only for a slow policy.
    loader = RolloutLoader(workers, [EpisodeSpec(BUTTON, 0)], group_size=3, max_steps=4)
    assert loader._batch_wait(0.005) == 0.005  # nothing known yet
    for _ in range(30):
        loader._policy_took(0.00002)
    assert loader._batch_wait(0.005) < 0.0001
    for _ in range(30):
        loader._policy_took(0.25)  # a forward pass
    assert loader._batch_wait(0.005) == 0.005
    fresh = RolloutLoader(workers, [EpisodeSpec(BUTTON, 0)], group_size=3, max_steps=4)
    assert _run(fresh, Scripted(lambda t: [Click(Point(500, 500))]), 2)
    assert fresh._policy_s is not None and fresh._batch_wait(0.005) < 0.005  # measured from the batches
