"""The ``desktop`` taskset: tasks on real Debian apps (xterm, Mousepad, Gnumeric, PCManFM, Chromium).

One folder per task (``xterm-copy-file/main.py``), run on the ``local`` backend (or ``docker``),
registered through cua-bench's ``cua_bench_register_tasksets`` hook, as a third party's taskset is.
The ``_*.py`` modules are what the tasks share: app drivers, the web server and DevTools account of
the Chromium tasks, the workbook checks of the Gnumeric tasks.
"""

from __future__ import annotations

from pathlib import Path

from cua_bench import hookimpl
from cua_core import Register

__all__ = ["FOLDER", "cua_bench_register_tasksets"]

FOLDER = Path(__file__).parent


@hookimpl
def cua_bench_register_tasksets(register: Register[str | Path]) -> None:
    register(
        "desktop",
        FOLDER,
        description="Real Debian apps (xterm, Mousepad, Gnumeric, PCManFM, Chromium) on the local backend",
    )
