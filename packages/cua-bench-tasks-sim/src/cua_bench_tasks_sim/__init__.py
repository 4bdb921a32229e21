"""The ``sim`` taskset: MiniWoB-like and desktop-like task families on cua-bench's embedded desktop.

One folder per task family (``click-button/main.py``; the ``phone`` taskset's are in ``phone/``),
registered through cua-bench's ``cua_bench_register_tasksets`` hook, as a third party's taskset is.
The ``_*.py`` modules are what the families share (form and widget builders, the desktop families'
common checks); ``_phone`` holds the phone's apps and what its families share.
"""

from __future__ import annotations

from pathlib import Path

from cua_bench import hookimpl
from cua_core import Register

__all__ = ["FOLDER", "cua_bench_register_tasksets"]

FOLDER = Path(__file__).parent


@hookimpl
def cua_bench_register_tasksets(register: Register[str | Path]) -> None:
    register("sim", FOLDER, description="MiniWoB-like and desktop-like families on the embedded desktop")
    register("phone", FOLDER / "phone", description="phone apps on the embedded surface (portrait, touch)")
