"""Scale, measured in one run: how many environments one computer holds, per backend, and where it bends.

For the backends ``sim`` (an env server process each), ``local`` (a real Xvfb desktop each: env server,
Xvfb, openbox and its D-Bus session bus) and ``docker`` (the same desktop in a container; an engine
and image as bench/env.py gets them, skipped with the reason when there is none), N environments come
up for N in 1, 4, 16, 64, 128, 256, one level after the other (each level started fresh), and each level
prints one row:

- start: all N provisioned and reset (``observes: none``), wall time, and per env (that / N, and the
  p50 of one provision while the others start: 4 at a time);
- idle memory per env: the PSS of all of an env's processes (shared pages counted once; bench/env.py's
  PSS helper), / N; beside it MemAvailable's drop / N, which also holds what PSS cannot see (kernel
  memory of namespaces and sockets, tmpfs contents, the container engine);
- idle CPU: /proc CPU time of all env processes over ``--idle-seconds`` while nothing steps, as % of
  one core, for all N together;
- file descriptors, processes and threads of all env processes (and the bench's own descriptors);
- steps/s in total with all N stepping (one client thread each, each step a 1280x800 RGB frame through
  shared memory, ``--seconds``), per env, the ratio to N=1 (the baseline, measured in the same run),
  p99 step latency and the PSS after stepping. ``local`` and ``docker`` step without settling
  (``CUA_LOCAL_SETTLE_MAX=0``: input + capture), ``sim`` alternates a click and a character in a form;
- under each row: the idle PSS per env and the idle CPU by process name (python, Xvfb, openbox,
  dbus-daemon, containerd-shim ...), and the CPU of the envs and of the clients (this process) while
  stepping.

A backend stops growing N at the first level that fails (the first error, classified from the error
itself and the servers' log: descriptors, processes, displays, socket paths, D-Bus, memory, timeouts)
or that the memory guard refuses (a level whose projected memory exceeds MemAvailable - 2 GiB; the
projection is shared + N x MiB/env fitted to the last two levels that passed, a level's MiB/env being
the larger of its PSS idle or stepping and, from 16 envs, MemAvailable's drop). Then it says where it
bends and why, CPU saturation included (steps/s per env against N=1, and the CPU of the envs and of
the clients while stepping). ``<backend>_max_envs_24g`` is the largest N that came up and stepped
without an error (``_basis=measured``; when every level passed, the limit lies above it); only when the
guard stopped it is it projected to 24 GiB (22 GiB for environments) from that fit (``_basis=projected``).

``--sim-many 1000``: sim environments for RL, frames in shared memory, as many as the memory guard
allows up to 1,000, ``--per-server K`` of them in each sim host process as the sim backend places them
(its option ``per_server``; default 64, and 1 is an env server process each), one client each in this
process (one ZeroMQ context), each reset and stepped; their MiB/env, idle CPU and steps/s with all of
them driven by 32 threads. Beside it, what other layouts would need: N sim sessions in one process
(no servers at all) and N servers forked from one parent that imported everything first.

Targets (issue 36): 256 local desktops on 24 GiB, each <= 40 MiB idle; idle CPU <= 2% of a core for 64
idle desktops; sim: 1,000 at once.

Last line: ``local_max_envs_24g=… docker_max_envs_24g=… sim_max_envs_24g=… local_idle_mib_at_256=…
local_idle_cpu_pct_at_64=…`` (``na`` where not measured), ``<backend>_max_envs_24g_basis=measured|projected``
and ``<backend>_max_envs_measured``, plus the figures of every level. Run:
nice -n 19 .venv/bin/python bench/scale.py [--n 1,4,16] [--only sim,local] [--quick] [--sim-many 1000 [--per-server 64]]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import json
import math
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from env import TASK, _actions, _pct, _pss_mib, docker_backend

from cua_bench.backends.base import Backend, Computer
from cua_bench.client import EnvClient
from cua_bench.conformance import CONFORMANCE_TASK
from cua_core.actions import Action, Click, Point

LEVELS = (1, 4, 16, 64, 128, 256)
RESERVE_MIB = 2048  # the guard leaves this much of MemAvailable
SIZE = [1280, 800]  # every environment's screen (--size); the last line names it
MACHINE_MIB = 24 * 1024  # the machine the _24g figures are for
FIRST_GUESS_MIB = {"sim": 70.0, "local": 80.0, "docker": 100.0}  # MiB/env before any level measured it
START_WORKERS = 4  # provisions at once: the waits (Xvfb, a container) overlap, the imports share 2 cores
TICK = os.sysconf("SC_CLK_TCK")


def mem_available_mib() -> float:
    with open("/proc/meminfo") as info:
        for line in info:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# What a failure names, first match wins: the resource and how to read it.
CAUSES: tuple[tuple[str, str], ...] = (
    (r"Too many open files|EMFILE", "file descriptors"),
    (r"Cannot allocate memory|ENOMEM|MemoryError|OOM|out of memory", "memory"),
    (r"can't start new thread|Resource temporarily unavailable|EAGAIN|BlockingIOError|[Cc]annot fork", "processes"),
    (r"No space left on device|ENOSPC|no memory for a frame slot", "space on a tmpfs (/dev/shm, /tmp)"),
    (r"too long|unix socket limit|path length", "ipc socket path length"),
    (r"Fatal server error|no free display|X11-unix|[Cc]annot establish any listening", "X displays (Xvfb)"),
    (r"dbus-daemon|[Dd]-[Bb]us|DBus", "D-Bus"),
    (r"did not start within|did not report|timed out|[Tt]imeout|did not answer|could not send|no reply", "time"),
    (r"Xvfb|display", "X displays (Xvfb)"),
)


def why(error: str, log: str, fds: int) -> str:
    """The first failing resource, named from the error and the servers' log, with the limit in force; ``fds``:
    the descriptors this process held when it failed."""
    text = f"{error}\n{log}"
    resource_name = next((name for pattern, name in CAUSES if re.search(pattern, text)), None)
    if resource_name is None:
        return f"unclassified: {error}"
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if resource_name == "file descriptors":
        import zmq

        sockets = zmq.Context.instance().get(zmq.MAX_SOCKETS)
        mine = fds
        limit = (
            f"this process holds {mine} of ulimit -n {nofile}"
            if mine > nofile * 0.9
            else f"ZeroMQ's {sockets} sockets per context (this process holds {mine} fds of ulimit -n {nofile})"
            if "zmq" in text.lower() or "ZMQ" in text
            else f"ulimit -n {nofile} (per process; this one holds {mine})"
        )
        return f"{resource_name}: {limit}"
    if resource_name == "processes":
        return (
            f"{resource_name}: ulimit -u {resource.getrlimit(resource.RLIMIT_NPROC)[0]}, pid_max "
            + Path("/proc/sys/kernel/pid_max").read_text().strip()
        )
    if resource_name == "memory":
        return f"{resource_name}: MemAvailable {mem_available_mib():.0f} MiB now"
    if resource_name == "time":
        load = os.getloadavg()[0]
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        return f"time: a start or step timed out, with load {load:.1f} on {os.cpu_count()} cores (CPU saturation" + (
            f"; these envs run at nice {nice}: other processes get the CPU first)" if nice > 0 else ")"
        )
    return resource_name


class ServerLog:
    """This process's stderr, and so every env server's (they inherit it), into a file: the actual error of
    a server that failed to start is there, and hundreds of servers' lines stay off the terminal."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "servers.log"
        self._file = open(self.path, "ab")  # noqa: SIM115 - lives as long as the run
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)

    def offset(self) -> int:
        return self.path.stat().st_size

    def errors_since(self, offset: int, most: int = 6) -> str:
        with open(self.path, "rb") as log:
            log.seek(offset)
            lines = log.read().decode(errors="replace").splitlines()
        found = [ln for ln in lines if re.search(r"Error|error|Traceback|[Ff]ailed|cannot|[Tt]oo many|[Kk]illed", ln)]
        return "\n".join(found[-most:])

    def close(self) -> None:
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.close()


