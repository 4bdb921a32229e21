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
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

import numpy as np

from cua_bench.commands import CommandFailed, CommandResult
from cua_bench.html_windows import HtmlWindows
from cua_bench.nodes import find
from cua_core import Action, CuaError

__all__ = ["DesktopSession", "MobileSession", "NotSupported", "Session"]


class NotSupported(CuaError):
    """The backend cannot do this (e.g. a shell on the embedded desktop); the message says what can."""


class Session(HtmlWindows, ABC):
    """The handle a task has on its computer. Methods are async, as in Cua Bench.

    A backend implements the abstract methods; the others have defaults, and an optional one the
    backend cannot do raises ``NotSupported`` saying what can, so a task fails with the reason.

    Attributes:
        width: the screen's width in pixels; action and ``bounds`` coordinates in [0, 1000] scale to it.
        height: the screen's height in pixels.

    Raises:
        NotSupported: from an optional method the backend does not offer (a shell, the clipboard,
            folders, another screen size, frames into a buffer).
    """

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
        """Perform ``actions`` in order; one entry per action: None, or why it was invalid.

        An action the computer refuses is reported, not raised, and the rest still run: the agent
        reads the reasons in its next observation.

        Args:
            actions: unified actions, their coordinates in [0, 1000] on both axes at any screen size.

        Returns:
            One entry per action, in order: None when it was performed, else why it was refused.
        """

    @abstractmethod
    async def screenshot(self) -> bytes:
        """The screen as PNG bytes.

        Returns:
            A PNG of the whole screen, ``width`` x ``height`` pixels.
        """

    @abstractmethod
    async def accessibility_tree(self) -> list[dict[str, Any]]:
        """Top-level nodes (one per window, front to back) in the common node form.

        Returns:
            One node per window, front first: ``{"role", "name", "bounds", "states", "value",
            "children"}``, ``bounds`` [left, top, right, bottom] in [0, 1000]. A backend with no
            accessibility gives bare window nodes (no children).
        """

    @abstractmethod
    async def windows(self) -> list[dict[str, Any]]:
        """``{"id", "title", "app", "bounds", "focused"}`` per window, front to back.

        Returns:
            One dict per window, front first: ``id`` (as ``launch`` returns it), ``title``, ``app``,
            ``bounds`` [left, top, right, bottom] in [0, 1000], ``focused`` (a bool).

        Raises:
            NotSupported: the backend cannot list windows (cua, without xdotool on its host).
        """

    @abstractmethod
    async def launch(self, app: str, **params: Any) -> str:
        """Start ``app`` (a program, or a sim app name) and return its window id.

        Args:
            app: a program on the computer's PATH, or a name the backend knows (sim: its apps; local and
                cua: terminal, editor, files, spreadsheet).
            **params: for the app: ``args=[...]`` for a program, ``timeout`` seconds to wait for its
                window (10 by default on local and cua), a sim app's own settings.

        Returns:
            The id of its first window, as ``windows()`` lists it, once the window is shown.

        Raises:
            LookupError: the sim has no app of that name.
            CuaError: the app exited or showed no window within ``timeout`` (local: ``LaunchError``;
                cua: ``NotSupported``).
        """

    @abstractmethod
    async def read_bytes(self, path: str) -> bytes:
        """The file at ``path``: relative to the environment's home, or absolute in its home or /tmp.

        Args:
            path: relative to the home (``~`` too), or absolute under the home or /tmp.

        Returns:
            The file's bytes.

        Raises:
            FileNotFoundError: nothing is at ``path``. ``file_exists`` relies on these three.
            IsADirectoryError: ``path`` is a folder.
            NotADirectoryError: a folder on the way is a file.
            SecurityError: ``path`` resolves outside the home and /tmp, where the backend guards them (local).
        """

    @abstractmethod
    async def write_file(self, path: str, content: bytes | str) -> None:
        """Create or replace the file at ``path`` (folders made as needed); text is written as UTF-8.
        ``content`` is Cua Bench's name for it, so ``write_file(path, content=...)`` works as there.

        Args:
            path: as for ``read_bytes``.
            content: bytes, written as they are, or text, written as UTF-8.

        Raises:
            IsADirectoryError: ``path`` is a folder.
            SecurityError: ``path`` resolves outside the home and /tmp, where the backend guards them (local).
        """

    async def read_file(self, path: str) -> str:
        """The file as UTF-8 text (Cua Bench's ``read_file``); ``read_bytes`` for any other content.

        Args:
            path: as for ``read_bytes``.

        Returns:
            The file's text, decoded strictly.

        Raises:
            ValueError: the file is not UTF-8 text.
            FileNotFoundError: as ``read_bytes`` raises it (and its other errors).
        """
        data = await self.read_bytes(path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}): read it with read_bytes"
            ) from exc

    async def write_bytes(self, path: str, data: bytes) -> None:
        """Cua Bench's name for writing bytes: ``write_file`` under another name, for its tasks.

        Args:
            path: as for ``read_bytes``.
            data: the file's new content.
        """
        await self.write_file(path, data)

    async def file_exists(self, path: str) -> bool:
        """Whether ``path`` is a file (a folder is not: ``directory_exists``).

        The default reads the file; a backend overrides it with a cheaper check.

        Args:
            path: as for ``read_bytes``.

        Returns:
            True for a file; False for a folder or for nothing at ``path``.
        """
        try:
            await self.read_bytes(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return False
        return True

    async def directory_exists(self, path: str) -> bool:
        """Whether ``path`` is a folder, for tasks that check what the agent made (Cua Bench's check).

        Args:
            path: as for ``read_bytes``.

        Returns:
            True for a folder; False for a file or for nothing at ``path``.

        Raises:
            NotSupported: the default, for a backend that cannot check folders.
        """
        raise NotSupported(f"{type(self).__name__} cannot check folders")

    async def clipboard(self) -> str:
        """The clipboard's text (``local`` and ``docker``: the X selection, through xclip).

        Returns:
            The text on the clipboard; '' when it holds none.

        Raises:
            NotSupported: the backend has no clipboard (the default; local without xclip).
        """
        raise NotSupported(f"{type(self).__name__} has no clipboard (local and docker have one)")

    async def set_clipboard(self, text: str) -> None:
        """Put ``text`` on the clipboard, for setup that has the agent paste it somewhere.

        Args:
            text: what a paste will insert.

        Raises:
            NotSupported: the backend has no clipboard (the default; local without xclip).
            CuaError: the clipboard did not read back ``text`` in time (local waits 5 s for it).
        """
        raise NotSupported(f"{type(self).__name__} has no clipboard (local and docker have one)")

    async def list_dir(self, path: str) -> list[str]:
        """The names in a folder, sorted.

        Args:
            path: as for ``read_bytes``.

        Returns:
            The names (not paths) of the files and folders in it, sorted.

        Raises:
            NotSupported: the default, for a backend that cannot list folders.
            FileNotFoundError: no folder at ``path`` (``NotADirectoryError`` for a file).
        """
        raise NotSupported(f"{type(self).__name__} cannot list folders")

    async def reset(self, seed: int | None = None) -> None:
        """Bring the computer back to a clean state before an episode (apps closed, files restored).

        The env server calls it at every episode's reset, after ``resize`` and before the task's
        setup; nothing of the previous episode may show afterwards. The default does nothing.

        Args:
            seed: the episode's seed (the spec's, else the variant's index), for a backend whose clean
                state is random (sim); None keeps the seed it has.

        Raises:
            CuaError: the computer could not be made clean (local: its reset hook failed).
        """

    async def settle(self) -> float:
        """Wait until the screen shows the effect of the last ``apply``; returns the seconds waited.

        The env server calls it after each step's actions, before the observation. Backends whose
        screen is up to date when ``apply`` returns (``sim``) keep this default.

        Returns:
            The seconds waited (0.0 by default); the step reports it as ``info["settle_ms"]``.
        """
        return 0.0

    @property
    def platform(self) -> str:
        """LiteSample's platform for what is recorded here, as it is now (after the task's setup): desktop,
        or mobile for a phone, whose actions are the mobile tool's (tap, swipe, system buttons)."""
        return "desktop"

    def frame(self) -> np.ndarray[Any, Any] | None:
        """The screen as an (height, width, 3) uint8 array when the backend has raw pixels, else None.

        The env server prefers it to ``screenshot()``: no PNG encode and decode on the step path.

        Returns:
            The screen's RGB pixels, shape (height, width, 3), dtype uint8; None (the default) when the
            backend has none, and the server decodes ``screenshot()`` instead.
        """
        return None

    def frame_key(self) -> Hashable | None:
        """For backends that render in this process: a key of the current screen (equal while it
        does not change), and then :meth:`frame_into` writes it. None (the default): use ``frame()``.

        The env server writes shared-memory frames this way without the copy ``frame()`` would cost,
        and skips writing a screen whose key it wrote last.

        Returns:
            A key equal for equal screens, or None. A backend that returns keys must implement
            ``frame_into``.
        """
        return None

    def frame_into(self, out: memoryview) -> None:
        """Write the screen's raw RGB bytes (``height * width * 3``) into ``out``; see :meth:`frame_key`.

        Args:
            out: a writable buffer of exactly ``height * width * 3`` bytes (a shared-memory slot), filled
                row by row, as ``frame()`` would be.

        Raises:
            NotSupported: the default; the server calls it only after ``frame_key`` gave a key.
        """
        raise NotSupported(f"{type(self).__name__} renders no frames into a buffer; use frame()")

    async def run_command(self, command: str, timeout: float = 30.0, *, check: bool = False) -> CommandResult:
        """``command`` in the environment's shell, from its home. ``check=True`` raises ``CommandFailed``
        when it exits non-zero; the default returns the result either way (Cua Bench's default is True:
        pass it where a failing setup command must stop the episode).

        Args:
            command: a bash command line, run from the environment's home.
            timeout: seconds before the command is killed.
            check: raise ``CommandFailed`` when it exits non-zero.

        Returns:
            The exit code and the output, readable as Cua's dict too.

        Raises:
            CommandFailed: ``check`` is True and the command exited non-zero (a timeout counts).
            NotSupported: the backend has no shell (sim).
        """
        result = await self.run_shell(command, timeout)
        if check and result.returncode != 0:
            raise CommandFailed(command, result)
        return result

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        """What backends implement for ``run_command``: run ``command`` with bash, bounded by ``timeout``.

        A command that outlives ``timeout`` is killed and reported, not raised: local and cua return code
        124, as ``timeout(1)`` does.

        Args:
            command: a bash command line, run from the environment's home.
            timeout: seconds before the command is killed.

        Returns:
            Its exit code, stdout and stderr, whatever the code.

        Raises:
            NotSupported: the default, for a backend with no shell.
        """
        raise NotSupported(f"{type(self).__name__} has no shell; use read_file/write_file and launch")

    async def resize(self, width: int, height: int) -> None:
        """Give the screen ``width`` x ``height`` (a task's ``computer`` block asks; the env server calls
        it before ``reset``). Backends that cannot refuse, naming the size.

        Args:
            width: the new screen width in pixels.
            height: the new screen height in pixels.

        Raises:
            NotSupported: the default, for any size but the current one.
        """
        if (width, height) != (self.width, self.height):
            raise NotSupported(
                f"{type(self).__name__} cannot change its screen from {self.width}x{self.height} to "
                f"{width}x{height}; start the environment at that size"
            )

    async def find(self, role: str | None = None, name: str | None = None, **match: Any) -> dict[str, Any]:
        """The first node of the current tree that matches; raises if there is none.

        Args:
            role: the node's role, exactly (the backend's names: sim's ``button``, AT-SPI's ``push
                button``); None for any.
            name: the node's name, exactly; None for any.
            **match: other node keys that must be equal (``value="42"``).

        Returns:
            The first match, depth first, front window first; ``center(node)`` is where to click it.

        Raises:
            LookupError: no node matches; the message says what was looked for.
        """
        return find(await self.accessibility_tree(), role=role, name=name, **match)


# Cua Bench's names for the handle its tasks annotate (``session: cb.DesktopSession``).
DesktopSession = Session
MobileSession = Session
