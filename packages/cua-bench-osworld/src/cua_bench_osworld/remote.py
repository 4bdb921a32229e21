"""Running ``on_computer.py`` on the computer through the Session, for the getters that speak HTTP to its apps.

Its failures are the computer's: a missing ``python3`` or a program that crashed is a ``PlatformError``
naming it, a backend without a shell a skip, never a value a metric would score.
"""

from __future__ import annotations

import functools
import json
import shlex
from pathlib import Path
from typing import Any

from cua_bench import NotSupported, Session
from cua_bench_osworld.loader import PlatformError, TaskSkipped

__all__ = ["on_computer"]


@functools.cache
def _program() -> str:
    """on_computer.py's source, read once: every getter and step call sends it."""
    return Path(__file__).with_name("on_computer.py").read_text()


async def on_computer(session: Session, args: dict[str, Any], timeout: float) -> dict[str, Any]:
    """What ``on_computer.py`` answers to ``args`` (its ``main``), run with the computer's python3."""
    source = _program()
    line = f"python3 -c {shlex.quote(source)} {shlex.quote(json.dumps(args))}"
    try:
        result = await session.run_command(line, timeout=timeout)
    except NotSupported as exc:
        raise TaskSkipped("backend has no shell") from exc
    what = f"{args['op']} on the computer"
    if result.returncode in (126, 127):
        raise PlatformError(f"{what}: python3 is not on this computer (exit {result.returncode})")
    last = (result.stdout.strip().splitlines() or [""])[-1]
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or ["no output on stderr"])[-1]
        raise PlatformError(f"{what} failed (exit {result.returncode}): {why[:300]}")
    try:
        answer = json.loads(last)
    except ValueError as exc:
        raise PlatformError(f"{what} answered no JSON: {last[:200]!r}") from exc
    if not isinstance(answer, dict):
        raise PlatformError(f"{what} answered {type(answer).__name__}, not an object")
    return answer
