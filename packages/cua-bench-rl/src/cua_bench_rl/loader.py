"""The multi-turn dataloader: every env worker busy, the policy fed batches of turns.

One thread per env worker drives its own blocking EnvClient: reset, an optional curriculum prefix
(the oracle's first k steps), then turn after turn until the episode ends. Each turn waits for a
decision; ``batches()`` hands the caller whatever turns are waiting (a batch for one forward pass),
``respond`` sends the decisions back, and finished GRPO groups (G rollouts of one ``EpisodeSpec``)
come out of ``pop_groups()``. Groups are opened as workers free up, so several are in flight and no
environment waits for a group to fill.

Threads rather than one asyncio loop for all workers: a blocking client waits for its env server
with the GIL released, as a hand-written loop over 16 environments does, while one event loop paid
task wake-ups, futures and a timer per step. On two cores that loop reached 0.71-0.79 of the raw
steps/s of 16 sim envs, these threads 0.88 (bench/rl.py). The hand-off to the policy is a lock per
turn, and ``batches()`` is woken only when a turn changes its decision.

Every reset is one ``EpisodeSpec`` (``episode_spec``: the drawn episode with the policy's
``observes`` and the step limit), sent whole; the env server takes the screenshot as the policy
observes it (its format and ``max_size``), so a turn's observation is what the server sent. Before
it, a computer that served an episode already is brought back to how it was provisioned
(``EnvWorkers.prepare``, through ``Backend.restore``), or replaced when it cannot be.

Faults are counted, logged at WARNING and never silent: a worker whose server dies mid-episode
(no reply or heartbeat) is replaced through ``EnvWorkers.replace`` while the others keep going, and
its episode is played again from reset up to ``episode_retries`` times (a retried episode's turns
are discarded, never half-kept) or dropped, which drops its group. Anything else that fails (a bad
task name, a task whose setup raises) stops the rollouts and is the caller's to see: ``batches()``
raises it.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence

from cua_bench import REPLACE_COMPUTER, EnvClient, EpisodeSpec, Observes, StepRecord
from cua_bench.events import Publishes, env_steps
from cua_bench_rl.groups import Schedule, Slot, TaskSource, task_source
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Group, Rollout, Taken, Turn
from cua_bench_rl.workers import EnvWorkers, client_for
from cua_core import CuaError, RpcTimeout

__all__ = ["RolloutError", "RolloutLoader", "TurnBatch", "episode_spec", "evaluate"]

log = logging.getLogger(__name__)


def episode_spec(task: EpisodeSpec, observes: Observes, max_steps: int | None) -> EpisodeSpec:
    """What a rollout of ``task`` resets with: ``task`` as the policy ``observes`` it, with ``max_steps``
    (None: the spec's own, else the task's). The one reset builder of the loader and Cua's workers."""
    return task.with_(observes=observes, max_steps=task.max_steps if max_steps is None else max_steps)


class RolloutError(CuaError):
    """Rollouts cannot go on (a task that fails on the env server, a worker that cannot be replaced)."""


class _Abandoned(Exception):
    """The episode's group was dropped, or the loader is closing: stop at the next turn."""


class _Ask:
    """A turn waiting for its decision; its worker thread sleeps on ``ready`` until it is answered."""

    __slots__ = ("answered", "decision", "ready", "turn")

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.decision: Decision | None = None  # None once answered: the loader is closing
        self.answered = False  # set under the loader's lock, by respond or by close
        self.ready = threading.Lock()
        self.ready.acquire()


class TurnBatch:
    """Turns waiting for the policy. ``respond`` once, with one decision per turn, in order."""

    def __init__(self, loader: RolloutLoader, asks: list[_Ask]) -> None:
        self._loader = loader
        self._asks = asks
        self.turns: list[Turn] = [a.turn for a in asks]
        self.responded = False
        self._handed_at = time.monotonic()

    def __len__(self) -> int:
        return len(self.turns)

    def respond(self, decisions: Sequence[Decision], *, version: int = 0) -> None:
        """Hand the decisions to their environments; each is stamped with the policy ``version``."""
        if self.responded:
            raise RuntimeError("this batch was already answered")
        decisions = list(decisions)
        if len(decisions) != len(self.turns):
            raise ValueError(
                f"respond needs one decision per turn: {len(self.turns)} turns, {len(decisions)} decisions"
            )
        stamped = []
        for decision in decisions:
            if not isinstance(decision, Decision):
                raise TypeError(f"respond takes cua_bench_rl Decision objects, got {type(decision).__name__}")
            stamped.append(dataclasses.replace(decision, version=version))  # never mutate a shared decision
        self.responded = True
        self._loader._policy_took(time.monotonic() - self._handed_at)
        self._loader._deliver(self._asks, stamped)


