"""Built-in tasksets: ``sim``, the families of the embedded desktop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cua_bench.hookspecs import hookimpl

SIM = Path(__file__).parent / "sim"


@hookimpl
def cua_bench_register_tasksets(register: Callable[..., None]) -> None:
    register("sim", SIM, description="MiniWoB-like and desktop-like families on the embedded desktop")
