"""``LocalSession``: a real X11 desktop on this host, one Xvfb display per environment.

Layout of an environment, all under ``env_root(server pid)`` (0700): ``home/`` (the env's HOME,
restored from ``skel/`` at every reset), ``tmp/`` (TMPDIR), ``run/`` (XDG_RUNTIME_DIR), the
openbox rc and logs. Input goes through XTest and capture through shared memory on connections
this process keeps open; nothing forks per action. ``close()`` runs at exit, however the env
server stops; a ``kill -9`` of the server is covered by PDEATHSIG and the backend's teardown.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import logging
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cua_bench.backends.local.apps import Apps, child_env, remove_env_root, whole_machine
from cua_bench.backends.local.atspi import AccessibilityReader
from cua_bench.backends.local.capture import Capture
from cua_bench.backends.local.chromium import (
    CHROME_INSET,
    CHROMIUM,
    FLAGS,
    HtmlWindow,
    devtools_port,
    evaluate,
    page_document,
    prepare_profile,
)
from cua_bench.backends.local.display import Desktop, open_display, start_desktop
from cua_bench.backends.local.home import clear_dir, env_path, restore_home
from cua_bench.backends.local.input import XInput
from cua_bench.backends.local.isolate import HOST_TMP, ISOLATED, PRIVATE_TMP
from cua_bench.backends.local.procs import env_root
from cua_bench.backends.local.settle import SettleConfig, Settler
from cua_bench.backends.local.themed import themed_document
from cua_bench.backends.local.themed.provider import SimulatedProvider
from cua_bench.backends.local.windows import Windows, parse_id
from cua_bench.commands import CommandResult
from cua_bench.html_windows import JavaScriptError
from cua_bench.session import NotSupported, Session
from cua_core import Action, CuaError, CursorPosition, Done, Fail, Screenshot, Wait

__all__ = ["LaunchError", "LocalSession"]

log = logging.getLogger(__name__)

DESKTOP_COLOUR = 0x3A6EA5
NO_INPUT = (Wait, Screenshot, CursorPosition, Done, Fail)
_SESSIONS = itertools.count()  # sessions started by this process: each gets its own folder
# A shell command run at every reset, which must succeed: machine state that a task may change as root and
# home does not hold, put back (the docker osworld image's: the clock's time zone).
RESET_HOOK = "CUA_LOCAL_RESET_HOOK"
MACHINE_TMP_KEEP = (".X", ".ICE-unix")  # the display's sockets and locks, when tmp is the machine's /tmp


# window.screenX/screenY (and screenLeft/Top) of a themed window's page: where that page is drawn on the screen.
_SCREEN_ORIGIN = (
    "(() => {{ const at = {{screenX: {x}, screenLeft: {x}, screenY: {y}, screenTop: {y}}}; "
    "for (const key in at) Object.defineProperty(window, key, {{get: () => at[key], configurable: true}}); "
    "return true; }})()"
)


class LaunchError(CuaError):
    """An app that exited, or showed no window, within its launch timeout."""


def settle_config_from_env() -> SettleConfig:
    """``CUA_LOCAL_SETTLE_QUIET`` / ``_GRACE`` / ``_MAX`` (seconds) override the defaults; MAX=0 turns it off."""
    config = SettleConfig()
    for field, var in (("quiet", "QUIET"), ("grace", "GRACE"), ("limit", "MAX")):
        value = os.environ.get(f"CUA_LOCAL_SETTLE_{var}")
        if value:
            setattr(config, field, float(value))
    return config


def timeout_scale() -> float:
    """``CUA_LOCAL_TIMEOUT_SCALE`` (default 1): what the desktop's own timeouts (starting Xvfb, openbox and the
    session bus; an app's first window) are multiplied by. They are sized for a host CPU; a VM on QEMU's
    emulator runs several times slower (the libvirt backend sets it for TCG guests: openbox took over 10 s to
    start in one under a loaded host)."""
    text = os.environ.get("CUA_LOCAL_TIMEOUT_SCALE", "1")
    try:
        scale = float(text)
    except ValueError:
        scale = 0.0
    if not scale > 0:
        raise CuaError(f"CUA_LOCAL_TIMEOUT_SCALE={text!r}: give a number above 0 (1 is the default)")
    return scale


def _tmp_keep() -> tuple[str, ...]:
    """What reset leaves in the machine's /tmp: the display's sockets, and the host's entries an
    isolated environment, or one with a private /tmp, sees there (``isolate``)."""
    return MACHINE_TMP_KEEP + tuple(name for name in os.environ.get(HOST_TMP, "").split("/") if name)


def _home_and_tmp(root: Path) -> tuple[Path, Path]:
    """The environment's home and tmp: its own folders under ``root``, or on a whole machine the real ones;
    a shared host's environment with a /tmp of its own (``isolate.PRIVATE_TMP``) has that /tmp."""
    if whole_machine():
        return Path(os.environ.get("HOME") or "/home/user"), Path("/tmp")
    return root / "home", Path("/tmp") if os.environ.get(PRIVATE_TMP) == "1" else root / "tmp"


