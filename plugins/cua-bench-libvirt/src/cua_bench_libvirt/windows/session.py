"""``WindowsSession``: the env server's Session inside a Windows guest, on the desktop of the logged-on user.

Input is ``SendInput`` (``input.py``), capture is mss (GDI), the accessibility tree is UI Automation
(``uia.py``), ``run_command`` is Windows PowerShell and the file calls take Windows paths confined to
the user's profile and %TEMP% (``paths.py``). Every Windows call goes through ``WinApi``, so all of
this is tested against Windows' documented answers on any host; only ``ctypes_api`` needs Windows.

The server must run in the user's interactive session (the kit's logon task): a service runs in
session 0, which has no desktop the user sees, and SendInput, capture and UIA there see nothing.

Reset, like the local desktop's on a whole machine: input released, the windows the episode opened
closed (an app's process killed, the shell's windows asked to close: killing explorer.exe would take
the taskbar with it), the user's known folders (Desktop, Documents...) put back as they were when the
server started, %TEMP% emptied but for the server's own ``cua-*`` entries, the pointer centred. The
rest of the profile (AppData, the registry) is not restored: the libvirt backend reverts the whole
machine to its snapshot before every episode after the first, which is the reset that covers it.
"""

from __future__ import annotations

import asyncio
import io
import logging
import ntpath
import os
import subprocess
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from cua_bench import BackendError, CommandResult, NotSupported, Session
from cua_bench_libvirt.windows.input import NO_INPUT, WindowsInput
from cua_bench_libvirt.windows.paths import guest_path
from cua_bench_libvirt.windows.uia import node, top_windows, window_row
from cua_bench_libvirt.windows.winapi import UiaElement, WinApi
from cua_core import Action, CuaError

__all__ = ["APPS", "KNOWN_FOLDERS", "LaunchError", "WindowsSession", "powershell_quote"]

log = logging.getLogger(__name__)

POWERSHELL = "powershell.exe"
# UTF-8 without a byte-order mark on the pipes (Windows PowerShell writes the OEM code page otherwise), and
# no progress records, which PowerShell writes to stderr as CLIXML when its output is redirected.
PREAMBLE = (
    "$ProgressPreference = 'SilentlyContinue'; [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false; "
)
APPS = {
    "notepad": "notepad.exe", "calc": "calc.exe", "explorer": "explorer.exe", "mspaint": "mspaint.exe",
    "cmd": "cmd.exe", "powershell": "powershell.exe", "msedge": "msedge.exe",
    # The generic names the local desktop knows (backend_kit.APP_ALIASES), where Windows has such an app.
    "terminal": "powershell.exe", "editor": "notepad.exe", "files": "explorer.exe",
}  # fmt: skip
KNOWN_FOLDERS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos")
# Processes whose windows reset closes rather than kills: the shell, and what serves every app's windows.
SHELL = frozenset({
    "explorer.exe", "applicationframehost.exe", "shellexperiencehost.exe", "searchhost.exe",
    "startmenuexperiencehost.exe", "textinputhost.exe", "svchost.exe", "python.exe", "pythonw.exe",
})  # fmt: skip
SETTLE = float(os.environ.get("CUA_WINDOWS_SETTLE", "0.15"))  # seconds for the screen to show input


class LaunchError(CuaError):
    """An app that showed no window within its launch timeout."""


def powershell_quote(text: str) -> str:
    """A PowerShell string literal of ``text`` (single quotes, each inner one doubled)."""
    return "'" + text.replace("'", "''") + "'"