class RolloutLoader:
    """Rollouts on ``workers`` of tasks drawn from ``tasks``, in groups of ``group_size``.

    ``tasks``: ``EpisodeSpec``s drawn uniformly (seeded), or a function of a ``random.Random``
    returning one. ``once=True`` plays each of a sequence once, in order, then ``batches()`` ends
    (evaluation). Each is played as the policy ``observes`` (``episode_spec``), with ``max_steps``
    (None: the spec's own, else the task's). ``curriculum(task)`` gives the oracle steps to play
    before the policy's first turn, asked once per group: all of a group's episodes start from the
    same state.
    ``heartbeat_timeout`` is how long a silent env server is given before it counts as dead.
    ``bus``, when given, gets each step as ``env.step`` (``cua_bench.events``), worker i named
    ``{env_prefix}{i}``; it is called from the workers' threads (``BestEffortPublisher`` is thread-safe).
    ``on_fault`` is called from the thread of the worker that died.
    """

    def __init__(
        self,
        workers: EnvWorkers,
        tasks: TaskSource,
        *,
        group_size: int = 8,
        observes: Observes | None = None,
        max_steps: int | None = None,
        curriculum: Callable[[EpisodeSpec], int] | None = None,
        episode_retries: int = 1,
        seed: int = 0,
        once: bool = False,
        step_timeout: float = 60.0,
        heartbeat_timeout: float = 5.0,
        frames: str = "auto",
        on_fault: Callable[[int, str, str], None] | None = None,
        bus: Publishes | None = None,
        env_prefix: str = "w",
    ) -> None:
        if group_size < 1:
            raise ValueError(f"group_size must be at least 1, got {group_size}")
        if episode_retries < 0:
            raise ValueError(f"episode_retries must be 0 or more, got {episode_retries}")
        if max_steps is not None and max_steps < 1:
            raise ValueError(f"max_steps must be at least 1 (or None for each task's own), got {max_steps}")
        self.workers = workers
        self.group_size = group_size
        self.observes = observes if observes is not None else Observes()
        self.max_steps = max_steps
        self.curriculum = curriculum
        # on_fault(worker, reason, outcome): a worker died mid-episode, was replaced, and its episode
        # was "retried" or "dropped" (or its group had been dropped already: "abandoned").
        self.on_fault = on_fault
        self.episode_retries = episode_retries
        self.bus, self.env_prefix = bus, env_prefix
        self.step_timeout, self.heartbeat_timeout, self.frames = step_timeout, heartbeat_timeout, frames
        self._schedule = Schedule(task_source(tasks, once=once, seed=seed), group_size)
        self._run = uuid.uuid4().hex[:6]
        self._episode_ids = itertools.count(1)
        self._cond = threading.Condition()  # guards everything below that two threads touch
        self._pending: list[_Ask] = []  # asked, not yet in a batch
        self._waiting: set[_Ask] = set()  # asked, not yet answered (in _pending or in a batch out)
        self._alive = 0  # worker threads running
        self._asked = 0  # turns asked and not answered: while every worker has one out, none can come
        self._want = 1  # turns that let batches() go on: only then is waking it worth a thread switch
        self._ready: list[Group] = []
        self._error: BaseException | None = None
        self._finished = False
        self._stopping = False
        self._counts = dict.fromkeys(("episodes", "retried", "dropped", "replaced", "groups", "groups_dropped"), 0)
        self._steps = [0] * len(workers)  # each written by its worker's thread only
        self._started_at = 0.0
        self._policy_s: float | None = None  # how long the policy takes to answer a batch (moving average)
        self._threads: list[threading.Thread] = []
        self._clients: list[EnvClient | None] = [None] * len(workers)
        self._generations = [-1] * len(workers)
        self._renew: dict[int, str] = {}  # workers whose task asked for a new computer after its episode

    # -- the caller's side ----------------------------------------------------------------------

    def start(self) -> RolloutLoader:
        if not self._threads:
            self._started_at = time.monotonic()
            with self._cond:
                self._alive = len(self.workers)
            self._threads = [
                threading.Thread(target=self._drive, args=(i,), name=f"env-worker-{i}", daemon=True)
                for i in range(len(self.workers))
            ]
            for thread in self._threads:
                thread.start()
        return self

    def batches(self, max_batch: int = 32, wait: float = 0.005) -> Iterator[TurnBatch]:
        """Batches of waiting turns: blocks until at least one waits, then up to ``wait`` seconds more
        for up to ``max_batch`` (not at all once every environment waits: none can add a turn), but
        never longer than the policy has been taking to answer a batch: waiting for more turns pays
        only where a call costs more than the turns it gathers wait (a model's forward pass), and a
        policy that answers in microseconds gets each turn at once. Ends when the loader closes (or,
        with ``once``, when all is played); raises what stopped the rollouts."""
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch}")
        self.start()
        while True:
            with self._cond:
                self._want = 1
                while not self._pending and not self._finished and self._error is None:
                    if self._alive == 0:
                        self._finished = True
                        break
                    self._cond.wait(0.1)
                self._raise_error()
                if self._finished or not self._pending:
                    return  # closed, or (once) everything played: turns left here wait for nobody
                deadline = time.monotonic() + self._batch_wait(wait)
                self._want = max_batch
                while len(self._pending) < max_batch and self._asked < self._alive and self._error is None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                asks, self._pending = self._pending[:max_batch], self._pending[max_batch:]
            batch = TurnBatch(self, asks)
            yield batch
            if not batch.responded and not self._stopping:
                raise RuntimeError("respond to each batch (batch.respond(decisions, version=...)) before the next")

    def pop_groups(self) -> list[Group]:
        """The groups completed since the last call, each with ``group_size`` rollouts of one episode."""
        with self._cond:
            groups, self._ready = self._ready, []
        return groups

    @property
    def stats(self) -> dict[str, float]:
        stats: dict[str, float] = dict(self._counts)
        stats["env_steps"] = sum(self._steps)
        elapsed = time.monotonic() - self._started_at if self._started_at else 0.0
        stats["env_steps_per_s"] = stats["env_steps"] / elapsed if elapsed > 0 else 0.0
        return stats

    def close(self) -> None:
        """Stop the rollouts (episodes in flight are abandoned); the workers stay up for their owner."""
        self._stop()
        deadline = time.monotonic() + 30
        for thread in self._threads:  # a step in flight ends within its server's heartbeat timeout
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._cond:
            self._finished = True
            self._cond.notify_all()
        for index, client in enumerate(self._clients):
            if client is not None and not self._threads[index].is_alive():
                self._clients[index] = None
                try:
                    client.close()
                except Exception as exc:  # the others still close
                    log.warning("closing the client of env worker %d failed: %s", index, exc)

    def __enter__(self) -> RolloutLoader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    def _policy_took(self, seconds: float) -> None:
        self._policy_s = seconds if self._policy_s is None else 0.8 * self._policy_s + 0.2 * seconds

    def _batch_wait(self, wait: float) -> float:
        """How long a batch waits for more turns: ``wait``, or less once the policy is known to be faster."""
        return wait if self._policy_s is None else min(wait, self._policy_s)

    def _deliver(self, asks: list[_Ask], decisions: list[Decision]) -> None:
        with self._cond:
            for ask, decision in zip(asks, decisions, strict=True):
                if not ask.answered:
                    ask.answered, ask.decision = True, decision
                    self._asked -= 1
                    self._waiting.discard(ask)
                    ask.ready.release()

    def _stop(self) -> None:
        """Every worker stops at its next turn; the turns waiting now (queued, or in a batch the
        caller will not answer) are answered with nothing."""
        with self._cond:
            self._stopping = True
            for ask in self._waiting:
                ask.answered = True
                self._asked -= 1
                ask.ready.release()
            self._waiting.clear()
            self._pending = []
            self._cond.notify_all()

    def _fail(self, exc: BaseException) -> None:
        with self._cond:
            if self._error is None:
                self._error = exc
            self._cond.notify_all()
        self._stop()  # as one asyncio task's failure cancelled the others: the caller sees one error

    # -- the workers' threads -------------------------------------------------------------------

    def _drive(self, index: int) -> None:
        try:
            self._drive_episodes(index)
        except BaseException as exc:
            self._fail(exc)
        finally:
            with self._cond:
                self._alive -= 1
                self._cond.notify_all()

    def _drive_episodes(self, index: int) -> None:
        while not self._stopping:
            with self._cond:
                slot = self._schedule.next()
                if slot is None:
                    return
                slot.attempts += 1
            try:
                episode = self._play(index, slot)
            except _Abandoned:
                continue
            except RpcTimeout as exc:  # no reply nor heartbeat in time: the server is gone (or hung)
                self._worker_died(index, slot, exc)
                continue
            except CuaError as exc:
                task = slot.group.task
                raise RolloutError(f"{task.key} on env worker {index} ({self.workers[index].address}): {exc}") from exc
            self._finish(slot, episode)
            reason = self._renew.pop(index, None)
            if reason is not None:  # the task left state its reset cannot undo (OSWorld's, given root)
                self._replace(index, f"a new computer after {slot.group.task.key}: {reason}")

    def _client(self, index: int) -> EnvClient:
        worker = self.workers[index]
        client = self._clients[index]
        if client is None or self._generations[index] != worker.generation:
            if client is not None:
                client.close()
            client = client_for(
                worker.computer,
                step_timeout=self.step_timeout,
                heartbeat_timeout=self.heartbeat_timeout,
                frames=self.frames,
            )
            self._clients[index], self._generations[index] = client, worker.generation
        return client

    def _play(self, index: int, slot: Slot) -> Rollout:
        self.workers.prepare(index)  # a computer that served an episode is restored (or replaced) first
        client = self._client(index)
        task = slot.group.task
        spec = episode_spec(task, self.observes, self.max_steps)
        started = time.monotonic()
        obs, info = client.reset(options=spec)
        renew = (info["task"].get("metadata") or {}).get(REPLACE_COMPUTER)
        if renew:
            self._renew[index] = str(renew)
        description = str(info["task"]["description"])
        limit = spec.max_steps or int(info["task"].get("max_steps") or 50)
        prefix = 0
        if self.curriculum is not None:
            with self._cond:  # asked once per group, by whichever of its episodes starts first
                if slot.group.prefix is None:
                    slot.group.prefix = int(self.curriculum(task))
                wanted = slot.group.prefix
            if wanted > 0:
                played = client.solve(steps=wanted)
                obs, prefix = played["observation"], int(played["played"])
        episode = Rollout(f"{self._run}-{next(self._episode_ids):06d}", spec, description, started_after=prefix)
        on_step = None
        if self.bus is not None:
            address = self.workers[index].address
            env = f"{self.env_prefix}{index}"
            on_step = env_steps(
                self.bus, env=env, address=address, episode=episode.id, task=task.task, variant=task.variant
            )
        while True:
            if slot.group.dropped or self._stopping:
                raise _Abandoned
            turn = Turn(
                episode.id,
                spec,
                description,
                len(episode.turns),
                obs,  # the server sent what the policy observes, scaled to its max_size
                history=list(episode.turns),
                max_steps=limit,
            )
            decision = self._ask(turn)
            stepped = time.monotonic()
            obs, reward, terminated, truncated, info = client.step(decision.actions)
            self._steps[index] += 1
            if on_step is not None:
                seconds = time.monotonic() - stepped
                turns = len(episode.turns) + 1
                on_step(StepRecord(turns, decision.actions, obs, float(reward), terminated, truncated, info, seconds))
            episode.turns.append(Taken(turn, decision, float(reward), [str(e) for e in info.get("invalid", [])]))
            if terminated or truncated:
                episode.reward = float(info.get("reward", reward))
                episode.status = "completed" if terminated else "truncated"
                break
        episode.seconds = time.monotonic() - started
        return episode

    def _ask(self, turn: Turn) -> Decision:
        ask = _Ask(turn)
        with self._cond:
            if self._stopping:
                raise _Abandoned
            self._pending.append(ask)
            self._waiting.add(ask)
            self._asked += 1
            if len(self._pending) >= self._want or self._asked >= self._alive:
                self._cond.notify_all()
        ask.ready.acquire()  # the GIL is let go while this thread sleeps
        if ask.decision is None:  # answered by close
            raise _Abandoned
        return ask.decision

    def _replace(self, index: int, reason: str) -> None:
        self._renew.pop(index, None)  # the new computer is what a task that asked for one wanted
        client, self._clients[index] = self._clients[index], None
        if client is not None:
            client.close()
        try:
            self.workers.replace(index, reason)
        except Exception as replace_exc:
            raise RolloutError(f"rollouts stopped: {replace_exc}") from replace_exc

    def _worker_died(self, index: int, slot: Slot, exc: BaseException) -> None:
        task = slot.group.task
        reason = f"{type(exc).__name__}: {exc}"
        log.warning("env worker %d died during an episode of %s: %s", index, task.key, reason)
        self._replace(index, reason)
        with self._cond:
            self._counts["replaced"] += 1
            if slot.group.dropped:
                outcome = "abandoned"
            elif slot.attempts <= self.episode_retries:
                outcome = "retried"
                self._counts["retried"] += 1
                self._schedule.retry(slot)
            else:
                outcome = "dropped"
                slot.group.dropped = True
                self._counts["dropped"] += 1
                self._counts["groups_dropped"] += 1
        if outcome == "retried":
            log.warning("episode of %s retried from reset (attempt %d of %d)", task.key, slot.attempts + 1,
                        self.episode_retries + 1)  # fmt: skip
        elif outcome == "dropped":
            log.warning(
                "episode of %s dropped after %d attempts; its group (%d of %d episodes done) is dropped",
                task.key, slot.attempts, len(slot.group.episodes), slot.group.size,
            )  # fmt: skip
        self._fault(index, reason, outcome)

    def _fault(self, index: int, reason: str, outcome: str) -> None:
        if self.on_fault is not None:
            try:
                self.on_fault(index, reason, outcome)
            except Exception:  # a watcher's bug must not stop the rollouts
                log.exception("on_fault callback failed")

    def _finish(self, slot: Slot, episode: Rollout) -> None:
        with self._cond:
            if slot.group.dropped:
                return
            self._counts["episodes"] += 1
            group = self._schedule.finish(slot, episode)
            if group is not None:
                self._counts["groups"] += 1
                self._ready.append(group)
                self._cond.notify_all()


