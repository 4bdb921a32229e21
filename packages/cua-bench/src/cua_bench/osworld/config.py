"""OSWorld's setup and postconfig steps, done through a Session so they work on any backend.

OSWorld sends each step to a Flask server in its VM; here each becomes Session calls:
``execute``/``command`` and ``launch``/``open`` run through ``session.run_command`` (a backend
without a shell skips such tasks), ``download``/``upload_file`` write with ``session.write_file``
(from a local path, a loopback URL or the local mirror only), ``activate_window``/``close_window``
use ``wmctrl`` as OSWorld does when the computer has it, else the window list and unified actions
(a click on the title bar; alt+F4), and ``sleep`` sleeps.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench.osworld.loader import Step, TaskSkipped, substitute
from cua_bench.osworld.sources import classify, read_source
from cua_bench.session import CommandResult, NotSupported, Session
from cua_bench.tasks import TaskError
from cua_core.actions import Click, KeyPress, Point

__all__ = ["PASSWORD_ENV", "STEPS", "Context", "cached", "find_window", "has_shell", "run_steps", "shell_command"]

log = logging.getLogger(__name__)

PASSWORD_ENV = "CUA_OSWORLD_PASSWORD"  # OSWorld's {CLIENT_PASSWORD}; its images use "password"
_TITLE_BAR_PX = 15  # a click this far below a window's top edge lands on its title bar


@dataclass
class Context:
    """What steps and getters work with: the computer, the task's folder, the episode's cache."""

    session: Session
    task_dir: Path
    cache_dir: Path
    mirror: Path | None = None
    password: str = field(default_factory=lambda: os.environ.get(PASSWORD_ENV, "password"))
    open_timeout: float = 30.0  # how long ``open`` waits for the file's window
    command_timeout: float = 120.0  # OSWorld's server gives commands two minutes


def cached(ctx: Context, name: str) -> Path:
    """``name`` in the episode's cache folder; a name that climbs out of it keeps its last part only."""
    path = ctx.cache_dir / name
    if not path.resolve().is_relative_to(ctx.cache_dir.resolve()):
        return ctx.cache_dir / Path(name).name
    return path


async def has_shell(session: Session) -> bool:
    try:
        await session.run_command("true", timeout=10)
    except NotSupported:
        return False
    return True


def shell_command(command: str | list[str]) -> str:
    """A command as one shell line: lists are quoted word by word; strings are already shell."""
    return command if isinstance(command, str) else shlex.join(str(c) for c in command)


async def _run(ctx: Context, command: str) -> CommandResult:
    try:
        return await ctx.session.run_command(command, timeout=ctx.command_timeout)
    except NotSupported as exc:
        raise TaskSkipped("backend has no shell") from exc


# -- the steps ----------------------------------------------------------------------------------


async def _execute(
    ctx: Context,
    command: str | list[str],
    stdout: str = "",
    stderr: str = "",
    shell: bool = False,
    until: dict[str, Any] | None = None,
    **_: Any,
) -> None:
    if not command:
        raise ValueError("execute: empty command")
    width, height = ctx.session.width, ctx.session.height
    line = shell_command(substitute(command, width=width, height=height, password=ctx.password))
    until = until or {}
    deadline = time.monotonic() + 60
    while True:
        result = await _run(ctx, line)
        if result.returncode:
            log.info("execute %r exited %d: %s", line, result.returncode, result.stderr.strip()[:200])
        if stdout:
            cached(ctx, stdout).write_text(result.stdout)
        if stderr:
            cached(ctx, stderr).write_text(result.stderr)
        done = (
            not until
            or ("returncode" in until and result.returncode == until["returncode"])
            or ("stdout" in until and until["stdout"] in result.stdout)
            or ("stderr" in until and until["stderr"] in result.stderr)
        )
        if done or time.monotonic() > deadline:
            return
        await asyncio.sleep(0.3)


async def _launch(ctx: Context, command: str | list[str], shell: bool = False, **_: Any) -> None:
    if not command:
        raise ValueError("launch: empty command")
    # Started in the background, as OSWorld's server does with Popen.
    await _run(ctx, f"nohup sh -c {shlex.quote(shell_command(command))} >/dev/null 2>&1 &")


