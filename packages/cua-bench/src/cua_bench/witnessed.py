"""The sessions the env server hands to task code in place of its own: the oracle's (and a wrong way's),
which keeps every batch it applies as a step, and the evaluator's while ``cua-bench check``'s adversary
watches, which keeps what it reads so a forged write can later put the same bytes there."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cua_bench.adversary import Adversary
from cua_bench.session import Session
from cua_core import Action, action_to_dict

if TYPE_CHECKING:
    from cua_bench.server import EnvServer

__all__ = ["PrefixDone", "ReadingSession", "RecordingSession"]


class PrefixDone(BaseException):
    """Stops an oracle once it has played the steps a prefix asked for (a BaseException, so an
    oracle's own ``except Exception`` retry loop does not swallow it)."""


class RecordingSession:
    """Wraps the session an oracle gets, keeping every batch it applies as a trajectory step.

    ``limit`` stops the oracle before the batch after that many (a curriculum's prefix); then
    ``observe=False`` leaves the per-step observations out (nobody looks at them)."""

    def __init__(self, inner: Session, server: EnvServer, *, limit: int | None = None, observe: bool = True) -> None:
        self._inner = inner
        self._server = server
        self._limit = limit
        self._observe = observe
        self.steps: list[dict[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        if self._limit is not None and len(self.steps) >= self._limit:
            raise PrefixDone
        started = time.monotonic()
        errors = await self._inner.apply(actions)
        await self._inner.settle()
        seconds = time.monotonic() - started  # the step as an agent's step is timed: apply and settle
        self._server.log(actions, errors, step=self._server.steps + len(self.steps) + 1)
        self.steps.append(
            {
                "actions": [action_to_dict(a) for a in actions],
                "errors": errors,
                # Many observations in one reply: they go on the socket, never in the two shm slots.
                **({"observation": await self._server.observation(shared=False)} if self._observe else {}),
                "seconds": seconds,
            }
        )
        return errors


class ReadingSession:
    """Wraps the session an evaluator gets while the adversary watches: what it reads is kept, so a
    forged write can later put the same bytes there without the task being done."""

    def __init__(self, inner: Session, adversary: Adversary) -> None:
        self._inner = inner
        self._adversary = adversary

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def read_bytes(self, path: str) -> bytes:
        data = await self._inner.read_bytes(path)
        self._adversary.read(path, data)
        return data

    async def read_file(self, path: str) -> str:
        text = await self._inner.read_file(path)
        self._adversary.read(path, text.encode())
        return text

    async def windows(self) -> list[dict[str, Any]]:
        self._adversary.read_titles()
        return await self._inner.windows()
