"""``AndroidSession``: the env server's Session on an Android device, through ``adb``.

The env server runs on this host (as for ``local``); every call on the device is an ``adb -s SERIAL``
command (``adb.py``). The screen is ``screencap -p`` at the size ``wm size`` gives, input is Android's
``input`` tool (``gestures.py``), the accessibility tree is ``uiautomator dump`` (``hierarchy.py``),
apps are packages (``monkey`` or ``am start`` to launch, ``adb install -r`` to install), commands run
in the device's shell (mksh, as the shell user), and files are the device's (``paths.py``).

Reset is light: the apps the episode launched are force-stopped, the screen woken and the home screen
shown. Files, settings and installed apps stay as the episode left them: a phone has no snapshot to
revert to (an emulator's snapshots are the emulator's to load, outside adb's reach here).
"""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from cua_bench import BackendError, CommandResult, NotSupported, Session
from cua_bench_android.adb import Adb, AdbTimeout
from cua_bench_android.devices import choose_device
from cua_bench_android.gestures import Refused, input_command
from cua_bench_android.hierarchy import HierarchyError, parse_hierarchy
from cua_bench_android.paths import HOME, TMP, device_path, file_error
from cua_bench_android.screen import ScreenError, frame_of, parse_wm_size, png_at_size
from cua_core import Action, CuaError, OpenApp, Wait

__all__ = ["DUMP", "SETTLE", "AndroidSession", "InstallError", "LaunchError"]

log = logging.getLogger(__name__)

SETTLE = 0.3  # seconds after input before the screen is read: adb offers no damage events to wait on
DUMP = f"{TMP}/cua_window_dump.xml"  # the shell user's folder: writable on every Android version
SLOW = 60.0  # seconds for a dump or a launch: uiautomator waits up to 10 s for the app to be idle
INSTALL_TIMEOUT = 300.0
LAUNCHER = "android.intent.category.LAUNCHER"
# `dumpsys window`'s focus line: "mCurrentFocus=Window{4e3c4d2 u0 com.android.settings/com.android.settings.Settings}"
# (or a system window's title: "Window{85a52f2 u0 StatusBar}").
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ (?:u\d+ )?([^}]+)\}")
_INPUT_FAILED = re.compile(r"^(?:Error:|Exception)", re.MULTILINE)
# A Java package name, as Android requires one: two or more dot-separated identifiers.
_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+")


class LaunchError(CuaError):
    """An app that could not be started, or did not come to the front in time."""


class InstallError(CuaError):
    """An APK that ``adb install`` refused; the message quotes adb."""


