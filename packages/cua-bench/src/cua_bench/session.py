"""What a task's setup, evaluation and oracle use to work a computer: the Session.

Every backend's env server hands tasks a Session. The accessibility tree has one form everywhere
(the sim desktop's and, later, AT-SPI's): nodes ``{"role", "name", "bounds", "states", "value",
"children"}`` with ``bounds`` = [left, top, right, bottom] normalised to [0, 1000] like action
coordinates, so an oracle that finds a node can act on it at any resolution.

Files and commands follow Cua Bench's ``DesktopSession``, so its tasks run unchanged: ``read_file``
gives text and ``read_bytes`` bytes, ``file_exists``, ``run_command(cmd, check=...)`` returns a
result that reads as Cua's dict (``result["stdout"]``, ``["return_code"]``, ``["success"]``) and as
ours (``result.returncode``). ``DesktopSession`` is another name for ``Session``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from cua_bench.html_windows import HtmlWindows
from cua_core.actions import Action, Point
from cua_core.errors import CuaError

__all__ = [
    "CommandFailed",
    "CommandResult",
    "DesktopSession",
    "MobileSession",
    "NotSupported",
    "Session",
    "center",
    "find",
    "find_all",
    "walk",
]


class NotSupported(CuaError):
    """The backend cannot do this (e.g. a shell on the embedded desktop); the message says what can."""


_RESULT_KEYS = ("success", "stdout", "stderr", "return_code", "returncode")


@dataclass(eq=False)
class CommandResult(Mapping[str, Any]):
    """A finished command. Also a read-only mapping with Cua Bench's keys (``success``, ``stdout``,
    ``stderr``, ``return_code``) and ``returncode``, so code written for Cua's dict works as is."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def return_code(self) -> int:
        return self.returncode

    @property
    def success(self) -> bool:
        return self.returncode == 0

    def __getitem__(self, key: str) -> Any:
        if key not in _RESULT_KEYS:
            raise KeyError(f"{key!r}: a command result has {', '.join(_RESULT_KEYS)}")
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_RESULT_KEYS)

    def __len__(self) -> int:
        return len(_RESULT_KEYS)

    def __repr__(self) -> str:
        return f"CommandResult(returncode={self.returncode}, stdout={self.stdout!r}, stderr={self.stderr!r})"


class CommandFailed(CuaError, RuntimeError):
    """``run_command(..., check=True)`` of a command that exited non-zero (a ``RuntimeError``, as in Cua)."""

    def __init__(self, command: str, result: CommandResult) -> None:
        super().__init__(
            f"command exited with code {result.returncode}: {command}\nstdout: {result.stdout}\nstderr: {result.stderr}"
        )
        self.command = command
        self.result = result


class Session(HtmlWindows, ABC):
    """The handle a task has on its computer. Methods are async, as in Cua Bench."""

    width: int
    height: int
    # The operating system tasks see; a task's ``computer={"setup_config": {"os_type": ...}}`` must match.
    os_type: ClassVar[str] = "linux"
    # True where a task's commands run on the host itself, outside any isolation (the local backend
    # on a host it shares): tasks that would take root or touch paths outside the home are skipped.
    shares_host: bool = False
    # False where the computer gives a task's commands no root (an isolated local environment: root
    # in a mount namespace alone would be the host's): tasks that need root are skipped.
    has_root: bool = True

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
    async def read_bytes(self, path: str) -> bytes:
        """The file at ``path``: relative to the environment's home, or absolute in its home or /tmp."""

    @abstractmethod
    async def write_file(self, path: str, content: bytes | str) -> None:
        """Create or replace the file at ``path`` (folders made as needed); text is written as UTF-8.
        ``content`` is Cua Bench's name for it, so ``write_file(path, content=...)`` works as there."""

    async def read_file(self, path: str) -> str:
        """The file as UTF-8 text (Cua Bench's ``read_file``); ``read_bytes`` for any other content."""
        data = await self.read_bytes(path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}): read it with read_bytes"
            ) from exc

    async def write_bytes(self, path: str, data: bytes) -> None:
        await self.write_file(path, data)

    async def file_exists(self, path: str) -> bool:
        """Whether ``path`` is a file (a folder is not: ``directory_exists``)."""
        try:
            await self.read_bytes(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return False
        return True

    async def directory_exists(self, path: str) -> bool:
        raise NotSupported(f"{type(self).__name__} cannot check folders")

    async def clipboard(self) -> str:
        """The clipboard's text (``local`` and ``docker``: the X selection, through xclip)."""
        raise NotSupported(f"{type(self).__name__} has no clipboard (local and docker have one)")

    async def set_clipboard(self, text: str) -> None:
        raise NotSupported(f"{type(self).__name__} has no clipboard (local and docker have one)")

    async def list_dir(self, path: str) -> list[str]:
        """The names in a folder, sorted."""
        raise NotSupported(f"{type(self).__name__} cannot list folders")

    async def reset(self, seed: int | None = None) -> None:
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

    async def run_command(self, command: str, timeout: float = 30.0, *, check: bool = False) -> CommandResult:
        """``command`` in the environment's shell, from its home. ``check=True`` raises ``CommandFailed``
        when it exits non-zero; the default returns the result either way (Cua Bench's default is True:
        pass it where a failing setup command must stop the episode)."""
        result = await self.run_shell(command, timeout)
        if check and result.returncode != 0:
            raise CommandFailed(command, result)
        return result

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        """What backends implement for ``run_command``: run ``command`` with bash, bounded by ``timeout``."""
        raise NotSupported(f"{type(self).__name__} has no shell; use read_file/write_file and launch")

    async def resize(self, width: int, height: int) -> None:
        """Give the screen ``width`` x ``height`` (a task's ``computer`` block asks; the env server calls
        it before ``reset``). Backends that cannot refuse, naming the size."""
        if (width, height) != (self.width, self.height):
            raise NotSupported(
                f"{type(self).__name__} cannot change its screen from {self.width}x{self.height} to "
                f"{width}x{height}; start the environment at that size"
            )

    async def find(self, role: str | None = None, name: str | None = None, **match: Any) -> dict[str, Any]:
        """The first node of the current tree that matches; raises if there is none."""
        return find(await self.accessibility_tree(), role=role, name=name, **match)


# Cua Bench's names for the handle its tasks annotate (``session: cb.DesktopSession``).
DesktopSession = Session
MobileSession = Session


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
