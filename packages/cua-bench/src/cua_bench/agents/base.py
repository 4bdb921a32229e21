"""The agent contract: told the task, shown what it asked to observe, it answers with unified actions.

An agent declares what it observes (``Observes``) and the episode loop asks the env server for
exactly that, whatever is being recorded: recording is complete on its own, and ``--no-record``
never changes what an agent sees.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from cua_bench.spec import Observes
from cua_core import Action, CuaError

if TYPE_CHECKING:
    from cua_bench.tasks import Task

__all__ = ["Agent", "SkipEpisode", "StopEpisode", "StopRun"]


class SkipEpisode(CuaError):
    """Raised by ``Agent.reset`` for an episode the agent cannot play (a replay with no recording of
    it): the episode is recorded as skipped with this reason, never scored as a 0."""


class StopEpisode(CuaError):
    """Raised by ``Agent.act`` to end the episode without acting and without an answer, when going on
    needs a decision the agent may not take alone (a model API's safety checks, say). The episode
    scores 0, never a success (a ``Fail`` would be one on a task whose answer is "infeasible"), and
    its trajectory is kept with this reason."""


class StopRun(CuaError):
    """Raised by an agent when no further episode of the run can go well: its model server went down
    or refused the key, its adapter cannot read what the model writes. The runner stops the whole run
    (no new episode starts; those in progress are left for ``--resume``), keeps every finished one,
    and exits non-zero with this message, instead of erroring the episodes one by one.

    ``resumable``: whether ``--resume`` with the same settings can finish the run once the cause is
    fixed outside it (a server restarted), or the settings themselves are wrong (the adapter)."""

    resumable: ClassVar[bool] = True


_T = TypeVar("_T")
_SHARED_LOCK = threading.Lock()


class Agent(ABC):
    """Subclass and implement ``act``; set ``observes`` to see something other than an RGB screenshot.

    The runner builds one agent per environment, all sharing ``run_state``; it calls ``preflight`` once
    on one of them, then ``reset`` and ``act`` for each episode, and ``close`` on each at the end.

    Raises:
        SkipEpisode: from ``reset``: the episode is recorded as skipped, never scored.
        StopEpisode: from ``act``: the episode ends at once and scores 0.
        StopRun: from ``preflight``, ``reset`` or ``act``: no further episode starts; finished ones are kept.
    """

    # True for agents whose episodes the env server's oracle plays (see the episode loop).
    oracle: ClassVar[bool] = False
    observes: Observes = Observes()
    # What every agent of one run shares (the runner builds one agent per environment and hands them
    # all the same dict): run-wide counts such as a circuit breaker's. None for an agent on its own.
    run_state: dict[str, Any] | None = None

    def shared(self, key: str, make: Callable[[], _T]) -> _T:
        """The run-wide object under ``key`` (made on first use), or this agent's own when it runs alone.

        Args:
            key: names the object among the run's shared ones.
            make: builds it, once per run. It runs under a lock that every agent's ``shared`` takes, so it
                must not call ``shared`` itself.

        Returns:
            The object under ``key``: the same one for every agent of the run.
        """
        with _SHARED_LOCK:
            if self.run_state is None:
                self.run_state = {}
            if key not in self.run_state:
                self.run_state[key] = make()
            value: _T = self.run_state[key]
            return value

    def preflight(self) -> None:  # noqa: B027 - optional hook
        """Called once per run on one agent, before any computer starts: check what every episode will
        need (a model server that answers, a model it serves) and raise a ``CuaError`` naming the fix,
        so a wrong setting costs a second rather than an error per episode.

        Raises:
            CuaError: a setting that no episode can succeed with (``StopRun`` and its subclasses, say); the
                run stops before it starts, with the message.
        """

    def reset(self, task: Task) -> None:  # noqa: B027 - optional hook
        """A new episode of ``task`` (its description, metadata, max_steps, name and variant) begins.

        Not called for oracle agents, whose episodes the env server plays.

        Args:
            task: the episode's task; ``task.description`` is the instruction ``act`` also receives.

        Raises:
            SkipEpisode: the agent cannot play this episode (a replay without its recording).
            StopRun: no episode of the run can go well.
        """

    @abstractmethod
    def act(self, observation: dict[str, Any]) -> list[Action]:
        """The next batch of actions; end the episode with Done(answer) or Fail(reason).

        ``observation`` holds ``instruction``, ``step``, ``width``/``height`` (the screen's),
        ``errors`` (why actions of the last batch were refused), and what ``observes`` asked for.

        Args:
            observation: the step's observation; ``screenshot`` is an (height, width, 3) uint8 array or PNG
                bytes as ``observes`` says, ``a11y`` the accessibility tree when asked for.

        Returns:
            The actions for this step, coordinates in [0, 1000]. An empty list does nothing but still
            uses a step. Anything but a list of actions is the agent's bug: the episode errors
            (``AgentError``).

        Raises:
            StopEpisode: to end the episode without acting; it scores 0.
            StopRun: no further episode of the run can go well (its model server is down, say).
        """

    def usage(self) -> dict[str, float]:
        """Counters for the run summary (tokens, model seconds, calls); summed over the run's agents.

        Returns:
            Counter name to value, for this agent's whole run; the runner adds up each name over the
            agents into the summary's ``agent_usage``. Empty by default.
        """
        return {}

    def step_notes(self) -> dict[str, Any] | None:
        """What the last ``act`` produced that its actions do not show (a model's raw output, its parse
        or parse error, tokens, latency), as JSON data: recorded with the step, even when the step had
        no action. None when there is nothing to add.

        Returns:
            JSON data on the last ``act`` (called after it, also when it raised ``StopEpisode``), or None.
        """
        return None

    def notes(self) -> list[str]:
        """Remarks on how the agent was set up that the run summary should carry (a missing API key,
        a server that reports no token usage); one line each.

        Returns:
            One line per remark; the runner keeps each distinct line once over the run's agents.
        """
        return []

    def episode_notes(self) -> dict[str, Any]:
        """What the agent decided this episode that its actions do not show (safety checks it met, say),
        as JSON data: kept in the recorded trajectory's metadata (``others``) beside the run's keys.

        Returns:
            JSON data, asked for once at the end of each episode the agent played; empty by default.
        """
        return {}

    def close(self) -> None:  # noqa: B027 - optional hook
        """The run is over: release connections, models, threads.

        Called once per agent after the last episode, just before the run's summary is written.

        Raises:
            Nothing: an implementation must not raise; the runner calls it unguarded before it writes
                ``summary.json``, so an error here would lose the run's summary.
        """
