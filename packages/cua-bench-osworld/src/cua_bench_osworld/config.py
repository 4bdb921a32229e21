"""OSWorld's setup and postconfig steps, done through a Session so they work on any backend.

OSWorld sends each step to a Flask server in its VM; here each becomes Session calls:
``execute``/``command`` and ``launch``/``open`` run through ``session.run_command`` (a backend
without a shell skips such tasks), ``download``/``upload_file`` write with ``session.write_file``
(from a local path, a loopback URL or the local mirror only), ``activate_window``/``close_window``
use ``wmctrl`` as OSWorld does when the computer has it, else the window list and unified actions
(a click on the title bar; alt+F4), ``sleep`` sleeps, and ``chrome_open_tabs``/``chrome_close_tabs``
talk to Chrome's DevTools port from the computer itself (``chrome.py``).

OSWorld's controller goes on after a step that did not do its job (a command that exited non-zero,
a window that never appeared); so do we, but each such step is recorded in ``Context.failures``
(which step, why) for the episode's info and the run's summary, instead of a log line nobody reads.
A postconfig step that fails because of the computer (a program or Python module it lacks) makes
the evaluation a ``PlatformError``: what follows it would score a state OSWorld's VM never leaves.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shlex
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench import CommandResult, NotSupported, Session, TaskError
from cua_bench_osworld.chrome import CHROME_STEPS
from cua_bench_osworld.loader import PlatformError, Step, TaskSkipped, substitute
from cua_bench_osworld.sources import classify, read_source
from cua_core import Click, KeyPress, Point

__all__ = [
    "PASSWORD_ENV",
    "STEPS",
    "Context",
    "StepFailure",
    "cached",
    "find_window",
    "has_shell",
    "missing_program",
    "platform_problem",
    "program_of",
    "run_shell",
    "run_steps",
    "shell_command",
]

log = logging.getLogger(__name__)

PASSWORD_ENV = "CUA_OSWORLD_PASSWORD"  # OSWorld's {CLIENT_PASSWORD}; its images use "password"
_TITLE_BAR_PX = 15  # a click this far below a window's top edge lands on its title bar


@dataclass(frozen=True)
class StepFailure:
    """A step that ran but did not do its job: which (phase, 1-based index, type) and why.

    ``platform``: the computer's fault (a program or module it lacks), not the task's.
    """

    phase: str  # "setup" or "postconfig"
    step: int
    type: str
    why: str
    platform: bool = False

    def __str__(self) -> str:
        return f"{self.phase} step {self.step} ({self.type}): {self.why}"


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
    until_timeout: float = 60.0  # how long ``execute`` repeats a command to meet its ``until``
    # Chrome (chrome.py): how long steps wait for its DevTools port (OSWorld: 15 tries 5 s apart), a
    # page to load (OSWorld's 60 s), Chrome started again by a getter (OSWorld: 5 s), and the pause
    # ``chrome_close_tabs`` makes first (OSWorld's 5 s).
    chrome_wait: float = 75.0
    page_timeout: float = 60.0
    relaunch_wait: float = 5.0
    close_delay: float = 5.0
    # The steps of this episode that did not do their job, in order (``run_steps`` appends).
    failures: list[StepFailure] = field(default_factory=list)
    # The step running now: (phase, 1-based index, type), for ``failed``.
    current: tuple[str, int, str] = ("setup", 0, "")

    def failed(self, why: str, *, platform: bool = False) -> None:
        """Record that the step running now did not do its job (and go on, as OSWorld does)."""
        phase, index, kind = self.current
        failure = StepFailure(phase, index, kind, why, platform)
        self.failures.append(failure)
        log.warning("%s", failure)


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


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NO_MODULE = re.compile(r"No module named '([^']+)'")


def program_of(command: str | list[str]) -> str | None:
    """The program a command starts (past ``VAR=value`` words); None when that is not plain to see
    (a shell line with a pipe or a compound, an unparsable quote)."""
    if isinstance(command, str):
        if any(c in command for c in "|;&$`(){}<>\n"):
            return None
        try:
            words = shlex.split(command)
        except ValueError:
            return None
    else:
        words = [str(w) for w in command]
    words = [w for w in words if w]
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    return words[0] if words else None


async def missing_program(session: Session, program: str) -> bool:
    """True when ``program`` (a name looked up on PATH, or a path) cannot be run on the computer."""
    probe = f"test -x {shlex.quote(program)}" if "/" in program else f"command -v {shlex.quote(program)}"
    try:
        result = await session.run_command(f"{probe} >/dev/null 2>&1", timeout=10)
    except NotSupported:
        return False  # no shell: the support check skips such tasks before they run
    return result.returncode != 0


def platform_problem(result: CommandResult) -> str | None:
    """Why a finished command's failure is the computer's: the shell found no such program (126,
    127), or Python lacks a module OSWorld's VM has (pyautogui, say). None for any other exit."""
    missing = _NO_MODULE.search(result.stderr)
    if missing is not None:
        return f"python lacks the module {missing.group(1)} (exit {result.returncode})"
    if result.returncode in (126, 127):
        last = result.stderr.strip().splitlines()[-1:] or [""]
        return f"exit {result.returncode}, the shell cannot run it: {last[0][:200]}".rstrip(": ")
    return None


