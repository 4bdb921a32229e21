"""What a task's setup, evaluation and oracle use to work a computer: the Session.

Every backend's env server hands tasks a Session. The accessibility tree has one form everywhere
(the sim desktop's and, later, AT-SPI's): nodes ``{"role", "name", "bounds", "states", "value",
"children"}`` with ``bounds`` = [left, top, right, bottom] normalised to [0, 1000] like action
coordinates, so an oracle that finds a node can act on it at any resolution.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cua_core.actions import Action, Point
from cua_core.errors import CuaError

__all__ = ["CommandResult", "NotSupported", "Session", "center", "find", "find_all", "walk"]


class NotSupported(CuaError):
    """The backend cannot do this (e.g. a shell on the embedded desktop); the message says what can."""


@dataclass
class CommandResult:
    returncode: int
    stdout: str
    stderr: str


class Session(ABC):
    """The handle a task has on its computer. Methods are async, as in Cua Bench."""

    width: int
    height: int

    @abstractmethod
    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        """Perform ``actions`` in order; one entry per action: None, or why it was invalid."""

    @abstractmethod
    async def screenshot(self) -> bytes:
        """The screen as PNG bytes."""

    @abstractmethod
    async def accessibility_tree(self) -> list[dict[str, Any]]:
        """Top-level nodes (one per window, front to back) in the common node form."""

    @abstractmethod
    async def windows(self) -> list[dict[str, Any]]:
        """``{"id", "title", "app", "bounds", "focused"}`` per window, front to back."""

    @abstractmethod
    async def launch(self, app: str, **params: Any) -> str:
        """Start ``app`` (a program, or a sim app name) and return its window id."""

    @abstractmethod
    async def read_file(self, path: str) -> bytes: ...

    @abstractmethod
    async def write_file(self, path: str, data: bytes | str) -> None: ...

    async def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional for stateless sessions
        """Bring the computer back to a clean state before an episode (apps closed, files restored)."""

    async def settle(self) -> float:
        """Wait until the screen shows the effect of the last ``apply``; returns the seconds waited.

        The env server calls it after each step's actions, before the observation. Backends whose
        screen is up to date when ``apply`` returns (``sim``) keep this default.
        """
        return 0.0

    def frame(self) -> np.ndarray[Any, Any] | None:
        """The screen as an (height, width, 3) uint8 array when the backend has raw pixels, else None.

        The env server prefers it to ``screenshot()``: no PNG encode and decode on the step path.
        """
        return None

    def frame_key(self) -> Hashable | None:
        """For backends that render in this process: a key of the current screen (equal while it
        does not change), and then :meth:`frame_into` writes it. None (the default): use ``frame()``.

        The env server writes shared-memory frames this way without the copy ``frame()`` would cost,
        and skips writing a screen whose key it wrote last.
        """
        return None

    def frame_into(self, out: memoryview) -> None:
        """Write the screen's raw RGB bytes (``height * width * 3``) into ``out``; see :meth:`frame_key`."""
        raise NotSupported(f"{type(self).__name__} renders no frames into a buffer; use frame()")

    async def run_command(self, command: str, timeout: float = 30.0) -> CommandResult:
        raise NotSupported(f"{type(self).__name__} has no shell; use read_file/write_file and launch")

    async def find(self, role: str | None = None, name: str | None = None, **match: Any) -> dict[str, Any]:
        """The first node of the current tree that matches; raises if there is none."""
        return find(await self.accessibility_tree(), role=role, name=name, **match)


def walk(nodes: Sequence[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every node, depth first, front window first."""
    for node in nodes:
        yield node
        yield from walk(node.get("children") or [])


def find_all(
    nodes: Sequence[dict[str, Any]], role: str | None = None, name: str | None = None, **match: Any
) -> list[dict[str, Any]]:
    """Nodes with this role and name (exact), and every other given key equal (e.g. value=...)."""
    found = []
    for node in walk(nodes):
        if role is not None and node.get("role") != role:
            continue
        if name is not None and node.get("name") != name:
            continue
        if all(node.get(k) == v for k, v in match.items()):
            found.append(node)
    return found


def find(
    nodes: Sequence[dict[str, Any]], role: str | None = None, name: str | None = None, **match: Any
) -> dict[str, Any]:
    found = find_all(nodes, role, name, **match)
    if not found:
        wanted = ", ".join(f"{k}={v!r}" for k, v in {"role": role, "name": name, **match}.items() if v is not None)
        raise LookupError(f"no accessibility node with {wanted}")
    return found[0]


def center(node: dict[str, Any]) -> Point:
    """The middle of a node's bounds, as an action coordinate."""
    left, top, right, bottom = node["bounds"]
    return Point((left + right) / 2, (top + bottom) / 2)
