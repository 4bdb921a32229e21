"""``SimSession``: the Session a task gets on the embedded sim desktop.

Everything runs in process, so the async methods return at once; ``sim`` hands setup code the
desktop itself for building UIs in Python. Files live in the desktop's virtual file system, which
has a home (``/home/user``, also ``~``; relative paths start there) and a ``/tmp``, new at every
reset; the sim has no shell.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from cua_bench.commands import CommandResult
from cua_bench.session import NotSupported, Session
from cua_bench.sim.desktop import SimDesktop
from cua_bench.sim.geometry import Rect, normalised_bounds
from cua_core import Action

__all__ = ["SimSession"]


class SimSession(Session):
    """A Session over a ``SimDesktop`` (a new one at ``width`` x ``height`` when none is given)."""

    def __init__(self, desktop: SimDesktop | None = None, *, width: int = 1280, height: int = 800,
                 seed: int = 0) -> None:  # fmt: skip
        self._desktop = desktop if desktop is not None else SimDesktop(width, height, seed)
        self.width = self._desktop.width
        self.height = self._desktop.height

    @property
    def sim(self) -> SimDesktop:
        return self._desktop

    @property
    def platform(self) -> str:
        """mobile once the task's setup has installed a phone (``cua_bench.sim.phone``) on this episode's desktop."""
        return "mobile" if self._desktop.phone is not None else "desktop"

    async def reset(self, seed: int | None = None) -> None:
        """A fresh desktop of the same size: nothing of the previous episode survives."""
        old = self._desktop
        self._desktop = SimDesktop(old.width, old.height, old.seed if seed is None else seed)

    async def resize(self, width: int, height: int) -> None:
        """A fresh desktop of that size (the env server resets it next)."""
        self._desktop = SimDesktop(width, height, self._desktop.seed)
        self.width, self.height = width, height

    def frame(self) -> np.ndarray[Any, Any]:
        return np.frombuffer(self._desktop.frame(), np.uint8).reshape(self.height, self.width, 3)

    def frame_key(self) -> Hashable:
        return self._desktop.frame_key()

    def frame_into(self, out: memoryview) -> None:
        self._desktop.frame_into(out)

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        return [self._desktop.apply(action) for action in actions]

    async def screenshot(self) -> bytes:
        return self._desktop.png()

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        return self._desktop.a11y()

    async def windows(self) -> list[dict[str, Any]]:
        desktop = self._desktop
        focused = desktop.focused_window
        screen = Rect(0, 0, desktop.width, desktop.height)
        return [
            {
                "id": window.id,
                "title": window.title,
                "app": window.app,
                "bounds": normalised_bounds(
                    window.rect.intersect(screen) or window.rect, desktop.width, desktop.height
                ),
                "focused": window is focused,
            }
            for window in desktop.windows()
            for visible in [window.rect.intersect(screen)]
        ]

    async def launch(self, app: str, **params: Any) -> str:
        return self._desktop.launch(app, **params).id

    async def read_bytes(self, path: str) -> bytes:
        return self._desktop.fs.read(_in_home(path))

    async def write_file(self, path: str, content: bytes | str) -> None:
        self._desktop.fs.write(_in_home(path), content)

    async def file_exists(self, path: str) -> bool:
        return self._desktop.fs.is_file(_in_home(path))

    async def directory_exists(self, path: str) -> bool:
        return self._desktop.fs.is_dir(_in_home(path))

    async def list_dir(self, path: str) -> list[str]:
        return sorted(self._desktop.fs.listdir(_in_home(path)))

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        raise NotSupported(
            "the sim desktop has no shell; use read_file/write_file/file_exists, launch and session.sim for setup "
            "(run_command needs the local or docker backend)"
        )


HOME = "/home/user"


def _in_home(path: str) -> str:
    """Relative paths (and ``~``) are the environment's home, as on every backend."""
    if path == "~" or path.startswith("~/"):
        return HOME + path[1:]
    return path if path.startswith("/") else f"{HOME}/{path}"
