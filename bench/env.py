"""Environments, measured in one run: the ``sim`` backend's latency, throughput, memory and scale.

- reset and step latency p50/p99 through the env server, each step returning a 1280x800 RGB frame;
- the RPC overhead: a step through the server against the same step on a SimSession in process
  (apply + frame), measured in this run — the baseline; frames travel through shared memory (the
  client's default on one host), and on the socket for comparison (``..._socket``);
- steps/s in total with 1, 2, 4, 8 and 16 environments (one env server process each, one client
  thread each);
- memory per environment: the PSS of all env server processes with 16 up, divided by 16 (shared
  pages count once);
- how many environments run at once without errors (64 started, each reset and stepped).

Anchor (MiniWoB++ in Chromium via Selenium, measured on this machine): reset ~150 ms, step
~100-130 ms p50, ~410 MiB per env, ~9 steps/s with one env and ~11-15 with four.

The ``local`` backend (a real Xvfb desktop per environment), side by side: start+reset, step
without settle (a click, RGB frame), a settled step (a character typed into xterm until it has
redrawn), idle PSS per env (all of an env's processes — server, Xvfb, openbox — with 16 envs up,
/ 16) and how many run at once. Anchors: CUA-Lite's container desktop idles at ~904 MiB, boots and
resets in 23.8 s, acts in 4.72 s; the OSWorld VM idles at 4,165 MiB and acts in 2.53 s.

The ``docker`` backend (the same desktop in a container), the same figures; idle memory is the
PSS of every process in the containers plus each one's containerd shim. It uses the engine
``DOCKER_HOST`` names, or starts a dockerd of its own (and builds the image when missing: minutes).

The ``libvirt`` backend (the same desktop in a VM, on KVM or TCG as the line says): power-on to the
server answering, the snapshot revert every episode after the first pays (``restore``) against the
server's own reset on the same machine (the baseline), a step without settle against the local
backend's in this run, the QEMU process's PSS, and how many machines (1 GiB, 1 vCPU each) run at once.
It needs the image (``cua-bench image build libvirt``, or ``--libvirt-images`` naming a folder with
one) and libvirtd. Targets with KVM (issue 35): reset <= 2 s, step <= 20 ms, <= 600 MiB, 8 at once.

Last line: ``sim_step_p50_ms=… sim_rpc_overhead_ratio=… sim_max_parallel_ok=… sim_env_mib=…
sim_steps_per_s_16=… local_start_reset_s=… local_step_p50_ms=… local_idle_mib=… local_max_envs=…
local_settled_step_p50_ms=… docker_start_reset_s=… docker_step_p50_ms=… docker_idle_mib=… docker_max_envs=…``
libvirt_accel=kvm|tcg libvirt_boot_s=… libvirt_reset_s=… libvirt_step_ms=… libvirt_mib=… libvirt_max_vms=…``
(plus extras). Run: .venv/bin/python bench/env.py [--quick] [--no-local] [--no-docker] [--no-libvirt]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

from cua_bench.backends.base import Backend, BackendError, Computer
from cua_bench.backends.sim import SimBackend
from cua_bench.client import EnvClient
from cua_bench.conformance import CONFORMANCE_TASK
from cua_bench.sim import SimSession
from cua_bench.tasks import load_task_module
from cua_core.actions import Action, Click, Point, TypeText

# A form of ~20 widgets: a realistic screen to render on every step.
TASK = """
import cua_bench as cb

@cb.tasks_config
def load():
    return [cb.Task(description="Fill the form", max_steps=100000)]

@cb.setup_task
async def setup(task, session):
    widgets = [{"type": "textfield", "name": f"Field {i}"} for i in range(8)]
    widgets += [{"type": "checkbox", "name": f"Option {i}"} for i in range(6)]
    widgets += [{"type": "dropdown", "name": "Country", "options": ["France", "Japan", "Peru"]},
                {"type": "slider", "name": "Volume"}, {"type": "button", "name": "Submit", "action": "none"}]
    session.sim.launch("form", title="Sign up", widgets=widgets, x=40, y=40, width=560)
    session.sim.launch("form", title="Notes", widgets=[{"type": "textarea", "name": "Notes"}], x=640, y=60, width=560)

