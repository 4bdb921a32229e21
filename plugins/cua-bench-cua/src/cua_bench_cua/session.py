"""``CuaSession``: our Session on a Cua computer-server, so our tasks, runner and RL run on Cua's
containers, VMs and cloud sandboxes.

Actions become the server's commands in pixels. The environment's home is a folder of its own on
that computer (``~/cua-bench-<id>``): apps are started with ``HOME`` there and commands run in it,
so a task's ``~/notes.txt`` lands in it, and reset empties it and ends the apps this session
started. Absolute paths are the computer's own (it is the environment). Windows come from
``xdotool`` on that computer (Cua's Linux images ship it); there is no accessibility tree (Cua's
Linux server has none).
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import os
import shlex
import time
import uuid
from collections.abc import Sequence
from typing import Any

from cua_bench import CommandResult, NotSupported, Session
from cua_bench.backend_kit import APP_ALIASES
from cua_bench_cua.client import CommandError, ComputerServer, call_once
from cua_core import (
    Action,
    Click,
    CuaError,
    CursorPosition,
    Drag,
    HoldKey,
    KeyDown,
    KeyPress,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Point,
    Screenshot,
    Scroll,
    TypeText,
    Wait,
    to_pixels,
)

__all__ = ["CuaSession"]

# Cua's server (under uvloop) waits for every process that holds a copy of its output pipe, and its
# children inherit the pipe at fds above 2: a command that starts an app in the background would not
# return until the app exits. So each command's shell closes those first.
CLOSE_INHERITED = 'for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; '
# How text is typed (CUA_COMPUTER_SERVER_TYPING). ``keys``, the default: one ``press_key`` (pyautogui)
# per character. ``type_text`` is the server's own command, one call, but it types with pynput, which
# on a plain Xvfb drops every letter (measured with 0.1.25: "q" lost, a space typed).
TYPING_ENV = "CUA_COMPUTER_SERVER_TYPING"
TYPED_KEYS = {"\n": "enter", "\t": "tab", " ": "space"}
# Our key names to pyautogui's, where they differ (pyautogui presses what the server is given).
PYAUTOGUI_KEYS = {"super": "winleft", "kp_enter": "enter", "escape": "esc"}
# What environments before this one left on the computer: an env server killed with -9 (an RL worker
# replaced after a crash) never ran its close. Each environment notes its apps' process groups in
# ``~/cua-bench-<id>.pids`` beside its home; the next one (one per server at a time) ends those
# groups and removes both. POSIX sh: the server runs commands with /bin/sh (dash on Debian).
SWEEP_SCRIPT = r"""
for pids in "$1"/cua-bench-*.pids; do
  [ -f "$pids" ] || continue
  for pid in $(cat "$pids"); do kill -KILL "-$pid" 2>/dev/null; done
  rm -rf "${pids%.pids}" "$pids"
done
"""
WINDOWS_SCRIPT = r"""
active=$(xdotool getactivewindow 2>/dev/null || echo 0)
for id in $(xdotool search --onlyvisible --name '.' 2>/dev/null); do
  eval "$(xdotool getwindowgeometry --shell "$id" 2>/dev/null)" || continue
  pid=$(xdotool getwindowpid "$id" 2>/dev/null || echo 0)
  app=$(cat /proc/$pid/comm 2>/dev/null || echo '')
  title=$(xdotool getwindowname "$id")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$X" "$Y" "$WIDTH" "$HEIGHT" "$pid" "$app" "$title"