async def _open(ctx: Context, path: str, **_: Any) -> None:
    if not path:
        raise ValueError("open: empty path")
    await _run(ctx, f"nohup xdg-open {shlex.quote(path)} >/dev/null 2>&1 &")
    # OSWorld's server waits for the file's window; so do we, for a while.
    name = os.path.basename(path).lower()
    deadline = time.monotonic() + ctx.open_timeout
    while time.monotonic() < deadline:
        if any(name in str(w.get("title", "")).lower() for w in await ctx.session.windows()):
            return
        await asyncio.sleep(0.5)
    log.info("open %s: no window with that name appeared in %.0f s", path, ctx.open_timeout)


async def _sleep(ctx: Context, seconds: float, **_: Any) -> None:
    await asyncio.sleep(float(seconds))


async def _download(ctx: Context, files: list[dict[str, str]], **_: Any) -> None:
    for entry in files:
        url, path = entry.get("url", ""), entry.get("path", "")
        if not url or not path:
            raise ValueError(f"download: invalid url ({url!r}) or path ({path!r})")
        source = classify(url, base=ctx.task_dir, mirror=ctx.mirror)
        await ctx.session.write_file(path, await read_source(source))


async def _upload_file(ctx: Context, files: list[dict[str, str]], **_: Any) -> None:
    for entry in files:
        local = Path(entry["local_path"])
        local = local if local.is_absolute() else ctx.task_dir / local
        await ctx.session.write_file(entry["path"], await asyncio.to_thread(local.read_bytes))


async def find_window(
    session: Session, name: str, *, strict: bool = False, by_class: bool = False
) -> dict[str, Any] | None:
    """wmctrl's matching: by title (or app, ``by_class``), exactly if ``strict``, else a case-blind substring."""
    for window in await session.windows():
        text = str(window.get("app" if by_class else "title") or "")
        if (text == name) if strict else (name.lower() in text.lower()):
            return window
    return None


async def _wmctrl(ctx: Context, action: str, name: str, strict: bool, by_class: bool) -> bool:
    try:
        flags = f"-{'x' if by_class else ''}{'F' if strict else ''}{action}"
        result = await ctx.session.run_command(shlex.join(["wmctrl", flags, name]), timeout=10)
    except NotSupported:
        return False
    return result.returncode == 0


async def _focus(ctx: Context, window: dict[str, Any]) -> None:
    left, top, right, bottom = window["bounds"]
    y = min(top + _TITLE_BAR_PX * 1000 / max(1, ctx.session.height), (top + bottom) / 2)
    await ctx.session.apply([Click(Point((left + right) / 2, y))])


async def _activate_window(
    ctx: Context, window_name: str, strict: bool = False, by_class: bool = False, **_: Any
) -> None:
    if await _wmctrl(ctx, "a", window_name, strict, by_class):
        return
    window = await find_window(ctx.session, window_name, strict=strict, by_class=by_class)
    if window is None:
        log.info("activate_window: no window %r", window_name)  # OSWorld logs and goes on, too
        return
    if not window.get("focused"):
        await _focus(ctx, window)


async def _close_window(ctx: Context, window_name: str, strict: bool = False, by_class: bool = False, **_: Any) -> None:
    if await _wmctrl(ctx, "c", window_name, strict, by_class):
        return
    window = await find_window(ctx.session, window_name, strict=strict, by_class=by_class)
    if window is None:
        log.info("close_window: no window %r", window_name)
        return
    if not window.get("focused"):
        await _focus(ctx, window)
    await ctx.session.apply([KeyPress(("alt", "f4"))])


STEPS: dict[str, Callable[..., Awaitable[None]]] = {
    "execute": _execute,
    "command": _execute,
    "launch": _launch,
    "open": _open,
    "sleep": _sleep,
    "download": _download,
    "upload_file": _upload_file,
    "activate_window": _activate_window,
    "close_window": _close_window,
}


async def run_steps(steps: list[Step], ctx: Context) -> None:
    """Each step in order; one we lack is a skip (the support check finds those beforehand)."""
    for i, step in enumerate(steps):
        handler = STEPS.get(step.type)
        if handler is None:
            raise TaskSkipped(f"unsupported config step: {step.type}")
        try:
            await handler(ctx, **step.parameters)
        except TaskSkipped:
            raise
        except NotSupported as exc:
            raise TaskSkipped(f"backend cannot do step {step.type}: {exc}") from exc
        except Exception as exc:
            raise TaskError(f"step {i + 1} ({step.type}) failed: {type(exc).__name__}: {exc}") from exc