async def run_shell(ctx: Context, command: str) -> CommandResult:
    """``command`` on the computer's shell; a backend without one makes the task a skip."""
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
    deadline = time.monotonic() + ctx.until_timeout
    while True:
        result = await run_shell(ctx, line)
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
            break
        await asyncio.sleep(0.3)
    problem = platform_problem(result)
    shown = line if len(line) <= 160 else line[:157] + "..."
    if problem is not None:
        ctx.failed(f"`{shown}`: {problem}", platform=True)
    elif until and not done:
        ctx.failed(f"`{shown}` did not reach {until} in {ctx.until_timeout:g} s (last exit {result.returncode})")
    elif not until and result.returncode:
        why = result.stderr.strip().splitlines()[-1:] or ["no output on stderr"]
        ctx.failed(f"`{shown}` exited {result.returncode}: {why[0][:200]}")


async def _launch(ctx: Context, command: str | list[str], shell: bool = False, **_: Any) -> None:
    if not command:
        raise ValueError("launch: empty command")
    # Started in the background, as OSWorld's server does with Popen, so its exit is never seen:
    # a program the computer lacks is checked for first.
    program = program_of(command)
    if program is not None and await missing_program(ctx.session, program):
        ctx.failed(f"{program} is not on this computer (launch {shell_command(command)[:120]})", platform=True)
        return
    await run_shell(ctx, f"nohup sh -c {shlex.quote(shell_command(command))} >/dev/null 2>&1 &")


async def _open(ctx: Context, path: str, **_: Any) -> None:
    if not path:
        raise ValueError("open: empty path")
    if await missing_program(ctx.session, "xdg-open"):
        ctx.failed(f"xdg-open is not on this computer (open {path})", platform=True)
        return
    await run_shell(ctx, f"nohup xdg-open {shlex.quote(path)} >/dev/null 2>&1 &")
    # OSWorld's server waits for the file's window; so do we, for a while.
    name = os.path.basename(path).lower()
    deadline = time.monotonic() + ctx.open_timeout
    while time.monotonic() < deadline:
        if any(name in str(w.get("title", "")).lower() for w in await ctx.session.windows()):
            return
        await asyncio.sleep(0.5)
    ctx.failed(f"no window named like {name!r} appeared in {ctx.open_timeout:.0f} s (open {path})")


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
        ctx.failed(f"no window {window_name!r}")  # OSWorld logs and goes on, too
        return
    if not window.get("focused"):
        await _focus(ctx, window)


async def _close_window(ctx: Context, window_name: str, strict: bool = False, by_class: bool = False, **_: Any) -> None:
    if await _wmctrl(ctx, "c", window_name, strict, by_class):
        return
    window = await find_window(ctx.session, window_name, strict=strict, by_class=by_class)
    if window is None:
        ctx.failed(f"no window {window_name!r}")
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
    **CHROME_STEPS,
}


async def run_steps(steps: list[Step], ctx: Context, phase: str = "setup") -> None:
    """Each step in order; one we lack is a skip (the support check finds those beforehand).

    ``phase``: "setup" (the task's ``config``) or "postconfig" (the evaluator's, before scoring).
    A step that raises stops the episode: a bad parameter is the task's error (``TaskError``),
    anything else the computer's (``PlatformError``: a refused path, a failed write). A step that
    runs but fails is recorded in ``ctx.failures``; in postconfig, one that failed because of the
    computer raises ``PlatformError``.
    """
    for i, step in enumerate(steps):
        handler = STEPS.get(step.type)
        if handler is None:
            raise TaskSkipped(f"unsupported config step: {step.type}")
        ctx.current = (phase, i + 1, step.type)
        before = len(ctx.failures)
        try:
            await handler(ctx, **step.parameters)
        except (TaskSkipped, PlatformError):
            raise
        except NotSupported as exc:
            raise TaskSkipped(f"backend cannot do step {step.type}: {exc}") from exc
        except (ValueError, TypeError, KeyError) as exc:
            raise TaskError(f"{phase} step {i + 1} ({step.type}) failed: {type(exc).__name__}: {exc}") from exc
        except Exception as exc:
            raise PlatformError(f"{phase} step {i + 1} ({step.type}) failed: {type(exc).__name__}: {exc}") from exc
        if phase == "postconfig":
            platform = [f for f in ctx.failures[before:] if f.platform]
            if platform:
                raise PlatformError(f"{platform[0]}; the state it leaves cannot be scored as OSWorld scores it")