class AndroidSession(Session):
    """The Session of one Android device; ``AndroidSession.connect(adb, serial)`` chooses it and reads its size."""

    os_type: ClassVar[str] = "android"
    has_root = False  # the shell user is not root on a production build

    @property
    def platform(self) -> str:
        return "mobile"

    def __init__(self, adb: Adb, width: int, height: int) -> None:
        self.adb = adb
        self.width, self.height = width, height
        self._launched: set[str] = set()  # packages this episode launched: force-stopped at reset
        self._moved = False

    @classmethod
    def connect(cls, binary: str, serial: str = "") -> AndroidSession:
        """The session of device ``serial`` (empty: the only one attached), at the size ``wm size`` reports.

        Raises:
            BackendError: adb is missing, or no single ready device answers (the message names the fix).
        """
        adb = Adb(binary, choose_device(binary, serial))
        result = adb.shell("wm size")
        try:
            width, height = parse_wm_size(result.out)
        except ScreenError as exc:
            raise BackendError(f"Android device {adb.serial!r}: {exc} {result.err.strip()}") from None
        return cls(adb, width, height)

    # -- input and observation -----------------------------------------------------------------

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        return [await self._apply(action) for action in actions]

    async def _apply(self, action: Action) -> str | None:
        if isinstance(action, OpenApp):
            return await self._open_app(action.app)
        try:
            command = input_command(action, self.width, self.height)
        except Refused as exc:
            return str(exc)
        if isinstance(action, Wait):
            await asyncio.sleep(action.duration)
            return None
        if command is None:
            return None
        self._moved = True
        result = await asyncio.to_thread(self.adb.shell, command)
        said = (result.out + result.err).strip()
        if result.returncode != 0 or _INPUT_FAILED.search(said):
            return f"{action.kind}: the device refused `{command}` (code {result.returncode}): {said[-300:]}"
        return None

    async def settle(self) -> float:
        """A fixed wait after input: nothing tells adb when the app has drawn its answer."""
        if not self._moved:
            return 0.0
        self._moved = False
        await asyncio.sleep(SETTLE)
        return SETTLE

    def _capture(self) -> bytes:
        result = self.adb.exec_out("screencap -p")
        if result.returncode != 0:
            raise ScreenError(f"`screencap -p` failed (code {result.returncode}): {result.err.strip()}")
        return result.stdout

    def frame(self) -> np.ndarray[Any, Any]:
        return frame_of(self._capture(), self.width, self.height)

    async def screenshot(self) -> bytes:
        return png_at_size(await asyncio.to_thread(self._capture), self.width, self.height)

    def _dump(self) -> bytes:
        # Removed first: a failed dump may leave the last one in place, which would read as today's screen.
        result = self.adb.shell(f"rm -f {DUMP}; uiautomator dump {DUMP}", timeout=SLOW)
        said = (result.out + result.err).strip()
        if "dumped to" not in said:  # "UI hierchary dumped to: PATH" (sic), after any warnings
            raise HierarchyError(f"`uiautomator dump` failed on {self.adb.serial}: {said[-400:]!r}")
        return self.adb.exec_out(f"cat {DUMP}").stdout

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        return parse_hierarchy(await asyncio.to_thread(self._dump), self.width, self.height)

    def _focus(self) -> str | None:
        """The focused window's ``package/activity`` (or a system window's title), or None."""
        found = _FOCUS.search(self.adb.shell("dumpsys window | grep mCurrentFocus").out)
        return found.group(1).strip() if found else None

    async def windows(self) -> list[dict[str, Any]]:
        """The focused window: Android shows one app at a time (split screen and bubbles are not listed)."""
        focus = await asyncio.to_thread(self._focus)
        if focus is None:
            return []
        app = focus.split("/", 1)[0]
        return [{"id": app, "title": focus, "app": app, "bounds": [0.0, 0.0, 1000.0, 1000.0], "focused": True}]

    # -- apps ----------------------------------------------------------------------------------

    async def launch(self, app: str, **params: Any) -> str:
        """Start ``app`` (a package, or ``package/activity``) and return its package, the id ``windows()``
        lists, once it has the focus. ``activity=NAME`` starts that activity (``am start -n``); otherwise the
        package's launcher activity (``monkey -p PKG -c android.intent.category.LAUNCHER 1``). ``timeout``:
        seconds to wait for the focus (10).

        Raises:
            LaunchError: the package is not installed or has no such activity, or it did not come to the front.
            NotSupported: a parameter other than ``activity`` and ``timeout``.
        """
        unknown = sorted(set(params) - {"activity", "timeout"})
        if unknown:
            raise NotSupported(f"launch on android takes activity= and timeout=, not {', '.join(unknown)}")
        timeout = float(params.get("timeout", 10.0))
        package, _, activity = app.partition("/")
        activity = activity or str(params.get("activity") or "")
        if activity:
            command = f"am start -n {shlex.quote(f'{package}/{activity}')}"
        else:
            command = f"monkey -p {shlex.quote(package)} -c {LAUNCHER} 1"
        result = await asyncio.to_thread(self.adb.shell, command, timeout=SLOW)
        said = (result.out + result.err).strip()
        refused = "monkey aborted" in said or (not activity and "Events injected" not in said)
        if result.returncode != 0 or refused or re.search(r"^Error", said, re.MULTILINE):
            raise LaunchError(
                f"cannot start {app} on {self.adb.serial}: is it installed (`adb shell pm list packages {package}`)"
                f"{' with that activity' if activity else ' with a launcher activity'}? `{command}` said: {said[-400:]}"
            )
        self._launched.add(package)
        self._moved = True
        deadline = time.monotonic() + timeout
        while True:
            focus = await asyncio.to_thread(self._focus)
            if focus is not None and focus.split("/", 1)[0] == package:
                return package
            if time.monotonic() >= deadline:
                raise LaunchError(f"{app} did not come to the front within {timeout:g} s (the focus is on {focus})")
            await asyncio.sleep(0.2)

    async def _open_app(self, app: str) -> str | None:
        """The ``open_app`` action, as ``launch``: an app is named by its package here (the launcher's
        labels are the device's own, and adb has no lookup from a label to its package)."""
        if not _PACKAGE.fullmatch(app):
            return (f"open_app: {app!r} is not a package name; on android, name the app by its package "
                    "(com.android.settings), as `adb shell pm list packages` lists them")  # fmt: skip
        try:
            await self.launch(app)
        except LaunchError as exc:
            return f"open_app: {exc}"
        return None

    async def install_apk(self, path: str | Path) -> None:
        """Install (or replace, keeping its data) the APK at ``path`` on this host: ``adb install -r``.

        Raises:
            FileNotFoundError: no file at ``path``.
            InstallError: the device refused it (adb's ``Failure [INSTALL_FAILED_...]`` is quoted).
        """
        apk = Path(path)
        if not apk.is_file():
            raise FileNotFoundError(f"no APK at {apk}")
        result = await asyncio.to_thread(self.adb.run, "install", "-r", str(apk), timeout=INSTALL_TIMEOUT)
        said = (result.out + result.err).strip()
        if result.returncode != 0 or "Success" not in result.out:
            raise InstallError(f"adb install -r {apk} failed on {self.adb.serial}: {said[-400:]}")

    # -- files and commands --------------------------------------------------------------------

    async def read_bytes(self, path: str) -> bytes:
        target = device_path(path)
        result = await asyncio.to_thread(self.adb.shell, f"cat {shlex.quote(target)}")
        if result.returncode != 0:
            raise file_error(target, result.err)
        return result.stdout

    async def write_file(self, path: str, content: bytes | str) -> None:
        target = device_path(path)
        folder = target.rsplit("/", 1)[0] or "/"
        command = f"mkdir -p {shlex.quote(folder)} && cat > {shlex.quote(target)}"
        data = content.encode() if isinstance(content, str) else content
        result = await asyncio.to_thread(self.adb.shell, command, data=data)
        if result.returncode != 0:
            raise file_error(target, result.err)

    async def _test(self, flag: str, path: str) -> bool:
        result = await asyncio.to_thread(self.adb.shell, f"test {flag} {shlex.quote(device_path(path))}")
        return result.returncode == 0

    async def file_exists(self, path: str) -> bool:
        return await self._test("-f", path)

    async def directory_exists(self, path: str) -> bool:
        return await self._test("-d", path)

    async def list_dir(self, path: str) -> list[str]:
        target = device_path(path)
        result = await asyncio.to_thread(self.adb.shell, f"cd {shlex.quote(target)} && ls -a")
        if result.returncode != 0:
            raise file_error(target, result.err)
        return sorted(name for name in result.out.splitlines() if name not in ("", ".", ".."))

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        """``command`` in the device's shell (mksh, as the shell user) from the home, ``/sdcard``; code 124 when
        it outlived ``timeout`` (adb is killed, and the device ends the command with its connection)."""
        try:
            result = await asyncio.to_thread(self.adb.shell, f"cd {HOME} || exit 1\n{command}", timeout=timeout)
        except AdbTimeout:
            return CommandResult(124, "", f"timed out after {timeout:g} s on {self.adb.serial}")
        return CommandResult(result.returncode, result.out, result.err)

    # -- episodes ------------------------------------------------------------------------------

    async def reset(self, seed: int | None = None) -> None:
        """The episode's apps force-stopped, the screen woken and the home screen shown."""
        stops = [f"am force-stop {shlex.quote(package)}" for package in sorted(self._launched)]
        self._launched.clear()
        command = "; ".join([*stops, "input keyevent KEYCODE_WAKEUP", "input keyevent KEYCODE_HOME"])
        result = await asyncio.to_thread(self.adb.shell, command)
        if result.returncode != 0:
            log.warning("android reset on %s: `%s` exited %d: %s", self.adb.serial, command, result.returncode,
                        result.err.strip())  # fmt: skip
        self._moved = True
