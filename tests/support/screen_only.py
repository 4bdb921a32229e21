"""``ScreenOnly``: a session with what an agent has, for checking that an oracle or a wrong way acts
through the screen alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cua_bench.session import Session
from cua_bench.sim import SimSession
from cua_core.actions import Action, action_to_dict

__all__ = ["ScreenOnly"]


class ScreenOnly(Session):
    """What an agent has: actions in, the screen and its accessibility tree out; no ``sim``."""

    def __init__(self, inner: SimSession) -> None:
        self._inner = inner
        self.width, self.height = inner.width, inner.height
        self.refused: list[str] = []
        self.history: list[dict[str, Any]] = []  # what the env server hands evaluators as task.history

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        errors = await self._inner.apply(actions)
        self.refused += [e for e in errors if e]
        padded = [*errors, *[None] * (len(actions) - len(errors))]
        self.history += [action_to_dict(a) for a, e in zip(actions, padded, strict=True) if not e]
        return errors

    async def screenshot(self) -> bytes:
        return await self._inner.screenshot()

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        return await self._inner.accessibility_tree()

    async def windows(self) -> list[dict[str, Any]]:
        return await self._inner.windows()

    async def launch(self, app: str, **params: Any) -> str:
        raise AssertionError("an oracle acts through the screen; it does not launch apps")

    async def read_bytes(self, path: str) -> bytes:
        raise AssertionError("an oracle acts through the screen; it does not read files")

    async def write_file(self, path: str, content: bytes | str) -> None:
        raise AssertionError("an oracle acts through the screen; it does not write files")