@cb.evaluate_task
async def evaluate(task, session):
    return [0.0]
"""


def _actions(i: int) -> list[Action]:
    # Alternate between clicking the first field and typing into it: every step changes the screen.
    return [Click(Point(300, 120))] if i % 2 == 0 else [TypeText("x")]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _pss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/smaps_rollup") as smaps:
        for line in smaps:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def measure_in_process(task: Path, steps: int) -> list[float]:
    """The baseline: the same steps on a SimSession in this process (apply + raw frame)."""
    module = load_task_module(task)
    chosen = module.variant("test", 0)
    session = SimSession(width=1280, height=800)

    async def run() -> list[float]:
        await session.reset(seed=0)
        await module.run("setup_task", chosen, session)
        times = []
        for i in range(steps):
            start = time.perf_counter()
            await session.apply(_actions(i))
            session.frame()
            times.append(time.perf_counter() - start)
        return times

    return asyncio.run(run())


def measure_one(
    backend: SimBackend, task: Path, resets: int, steps: int, *, frames: str = "auto"
) -> dict[str, list[float]]:
    """Reset and step latency through one env server; ``frames`` as EnvClient takes it (auto: shared
    memory, the server being on this host)."""
    computer = backend.provision(width=1280, height=800)
    try:
        with EnvClient(computer.address, frames=frames) as env:
            reset_s, step_s = [], []
            for _ in range(resets):
                start = time.perf_counter()
                env.reset(options={"task": str(task), "observes": "rgb"})
                reset_s.append(time.perf_counter() - start)
            for i in range(steps):
                start = time.perf_counter()
                obs, *_ = env.step(_actions(i))
                step_s.append(time.perf_counter() - start)
            assert obs["screenshot"].shape == (800, 1280, 3)
        return {"reset": reset_s, "step": step_s}
    finally:
        backend.teardown(computer)


def measure_parallel(computers: list[Computer], task: Path, seconds: float) -> float:
    """Total steps/s with one client thread per environment, for ``seconds``."""
    counts = [0] * len(computers)
    stop = threading.Event()

    def drive(index: int) -> None:
        with EnvClient(computers[index].address) as env:
            env.reset(options={"task": str(task), "observes": "rgb"})
            i = 0
            while not stop.is_set():
                env.step(_actions(i))
                i += 1
                counts[index] += 1

    threads = [threading.Thread(target=drive, args=(i,)) for i in range(len(computers))]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # every env reset and stepping
    before, start = sum(counts), time.perf_counter()
    time.sleep(seconds)
    total = sum(counts) - before
    elapsed = time.perf_counter() - start
    stop.set()
    for thread in threads:
        thread.join()
    return total / elapsed


def measure_scale(backend: Backend, task: Path, count: int) -> int:
    """How many of ``count`` environments started together each reset and stepped without error."""
    computers: list[Computer] = []
    ok = 0
    try:
        for _ in range(count):
            computers.append(backend.provision(width=1280, height=800))
        for computer in computers:
            with EnvClient(computer.address, step_timeout=120) as env:
                env.reset(options={"task": str(task), "observes": "none"})
                env.step([Click(Point(300, 120))])
                ok += backend.health(computer)
    finally:
        for computer in computers:
            backend.teardown(computer)
    return ok


def _local_pss_mib(computer: Computer) -> float:
    """PSS of every process of one local env: its server and the processes carrying its marker (shared
    host) or running as its own user (isolated, the default for root)."""
    from cua_bench.backends.local.procs import marked_pids, uid_pids

    ours = uid_pids(computer.info["uid"]) if "uid" in computer.info else marked_pids(computer.info["root"])
    pids = {computer.handle.pid, *ours}
    return sum(_pss_mib(pid) for pid in pids if os.path.exists(f"/proc/{pid}"))


def _container_pss_mib(computer: Computer) -> float:
    """PSS of every process in one container (host pids from ``docker top``) and of its containerd shim."""
    top = computer.handle.top(ps_args="-eo pid")
    column = top["Titles"].index("PID")
    pids = {int(row[column]) for row in top["Processes"]}
    computer.handle.reload()
    init = int(computer.handle.attrs["State"]["Pid"])
    pids.add(int(Path(f"/proc/{init}/stat").read_text().rsplit(")", 1)[1].split()[1]))  # its parent: the shim
    return sum(_pss_mib(pid) for pid in pids if os.path.exists(f"/proc/{pid}"))


def measure_desktop(
    backend: Backend, name: str, pss: Callable[[Computer], float], starts: int, steps: int, envs: int, scale: int
) -> dict[str, float]:
    """A real desktop backend (local, docker): start+reset, steps with and without settle, idle PSS, scale."""
    figures: dict[str, float] = {}
    start_reset = []
    for _ in range(starts):
        begin = time.perf_counter()
        computer = backend.provision(width=1280, height=800)
        with EnvClient(computer.address) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb"})
        start_reset.append(time.perf_counter() - begin)
        backend.teardown(computer)
    figures[f"{name}_start_reset_s"] = statistics.median(start_reset)
    # A settled step: a character typed into xterm, observed once xterm has redrawn.
    computer = backend.provision(width=1280, height=800)
    try:
        with EnvClient(computer.address) as env:
            resets = []
            for _ in range(5):
                begin = time.perf_counter()
                env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb", "max_steps": 100_000})
                resets.append(time.perf_counter() - begin)
            figures[f"{name}_reset_p50_ms"] = statistics.median(resets) * 1000
            env.session("launch", app="xterm")
            settled = []
            for i in range(steps // 4):
                begin = time.perf_counter()
                env.step([TypeText("a")])
                settled.append(time.perf_counter() - begin)
                if i % 40 == 39:
                    env.step([TypeText("\b" * 40)])
            # The accessibility tree (AT-SPI) with a GTK editor and the xterm open.
            env.session("launch", app="mousepad")
            reads = []
            for _ in range(10):
                begin = time.perf_counter()
                env.session("accessibility_tree")
                reads.append(time.perf_counter() - begin)
        figures[f"{name}_settled_step_p50_ms"] = statistics.median(settled) * 1000
        figures[f"{name}_a11y_read_p50_ms"] = statistics.median(reads) * 1000
    finally:
        backend.teardown(computer)
    # Steps without settle: what input + capture cost (CUA_LOCAL_SETTLE_MAX=0 reaches the env server).
    os.environ["CUA_LOCAL_SETTLE_MAX"] = "0"
    try:
        computer = backend.provision(width=1280, height=800)
        try:
            with EnvClient(computer.address) as env:
                env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb", "max_steps": 100_000})
                raw = []
                for i in range(steps):
                    begin = time.perf_counter()
                    env.step([Click(Point(400 + i % 200, 500))])
                    raw.append(time.perf_counter() - begin)
            figures[f"{name}_step_p50_ms"] = statistics.median(raw) * 1000
            figures[f"{name}_step_p99_ms"] = _pct(raw, 0.99) * 1000
        finally:
            backend.teardown(computer)
    finally:
        del os.environ["CUA_LOCAL_SETTLE_MAX"]
    computers: list[Computer] = []
    try:
        for _ in range(envs):
            computers.append(backend.provision(width=1280, height=800))
        for computer in computers:
            with EnvClient(computer.address) as env:
                env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
        time.sleep(0.5)
        figures[f"{name}_idle_mib"] = sum(pss(c) for c in computers) / envs
    finally:
        for computer in computers:
            backend.teardown(computer)
    figures[f"{name}_max_envs"] = measure_scale(backend, CONFORMANCE_TASK, scale)
    return figures


def report_desktop(name: str, found: dict[str, float], figures: dict[str, float | int | str]) -> None:
    print(f"{name} start+reset p50 {found[f'{name}_start_reset_s']:.2f} s; reset alone p50 "
          f"{found[f'{name}_reset_p50_ms']:.1f} ms")  # fmt: skip
    print(
        f"{name} step without settle (click, 1280x800 RGB): p50 {found[f'{name}_step_p50_ms']:.2f} ms  "
        f"p99 {found[f'{name}_step_p99_ms']:.2f} ms"
    )
    print(
        f"{name} settled step (a character into xterm until redrawn): p50 {found[f'{name}_settled_step_p50_ms']:.1f} ms"
    )
    print(f"{name} accessibility tree read (mousepad + xterm): p50 {found[f'{name}_a11y_read_p50_ms']:.1f} ms")
    print(f"{name} idle PSS per env (all its processes): {found[f'{name}_idle_mib']:.1f} MiB")
    print(f"{name} envs up at once, each reset and stepped: {found[f'{name}_max_envs']:.0f}")
    for key, value in found.items():
        figures[key] = int(value) if key.endswith("_max_envs") else value


def measure_vm(images: str, steps: int, most: int) -> dict[str, float | int | str] | None:
    """libvirt: one machine's boot, restore against the server's reset on it, steps and QEMU's PSS; then how
    many machines run at once (up to ``most``, each answering a reset)."""
    try:
        from cua_bench_libvirt import LibvirtBackend
    except ImportError:
        return None
    from cua_bench import client_for

    backend = LibvirtBackend(**({"images": images} if images else {}), memory=1024, cpus=1)
    # Steps without settle, as the other backends' figures: the machine's seed disk carries it to the guest.
    os.environ["CUA_LOCAL_SETTLE_MAX"] = "0"
    begin = time.perf_counter()
    try:
        computer = backend.provision(width=1280, height=800)
    except BackendError as exc:
        print(f"libvirt: skipped ({str(exc).splitlines()[0]})")
        return None
    finally:
        del os.environ["CUA_LOCAL_SETTLE_MAX"]
    accel = str(computer.info["accel"])
    figures: dict[str, float | int | str] = {"libvirt_accel": accel, "libvirt_boot_s": time.perf_counter() - begin}
    try:
        resets, restores, raw = [], [], []
        for _ in range(5):
            begin = time.perf_counter()
            backend.restore(computer)
            restores.append(time.perf_counter() - begin)
            with client_for(computer, step_timeout=120) as env:
                begin = time.perf_counter()
                env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb", "max_steps": 100_000})
                resets.append(time.perf_counter() - begin)
        with client_for(computer, step_timeout=120) as env:
            env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "rgb", "max_steps": 100_000})
            for i in range(steps):
                begin = time.perf_counter()
                env.step([Click(Point(400 + i % 200, 500))])
                raw.append(time.perf_counter() - begin)
        figures |= {
            "libvirt_reset_s": statistics.median(restores),
            "libvirt_server_reset_ms": statistics.median(resets) * 1000,
            "libvirt_reset_over_server_reset_ratio": statistics.median(restores) / statistics.median(resets),
            "libvirt_step_ms": statistics.median(raw) * 1000,
            "libvirt_mib": _qemu_pss_mib(computer),
        }
    finally:
        backend.teardown(computer)
    up: list[Computer] = []
    try:
        while len(up) < most:
            try:
                up.append(backend.provision(width=1280, height=800))
                with client_for(up[-1], step_timeout=120) as env:
                    env.reset(options={"task": str(CONFORMANCE_TASK), "observes": "none"})
            except Exception as exc:  # the limit is where one fails, whatever the cause
                print(f"libvirt machine {len(up)} failed: {str(exc).splitlines()[0]}")
                break
    finally:
        figures["libvirt_max_vms"] = len(up)
        for computer in up:
            backend.teardown(computer)
    print(f"libvirt ({accel}): power-on to the server answering {figures['libvirt_boot_s']:.1f} s")
    print(f"libvirt reset (snapshot revert, server answering): p50 {figures['libvirt_reset_s']:.2f} s; the "
          f"server's own reset on the same machine {figures['libvirt_server_reset_ms']:.0f} ms "
          f"(ratio {figures['libvirt_reset_over_server_reset_ratio']:.1f})")  # fmt: skip
    print(f"libvirt step without settle: p50 {figures['libvirt_step_ms']:.1f} ms; QEMU PSS "
          f"{figures['libvirt_mib']:.0f} MiB; {figures['libvirt_max_vms']} of {most} machines up at once")  # fmt: skip
    return figures


def _qemu_pss_mib(computer: Computer) -> float:
    """The PSS of the machine's QEMU process (its guest's memory as far as the guest touched it)."""
    name = computer.info["domain"]
    for folder in (
        Path("/run/libvirt/qemu"),
        Path(os.environ.get("XDG_RUNTIME_DIR", "/nonexistent")) / "libvirt/qemu/run",
    ):
        if (folder / f"{name}.pid").exists():
            return _pss_mib(int((folder / f"{name}.pid").read_text()))
    return float("nan")


def docker_backend(folder: Path) -> tuple[Backend, Callable[[], None]] | None:
    """The docker backend on the engine DOCKER_HOST names, or on a dockerd started here; None without one."""
    try:
        from cua_bench_docker import DockerBackend, build_image, connect
        from cua_bench_docker.daemon import PrivateEngine
        from cua_bench_docker.image import IMAGE, image_exists
    except ImportError:
        return None
    from cua_bench.backends.base import BackendError

    engine = None
    try:
        connect(timeout=3)
    except BackendError:
        if not shutil.which("dockerd"):
            return None
        engine = PrivateEngine(folder / "dockerd")
        os.environ["DOCKER_HOST"] = engine.start()
    client = connect()
    if not image_exists(client, IMAGE):
        result = build_image(client, log=lambda line: None)
        print(f"docker image built in {result.seconds:.0f} s ({result.size_mib:.0f} MiB)")
    return DockerBackend(), (engine.remove if engine is not None else lambda: None)


def steady_allocator() -> None:
    """Pin glibc's mmap and trim thresholds in this process (a no-op elsewhere), before any baseline.

    The in-process baseline allocates a 3 MB frame (``tobytes``) and a 4 MB image every step. By default
    glibc serves blocks that size with a fresh mmap, and every page then faults, until the first such
    block is freed and the threshold moves up. When that happens depends on what the process did
    before, so the same baseline measured 2.9 ms in one process and 7.2 ms in another. Pinned, it is
    steady and fast: the honest thing to compare a step through the env server against."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if sys.platform != "linux" or name is None:
        return
    libc = ctypes.CDLL(name)
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is not None:
        mallopt(-3, 64 << 20)  # M_MMAP_THRESHOLD: blocks under 64 MB come from the heap
        mallopt(-1, 512 << 20)  # M_TRIM_THRESHOLD: and the heap keeps them for the next step