@dataclass
class Level:
    backend: str
    n: int
    up: int = 0
    start_s: float = float("nan")
    provision_p50_s: float = float("nan")
    idle_mib: float = float("nan")  # PSS of all env processes / N
    system_mib: float = float("nan")  # MemAvailable drop / N
    busy_mib: float = float("nan")  # PSS after stepping / N
    idle_cpu_pct: float = float("nan")
    fds: int = 0
    procs: int = 0
    threads: int = 0
    own_fds: int = 0
    steps_per_s: float = float("nan")
    p99_ms: float = float("nan")
    load: float = float("nan")
    error: str | None = None
    cause: str | None = None
    guard: str | None = None
    failed_fds: int = 0  # this process's descriptors when the first error came
    by_process: dict[str, float] = field(default_factory=dict)  # idle PSS by process name, all envs
    cpu_by_process: dict[str, float] = field(default_factory=dict)  # idle CPU % by process name, all envs
    env_cpu_pct: float = float("nan")  # all env processes while stepping, % of one core
    client_cpu_pct: float = float("nan")  # this process (every client thread) while stepping

    @property
    def ok(self) -> bool:
        return self.error is None and self.guard is None and self.up == self.n

    def mib_per_env(self) -> float:
        """What one more env costs: the larger of its PSS (idle or stepping) and, from 16 envs on (below, other
        processes' churn swamps it), MemAvailable's drop, which also holds kernel and engine memory."""
        system = self.system_mib if self.n >= 16 else float("nan")
        values = [v for v in (self.idle_mib, self.busy_mib, system) if not math.isnan(v)]
        return max(values) if values else float("nan")


@dataclass
class Cost:
    """Memory as ``fixed + n * per_env`` MiB, fitted to the last two levels that passed; from one level,
    ``per_env`` alone (which counts the shared pages in full, so it overestimates: a safe guard)."""

    fixed: float
    per_env: float

    def at(self, n: int) -> float:
        return self.fixed + n * self.per_env

    def most(self, mib: float) -> int:
        return int((mib - self.fixed) / self.per_env)

    def __str__(self) -> str:
        return f"{self.per_env:.1f} MiB/env" + (f" + {self.fixed:.0f} MiB shared" if self.fixed else "")


def cost_of(name: str, levels: list[Level]) -> Cost:
    done = [lv for lv in levels if lv.ok]
    if not done:
        return Cost(0.0, FIRST_GUESS_MIB[name])
    last = done[-1]
    if len(done) == 1:
        return Cost(0.0, last.mib_per_env())
    first = done[-2]
    per_env = (last.n * last.mib_per_env() - first.n * first.mib_per_env()) / (last.n - first.n)
    fixed = last.n * last.mib_per_env() - last.n * per_env
    return Cost(fixed, per_env) if per_env > 0 and fixed >= 0 else Cost(0.0, last.mib_per_env())