async def _run_reset_hook() -> None:
    hook = os.environ.get(RESET_HOOK, "").strip()
    if not hook:
        return
    proc = await asyncio.create_subprocess_shell(
        hook, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise CuaError(f"{RESET_HOOK} ({hook!r}) did not finish within 30 s at reset") from None
    if proc.returncode != 0:
        said = err.decode(errors="replace").strip()[-500:]
        raise CuaError(f"{RESET_HOOK} ({hook!r}) exited {proc.returncode} at reset: {said or 'no message'}")


class LocalSession(SimulatedProvider, Session):
    """The Session of one local environment. Use ``LocalSession.start(width, height)``."""

    def __init__(
        self, root: Path, desktop: Desktop, width: int, height: int, settle: SettleConfig, *, timeout: float = 10.0
    ) -> None:
        self.root = root
        self.shares_host = not whole_machine()  # a machine of its own (a container) has nothing of the host's
        self.has_root = whole_machine() and os.environ.get(ISOLATED) != "1"  # sudo in the osworld container
        self.home, self.tmp = _home_and_tmp(root)
        self.run, self.skeleton = root / "run", root / "skel"
        self._settle_config, self._timeout = settle, timeout
        self._closed = False
        self.html_windows: dict[int, HtmlWindow] = {}  # Cua's HTML task windows by handle (Chromium's pid)
        self._attach(desktop, width, height)
        atexit.register(self.close)

    def _attach(self, desktop: Desktop, width: int, height: int) -> None:
        """Everything that talks to the display: connections, input, capture, the apps' environment."""
        self.desktop = desktop
        self.width, self.height = width, height
        self.env = child_env(self.root, self.home, self.tmp, self.run, desktop.display, desktop.bus_address)
        self.conn = open_display(desktop.display)
        self.input = XInput(self.conn, width, height)
        self.wins = Windows(self.conn, width, height)
        self.capture = Capture(desktop.display, width, height)
        self.settler = Settler(desktop.display, self.capture.frame, self._settle_config)
        self.apps = Apps(self.root, self.home, self.env, keep=desktop.pids)
        self.a11y = AccessibilityReader(desktop.bus_address, width, height)
        # A plain blue desktop rather than black: windows' edges stay visible to a model.
        root_window = self.conn.screen().root
        root_window.change_attributes(background_pixel=DESKTOP_COLOUR)
        root_window.clear_area()
        self.conn.sync()

    def _detach(self) -> None:
        """Apps killed, connections closed, the display stopped (``_attach`` starts over)."""
        self.apps.close()
        for part in (self.a11y, self.settler, self.capture, self.conn):
            try:
                part.close()
            except Exception:  # the display may be gone already
                log.debug("local env: closing %s failed", type(part).__name__, exc_info=True)
        self.desktop.stop()

    @classmethod
    def start(
        cls, width: int = 1280, height: int = 800, *, skeleton: Path | None = None, timeout: float = 10.0
    ) -> LocalSession:
        """A new display with openbox and an empty home (or a copy of ``skeleton``); bounded by ``timeout``."""
        root = env_root(os.getpid(), next(_SESSIONS))
        if root.exists():  # left by an earlier process with our pid that was killed
            remove_env_root(root)
        root.mkdir(mode=0o700, parents=True)
        home, tmp = _home_and_tmp(root)
        try:
            for folder in (home, tmp, root / "run"):
                folder.mkdir(mode=0o700, exist_ok=True)
            # On a whole machine, home as it is at start (the image's /home/user) is what reset restores.
            source = skeleton or os.environ.get("CUA_LOCAL_SKELETON") or (home if whole_machine() else None)
            if source:
                shutil.copytree(source, root / "skel", symlinks=True)
            else:
                (root / "skel").mkdir(mode=0o700)
            restore_home(home, root / "skel")
            env = child_env(root, home, tmp, root / "run", "")
            desktop = start_desktop(root, width, height, env, timeout=timeout)
        except BaseException:
            remove_env_root(root)
            raise
        try:
            return cls(root, desktop, width, height, settle_config_from_env(), timeout=timeout)
        except BaseException:
            desktop.stop()
            remove_env_root(root)
            raise

    # -- episodes -----------------------------------------------------------------------------

    async def resize(self, width: int, height: int) -> None:
        """A new display of that size: Xvfb cannot grow its screen, so the desktop is started again
        (about a second; the env server resets the session next, which restores home)."""
        if (width, height) == (self.width, self.height):
            return
        self._detach()
        env = child_env(self.root, self.home, self.tmp, self.run, "")
        self._attach(start_desktop(self.root, width, height, env, timeout=self._timeout), width, height)

    async def reset(self, seed: int | None = None) -> None:
        """Apps killed, home and tmp restored, input released, pointer centred, clipboard empty."""
        self.input.release_all()
        self.input.keyboard.unbind_all()
        if self.wins.ids():
            self.settler.arm()  # the first observation shows the emptied desktop, repainted
        self.html_windows.clear()
        survivors = self.apps.kill_all()
        if survivors:
            log.warning("local env: processes %s survived SIGKILL", survivors)
        kiosk = {self.themed.wid} if self.themed is not None else set()  # the simulated desktop outlives episodes
        deadline = time.monotonic() + 1.0
        while set(self.wins.ids()) - kiosk and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        for wid in set(self.wins.ids()) - kiosk:  # a client of ours that is not a process of ours: disconnect it
            self.conn.create_resource_object("window", wid).kill_client()  # XKillClient: Display has none
        # The accessibility bus died with the apps, but its address stays on the root window, where
        # apps look first: gone, they ask the session bus, which starts a new one.
        self.conn.screen().root.delete_property(self.conn.intern_atom("AT_SPI_BUS"))
        restore_home(self.home, self.skeleton)
        clear_dir(self.tmp, _tmp_keep() if self.tmp == Path("/tmp") else ())
        clear_dir(self.run)
        await _run_reset_hook()
        if self.themed is not None:
            await self._renew_theme()
        self.input.move((self.width // 2, self.height // 2))
        self.conn.sync()
        await self.settler.wait()

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        if any(not isinstance(action, NO_INPUT) for action in actions):
            self.settler.arm()  # only input can change the screen: a Done or a Wait alone settles at once
        errors = [await self.input.apply(action) for action in actions]
        self.conn.sync()  # every event is processed by the server before settle() and the observation
        return errors

    async def settle(self) -> float:
        return await self.settler.wait()

    # -- observation --------------------------------------------------------------------------

    def frame(self) -> np.ndarray[Any, Any]:
        return self.capture.frame()

    async def screenshot(self) -> bytes:
        return self.capture.png()

    def html_window_handles(self) -> dict[str, int | str]:
        """``windows()``'s ids of the HTML windows -> their handles: a themed window's id is its handle."""
        if self.themed is not None:
            return {str(handle): handle for handle in self.themed.handles}
        return super().html_window_handles()

    async def windows(self) -> list[dict[str, Any]]:
        if self.themed is not None:
            return await self._themed_windows(self.themed)
        return self.wins.snapshot()

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        """One ``window`` node per window, front to back, holding its widgets as AT-SPI exposes them.

        Windows come from the window manager (so xterm's, which has no accessibility, is there too);
        each is matched to the AT-SPI frame of the same process, by title where the process has
        several. Roles are AT-SPI's role names ("push button", "text", "menu item").
        """
        frames: dict[int | None, list[tuple[str, dict[str, Any]]]] = {}
        for tree in self.a11y.apps():
            frames.setdefault(tree.pid, []).extend((tree.name, frame) for frame in tree.frames)
        nodes = []
        for info in self.wins.snapshot():
            candidates = frames.get(self.wins.pid(parse_id(info["id"])), [])
            titled = [c for c in candidates if c[1]["name"] == info["title"]]
            app, frame = info["app"], None
            if titled or candidates:
                app, frame = (titled or candidates)[0]
                candidates.remove((app, frame))
            states = frame["states"] if frame is not None else []
            if info["focused"] and "focused" not in states:
                states = [*states, "focused"]
            nodes.append({
                "role": "window", "name": info["title"], "bounds": info["bounds"], "states": states, "value": None,
                "children": frame["children"] if frame is not None else [], "app": app, "id": info["id"],
            })  # fmt: skip
        return nodes

    # -- apps, files, commands ----------------------------------------------------------------

    async def launch(self, app: str, **params: Any) -> str:
        """Start ``app`` (a program on PATH, or terminal/editor/files/spreadsheet) with ``args=[...]``;
        returns the id of its first window once it is drawn (``timeout`` seconds, 10 by default, times
        ``timeout_scale()``)."""
        args = params.get("args", ())
        argv = self.apps.argv(app, [args] if isinstance(args, str) else args)
        timeout = float(params.get("timeout", 10.0 * timeout_scale()))
        before = set(self.wins.ids())
        self.settler.arm()
        proc = self.apps.start(argv)
        deadline = time.monotonic() + timeout
        while True:
            new = [wid for wid in self.wins.ids() if wid not in before]
            if new:
                ours = [wid for wid in new if self.wins.pid(wid) == proc.pid]
                wid = (ours or new)[0]
                self.wins.activate(wid)
                await self.settler.wait()  # mapped is not drawn: return once it has painted
                return f"0x{wid:x}"
            if proc.poll() is not None and proc.returncode != 0:
                raise LaunchError(f"{argv[0]} exited with code {proc.returncode} before showing a window; "
                                  f"see {self.root / 'apps.log'}")  # fmt: skip
            if time.monotonic() > deadline:
                raise LaunchError(f"{argv[0]} showed no window within {timeout:g} s")
            await asyncio.sleep(0.01)

    # -- Cua's HTML task windows ----------------------------------------------------------------

    async def launch_window(
        self,
        url: str | None = None,
        *,
        html: str | None = None,
        folder: str | None = None,
        title: str = "Window",
        x: int | None = None,
        y: int | None = None,
        width: int = 600,
        height: int = 400,
        **options: Any,
    ) -> int | str:
        """A Chromium app window on ``url``, on ``html`` (a page or a fragment, written to tmp) or on
        ``folder``'s index.html; at ``x, y`` (pixels; centred when not given) sized ``width`` x ``height``. Returns its
        handle (Chromium's pid, as Cua returns a pid) once its page has loaded and been drawn."""
        if sum(value is not None for value in (url, html, folder)) != 1:
            raise ValueError("launch_window: give exactly one of url, html or folder")
        timeout = float(options.get("timeout", 30.0 * timeout_scale()))
        n = len(list(self.tmp.glob("cua-window-*"))) if self.tmp.exists() else 0
        base = self.tmp / f"cua-window-{n}"
        while base.exists():
            n += 1
            base = self.tmp / f"cua-window-{n}"
        base.mkdir(parents=True)
        if html is not None:
            page = base / "index.html"
            themed = self.themed
            document = page_document(html, title) if themed is None else themed_document(html, title, themed.look)
            page.write_text(document, encoding="utf-8")
            target = page.as_uri()
        elif folder is not None:
            index = Path(folder) / "index.html"
            if not index.is_file():
                raise ValueError(f"launch_window: {folder} has no index.html")
            target = index.resolve().as_uri()
        else:
            target = str(url)
        if self.themed is not None:
            inner = bool(options.get("use_inner_size", False))
            return await self._launch_themed(target, title, (x, y, width, height), inner, timeout)
        profile = base / "profile"
        prepare_profile(profile)
        left = max(0, (self.width - width) // 2) if x is None else x  # pywebview centres an unplaced window
        top = max(0, (self.height - height) // 2) if y is None else y
        argv = self.apps.argv(CHROMIUM, [
            *FLAGS, f"--user-data-dir={profile}", f"--window-position={left},{top}",
            f"--window-size={width},{height}", f"--app={target}",
        ])  # fmt: skip
        before = set(self.wins.ids())
        self.settler.arm()
        proc = self.apps.start(argv)
        deadline = time.monotonic() + timeout
        port = await devtools_port(profile, lambda: proc.poll() is None, deadline)
        window = HtmlWindow(proc.pid, port, 0, profile, title)
        # Loaded (Chromium may show about:blank first, and a navigation destroys the script's context:
        # each step is retried until it answers), then titled: Cua's title names the window.
        loaded = (
            f"(() => {{ if (document.readyState !== 'complete' || location.href === 'about:blank') return false; "
            f"document.title = {json.dumps(title)}; return true; }})()"
        )
        await self._until_js(window, loaded, proc, deadline, f"Chromium's page {target} did not load")
        wid = await self.wins.new_window_of(before, proc, deadline)
        if wid is None:
            raise LaunchError(f"Chromium showed no window for {target} within {timeout:g} s")
        window.wid = wid
        titled = time.monotonic() + 2.0  # the page's title reaches the window's a moment later
        while self.wins.title(self.conn.create_resource_object("window", window.wid)) != title:
            if time.monotonic() > min(titled, deadline):
                log.warning("local env: HTML window %s kept its title instead of %r", target, title)
                break
            await asyncio.sleep(0.02)
        painted = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"
        await self._until_js(window, painted, proc, deadline, f"Chromium's window for {target} was not drawn")
        self.wins.activate(window.wid)
        self.html_windows[proc.pid] = window
        await self.settler.wait()
        return proc.pid

    async def _until_js(
        self, window: HtmlWindow, javascript: str, proc: subprocess.Popen[bytes], deadline: float, failure: str
    ) -> None:
        """Evaluate ``javascript`` until it answers true (errors while the page comes up are retried)."""
        error = ""
        while True:
            try:
                if await evaluate(window.port, javascript, timeout=max(0.5, deadline - time.monotonic())):
                    return
            except (JavaScriptError, OSError, TimeoutError) as exc:
                error = f" (last: {exc})"
            if proc.poll() is not None or time.monotonic() > deadline:
                raise LaunchError(f"{failure} within the timeout{error}; see {self.root / 'apps.log'}")
            await asyncio.sleep(0.05)

    def _html_window(self, handle: int | str) -> HtmlWindow:
        try:
            return self.html_windows[int(handle)]
        except (KeyError, ValueError):
            themed = sorted(self.themed.handles) if self.themed is not None else []
            known = ", ".join(map(str, [*self.html_windows, *themed])) or "none"
            raise JavaScriptError(
                f"no HTML window {handle!r} in this environment (open ones: {known}); "
                "handles come from launch_window and end at reset"
            ) from None

    async def execute_javascript(self, handle: int | str, javascript: str) -> Any:
        if self.themed is not None and self.themed.has(handle):
            # Cua's oracles place clicks at getBoundingClientRect() + window.screenX/screenY; in a frame
            # those are the desktop page's (0, 0), so the window's page learns where it is drawn first.
            with contextlib.suppress(JavaScriptError):  # minimised (not drawn) or closed: the script says which
                left, top = await self._viewport_origin(handle)
                await self.themed.evaluate(handle, _SCREEN_ORIGIN.format(x=left, y=top))
            return await self.themed.evaluate(handle, javascript)
        return await evaluate(self._html_window(handle).port, javascript)

    async def _viewport_origin(self, handle: int | str) -> tuple[float, float]:
        if self.themed is not None and self.themed.has(handle):
            # The desktop page covers the screen; the window's page starts where its iframe does.
            left, top = self.wins.origin(self.themed.wid) or (0, 0)
            x, y = await self.themed.origin(handle)
            return left + x, top + y
        window = self._html_window(handle)
        origin = self.wins.origin(window.wid)
        if origin is None:
            raise JavaScriptError(f"HTML window {handle} has no window on the screen (closed?)")
        # The client area is Chromium's window; the page starts below anything Chromium draws above it.
        inset_x, inset_y = await evaluate(window.port, CHROME_INSET)
        return origin[0] + max(0.0, inset_x), origin[1] + max(0.0, inset_y)

    async def activate(self, window_id: str | int) -> None:
        if self.themed is not None and self.themed.has(window_id):
            await self.themed.act("focus", window_id)
            self.wins.activate(self.themed.wid)
            return
        self.wins.activate(parse_id(window_id))

    async def close_window(self, window_id: str | int) -> None:
        if self.themed is not None and self.themed.has(window_id):
            await self.themed.act("close", window_id)
            return
        self.wins.close(parse_id(window_id))

    # -- files and the clipboard -----------------------------------------------------------------

    def _path(self, path: str) -> Path:
        host = tuple(self.tmp / name for name in _tmp_keep()) if self.tmp == Path("/tmp") else ()
        return env_path(self.home, self.tmp, path, host)

    async def read_bytes(self, path: str) -> bytes:
        return self._path(path).read_bytes()

    async def write_file(self, path: str, content: bytes | str) -> None:
        target = self._path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)

    async def file_exists(self, path: str) -> bool:
        return self._path(path).is_file()

    async def directory_exists(self, path: str) -> bool:
        return self._path(path).is_dir()

    async def list_dir(self, path: str) -> list[str]:
        return sorted(os.listdir(self._path(path)))

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        return await self.apps.run(command, timeout)

    async def clipboard(self) -> str:
        """The CLIPBOARD selection's text ('' when nothing owns it)."""
        result = await self.run_command(f"{self._xclip()} -selection clipboard -o", timeout=5)
        return result.stdout if result.returncode == 0 else ""

    async def set_clipboard(self, text: str) -> None:
        """Own the CLIPBOARD with ``text`` (xclip keeps serving it until reset); returns once it reads back."""
        source = self.tmp / ".cua-clipboard"
        source.write_text(text)
        quoted = shlex.quote(str(source))
        command = f"{self._xclip()} -selection clipboard -i {quoted} && rm {quoted}"
        await self.run_command(command, timeout=5, check=True)
        # xclip exits before its forked child has taken the selection (Xlib sends the request on the
        # child's first read), so on a busy machine a read right after still finds the old owner.
        deadline = time.monotonic() + 5
        while (now := await self.clipboard()) != text:
            if time.monotonic() > deadline:
                raise CuaError(f"set_clipboard: the clipboard still reads {now[:80]!r} 5 s after xclip took it")
            await asyncio.sleep(0.02)

    def _xclip(self) -> str:
        if shutil.which("xclip", path=self.env["PATH"]) is None:
            raise NotSupported("the clipboard needs xclip on this host: apt-get install xclip")
        return "xclip"

    # -- teardown -----------------------------------------------------------------------------

    def close(self) -> None:
        """Kill everything of the environment and remove its folder (idempotent; runs at exit)."""
        if self._closed:
            return
        self._closed = True
        if self.themed is not None:
            self.themed.stop()
            self.themed = None
        self._detach()
        remove_env_root(self.root)
        atexit.unregister(self.close)