done
echo "active $active"
"""


class CuaSession(Session):
    """A Session whose computer is the Cua computer-server at ``url``."""

    def __init__(self, url: str, width: int, height: int, home: str) -> None:
        self.server = ComputerServer(url)
        self.width, self.height = width, height
        self.home = home
        self.pids: list[int] = []  # the apps' process groups, also noted on the computer (SWEEP_SCRIPT)
        self.pid_file = f"{home}.pids"
        self.typing = os.environ.get(TYPING_ENV, "keys")
        if self.typing not in ("keys", "type_text"):
            raise NotSupported(f"{TYPING_ENV}={self.typing!r}: give keys (press_key per character) or type_text")
        atexit.register(self.close)

    @classmethod
    def connect(cls, url: str) -> CuaSession:
        """Ask the server its screen size and home, and clear what earlier environments left there
        (blocking: the env server has no loop yet)."""
        size = call_once(url, "get_screen_size")["size"]
        user_home = (call_once(url, "run_command", command='printf %s "$HOME"')["stdout"] or "/tmp").rstrip("/")
        home = f"{user_home}/cua-bench-{uuid.uuid4().hex[:8]}"
        sweep = f"sh -c {shlex.quote(SWEEP_SCRIPT)} sweep {shlex.quote(user_home)}"
        call_once(url, "run_command", command=f"{sweep}; mkdir -p {shlex.quote(home)} && : > {shlex.quote(home)}.pids")
        return cls(url, int(size["width"]), int(size["height"]), home)

    # -- actions ----------------------------------------------------------------------------------

    def _xy(self, point: Point) -> dict[str, int]:
        x, y = to_pixels(point, self.width, self.height)
        return {"x": x, "y": y}

    async def _commands(self, action: Action) -> None:
        call = self.server.call
        if isinstance(action, Click):
            where = self._xy(action.coordinate) if action.coordinate is not None else {}
            if action.button == "left" and action.clicks == 2:
                await call("double_click", **where)
                return
            for _ in range(action.clicks):
                if action.button == "middle":
                    await call("mouse_down", **where, button="middle")
                    await call("mouse_up", **where, button="middle")
                else:
                    await call(f"{action.button}_click", **where)
        elif isinstance(action, MouseMove):
            await call("move_cursor", **self._xy(action.coordinate))
        elif isinstance(action, MouseDown | MouseUp):
            where = self._xy(action.coordinate) if action.coordinate is not None else {}
            await call("mouse_down" if isinstance(action, MouseDown) else "mouse_up", **where, button=action.button)
        elif isinstance(action, Drag):
            if action.start is not None:
                await call("move_cursor", **self._xy(action.start))
            await call("mouse_down", button=action.button)
            await call("move_cursor", **self._xy(action.end))
            await call("mouse_up", button=action.button)
        elif isinstance(action, Scroll):
            if action.coordinate is not None:
                await call("move_cursor", **self._xy(action.coordinate))
            if action.direction in ("up", "down"):
                await call(f"scroll_{action.direction}", clicks=action.amount)
            else:
                await call("scroll", x=action.amount if action.direction == "right" else -action.amount, y=0)
        elif isinstance(action, TypeText):
            if action.text and self.typing == "type_text":
                await call("type_text", text=action.text)
            else:
                for char in action.text:
                    await call("press_key", key=TYPED_KEYS.get(char, char))
            if action.press_enter:
                await call("press_key", key="enter")
        elif isinstance(action, KeyPress):
            keys = [PYAUTOGUI_KEYS.get(key, key) for key in action.keys]
            await (call("press_key", key=keys[0]) if len(keys) == 1 else call("hotkey", keys=keys))
        elif isinstance(action, KeyDown | KeyUp):
            await call(
                "key_down" if isinstance(action, KeyDown) else "key_up", key=PYAUTOGUI_KEYS.get(action.key, action.key)
            )
        elif isinstance(action, HoldKey):
            keys = [PYAUTOGUI_KEYS.get(key, key) for key in action.keys]
            for key in keys:
                await call("key_down", key=key)
            await asyncio.sleep(action.duration)
            for key in reversed(keys):
                await call("key_up", key=key)
        elif isinstance(action, Wait):
            await asyncio.sleep(action.duration)
        elif not isinstance(action, Screenshot | CursorPosition):
            raise NotSupported(f"the cua backend has no command for {action.kind}")

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        errors: list[str | None] = []
        for action in actions:
            try:
                await self._commands(action)
            except (CommandError, NotSupported) as exc:
                errors.append(str(exc))
            else:
                errors.append(None)
        return errors

    async def settle(self) -> float:
        """Cua's server returns once pyautogui has sent the input (after its own 0.1 s pause); apps
        draw a little later. A fixed short wait, as the server offers no way to tell when they have."""
        await asyncio.sleep(0.1)
        return 0.1

    # -- observation ------------------------------------------------------------------------------

    async def screenshot(self) -> bytes:
        return base64.b64decode((await self.server.call("screenshot"))["image_data"])

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        """One bare ``window`` node per window: Cua's Linux server exposes no accessibility tree."""
        return [
            {"role": "window", "name": w["title"], "bounds": w["bounds"], "states": ["focused"] if w["focused"] else [],
             "value": None, "children": [], "app": w["app"], "id": w["id"]}
            for w in await self.windows()
        ]  # fmt: skip

    async def windows(self) -> list[dict[str, Any]]:
        """Visible windows by ``xdotool`` on the server's computer, the focused one first."""
        result = await self.run_shell(WINDOWS_SCRIPT, 20.0)
        if result.returncode != 0 and "xdotool" in result.stderr:
            raise NotSupported(f"listing windows needs xdotool on the computer-server's host: {result.stderr.strip()}")
        lines = result.stdout.splitlines()
        active = lines[-1].removeprefix("active ").strip() if lines and lines[-1].startswith("active ") else "0"
        found = []
        for line in lines:
            fields = line.split("\t", 7)
            if len(fields) != 8 or not all(f.lstrip("-").isdigit() for f in fields[:6]):
                continue
            wid, x, y, w, h, pid = (int(f) for f in fields[:6])
            if w <= 1 or h <= 1 or (pid == 0 and not fields[7]):  # the root window, frames
                continue
            bounds = [
                max(0.0, min(1000.0, v * 1000 / size))
                for v, size in ((x, self.width), (y, self.height), (x + w, self.width), (y + h, self.height))
            ]
            found.append({
                "id": f"0x{wid:x}", "title": fields[7], "app": fields[6], "bounds": bounds,
                "focused": str(wid) == active, "pid": pid,
            })  # fmt: skip
        found.sort(key=lambda info: not info["focused"])
        return found

    # -- apps, files, commands --------------------------------------------------------------------

    async def launch(self, app: str, **params: Any) -> str:
        """Start ``app`` (a program on the server's PATH, or terminal/editor/files/spreadsheet) with
        ``args=[...]`` in the environment's home; returns its first window's id."""
        args = params.get("args", ())
        argv = shlex.split(APP_ALIASES.get(app, app)) + ([args] if isinstance(args, str) else list(args))
        timeout = float(params.get("timeout", 10.0))
        before = {w["id"] for w in await self.windows()}
        noted = shlex.quote(self.pid_file)
        command = f"setsid {shlex.join(argv)} >/dev/null 2>&1 < /dev/null & pid=$!; echo $pid >> {noted}; echo $pid"
        result = await self.run_shell(command, 10.0)
        if result.returncode != 0 or not result.stdout.strip().isdigit():
            raise NotSupported(f"cannot start {argv[0]} on the computer-server's host: {result.stderr.strip()}")
        pid = int(result.stdout.strip())
        self.pids.append(pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            new = [w for w in await self.windows() if w["id"] not in before]
            if new:
                ours = [w for w in new if w["pid"] == pid]
                wid: str = (ours or new)[0]["id"]
                await self.run_shell(f"xdotool windowactivate --sync {int(wid, 16)}", 5.0)
                await self.settle()
                return wid
            await asyncio.sleep(0.1)
        raise NotSupported(f"{argv[0]} showed no window within {timeout:g} s on the computer-server's host")

    def _path(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            return self.home + path[1:]
        return path if path.startswith("/") else f"{self.home}/{path}"

    async def read_bytes(self, path: str) -> bytes:
        try:
            reply = await self.server.call("read_bytes", path=self._path(path))
        except CommandError as exc:
            if "Errno 2]" in exc.error:
                raise FileNotFoundError(path) from exc
            if "Errno 21]" in exc.error:
                raise IsADirectoryError(path) from exc
            if "Errno 20]" in exc.error:
                raise NotADirectoryError(path) from exc
            raise
        return base64.b64decode(reply["content_b64"])

    async def write_file(self, path: str, content: bytes | str) -> None:
        data = content.encode() if isinstance(content, str) else content
        full = self._path(path)
        parent = full.rsplit("/", 1)[0] or "/"
        await self.server.call("create_dir", path=parent)
        await self.server.call("write_bytes", path=full, content_b64=base64.b64encode(data).decode())

    async def file_exists(self, path: str) -> bool:
        return bool((await self.server.call("file_exists", path=self._path(path)))["exists"])

    async def directory_exists(self, path: str) -> bool:
        return bool((await self.server.call("directory_exists", path=self._path(path)))["exists"])

    async def list_dir(self, path: str) -> list[str]:
        return sorted((await self.server.call("list_dir", path=self._path(path)))["files"])

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        home = shlex.quote(self.home)
        wrapped = f"cd {home} && HOME={home} timeout -k 1 {timeout:g} bash -c {shlex.quote(CLOSE_INHERITED + command)}"
        reply = await self.server.call("run_command", command=wrapped)
        return CommandResult(int(reply.get("return_code", 0)), reply.get("stdout", ""), reply.get("stderr", ""))

    def _clear(self, *, keep_home: bool = True) -> str:
        """The command that ends the apps this session started (their process groups) and empties its home.

        It runs in the server's ``/bin/sh`` (dash on Debian), whose ``kill`` takes no ``--``: with one it
        killed nothing, and every reset left the last episode's apps on the screen."""
        groups = " ".join(f"-{pid}" for pid in self.pids)
        self.pids = []
        home, noted = shlex.quote(self.home), shlex.quote(self.pid_file)
        kill = f"kill -TERM {groups} 2>/dev/null; sleep 0.2; kill -KILL {groups} 2>/dev/null; " if groups else ""
        return f"{kill}rm -rf {home} {noted}" + (f" && mkdir -p {home} && : > {noted}" if keep_home else "")

    async def reset(self, seed: int | None = None) -> None:
        """Apps ended, home emptied, the pointer centred."""
        await self.server.call("run_command", command=self._clear())
        await self.server.call("move_cursor", x=self.width // 2, y=self.height // 2)

    def close(self) -> None:
        """At exit of the env server: leave nothing of the environment on the server's computer."""
        atexit.unregister(self.close)
        with contextlib.suppress(CuaError):
            call_once(self.server.url, "run_command", command=self._clear(keep_home=False))
