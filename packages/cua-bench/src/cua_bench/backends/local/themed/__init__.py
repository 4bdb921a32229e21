"""Cua's "simulated" provider on the local desktop: one full-screen Chromium page that draws a desktop
with the look of the OS a task names, its HTML task windows inside it as elements holding iframes.

It is a look, not that OS: the windows hold HTML only, nothing of macOS or Windows runs. The page
(``desktop.html``, ``.css``, ``.js`` next to this file) draws the wallpaper, the look's bars (a menu
bar with a clock and a dock; a taskbar with a start button and a clock; a GNOME-like top bar; a
phone's status and navigation bars) and the windows' chrome, and answers real input: a press raises
a window, its title bar drags it, its buttons close, minimise and maximise it. Agents act through
the screen (XTest), as on every local desktop.

Chromium runs in kiosk mode, covering the display exactly (no window manager frame), with a profile
and a home of its own under the environment's folder (never the env's home, which evaluators read),
and ``--allow-file-access-from-files`` so the page can watch its windows' documents (written to the
env's tmp; a window's page is of the same origin as the desktop's). It outlives episodes: its
processes carry a marker of their own (``<env root>/desktop``), so reset's sweep of the env's
processes leaves them; reset clears its storage and loads the page afresh instead (no window, no
script state, no storage survives), and starts it again if it died. ``close`` kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import shutil
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from cua_bench.backends.local.chromium import (
    CHROMIUM,
    FLAGS,
    DevTools,
    devtools,
    devtools_port,
    evaluate,
    frame_context,
    page_document,
    prepare_profile,
)
from cua_bench.backends.local.procs import MARKER, kill_marked, spawn
from cua_bench.html_windows import JavaScriptError
from cua_bench.session import NotSupported
from cua_core import CuaError

__all__ = ["FONTS", "LOOKS", "ThemedDesktop", "look_of", "next_handle", "themed_document"]

log = logging.getLogger(__name__)

SITE = Path(__file__).parent / "desktop.html"
# Cua's os_type (and a few names of ours) to the look drawn. Windows 7, XP and 98 share the classic look.
LOOKS = {
    "macos": "macos", "mac": "macos", "osx": "macos",
    "windows": "win11", "win11": "win11", "win10": "win10", "win7": "classic", "winxp": "classic", "win98": "classic",
    "classic": "classic",
    "linux": "linux", "ubuntu": "linux", "android": "android", "ios": "ios",
}  # fmt: skip
# Each system's font first, then the closest installed one (Nimbus Sans is Helvetica's metrics, DejaVu
# Sans Verdana's); the desktop and HTML fragments of its windows use it.
FONTS = {
    "macos": '-apple-system, BlinkMacSystemFont, "SF Pro Text", "Helvetica Neue", Helvetica, "Nimbus Sans", sans-serif',
    "win11": '"Segoe UI Variable Text", "Segoe UI", "Nimbus Sans", Arial, sans-serif',
    "win10": '"Segoe UI", "Nimbus Sans", Arial, sans-serif',
    "classic": 'Tahoma, "MS Sans Serif", "Microsoft Sans Serif", "DejaVu Sans", sans-serif',
    "linux": 'Cantarell, Ubuntu, "DejaVu Sans", sans-serif',
    "android": 'Roboto, "Nimbus Sans", "DejaVu Sans", sans-serif',
    "ios": '-apple-system, "SF Pro Text", "Helvetica Neue", "Nimbus Sans", sans-serif',
}
KIOSK_FLAGS = (
    *FLAGS, "--allow-file-access-from-files", "--kiosk", "--noerrdialogs",
    "--disable-session-crashed-bubble", "--hide-crash-restore-bubble", "--disable-pinch",
    "--overscroll-history-navigation=0", "--force-device-scale-factor=1",
)  # fmt: skip
_HANDLES = itertools.count(1)  # handles of themed windows: unique in this process, so in its environment
_SOCKET_ROOM = 107 - len("/org.chromium.Chromium.XXXXXX/SingletonSocket")
_READY = "(() => !!(window.cua && window.cua.ready && window.cua.episode === {episode}))()"
_TELLS_PRESSES = "addEventListener('pointerdown', () => parent.postMessage({cuaPress: true}, '*'), true); true"
_PAINTED = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


def look_of(theme: str) -> str:
    """The look drawn for Cua's ``os_type`` ``theme`` (case does not matter)."""
    try:
        return LOOKS[theme.strip().lower()]
    except KeyError:
        raise ValueError(
            f"unknown theme {theme!r}: give one of {', '.join(LOOKS)} (or None for plain windows)"
        ) from None


def next_handle() -> int:
    return next(_HANDLES)


