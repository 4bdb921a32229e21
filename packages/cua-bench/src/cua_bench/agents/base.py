"""The agent contract: told the task, shown an observation, it answers with unified actions."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from cua_core.actions import Action

__all__ = ["Agent"]


class Agent(ABC):
    # True for agents whose episodes the env server's oracle plays (see Runner).
    oracle: ClassVar[bool] = False

    def reset(self, task: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """A new episode of ``task`` (the Task as a dict) begins."""

    @abstractmethod
    def act(self, observation: dict[str, Any]) -> list[Action]:
        """The next batch of actions; end the episode with Done(answer) or Fail(reason)."""
