"""Built-in tasksets: ``sim``, the families of the embedded desktop, and ``desktop``, real Linux apps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cua_bench.hookspecs import hookimpl

SIM = Path(__file__).parent / "sim"
DESKTOP = Path(__file__).parent / "desktop"


@hookimpl
def cua_bench_register_tasksets(register: Callable[..., None]) -> None:
    register("sim", SIM, description="MiniWoB-like and desktop-like families on the embedded desktop")
    register(
        "desktop",
        DESKTOP,
        description="Real Debian apps (xterm, Mousepad, Gnumeric, PCManFM, Chromium) on the local backend",
    )