def themed_document(content: str, title: str, look: str) -> str:
    """``content`` as a page, as ``page_document`` makes it; a fragment also gets the look's font (Cua's
    pages get the system's sans-serif from Tailwind) before its own styles."""
    document = page_document(content, title)
    if "<html" in content.lower():
        return document
    style = f"<style>html {{ font-family: {FONTS[look]}; }}</style>"
    return document.replace("<head>", "<head>" + style, 1)


def _short_tmp(folder: Path, root: Path) -> str:
    """Chromium's TMPDIR: ``folder`` where its singleton socket fits, or a short link to it."""
    if len(str(folder)) <= _SOCKET_ROOM:
        return str(folder)
    link = Path(tempfile.gettempdir()) / f"cua-k{hashlib.sha1(str(root).encode()).hexdigest()[:12]}"
    with contextlib.suppress(FileNotFoundError):
        link.unlink()
    link.symlink_to(folder)
    return str(link)


class ThemedDesktop:
    """The desktop page's Chromium on one display, and the windows of the current episode."""

    def __init__(self, look: str, root: Path, proc: subprocess.Popen[bytes], port: int, display: Any) -> None:
        self.look, self.root, self.proc, self.port = look, root, proc, port
        self.display = display  # the Desktop it was started on: a resize starts a new one
        self.wid = 0
        self.episode = 0
        self.handles: set[int] = set()  # windows opened this episode (some may have been closed since)
        # What windows of this episode stored data under (a page's storage is keyed by its origin and,
        # for another site's page in a frame, the desktop's): cleared at the next reset.
        self.storage_keys: set[str] = set()

    @classmethod
    async def start(
        cls, look: str, root: Path, env: dict[str, str], display: Any, wins: Any, size: tuple[int, int], timeout: float
    ) -> ThemedDesktop:
        """Chromium in kiosk mode on the desktop page; returns once it is drawn, full screen and focused."""
        if shutil.which(CHROMIUM, path=env.get("PATH")) is None:
            raise NotSupported("the simulated desktop needs Chromium on this host: apt-get install chromium")
        folder = root / "desktop"
        shutil.rmtree(folder, ignore_errors=True)  # a profile of a Chromium that died with its display
        for sub in ("home", "tmp", "run"):
            (folder / sub).mkdir(mode=0o700, parents=True)
        profile = folder / "profile"
        prepare_profile(profile)
        home = folder / "home"
        kiosk_env = {
            **env, "HOME": str(home), "TMPDIR": _short_tmp(folder / "tmp", root),
            "XDG_RUNTIME_DIR": str(folder / "run"),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local/share"), "XDG_STATE_HOME": str(home / ".local/state"),
            MARKER: str(folder),
        }  # fmt: skip
        width, height = size
        argv = [
            CHROMIUM, *KIOSK_FLAGS, f"--user-data-dir={profile}", "--window-position=0,0",
            f"--window-size={width},{height}", f"--app={cls._url(look, 0)}",
        ]  # fmt: skip
        before = set(wins.ids())
        with open(folder / "chromium.log", "ab") as log_file:  # Chromium has its own copy
            proc = spawn(argv, kiosk_env, cwd=home, log=log_file)
        desktop = cls(look, root, proc, 0, display)
        deadline = time.monotonic() + timeout
        try:
            desktop.port = await devtools_port(profile, lambda: proc.poll() is None, deadline)
            await desktop._until(_READY.format(episode=json.dumps("0")), deadline, "the desktop page did not load")
            wid = await wins.new_window_of(before, proc, deadline)
            if wid is None:
                raise CuaError(f"the desktop's Chromium showed no window within {timeout:g} s")
            desktop.wid = wid
            await desktop._until(_PAINTED, deadline, "the desktop page was not drawn")
        except BaseException:
            desktop.stop()
            raise
        wins.activate(desktop.wid)
        return desktop

    @staticmethod
    def _url(look: str, episode: int) -> str:
        query = urllib.parse.urlencode({"look": look, "font": FONTS[look], "episode": str(episode)})
        return f"{SITE.as_uri()}?{query}"

    async def _until(self, javascript: str, deadline: float, failure: str) -> None:
        error = ""
        while True:
            try:
                if await evaluate(self.port, javascript, timeout=max(0.5, deadline - time.monotonic())):
                    return
            except Exception as exc:  # the page (re)loading: its target or context comes and goes
                error = f" (last: {exc})"
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise CuaError(f"{failure} in time{error}; see {self.root / 'desktop' / 'chromium.log'}")
            await asyncio.sleep(0.03)

    def runs_on(self, display: Any) -> bool:
        """Whether it still runs on ``display`` (the session's current one)."""
        return self.display is display and self.proc.poll() is None

    async def renew(self, timeout: float = 10.0) -> None:
        """The next episode's desktop (in ``self.look``): windows gone, storage cleared, the page loaded afresh."""
        try:  # a script of the last episode's that never returns holds the page: a new Chromium is quicker
            await self.call("true", timeout=3.0)
        except (JavaScriptError, OSError, TimeoutError) as exc:
            raise CuaError(f"the desktop page does not answer ({type(exc).__name__}: {exc})") from None
        self.episode += 1
        deadline = time.monotonic() + timeout
        async with asyncio.timeout(timeout), devtools(self.port) as tools:
            for handle in sorted(self.handles):  # where the open pages are now (they may have navigated)
                with contextlib.suppress(JavaScriptError):
                    self.storage_keys.add(await self._storage_key(tools, handle))
            # Windows first: a page that asks before it is left cannot hold up the navigation.
            await tools.call("Runtime.evaluate", {"expression": "window.cua && window.cua.clear()"})
            await tools.call("Network.clearBrowserCookies")
            await tools.call("Network.clearBrowserCache")
            await tools.call("Storage.clearDataForOrigin", {"origin": "file://", "storageTypes": "all"})
            for key in sorted(self.storage_keys):
                await tools.call("Storage.clearDataForStorageKey", {"storageKey": key, "storageTypes": "all"})
            await tools.call("Page.navigate", {"url": self._url(self.look, self.episode)})
        self.handles.clear()
        self.storage_keys.clear()
        ready = _READY.format(episode=json.dumps(str(self.episode)))
        await self._until(ready, deadline, "the desktop page did not load")
        await self._until(_PAINTED, deadline, "the desktop page was not drawn")

    async def call(self, javascript: str, timeout: float = 10.0) -> Any:
        """``javascript`` in the desktop page (``cua`` is its API)."""
        return await evaluate(self.port, javascript, timeout=timeout)

    async def open(
        self, handle: int, src: str, title: str, place: tuple[Any, Any, int, int], inner: bool, timeout: float
    ) -> None:
        """A window on ``src`` at ``place`` (x, y: its top left, centred in the work area where None;
        width, height: its outer size, or its page's with ``inner``); returns once its page is drawn."""
        x, y, width, height = place
        spec = {"handle": handle, "src": src, "title": title, "x": x, "y": y, "width": width, "height": height}
        self.handles.add(handle)
        try:
            await self.call(f"window.cua.open({json.dumps({**spec, 'inner': inner})})", timeout=timeout)
            async with asyncio.timeout(10):
                async with devtools(self.port) as tools:
                    self.storage_keys.add(await self._storage_key(tools, handle))
                # Cua's title names the window and its page (a page of another site included).
                await self.evaluate(handle, f"document.title = {json.dumps(title)}; true")
                if not src.startswith("file:"):  # the desktop cannot watch another site's page: it tells it of presses
                    await self.evaluate(handle, _TELLS_PRESSES)
                await self.call(_PAINTED)
        except TimeoutError:
            raise CuaError(f"the window's page {src} did not load and answer within the timeout") from None

    async def _storage_key(self, tools: DevTools, handle: int) -> str:
        frame_id, _ = await frame_context(tools, f'iframe[data-cua-handle="{handle}"]')
        found = await tools.call("Storage.getStorageKey", {"frameId": frame_id})
        return str(found["storageKey"])

    def has(self, handle: int | str) -> bool:
        try:
            return int(handle) in self.handles
        except ValueError:
            return False

    async def evaluate(self, handle: int | str, javascript: str) -> Any:
        """``javascript`` in the window's page (its own document, not the desktop's)."""
        frame = f'iframe[data-cua-handle="{int(handle)}"]'
        deadline = time.monotonic() + 5.0
        while True:
            try:
                return await evaluate(self.port, javascript, frame=frame)
            except JavaScriptError as exc:
                text = str(exc)
                if "has no frame" in text:
                    raise JavaScriptError(f"HTML window {handle} was closed") from None
                if "still loading" not in text or time.monotonic() > deadline:
                    raise
            await asyncio.sleep(0.05)

    async def origin(self, handle: int | str) -> tuple[float, float]:
        """Where the window's page starts in the desktop page, in pixels."""
        found = await self.call(f"window.cua.origin({int(handle)})")
        if found is None:
            raise JavaScriptError(f"HTML window {handle} is not on the screen (closed or minimised)")
        return float(found[0]), float(found[1])

    async def windows(self) -> list[dict[str, Any]]:
        """``{"handle", "title", "x", "y", "width", "height", "focused", "minimized"}``, front to back."""
        found: list[dict[str, Any]] = await self.call("window.cua.list()")
        return found

    async def act(self, verb: str, handle: int | str) -> bool:
        """``focus``, ``close``, ``minimize`` or ``maximize`` a window; False if it is not open."""
        return bool(await self.call(f"window.cua.{verb}({int(handle)})"))

    def stop(self) -> None:
        """Kill its Chromium (every process of it) and drop its short tmp link."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        kill_marked(self.root / "desktop")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        link = Path(tempfile.gettempdir()) / f"cua-k{hashlib.sha1(str(self.root).encode()).hexdigest()[:12]}"
        if link.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                link.unlink()