@dataclass
class Fleet:
    """N computers of one backend, each with the backend instance that made it (LocalBackend is not safe to
    share between threads that provision)."""

    name: str
    make: Callable[[], Backend]
    computers: list[tuple[Backend, Computer]] = field(default_factory=list)
    _local: threading.local = field(default_factory=threading.local)

    def backend(self) -> Backend:
        if not hasattr(self._local, "backend"):
            self._local.backend = self.make()
        return self._local.backend  # type: ignore[no-any-return]

    def teardown(self) -> None:
        with ThreadPoolExecutor(START_WORKERS) as pool:
            list(pool.map(lambda bc: _quiet_teardown(*bc), self.computers))
        self.computers.clear()


def _quiet_teardown(backend: Backend, computer: Computer) -> None:
    try:
        backend.teardown(computer)
    except Exception as exc:  # a teardown that fails must not keep the others from running
        print(f"  teardown of {computer.address} failed: {exc}")


def _proc_table() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, uid) of every process, from one pass over /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        ppid = uid = -1
        try:
            with open(f"/proc/{name}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"PPid:"):
                        ppid = int(line.split()[1])
                    elif line.startswith(b"Uid:"):
                        uid = int(line.split()[1])
                        break
        except OSError:
            continue
        table[int(name)] = (ppid, uid)
    return table


def _read(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


def env_pids(fleet: Fleet) -> list[set[int]]:
    """Each environment's processes: a sim server and its children; a local env's uid (isolated, with the fork
    server that forked it) or marker (sharing the host); a container's processes (by cgroup) and its
    containerd shim (by its command line)."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    by_uid: dict[int, list[int]] = {}
    for pid, (ppid, uid) in table.items():
        children.setdefault(ppid, []).append(pid)
        by_uid.setdefault(uid, []).append(pid)
    by_key: dict[str, set[int]] = {}
    if fleet.name == "docker":
        for pid in table:
            for ident in set(re.findall(r"[0-9a-f]{64}", _read(f"/proc/{pid}/cgroup") + _read(f"/proc/{pid}/cmdline"))):
                by_key.setdefault(ident, set()).add(pid)
    elif any("root" in c.info for _, c in fleet.computers):
        for pid in table:
            for entry in _read(f"/proc/{pid}/environ").split("\0"):
                if entry.startswith("CUA_LOCAL_ENV="):
                    by_key.setdefault(entry.partition("=")[2], set()).add(pid)

    def tree(root: int) -> set[int]:
        found, todo = set(), [root]
        while todo:
            pid = todo.pop()
            found.add(pid)
            todo += children.get(pid, [])
        return found

    result = []
    for _, computer in fleet.computers:
        if fleet.name == "docker":
            result.append(by_key.get(computer.handle.id, set()))
        elif "uid" in computer.info:
            # and the fork server it was forked from (cua_bench.backends.local.forkserver): shared by all,
            # counted once in the union, so spread over N
            parent = table.get(computer.handle.pid, (os.getpid(), 0))[0]
            shared = {parent} if parent != os.getpid() else set()
            result.append({computer.handle.pid, *by_uid.get(computer.info["uid"], []), *shared})
        elif "root" in computer.info:
            result.append(tree(computer.handle.pid) | by_key.get(computer.info["root"], set()))
        else:
            result.append(tree(computer.handle.pid))
    return result


def _cpu_ticks(pids: set[int]) -> dict[int, int]:
    ticks = {}
    for pid in pids:
        stat = _read(f"/proc/{pid}/stat")
        if stat:
            fields = stat.rsplit(")", 1)[1].split()
            ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
    return ticks


def idle_cpu_pct(groups: list[set[int]], seconds: float, by_name: dict[str, float] | None = None) -> float:
    """CPU time of every env process over ``seconds`` while nothing steps, as % of one core; ``by_name`` gets
    it by process name."""
    pids = set().union(*groups)
    start = time.perf_counter()
    before = _cpu_ticks(pids)
    time.sleep(seconds)
    after = _cpu_ticks(pids)
    elapsed = time.perf_counter() - start
    for pid in after:
        if by_name is not None:
            name = _read(f"/proc/{pid}/comm").strip() or "?"
            by_name[name] = by_name.get(name, 0.0) + (after[pid] - before.get(pid, 0)) / TICK / elapsed * 100
    return sum(after[p] - before.get(p, 0) for p in after) / TICK / elapsed * 100


def usage(groups: list[set[int]], by_name: dict[str, float] | None = None) -> tuple[float, int, int, int]:
    """PSS (MiB), descriptors, processes and threads of every env process; ``by_name`` gets the PSS by
    process name (``comm``)."""
    pss, fds, procs, threads = 0.0, 0, 0, 0
    for pid in set().union(*groups):
        with contextlib.suppress(OSError):
            mine = _pss_mib(pid)
            fds += len(os.listdir(f"/proc/{pid}/fd"))
            threads += int(_read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[17])
            procs += 1
            pss += mine
            if by_name is not None:
                name = _read(f"/proc/{pid}/comm").strip() or "?"
                by_name[name] = by_name.get(name, 0.0) + mine
    return pss, fds, procs, threads


def bring_up(fleet: Fleet, level: Level, task: Path, per_env_mib: float) -> None:
    """Provision ``level.n`` computers (``START_WORKERS`` at once) and reset each; stops at the first error,
    or when MemAvailable would fall under the reserve."""
    stop = threading.Event()
    took: list[float] = []
    lock = threading.Lock()

    def one(_: int) -> None:
        if stop.is_set():
            return
        if mem_available_mib() - per_env_mib < RESERVE_MIB:
            level.guard = f"MemAvailable {mem_available_mib():.0f} MiB reached the reserve mid-level"
            stop.set()
            return
        backend = fleet.backend()
        begin = time.perf_counter()
        try:
            computer = backend.provision(width=SIZE[0], height=SIZE[1], timeout=120)
        except Exception as exc:
            with lock:
                level.failed_fds = level.failed_fds or len(os.listdir("/proc/self/fd"))
                level.error = level.error or f"provision ({len(fleet.computers)} up): {type(exc).__name__}: {exc}"
            stop.set()
            return
        with lock:
            took.append(time.perf_counter() - begin)
            fleet.computers.append((backend, computer))
        try:
            with EnvClient(computer.address, step_timeout=120) as env:
                env.reset(options={"task": str(task), "observes": "none", "max_steps": 1_000_000})
        except Exception as exc:
            with lock:
                level.failed_fds = level.failed_fds or len(os.listdir("/proc/self/fd"))
                level.error = level.error or f"reset: {type(exc).__name__}: {exc}"
            stop.set()

    begin = time.perf_counter()
    with ThreadPoolExecutor(min(START_WORKERS, level.n)) as pool:
        list(pool.map(one, range(level.n)))
    level.start_s = time.perf_counter() - begin
    level.up = len(fleet.computers)
    level.provision_p50_s = statistics.median(took) if took else float("nan")


def step_all(fleet: Fleet, level: Level, task: Path, seconds: float) -> None:
    """Every env stepping at once, one client thread each, for ``seconds``: total steps/s and p99."""
    sim = fleet.name == "sim"
    n = len(fleet.computers)
    latencies: list[list[float]] = [[] for _ in range(n)]
    ready, go, stop = threading.Semaphore(0), threading.Event(), threading.Event()
    errors: list[str] = []

    def act(i: int) -> list[Action]:
        return _actions(i) if sim else [Click(Point(400 + i % 200, 500))]

    def drive(index: int) -> None:
        times = latencies[index]
        try:
            with EnvClient(fleet.computers[index][1].address, step_timeout=120) as env:
                env.reset(options={"task": str(task), "observes": "rgb", "max_steps": 1_000_000})
                ready.release()
                go.wait()
                i = 0
                while not stop.is_set():
                    begin = time.perf_counter()
                    env.step(act(i))
                    times.append(time.perf_counter() - begin)
                    i += 1
        except Exception as exc:
            level.failed_fds = level.failed_fds or len(os.listdir("/proc/self/fd"))
            errors.append(f"step: {type(exc).__name__}: {exc}")
            ready.release()

    threads = [threading.Thread(target=drive, args=(i,), daemon=True) for i in range(n)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 300
    for _ in range(n):
        ready.acquire(timeout=max(0.0, deadline - time.monotonic()))
    go.set()
    time.sleep(min(1.0, seconds / 4))  # every env stepping
    pids = set().union(*env_pids(fleet))
    # CPU over its own window: reading 1,000 processes' /proc under load takes a while
    window = time.perf_counter()
    envs_before, mine_before = _cpu_ticks(pids), sum(os.times()[:2])
    before, begin = sum(len(t) for t in latencies), time.perf_counter()
    time.sleep(seconds)
    total = sum(len(t) for t in latencies) - before
    level.steps_per_s = total / (time.perf_counter() - begin)
    envs_after, mine_after = _cpu_ticks(pids), sum(os.times()[:2])
    window = time.perf_counter() - window
    level.client_cpu_pct = (mine_after - mine_before) / window * 100
    level.env_cpu_pct = sum(v - envs_before.get(p, 0) for p, v in envs_after.items()) / TICK / window * 100
    level.own_fds = len(os.listdir("/proc/self/fd"))  # a client each, open
    level.busy_mib = usage(env_pids(fleet))[0] / max(1, n)
    stop.set()
    for thread in threads:
        thread.join(150)
    every = [x for t in latencies for x in t]
    level.p99_ms = _pct(every, 0.99) * 1000 if every else float("nan")
    if errors:
        level.error = level.error or errors[0]


def run_level(fleet: Fleet, n: int, task: Path, args: argparse.Namespace, cost: Cost, log: ServerLog) -> Level:
    level = Level(fleet.name, n)
    before = mem_available_mib()
    projected = cost.at(n)
    if projected > before - RESERVE_MIB:
        level.guard = (
            f"N={n} x {cost} = {projected / 1024:.1f} GiB > MemAvailable "
            f"{before / 1024:.1f} GiB - {RESERVE_MIB / 1024:.1f} GiB reserve"
        )
        return level
    offset = log.offset()
    try:
        bring_up(fleet, level, task, cost.per_env)
        if level.up:
            time.sleep(2.0)  # what the resets started has settled
            groups = env_pids(fleet)
            pss, level.fds, level.procs, level.threads = usage(groups, level.by_process)
            level.idle_mib = pss / level.up
            level.system_mib = (before - mem_available_mib()) / level.up
            level.idle_cpu_pct = idle_cpu_pct(groups, args.idle_seconds, level.cpu_by_process)
            if level.error is None and level.guard is None:
                step_all(fleet, level, task, args.seconds)
        level.load = os.getloadavg()[0]
    finally:
        fleet.teardown()
    if level.error is not None:
        level.cause = why(level.error, log.errors_since(offset), level.failed_fds)
    return level


def _f(value: float, digits: int = 1) -> str:
    return "—" if math.isnan(value) else f"{value:.{digits}f}"


HEADER = (
    f"{'backend':8s} {'N':>4s} {'up':>4s} {'start s':>8s} {'s/env':>6s} {'prov p50':>8s} {'steps/s':>8s} "
    f"{'x N=1':>6s} {'/env':>6s} {'p99 ms':>7s} {'idle MiB':>8s} {'sys MiB':>7s} {'busy MiB':>8s} "
    f"{'idle CPU%':>9s} {'fds':>6s} {'procs':>5s} {'thr':>5s} {'load':>5s}"
)


def print_row(level: Level, base: float) -> None:
    per_env = level.steps_per_s / level.up if level.up else float("nan")
    ratio = level.steps_per_s / base if not math.isnan(base) else float("nan")
    print(
        f"{level.backend:8s} {level.n:4d} {level.up:4d} {_f(level.start_s, 2):>8s} "
        f"{_f(level.start_s / max(1, level.up), 3):>6s} {_f(level.provision_p50_s, 2):>8s} "
        f"{_f(level.steps_per_s):>8s} {_f(ratio, 2):>6s} {_f(per_env):>6s} {_f(level.p99_ms):>7s} "
        f"{_f(level.idle_mib):>8s} {_f(level.system_mib):>7s} {_f(level.busy_mib):>8s} "
        f"{_f(level.idle_cpu_pct, 2):>9s} {level.fds:6d} {level.procs:5d} {level.threads:5d} {_f(level.load):>5s}",
        flush=True,
    )
    if level.by_process and level.up:
        parts = sorted(level.by_process.items(), key=lambda kv: -kv[1])
        cpu = sorted(level.cpu_by_process.items(), key=lambda kv: -kv[1])
        print(
            "         idle PSS/env by process (MiB): "
            + ", ".join(f"{k} {v / level.up:.1f}" for k, v in parts)
            + "; idle CPU by process (% of a core, all envs): "
            + (", ".join(f"{k} {v:.2f}" for k, v in cpu if v > 0) or "none")
            + f"; stepping: envs {level.env_cpu_pct:.0f}% + clients (this process) {level.client_cpu_pct:.0f}% of a "
            f"core, this process {level.own_fds} fds"
        )
    if level.guard:
        print(f"         guard: {level.guard}")
    if level.error:
        print(f"         error: {level.error.splitlines()[0][:300]}")


def bend(levels: list[Level]) -> list[str]:
    """Where a backend bends and why: the first failure or the guard, and CPU saturation."""
    lines = []
    done = [lv for lv in levels if lv.ok]
    stopped = next((lv for lv in levels if not lv.ok), None)
    if stopped is not None and stopped.error:
        lines.append(f"fails at N={stopped.n} ({stopped.up} up): {stopped.cause}")
    elif stopped is not None:
        lines.append(f"memory guard at N={stopped.n}: {stopped.guard}")
    if len(done) >= 2:
        first = done[0]
        base = first.steps_per_s / first.n
        cores = (os.cpu_count() or 1) * 100
        flat = next((b for a, b in itertools.pairwise(done) if b.steps_per_s < 1.1 * a.steps_per_s), None)
        if flat is not None:
            lines.append(
                f"CPU saturated from N={flat.n}: {flat.steps_per_s:.0f} steps/s in total, no more than at the "
                f"level before; per env {flat.steps_per_s / flat.n:.1f} = {flat.steps_per_s / flat.n / base:.2f}x "
                f"N={first.n}'s; envs {flat.env_cpu_pct:.0f}% + clients {flat.client_cpu_pct:.0f}% of {cores}%"
            )
        last = done[-1]
        lines.append(
            f"at N={last.n}: per env {last.steps_per_s / last.n:.2f} steps/s = {last.steps_per_s / last.n / base:.3f}x "
            f"N={first.n}'s, p99 {last.p99_ms:.0f} ms; envs {last.env_cpu_pct:.0f}% + clients "
            f"{last.client_cpu_pct:.0f}% of {cores}% while stepping; idle CPU {last.idle_cpu_pct:.1f}% of a core "
            f"for all {last.n}"
        )
    return lines


def max_envs(name: str, levels: list[Level], figures: dict[str, float | int | str]) -> None:
    done = [lv for lv in levels if lv.ok]
    stopped = next((lv for lv in levels if not lv.ok), None)
    if not done:
        figures[f"{name}_max_envs_24g"] = 0 if stopped is not None and stopped.error else "na"
        figures[f"{name}_max_envs_24g_basis"] = "measured" if stopped is not None and stopped.error else "na"
        return
    measured = done[-1].n
    figures[f"{name}_max_envs_measured"] = measured
    if stopped is not None and stopped.guard and not stopped.error:
        cost = cost_of(name, levels)
        figures[f"{name}_max_envs_24g"] = max(measured, cost.most(MACHINE_MIB - RESERVE_MIB))
        figures[f"{name}_max_envs_24g_basis"] = "projected"
        print(
            f"{name}: max envs on 24 GiB PROJECTED {figures[f'{name}_max_envs_24g']} "
            f"(22 GiB at {cost}, fitted to the levels measured; measured up to {measured})"
        )
    else:
        figures[f"{name}_max_envs_24g"] = measured
        figures[f"{name}_max_envs_24g_basis"] = "measured"
        above = "" if stopped is not None else " (every level asked for passed: the limit lies above)"
        print(f"{name}: max envs MEASURED {measured}{above}")


def run_backend(
    name: str, make: Callable[[], Backend], task: Path, args: argparse.Namespace, log: ServerLog
) -> list[Level]:
    fleet = Fleet(name, make)
    levels: list[Level] = []
    for n in args.levels:
        level = run_level(fleet, n, task, args, cost_of(name, levels), log)
        levels.append(level)
        base = levels[0].steps_per_s if levels[0].ok else float("nan")
        print_row(level, base)
        if not level.ok:
            break
    for line in bend(levels):
        print(f"{name}: {line}")
    return levels


def figures_of(name: str, levels: list[Level], figures: dict[str, float | int | str]) -> None:
    for lv in levels:
        if lv.up and lv.error is None and lv.guard is None:
            figures |= {
                f"{name}_start_s_{lv.n}": lv.start_s,
                f"{name}_steps_per_s_{lv.n}": lv.steps_per_s,
                f"{name}_p99_ms_{lv.n}": lv.p99_ms,
                f"{name}_idle_mib_at_{lv.n}": lv.idle_mib,
                f"{name}_idle_cpu_pct_at_{lv.n}": lv.idle_cpu_pct,
            }
    max_envs(name, levels, figures)


# --sim-many -------------------------------------------------------------------------------------------


def sessions_probe(count: int, task: Path) -> dict[str, float]:
    """``count`` sim sessions in this one process, each set up and rendered: MiB each (private dirty)."""
    import asyncio

    from cua_bench.sim import SimSession
    from cua_bench.tasks import load_task_module

    module = load_task_module(task)
    chosen = module.variant("test", 0)

    def dirty() -> float:
        gc.collect()
        return (
            sum(int(ln.split()[1]) for ln in open("/proc/self/smaps_rollup") if ln.startswith("Private_Dirty:")) / 1024
        )

    async def one(i: int) -> SimSession:
        session = SimSession(width=SIZE[0], height=SIZE[1])
        await session.reset(seed=i)
        await module.run("setup_task", chosen, session)
        for k in range(4):
            await session.apply(_actions(k))
            session.frame()
        return session

    asyncio.run(one(0))  # the first pays for imports and fonts
    base = dirty()
    kept = [asyncio.run(one(i)) for i in range(count)]
    return {"count": len(kept), "mib_per_env": (dirty() - base) / count, "base_mib": base}


def fork_probe(count: int, task: Path) -> dict[str, float]:
    """``count`` sim env servers forked from this process after it imported the server (a zygote),
    each reset and stepped through shared memory: their PSS / count, and this parent's."""
    import uuid

    from cua_bench import server
    from cua_bench.registry import backends
    from cua_core import ipc_address

    backends()
    gc.collect()
    gc.freeze()
    pids, addresses = [], []
    for _ in range(count):
        address = ipc_address(f"env-{uuid.uuid4().hex[:12]}")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.dup2(write, 1)
            code = 1
            try:
                code = server.main(["--backend", "sim", "--address", address, "--exit-with-parent"])
            finally:
                os._exit(code)
        os.close(write)
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(read, 256)
            if not chunk:
                break
            line += chunk
        os.close(read)
        pids.append(pid)
        addresses.append(line.split()[1].decode())
    try:
        for address in addresses:
            with EnvClient(address) as env:
                env.reset(options={"task": str(task), "observes": "rgb"})
                for i in range(8):
                    env.step(_actions(i))
        time.sleep(0.5)
        children = sum(_pss_mib(pid) for pid in pids)
        return {"count": count, "mib_per_env": (children + _pss_mib(os.getpid())) / count}
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGTERM)
        for pid in pids:
            os.waitpid(pid, 0)


def _probe(kind: str, count: int, task: Path) -> dict[str, float]:
    """Run a probe in a fresh interpreter (its memory is its own; no zmq threads before it forks)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    argv = [sys.executable, __file__, "--probe", kind, str(count), str(task)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        print(f"  probe {kind} failed: {done.stderr.strip()[-400:]}")
        return {}
    return dict(json.loads(lines[-1]))


@contextlib.contextmanager
def clients(addresses: list[str]) -> Iterator[list[EnvClient]]:
    opened: list[EnvClient] = []
    try:
        for address in addresses:
            opened.append(EnvClient(address, step_timeout=120))
        yield opened
    finally:
        for client in opened:
            with contextlib.suppress(Exception):
                client.close()


def sim_many(target: int, task: Path, args: argparse.Namespace, log: ServerLog) -> dict[str, float | int | str]:
    """As many sim envs as fit (up to ``target``), ``args.per_server`` in each server process, one client each
    here, frames in shm."""
    from cua_bench.backends.sim import SimBackend

    # One backend for every provisioning thread: it places environments in its hosts (thread-safe), and a
    # backend each would fill hosts of its own.
    shared = SimBackend(per_server=args.per_server)
    fleet = Fleet("sim", lambda: shared)
    opened: list[EnvClient] = []
    figures: dict[str, float | int | str] = {"sim_many_target": target, "sim_many_per_server": args.per_server}
    before = mem_available_mib()
    # A place in a host costs less than a process (measured ~19 MiB at 1280x800, against ~55).
    guess = FIRST_GUESS_MIB["sim"] if args.per_server == 1 else 30.0
    stop_why, error = "none", ""
    begin = time.perf_counter()
    offset = log.offset()
    try:
        while len(fleet.computers) < target:
            batch = min(50, target - len(fleet.computers))
            if mem_available_mib() - batch * guess < RESERVE_MIB:
                stop_why = (
                    f"guard: {batch} more x {guess:.1f} MiB would leave under {RESERVE_MIB / 1024:.0f} GiB of "
                    f"MemAvailable ({mem_available_mib():.0f} MiB)"
                )
                break
            level = Level("sim", batch)
            had = len(fleet.computers)
            bring_up(fleet, level, task, guess)
            try:
                for _, computer in fleet.computers[had:]:
                    opened.append(EnvClient(computer.address, step_timeout=120))
                    opened[-1].reset(options={"task": str(task), "observes": "rgb", "max_steps": 1_000_000})
                    opened[-1].step(_actions(0))
            except Exception as exc:
                level.error = level.error or f"client #{len(opened)}: {type(exc).__name__}: {exc}"
            if level.error or level.guard:
                error = level.error or ""
                fds = level.failed_fds or len(os.listdir("/proc/self/fd"))
                stop_why = why(error, log.errors_since(offset), fds) if error else f"guard: {level.guard}"
                break
            pss = usage(env_pids(fleet))[0]
            guess = max(pss / len(fleet.computers), (before - mem_available_mib()) / len(fleet.computers))
            print(f"  sim-many: {len(fleet.computers)} up, {guess:.1f} MiB/env, {time.perf_counter() - begin:.0f} s")
        up = len(opened)
        figures |= {"sim_many_up": up, "sim_many_stop": stop_why.split(":")[0].replace(" ", "_")}
        where = f"{args.per_server} a process" if args.per_server > 1 else "a process each"
        print(f"sim-many: {up} of {target} up, {where} (each reset and stepped, frames in shm); stop: {stop_why}")
        if error:
            print(f"sim-many: error: {error.splitlines()[0][:300]}")
        if up:
            groups = env_pids(fleet)
            pss, fds, procs, threads = usage(groups)
            system = (before - mem_available_mib()) / up
            cpu = idle_cpu_pct(groups, args.idle_seconds)
            steps, p99 = _drive_many(opened, min(32, up), args.seconds)
            figures |= {
                "sim_many_mib_per_env": pss / up,
                "sim_many_system_mib_per_env": system,
                "sim_many_idle_cpu_pct": cpu,
                "sim_many_steps_per_s": steps,
                "sim_many_p99_ms": p99,
                "sim_many_projected_gib_at_target": max(pss / up, system) * target / 1024,
            }
            print(
                f"sim-many: {pss / up:.1f} MiB PSS/env ({system:.1f} MiB/env of MemAvailable); {fds} fds, {procs} "
                f"processes, {threads} threads; this process {len(os.listdir('/proc/self/fd'))} fds; idle CPU "
                f"{cpu:.1f}% of a core; {steps:.0f} steps/s driven by {min(32, up)} threads, p99 {p99:.0f} ms"
            )
            print(
                f"sim-many: {target} such envs would need {max(pss / up, system) * target / 1024:.1f} GiB "
                f"({'fits' if max(pss / up, system) * target < MACHINE_MIB - RESERVE_MIB else 'does not fit'} "
                "in 22 GiB)"
            )
    finally:
        for client in opened:
            with contextlib.suppress(Exception):
                client.close()
        fleet.teardown()
    for kind, count in (("sessions", 64), ("fork", 32 if not args.quick else 8)):
        found = _probe(kind, count, task)
        if found:
            figures[f"sim_{kind}_mib_per_env"] = found["mib_per_env"]
            extra = f" (+ {found['base_mib']:.0f} MiB for the process)" if "base_mib" in found else ""
            print(
                f"sim-many: {kind}: {found['mib_per_env']:.1f} MiB per env{extra} over {count} envs -> "
                f"{found['mib_per_env'] * target / 1024:.1f} GiB for {target}"
            )
    return figures


def _drive_many(opened: list[EnvClient], threads: int, seconds: float) -> tuple[float, float]:
    """``threads`` threads, each stepping its share of the envs in turn, for ``seconds``."""
    stop = threading.Event()
    times: list[list[float]] = [[] for _ in range(threads)]

    def drive(k: int) -> None:
        mine, i = opened[k::threads], 0
        while not stop.is_set():
            begin = time.perf_counter()
            mine[i % len(mine)].step(_actions(i // len(mine)))
            times[k].append(time.perf_counter() - begin)
            i += 1

    pool = [threading.Thread(target=drive, args=(k,), daemon=True) for k in range(threads)]
    for thread in pool:
        thread.start()
    time.sleep(1.0)
    before, begin = sum(len(t) for t in times), time.perf_counter()
    time.sleep(seconds)
    rate = (sum(len(t) for t in times) - before) / (time.perf_counter() - begin)
    stop.set()
    for thread in pool:
        thread.join(150)
    every = [x for t in times for x in t]
    return rate, (_pct(every, 0.99) * 1000 if every else float("nan"))


# main ---------------------------------------------------------------------------------------------------


def machine() -> str:
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    shm = shutil.disk_usage("/dev/shm").free / 2**30 if os.path.isdir("/dev/shm") else float("nan")
    return (
        f"{os.cpu_count()} cores, MemAvailable {mem_available_mib() / 1024:.1f} GiB, ulimit -n {nofile}, "
        f"ulimit -u {nproc}, /dev/shm free {shm:.1f} GiB, load {os.getloadavg()[0]:.2f}, uid {os.getuid()}"
    )


def main() -> int:
    if sys.argv[1:2] == ["--probe"]:
        kind, count, task = sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
        print(json.dumps((sessions_probe if kind == "sessions" else fork_probe)(count, task)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default=",".join(map(str, LEVELS)), help="levels of N, ascending (1,4,16,...)")
    parser.add_argument("--only", default="sim,local,docker", help="backends, comma-separated")
    parser.add_argument("--quick", action="store_true", help="shorter stepping and idle windows (2 s each)")
    parser.add_argument("--seconds", type=float, help="stepping per level (default 5, quick 2)")
    parser.add_argument("--idle-seconds", type=float, help="idle CPU window (default 10, quick 3)")
    parser.add_argument("--sim-many", type=int, default=0, metavar="N", help="only: N sim envs at once (1000)")
    parser.add_argument(
        "--per-server",
        type=int,
        default=64,
        metavar="K",
        help="--sim-many: environments per sim host process (the sim backend's per_server; 1: a process each)",
    )
    parser.add_argument("--size", default="1280x800", metavar="WxH", help="every environment's screen")
    args = parser.parse_args()
    try:
        SIZE[:] = [int(v) for v in args.size.lower().split("x")]
        assert len(SIZE) == 2 and min(SIZE) >= 64
    except (ValueError, AssertionError):
        parser.error(f"--size {args.size!r}: write WIDTHxHEIGHT, e.g. 640x400")
    args.levels = sorted({int(v) for v in args.n.split(",") if v.strip()})
    args.seconds = args.seconds or (2.0 if args.quick else 5.0)
    args.idle_seconds = args.idle_seconds or (3.0 if args.quick else 10.0)
    only = {v.strip() for v in args.only.split(",") if v.strip()}
    folder = Path(tempfile.mkdtemp(prefix="cua-bench-scale-"))
    form = folder / "fill-form"
    form.mkdir()
    (form / "main.py").write_text(textwrap.dedent(TASK))
    os.environ["CUA_LOCAL_SETTLE_MAX"] = "0"  # local and docker step without settling: input + capture
    print(f"machine: {machine()}; servers' stderr in {folder / 'servers.log'}", flush=True)
    log = ServerLog(folder)
    figures: dict[str, float | int | str] = {}
    try:
        if args.sim_many:
            figures |= sim_many(args.sim_many, form, args, log)
        else:
            print(HEADER)
            run_all(only, form, folder, args, log, figures)
    finally:
        log.close()
    required = (
        *("local_max_envs_24g", "docker_max_envs_24g", "sim_max_envs_24g"),
        *("local_idle_mib_at_256", "local_idle_cpu_pct_at_64"),
    )
    last = {key: figures.pop(key, "na") for key in required} | figures | {"size": f"{SIZE[0]}x{SIZE[1]}"}
    print(" ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in last.items()))
    return 0


def run_all(
    only: set[str], form: Path, folder: Path, args: argparse.Namespace, log: ServerLog, figures: dict[str, Any]
) -> None:
    if "sim" in only:
        from cua_bench.backends.sim import SimBackend

        figures_of("sim", run_backend("sim", SimBackend, form, args, log), figures)
    if "local" in only:
        from cua_bench.backends.local import LocalBackend, unavailable

        problem = unavailable()
        if problem:
            print(f"local: skipped ({problem})")
        else:
            figures_of("local", run_backend("local", LocalBackend, CONFORMANCE_TASK, args, log), figures)
    if "docker" in only:
        try:
            docker = docker_backend(folder)
        except Exception as exc:  # an engine that would not start, an image that would not build
            print(f"docker: skipped ({type(exc).__name__}: {str(exc).splitlines()[0][:300]})")
            _stop_engine(folder / "dockerd")
            return
        if docker is None:
            print("docker: skipped (no engine reachable and no dockerd to start, or the plugin is not installed)")
            return
        impl, stop = docker
        try:
            figures_of("docker", run_backend("docker", type(impl), CONFORMANCE_TASK, args, log), figures)
        finally:
            stop()


def _stop_engine(folder: Path) -> None:
    """The dockerd bench/env.py's helper started here, when it failed after starting it (an image build)."""
    pidfile = folder / "dockerd.pid"
    if not pidfile.exists():
        return
    pid = int(pidfile.read_text().strip())
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        for _ in range(300):
            os.kill(pid, 0)
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
    with open("/proc/self/mounts") as table:
        mounts = [line.split()[1] for line in table if line.split()[1].startswith(f"{folder.resolve()}/")]
    for mount in sorted(mounts, key=len, reverse=True):
        subprocess.run(["umount", "--lazy", mount], capture_output=True, check=False)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