def evaluate(
    workers: EnvWorkers,
    policy: Policy,
    tasks: Sequence[EpisodeSpec],
    *,
    greedy: bool = True,
    max_steps: int | None = None,
    curriculum: Callable[[EpisodeSpec], int] | None = None,
    episode_retries: int = 1,
    heartbeat_timeout: float = 5.0,
    bus: Publishes | None = None,
    env_prefix: str = "e",
) -> dict[str, float]:
    """Play each episode of ``tasks`` once with ``policy`` (greedy by default): ``success`` (the share of
    episodes with reward 1), ``reward`` (their mean), ``episodes`` and ``dropped``. ``curriculum``,
    as for ``RolloutLoader``, starts each after the oracle's first k steps (None: the true start).
    ``bus``: as for ``RolloutLoader``, its workers named ``e0``, ``e1``, ... by default."""
    loader = RolloutLoader(
        workers,
        tasks,
        group_size=1,
        observes=policy.observes,
        max_steps=max_steps,
        curriculum=curriculum,
        episode_retries=episode_retries,
        once=True,
        heartbeat_timeout=heartbeat_timeout,
        bus=bus,
        env_prefix=env_prefix,
    )
    groups: list[Group] = []
    with loader:
        for batch in loader.batches(max_batch=len(workers)):
            batch.respond(policy.act(batch.turns, greedy=greedy), version=policy.version)
            groups += loader.pop_groups()
        groups += loader.pop_groups()
    rewards = [float(e.reward or 0.0) for g in groups for e in g.episodes]
    dropped = int(loader.stats["dropped"])
    if not rewards:
        raise RolloutError(f"evaluation played no episode of {len(tasks)}: {dropped} dropped as their workers died")
    if dropped:
        log.warning("evaluation: %d of %d episodes dropped (their workers died)", dropped, len(tasks))
    return {
        "success": sum(r >= 1.0 for r in rewards) / len(rewards),
        "reward": sum(rewards) / len(rewards),
        "episodes": float(len(rewards)),
        "dropped": float(dropped),
    }