class WindowsSession(Session):
    """The Session of a Windows guest's desktop. ``api`` is ``CtypesApi()`` on Windows."""

    os_type: ClassVar[str] = "windows"

    def __init__(self, api: WinApi, *, width: int, height: int, root: str | None = None) -> None:
        self.api = api
        if api.screen_size() != (width, height) and not api.set_screen_size(width, height):
            shown = "x".join(map(str, api.screen_size()))
            raise BackendError(f"the guest's display is {shown} and refused {width}x{height}: start the machine at a "
                               "size its display adapter offers")  # fmt: skip
        self.width, self.height = width, height
        home, tmp = api.env("USERPROFILE"), api.env("TEMP")
        if not home or not tmp:
            raise BackendError("the env server's environment has no USERPROFILE or TEMP: is it running as a user?")
        self.home, self.tmp = home, tmp
        self.root = root or api.env("CUA_WINDOWS_ROOT") or "C:\\cua"
        self.skeleton = ntpath.join(self.root, "skel")
        self.input = WindowsInput(api, width, height)
        self._baseline = {w.native_window_handle for w in top_windows(api.uia_root(depth=1))}
        self._started: list[int] = []  # pids launch() started this episode
        self._moved = False
        self._last_png: tuple[bytes, bytes] | None = None
        for folder in KNOWN_FOLDERS:  # what reset puts back
            if api.is_dir(ntpath.join(home, folder)):
                self._mirror(ntpath.join(home, folder), ntpath.join(self.skeleton, folder))

    def _mirror(self, source: str, target: str) -> None:
        """``target`` made exactly ``source`` (robocopy /MIR; junctions such as "My Music" not followed)."""
        argv = ["robocopy.exe", source, target, "/MIR", "/XJ", "/R:0", "/W:0", "/NJH", "/NJS", "/NFL", "/NDL", "/NP"]
        code, out, err = self.api.run(argv, 120.0, self.home)
        if code >= 8:  # robocopy: 0-7 report what it copied, 8 and above that something failed
            said = (out + err).decode("utf-8", "replace").strip()[-500:]
            raise CuaError(f"robocopy {source} -> {target} failed with code {code}: {said}")

    # -- input and observation -----------------------------------------------------------------

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        self._moved = self._moved or any(not isinstance(action, NO_INPUT) for action in actions)
        return [await self.input.apply(action) for action in actions]

    async def settle(self) -> float:
        """A fixed wait after input: Windows has no cheap damage events like X's to wait on."""
        if not self._moved:
            return 0.0
        self._moved = False
        await asyncio.sleep(SETTLE)
        return SETTLE

    def frame(self) -> np.ndarray[Any, Any]:
        bgra = np.frombuffer(self.api.grab(0, 0, self.width, self.height), np.uint8)
        return np.ascontiguousarray(bgra.reshape(self.height, self.width, 4)[..., 2::-1])

    async def screenshot(self) -> bytes:
        raw = self.api.grab(0, 0, self.width, self.height)
        if self._last_png is not None and self._last_png[0] == raw:
            return self._last_png[1]  # the screen did not change: the PNG (~20 ms) is not made again
        rgb = np.frombuffer(raw, np.uint8).reshape(self.height, self.width, 4)[..., 2::-1]
        out = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(rgb)).save(out, format="PNG", compress_level=1)
        self._last_png = (raw, out.getvalue())
        return self._last_png[1]

    async def windows(self) -> list[dict[str, Any]]:
        root = await asyncio.to_thread(self.api.uia_root, 1)
        front = self.api.foreground_window()
        return [window_row(w, self.width, self.height, front) for w in top_windows(root)]

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        """One node per app window, front to back, then the taskbar (its Start button is on screen too)."""
        root = await asyncio.to_thread(self.api.uia_root, None)
        front = self.api.foreground_window()
        nodes = []
        for element in top_windows(root, taskbar=True):
            row = window_row(element, self.width, self.height, front)
            tree = node(element, self.width, self.height)
            if row["focused"] and "focused" not in tree["states"]:
                tree["states"].append("focused")
            nodes.append({**tree, "app": row["app"], "id": row["id"]})
        return nodes

    # -- apps ----------------------------------------------------------------------------------

    async def launch(self, app: str, **params: Any) -> str:
        """Start ``app`` (a name in ``APPS``, else a program as Start-Process finds it) with ``args=[...]``;
        returns the id of its first new window once shown (``timeout`` seconds, 10 by default).

        A launcher whose process hands over to another (calc.exe to the Calculator app, explorer.exe to the
        running shell) shows its window in that other process: then the first new window is the app's."""
        args = params.get("args", ())
        args = [args] if isinstance(args, str) else list(args)
        timeout = float(params.get("timeout", 10.0))
        before = {w.native_window_handle for w in top_windows(self.api.uia_root(depth=1))}
        command = f"Start-Process -FilePath {powershell_quote(APPS.get(app, app))} -PassThru"
        if args:
            command += f" -ArgumentList {powershell_quote(subprocess.list2cmdline(args))}"
        result = await self.run_shell(f"({command}).Id", 30.0)
        if result.returncode != 0 or not result.stdout.strip().isdigit():
            said = result.stderr.strip()[-500:]
            raise LaunchError(f"Start-Process {app!r} failed (code {result.returncode}): {said}")
        pid = int(result.stdout.strip())
        self._started.append(pid)
        deadline = time.monotonic() + timeout
        while True:
            new = [w for w in top_windows(self.api.uia_root(depth=1)) if w.native_window_handle not in before]
            if new:
                window = next((w for w in new if w.process_id == pid), new[0])
                self.api.activate(window.native_window_handle)
                self._moved = True
                return f"0x{window.native_window_handle:x}"
            if time.monotonic() > deadline:
                raise LaunchError(f"{app} (pid {pid}) showed no window within {timeout:g} s")
            await asyncio.sleep(0.1)

    async def activate(self, window_id: str | int) -> None:
        self.api.activate(int(str(window_id), 0))

    async def close_window(self, window_id: str | int) -> None:
        self.api.close_window(int(str(window_id), 0))

    # -- files and commands --------------------------------------------------------------------

    def _path(self, path: str) -> str:
        return guest_path(self.home, self.tmp, path, self.api.realpath)

    async def read_bytes(self, path: str) -> bytes:
        return self.api.read_bytes(self._path(path))

    async def write_file(self, path: str, content: bytes | str) -> None:
        self.api.write_bytes(self._path(path), content.encode() if isinstance(content, str) else content)

    async def file_exists(self, path: str) -> bool:
        return self.api.is_file(self._path(path))

    async def directory_exists(self, path: str) -> bool:
        return self.api.is_dir(self._path(path))

    async def list_dir(self, path: str) -> list[str]:
        return sorted(self.api.list_dir(self._path(path)))

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        """``command`` in Windows PowerShell, from home. Output is returned as Windows gives it (CRLF line
        ends); the exit code is PowerShell's: ``exit N``'s, a native program's, or 1 after a failed cmdlet."""
        argv = [POWERSHELL, "-NoProfile", "-NonInteractive", "-Command", PREAMBLE + command]
        code, out, err = await asyncio.to_thread(self.api.run, argv, timeout, self.home)
        return CommandResult(code, _text(out), _text(err))

    # -- episodes ------------------------------------------------------------------------------

    async def resize(self, width: int, height: int) -> None:
        if (width, height) == (self.width, self.height):
            return
        if not self.api.set_screen_size(width, height):
            raise NotSupported(f"the guest's display refused {width}x{height} (it stays {self.width}x{self.height})")
        self.width, self.height = width, height
        self.input = WindowsInput(self.api, width, height)

    async def reset(self, seed: int | None = None) -> None:
        self.input.release_all()
        await self._close_episode_windows()
        for folder in KNOWN_FOLDERS:
            saved = ntpath.join(self.skeleton, folder)
            if self.api.is_dir(saved):
                await asyncio.to_thread(self._mirror, saved, ntpath.join(self.home, folder))
        clear = (
            f"Get-ChildItem -LiteralPath {powershell_quote(self.tmp)} -Force | Where-Object {{ -not "
            "$_.Name.StartsWith('cua-') }} | Remove-Item -Recurse -Force -ErrorAction SilentlyContinue; exit 0"
        )
        await self.run_shell(clear, 60.0)
        self.input.send(self.input.move((self.width // 2, self.height // 2)))
        self._moved = True

    async def _close_episode_windows(self) -> None:
        new = [w for w in top_windows(self.api.uia_root(depth=1)) if w.native_window_handle not in self._baseline]
        kill = set(self._started)
        for window in new:
            if _process(window) in SHELL:
                self.api.close_window(window.native_window_handle)
            else:
                kill.add(window.process_id)
        self._started.clear()
        for pid in sorted(kill):  # a launcher that exited already: taskkill says so, and that is fine
            await asyncio.to_thread(self.api.run, ["taskkill.exe", "/F", "/T", "/PID", str(pid)], 10.0, self.home)
        gone = {w.native_window_handle for w in new}
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            left = [w for w in top_windows(self.api.uia_root(depth=1)) if w.native_window_handle in gone]
            if not left:
                return
            await asyncio.sleep(0.05)
        log.warning("windows env: %d window(s) of the last episode stayed open: %s", len(left),
                    ", ".join(repr(w.name) for w in left))  # fmt: skip


def _process(window: UiaElement) -> str:
    return window.process_name.rsplit("\\", 1)[-1].lower()


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace").removeprefix("\ufeff")
