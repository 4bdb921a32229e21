"""The agent contract: told the task, shown what it asked to observe, it answers with unified actions.

An agent declares what it observes (``Observes``) and the episode loop asks the env server for
exactly that, whatever is being recorded: recording is complete on its own, and ``--no-record``
never changes what an agent sees.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from cua_core.actions import Action
from cua_core.errors import CuaError

if TYPE_CHECKING:
    from cua_bench.tasks import Task

__all__ = ["A11Y_FORMATS", "SCREENSHOT_FORMATS", "Agent", "Observes", "SkipEpisode", "StopEpisode", "StopRun"]

SCREENSHOT_FORMATS = ("rgb", "png", "none")
A11Y_FORMATS = ("nodes", "osworld")


@dataclass(frozen=True)
class Observes:
    """What an agent is shown each step.

    ``screenshot``: an HxWx3 uint8 array (``rgb``), PNG bytes (``png``) or nothing (``none``).
    ``max_size``: ``(width, height)`` a larger screen is scaled down to fit (aspect kept; action
    coordinates are normalised, so they mean the same at any size). ``a11y``: the accessibility
    tree as nodes (``nodes``) or OSWorld's XML (``osworld``), under ``observation["a11y"]``.
    """

    screenshot: str = "rgb"
    max_size: tuple[int, int] | None = None
    a11y: str | None = None

    def __post_init__(self) -> None:
        if self.screenshot not in SCREENSHOT_FORMATS:
            known = ", ".join(SCREENSHOT_FORMATS)
            raise ValueError(f"observes.screenshot must be one of {known}, got {self.screenshot!r}")
        if self.a11y is not None and self.a11y not in A11Y_FORMATS:
            raise ValueError(f"observes.a11y must be None or one of {', '.join(A11Y_FORMATS)}, got {self.a11y!r}")
        if self.max_size is not None and (
            len(self.max_size) != 2 or not all(isinstance(v, int) and v > 0 for v in self.max_size)
        ):
            raise ValueError(f"observes.max_size must be (width, height) in pixels, got {self.max_size!r}")

    @classmethod
    def parse(cls, text: str) -> Observes:
        """From the command line: ``screenshot``, ``png``, ``a11y``, ``screenshot,a11y=osworld``, ``none``,
        ``screenshot,max=1024x640``."""
        screenshot, a11y, max_size = "none", None, None
        for part in (p.strip() for p in text.split(",") if p.strip()):
            key, _, value = part.partition("=")
            if key in ("screenshot", "rgb"):
                screenshot = "rgb"
            elif key == "png":
                screenshot = "png"
            elif key == "none":
                screenshot = "none"
            elif key == "a11y":
                a11y = value or "nodes"
            elif key == "max":
                width, x, height = value.partition("x")
                if not (x and width.isdigit() and height.isdigit()):
                    raise ValueError(f"--obs max={value!r}: expected WIDTHxHEIGHT, like max=1280x800")
                max_size = (int(width), int(height))
            else:
                raise ValueError(
                    f"--obs: unknown part {part!r}; use screenshot|png|none, a11y[=nodes|osworld], max=WxH "
                    "(comma-separated, e.g. screenshot,a11y)"
                )
        return cls(screenshot, max_size, a11y)


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
    """Subclass and implement ``act``; set ``observes`` to see something other than an RGB screenshot."""

    # True for agents whose episodes the env server's oracle plays (see the episode loop).
    oracle: ClassVar[bool] = False
    observes: Observes = Observes()
    # What every agent of one run shares (the runner builds one agent per environment and hands them
    # all the same dict): run-wide counts such as a circuit breaker's. None for an agent on its own.
    run_state: dict[str, Any] | None = None

    def shared(self, key: str, make: Callable[[], _T]) -> _T:
        """The run-wide object under ``key`` (made on first use), or this agent's own when it runs alone."""
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
        so a wrong setting costs a second rather than an error per episode."""

    def reset(self, task: Task) -> None:  # noqa: B027 - optional hook
        """A new episode of ``task`` (its description, metadata, max_steps, name and variant) begins."""

    @abstractmethod
    def act(self, observation: dict[str, Any]) -> list[Action]:
        """The next batch of actions; end the episode with Done(answer) or Fail(reason).

        ``observation`` holds ``instruction``, ``step``, ``width``/``height`` (the screen's),
        ``errors`` (why actions of the last batch were refused), and what ``observes`` asked for.
        """

    def usage(self) -> dict[str, float]:
        """Counters for the run summary (tokens, model seconds, calls); summed over the run's agents."""
        return {}

    def step_notes(self) -> dict[str, Any] | None:
        """What the last ``act`` produced that its actions do not show (a model's raw output, its parse
        or parse error, tokens, latency), as JSON data: recorded with the step, even when the step had
        no action. None when there is nothing to add."""
        return None

    def notes(self) -> list[str]:
        """Remarks on how the agent was set up that the run summary should carry (a missing API key,
        a server that reports no token usage); one line each."""
        return []

    def episode_notes(self) -> dict[str, Any]:
        """What the agent decided this episode that its actions do not show (safety checks it met, say),
        as JSON data: kept in the recorded trajectory's metadata (``others``) beside the run's keys."""
        return {}

    def close(self) -> None:  # noqa: B027 - optional hook
        """The run is over: release connections, models, threads."""