def main() -> int:
    steady_allocator()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and envs, for a smoke run")
    parser.add_argument("--no-local", action="store_true", help="skip the local (Xvfb) backend")
    parser.add_argument("--no-docker", action="store_true", help="skip the docker backend")
    parser.add_argument("--no-libvirt", action="store_true", help="skip the libvirt backend")
    parser.add_argument("--libvirt-images", default="", help="the libvirt backend's images folder (its option)")
    parser.add_argument("--libvirt-max", type=int, default=8, help="how many machines to try at once (8: the target)")
    args = parser.parse_args()
    steps, seconds, scale = (200, 2.0, 16) if args.quick else (1000, 5.0, 64)
    folder = Path(tempfile.mkdtemp(prefix="cua-bench-env-")) / "fill-form"
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(TASK))
    backend = SimBackend()

    inprocess = measure_in_process(folder, steps)
    remote = measure_one(backend, folder, 20, steps)  # frames through shared memory
    socket_p50 = statistics.median(measure_one(backend, folder, 1, steps, frames="socket")["step"])
    inprocess_p50 = statistics.median(inprocess)
    step_p50, step_p99 = statistics.median(remote["step"]), _pct(remote["step"], 0.99)
    reset_p50, reset_p99 = statistics.median(remote["reset"]), _pct(remote["reset"], 0.99)
    print(f"sim reset: p50 {reset_p50 * 1000:.1f} ms  p99 {reset_p99 * 1000:.1f} ms")
    print(f"sim step (1280x800 RGB frame): p50 {step_p50 * 1000:.2f} ms  p99 {step_p99 * 1000:.2f} ms")
    print(
        f"same step in process: p50 {inprocess_p50 * 1000:.2f} ms -> RPC overhead ratio {step_p50 / inprocess_p50:.2f} "
        f"(frames through shared memory; on the socket: p50 {socket_p50 * 1000:.2f} ms, "
        f"ratio {socket_p50 / inprocess_p50:.2f})"
    )

    throughput: dict[int, float] = {}
    memory = 0.0
    for n in (1, 2, 4, 8, 16):
        computers = [backend.provision(width=1280, height=800) for _ in range(n)]
        try:
            throughput[n] = measure_parallel(computers, folder, seconds)
            if n == 16:
                memory = sum(_pss_mib(c.handle.pid) for c in computers) / n
        finally:
            for computer in computers:
                backend.teardown(computer)
        print(f"{n:2d} envs: {throughput[n]:7.1f} steps/s in total")
    print(f"memory per env (PSS of 16 env servers after stepping, / 16): {memory:.1f} MiB")
    ok = measure_scale(backend, folder, scale)
    print(f"{ok} of {scale} envs up at once, each reset and stepped")
    figures: dict[str, float | int | str] = {
        "sim_step_p50_ms": step_p50 * 1000,
        "sim_rpc_overhead_ratio": step_p50 / inprocess_p50,
        "sim_max_parallel_ok": ok,
        "sim_env_mib": memory,
        "sim_steps_per_s_16": throughput[16],
        "sim_step_p99_ms": step_p99 * 1000,
        "sim_reset_p50_ms": reset_p50 * 1000,
        "sim_steps_per_s_1": throughput[1],
        "sim_steps_per_s_4": throughput[4],
        "sim_inprocess_step_p50_ms": inprocess_p50 * 1000,
        "sim_rpc_overhead_ratio_socket": socket_p50 / inprocess_p50,
    }
    quick = (3, steps, 4, 8) if args.quick else (7, steps, 16, 32)
    if not args.no_local and shutil.which("Xvfb"):
        from cua_bench.backends.local import LocalBackend

        report_desktop("local", measure_desktop(LocalBackend(), "local", _local_pss_mib, *quick), figures)
    else:
        print("local: skipped (Xvfb not installed, or --no-local)")
    docker = None if args.no_docker else docker_backend(folder.parent)
    if docker is not None:
        impl, stop = docker
        try:
            report_desktop("docker", measure_desktop(impl, "docker", _container_pss_mib, *quick), figures)
        finally:
            stop()
    else:
        print("docker: skipped (no engine or plugin, or --no-docker)")
    vm = None if args.no_libvirt else measure_vm(args.libvirt_images, steps // 4, args.libvirt_max)
    if vm is not None:
        if "local_step_p50_ms" in figures:  # the same desktop as processes, in this run: the baseline
            vm["libvirt_step_over_local_ratio"] = float(vm["libvirt_step_ms"]) / float(figures["local_step_p50_ms"])
        figures |= vm
    print(" ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
