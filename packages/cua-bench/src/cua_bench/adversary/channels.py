"""Reward channels that are not files: records the env server keeps (a web server's requests, say).

A task that keeps such a record in its ``task.scratch`` makes it a :class:`Channel`, and the
adversary's ``forged-request`` mutation then sends, with no work done, what the oracle's episode
put in it, from the desktop's own shell: what any program of the agent's could send. The reward
must stay 0, so the record alone never earns it; the evaluator needs evidence only the platform
has (the browser's own account of how the page was used, for example).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Channel", "channels"]


@runtime_checkable
class Channel(Protocol):
    """A record an evaluator reads that lives in the env server, not in a file."""

    def recorded(self) -> list[Any]:
        """What this episode has put in the record so far (kept, then given to another episode's ``forge``)."""
        ...

    def forge(self, recorded: list[Any]) -> list[str]:
        """Shell commands that, run as the desktop's user, put ``recorded`` in *this* episode's record
        as any program on the desktop could (the browser left out)."""
        ...


def channels(task: Any) -> dict[str, Channel]:
    """The task's channels, by their key in ``task.scratch``."""
    scratch = getattr(task, "scratch", None) or {}
    return {key: value for key, value in scratch.items() if isinstance(value, Channel)}
