"""The memory of one idle env server process (``python -m cua_bench.server``), as its backend starts it.

Issue 36 wants a ``local`` desktop at <= 40 MiB idle, and the env server's own Python process is most of
it. For each backend (``sim``; ``local`` where Xvfb is installed) this provisions one server the way the
runner does (``Backend.provision``), reads its memory once it is ready, then plays an episode through
``client_for`` (a reset, a few steps that change the screen, RGB frames through shared memory, the
client's default) and reads it again after the server has idled 2 s — an env that has served is what
sits in a pool, so that figure is the one that counts.

Figures, from the server process's ``/proc/PID/smaps_rollup`` (MiB):

- ``uss``: Private_Clean + Private_Dirty, what this process alone maps; its file-backed clean part
  (libpython, numpy's and OpenSSL's libraries) would be shared by the next server on the host;
- ``dirty``: Private_Dirty, the anonymous heap and module objects every further server pays in full;
- ``pss``: Pss, this process's share of everything it maps.

The baseline is the server at start, in the same run. The ``local`` server is the Python process only
(not Xvfb nor the window manager: bench/env.py measures a whole desktop).

Last line: ``sim_start_uss_mib=… sim_start_dirty_mib=… sim_start_pss_mib=… sim_idle_uss_mib=…
sim_idle_dirty_mib=… sim_idle_pss_mib=… sim_modules=…`` and the same ``local_…`` figures where it ran.
Run: .venv/bin/python bench/server_memory.py [--no-local] [--steps N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

from cua_bench.backends.base import Backend, Computer
from cua_bench.conformance import CONFORMANCE_TASK
from cua_bench.connect import client_for
from cua_core import Click, Point, TypeText

SIM_TASK = "sim/click-button"
IDLE_S = 2.0


def _rollup(pid: int) -> dict[str, float]:
    """The smaps_rollup fields we report, in MiB."""
    fields: dict[str, float] = {}
    with open(f"/proc/{pid}/smaps_rollup") as smaps:
        for line in smaps:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                fields[parts[0].rstrip(":")] = int(parts[1]) / 1024
    return {
        "uss": fields["Private_Clean"] + fields["Private_Dirty"],
        "dirty": fields["Private_Dirty"],
        "pss": fields["Pss"],
    }


def _server_pid(computer: Computer) -> int:
    """The Python process of the server: the provisioned pid, or the one it wraps (``local`` runs the
    server under ``unshare``, which may fork), found as the deepest descendant running cua_bench.server."""
    pid = int(computer.info["pid"])
    found = pid
    queue = [pid]
    while queue:
        current = queue.pop()
        children = Path(f"/proc/{current}/task/{current}/children")
        if not children.exists():
            continue
        for child in map(int, children.read_text().split()):
            with open(f"/proc/{child}/cmdline", "rb") as cmd:
                if b"cua_bench.server" in cmd.read():
                    found = child
            queue.append(child)
    return found


def _modules(pid: int) -> int:
    """How many shared objects (``.so``) the process maps: a rough count of native extensions loaded."""
    with open(f"/proc/{pid}/maps") as maps:
        return len({line.split()[-1] for line in maps if ".so" in line.rsplit("/", 1)[-1]})


def measure(backend: Backend, task: str, steps: int) -> dict[str, float]:
    """Start one server, read it, play one episode, idle, read it again; the server is torn down."""
    figures: dict[str, float] = {}
    computer = backend.provision(width=1280, height=800)
    try:
        pid = _server_pid(computer)
        time.sleep(0.5)  # the ready line comes before the server's last start-up allocations settle
        figures.update({f"start_{key}_mib": value for key, value in _rollup(pid).items()})
        with client_for(computer) as env:
            env.reset(options={"task": task, "observes": "rgb"})
            for i in range(steps):
                # Alternate a click and typing, so every step changes (and so renders) the screen.
                env.step([Click(Point(300 + 10 * i, 120))] if i % 2 == 0 else [TypeText("x")])
            env.evaluate()
            time.sleep(IDLE_S)
            figures.update({f"idle_{key}_mib": value for key, value in _rollup(pid).items()})
            figures["shared_objects"] = _modules(pid)
    finally:
        backend.teardown(computer)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-local", action="store_true", help="skip the local backend even where Xvfb is")
    parser.add_argument("--steps", type=int, default=6, help="steps in the episode (default 6)")
    args = parser.parse_args()

    from cua_bench.backends.sim import SimBackend

    results: dict[str, float] = {}
    runs: list[tuple[str, Backend, str]] = [("sim", SimBackend(), SIM_TASK)]
    if not args.no_local and shutil.which("Xvfb"):
        from cua_bench.backends.local import LocalBackend

        runs.append(("local", LocalBackend(), str(CONFORMANCE_TASK)))
    else:
        print("local: skipped (no Xvfb on PATH, or --no-local)")
    for name, backend, task in runs:
        figures = measure(backend, task, args.steps)
        print(f"{name} (pid's own memory, MiB):")
        for when in ("start", "idle"):
            row = "  ".join(f"{key}={figures[f'{when}_{key}_mib']:.1f}" for key in ("uss", "dirty", "pss"))
            print(f"  after {'start' if when == 'start' else 'an episode + 2 s idle':24s} {row}")
        results.update({f"{name}_{key}": value for key, value in figures.items()})
    print(
        " ".join(
            f"{key}={value:.1f}" if isinstance(value, float) else f"{key}={value}" for key, value in results.items()
        )
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("CUA_SIM_PIN", "0")  # one server: leave its placement to the scheduler
    raise SystemExit(main())
