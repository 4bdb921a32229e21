"""``MacSession``: the env server's Session inside a macOS guest, on the logged-on user's desktop.

Input is Quartz events (``input.py``), capture is ``screencapture``, the accessibility tree is the AX
API (``ax.py``), ``run_command`` is bash and the file calls take paths confined to the user's home and
/tmp (``paths.py``). Every macOS call goes through ``MacApi``, so all of this is tested against
macOS's documented answers on any host; only ``quartz`` needs macOS.

The server must run in the user's GUI (Aqua) session, which the backend's LaunchAgent gives it: a
process started from an SSH login is outside it, and there capture sees no desktop. macOS also asks
the user to allow a process to post events and read other apps (Accessibility) and to record the
screen (Screen Recording): without both the session refuses to start, naming the fix, rather than
serve a blind desktop.

Reset, light by design: input released, the windows the episode opened closed (an app's process
killed, the shell's windows asked to close), the pointer centred. The macos backend gives every
episode after the first a fresh clone of the golden machine, which is the reset that covers files,
settings and services.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import shlex
import sys
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from cua_bench import BackendError, CommandResult, Session
from cua_bench_macos.ax import SHELL_APPS, app_windows, node, window_row
from cua_bench_macos.input import NO_INPUT, MacInput
from cua_bench_macos.macapi import AXElement, MacApi, WindowInfo
from cua_bench_macos.paths import guest_path
from cua_core import Action, CuaError

__all__ = ["APPS", "LaunchError", "MacSession"]

log = logging.getLogger(__name__)

BASH = "/bin/bash"  # macOS's bash (3.2): tasks' commands are bash, as on the other desktops
APPS = {"terminal": "Terminal", "editor": "TextEdit", "files": "Finder", "browser": "Safari"}
SETTLE = float(os.environ.get("CUA_MACOS_SETTLE", "0.15"))  # seconds for the screen to show input
CLOSE_APPS = frozenset({"Finder"})  # apps whose windows reset closes rather than kills (the shell itself)


class LaunchError(CuaError):
    """An app that showed no window within its launch timeout."""


class MacSession(Session):
    """The Session of a macOS guest's desktop. ``api`` is ``QuartzApi()`` on macOS."""

    os_type: ClassVar[str] = "macos"
    has_root = False  # the guest user's sudo is not promised by Lume's images: tasks needing root are skipped

    def __init__(self, api: MacApi, *, width: int, height: int, home: str | None = None, tmp: str = "/tmp") -> None:
        accessibility, capture = api.trusted()
        if not (accessibility and capture):
            missing = " and ".join(n for n, ok in (("Accessibility", accessibility), ("Screen Recording", capture))
                                   if not ok)  # fmt: skip
            raise BackendError(f"macOS has not allowed {sys.executable} {missing}: allow it in System Settings "
                               "> Privacy & Security in the golden VM (cua-bench-macos's README says how)")  # fmt: skip
        self.api = api
        self.width, self.height = width, height
        self.points = api.screen_size()
        home = home or api.env("HOME")
        if not home:
            raise BackendError("the env server's environment has no HOME: is it running as the guest's user?")
        self.home, self.tmp = home, tmp
        self.input = MacInput(api, width, height)
        self._baseline = {w.number for w in api.windows()}
        self._started: set[int] = set()  # pids of the apps launch() brought up this episode
        self._moved = False
        self._last_png: tuple[bytes, bytes] | None = None

    # -- input and observation -----------------------------------------------------------------

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        self._moved = self._moved or any(not isinstance(action, NO_INPUT) for action in actions)
        return [await self.input.apply(action) for action in actions]

    async def settle(self) -> float:
        """A fixed wait after input: Quartz offers no cheap damage events to wait on."""
        if not self._moved:
            return 0.0
        self._moved = False
        await asyncio.sleep(SETTLE)
        return SETTLE

    def _image(self, png: bytes) -> Image.Image:
        """The capture at the session's size (a Retina capture has twice the pixels of its points)."""
        image = Image.open(io.BytesIO(png)).convert("RGB")
        return image if image.size == (self.width, self.height) else image.resize((self.width, self.height))

    def frame(self) -> np.ndarray[Any, Any]:
        return np.asarray(self._image(self.api.capture_png()))

    async def screenshot(self) -> bytes:
        raw = await asyncio.to_thread(self.api.capture_png)
        if self._last_png is not None and self._last_png[0] == raw:
            return self._last_png[1]  # the screen did not change: not decoded and encoded again
        with Image.open(io.BytesIO(raw)) as shown:
            fits = shown.size == (self.width, self.height)
        if fits:  # a PNG of the right size already: sent as macOS made it
            self._last_png = (raw, raw)
        else:
            out = io.BytesIO()
            self._image(raw).save(out, format="PNG", compress_level=1)
            self._last_png = (raw, out.getvalue())
        return self._last_png[1]

    def _front(self, windows: list[WindowInfo]) -> tuple[int, int]:
        pid = self.api.frontmost_pid()
        return pid, next((w.number for w in windows if w.pid == pid), 0)

    async def windows(self) -> list[dict[str, Any]]:
        listed = app_windows(await asyncio.to_thread(self.api.windows))
        pid, number = self._front(listed)
        return [window_row(w, self.points, pid, number) for w in listed]

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        """One node per app window, front to back: the AX window at that window's place, else a bare node."""
        listed = app_windows(await asyncio.to_thread(self.api.windows))
        pid, number = self._front(listed)
        trees: dict[int, list[AXElement]] = {}
        nodes = []
        for window in listed:
            if window.pid not in trees:
                trees[window.pid] = await asyncio.to_thread(self.api.ax_windows, window.pid, None)
            row = window_row(window, self.points, pid, number)
            match = next((e for e in trees[window.pid] if _same_place(e, window)), None)
            if match is None:
                tree = {"role": "window", "name": window.name, "bounds": row["bounds"], "states": ["showing"],
                        "value": None, "children": []}  # fmt: skip
            else:
                tree = node(match, self.points)
            if row["focused"] and "focused" not in tree["states"]:
                tree["states"].append("focused")
            nodes.append({**tree, "app": row["app"], "id": row["id"]})
        return nodes

    # -- apps ----------------------------------------------------------------------------------

    def _window(self, window_id: str | int) -> WindowInfo:
        found = next((w for w in self.api.windows() if str(w.number) == str(window_id)), None)
        if found is None:
            raise LookupError(f"no window {window_id!r} is on screen (windows() lists them)")
        return found

    async def launch(self, app: str, **params: Any) -> str:
        """Start ``app`` (a name in ``APPS``, else an application ``open -a`` finds) with ``args=[...]``;
        returns the number of its first new window once shown (``timeout`` seconds, 10 by default)."""
        args = params.get("args", ())
        args = [args] if isinstance(args, str) else list(args)
        timeout = float(params.get("timeout", 10.0))
        before = {w.number for w in self.api.windows()}
        argv = ["/usr/bin/open", "-a", APPS.get(app, app), *(["--args", *args] if args else [])]
        code, _, err = await asyncio.to_thread(self.api.run, argv, 30.0, self.home)
        if code != 0:
            raise LaunchError(f"open -a {APPS.get(app, app)!r} failed (code {code}): {_text(err).strip()[-500:]}")
        deadline = time.monotonic() + timeout
        while True:
            new = [w for w in app_windows(self.api.windows()) if w.number not in before]
            if new:
                self._started.add(new[0].pid)
                self.api.activate(new[0].pid)
                self._moved = True
                return str(new[0].number)
            if time.monotonic() > deadline:
                raise LaunchError(f"{app} showed no window within {timeout:g} s")
            await asyncio.sleep(0.1)

    async def activate(self, window_id: str | int) -> None:
        self.api.activate(self._window(window_id).pid)

    async def close_window(self, window_id: str | int) -> None:
        if not self.api.close_window(self._window(window_id)):
            raise CuaError(f"window {window_id} has no close button macOS's accessibility API can press")

    # -- files and commands --------------------------------------------------------------------

    def _path(self, path: str) -> str:
        return guest_path(self.home, self.tmp, path)

    async def read_bytes(self, path: str) -> bytes:
        with open(self._path(path), "rb") as fh:
            return fh.read()

    async def write_file(self, path: str, content: bytes | str) -> None:
        target = self._path(path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as fh:
            fh.write(content.encode() if isinstance(content, str) else content)

    async def file_exists(self, path: str) -> bool:
        return os.path.isfile(self._path(path))

    async def directory_exists(self, path: str) -> bool:
        return os.path.isdir(self._path(path))

    async def list_dir(self, path: str) -> list[str]:
        return sorted(os.listdir(self._path(path)))

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        """``command`` in bash from home; code 124 when it outlived ``timeout``, as ``timeout(1)`` says."""
        code, out, err = await asyncio.to_thread(self.api.run, [BASH, "-c", command], timeout, self.home)
        return CommandResult(code, _text(out), _text(err))

    async def clipboard(self) -> str:
        code, out, err = await asyncio.to_thread(self.api.run, ["/usr/bin/pbpaste"], 10.0, self.home)
        if code != 0:
            raise CuaError(f"pbpaste failed (code {code}): {_text(err).strip()}")
        return _text(out)

    async def set_clipboard(self, text: str) -> None:
        command = f"printf %s {shlex.quote(text)} | /usr/bin/pbcopy"
        code, _, err = await asyncio.to_thread(self.api.run, [BASH, "-c", command], 10.0, self.home)
        if code != 0:
            raise CuaError(f"pbcopy failed (code {code}): {_text(err).strip()}")

    # -- episodes ------------------------------------------------------------------------------

    async def reset(self, seed: int | None = None) -> None:
        self.input.release_all()
        new = [w for w in self.api.windows() if w.number not in self._baseline and w.owner not in SHELL_APPS]
        kill = set(self._started)
        for window in new:
            if window.owner in CLOSE_APPS:
                self.api.close_window(window)
            else:
                kill.add(window.pid)
        self._started.clear()
        if kill:  # an app that quit already: kill says so, and that is fine
            pids = [str(pid) for pid in sorted(kill)]
            await asyncio.to_thread(self.api.run, ["/bin/kill", "-TERM", *pids], 10.0, self.home)
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline and any(w.pid in kill for w in self.api.windows()):
                await asyncio.sleep(0.05)
            left = sorted({w.pid for w in self.api.windows() if w.pid in kill})
            if left:
                log.warning("macOS env: %d app(s) ignored SIGTERM; killing them", len(left))
                await asyncio.to_thread(self.api.run, ["/bin/kill", "-KILL", *map(str, left)], 10.0, self.home)
        self.input.send(self.input.move((self.width // 2, self.height // 2)))
        self._moved = True


def _same_place(element: AXElement, window: WindowInfo, slack: float = 1.0) -> bool:
    """Whether an AX window is that Quartz window: both report the frame in global points."""
    x, y, w, h = window.bounds
    mine = (*element.position, *element.size)
    return all(abs(a - b) <= slack for a, b in zip(mine, (x, y, w, h), strict=True))


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")
