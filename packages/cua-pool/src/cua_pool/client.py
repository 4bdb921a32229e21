"""Reaching a controller from the CLI (or any program): which one, with which keys, and starting
the local pool on first use so that a single computer needs no setup at all."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from cua_core import CuaError, RpcClient
from cua_pool.config import LOCAL, client_config, client_security, host_config, resolve, save_host_config
from cua_pool.daemons import running_pid, spawn_and_wait, starting
from cua_pool.paths import controller_home, host_home, local_controller_address

__all__ = [
    "connect",
    "down",
    "ensure_local_pool",
    "start_agent",
    "start_controller",
    "stop_local_pool",
    "stop_spaces",
]

# A daemon imports the pool before it takes its lock: ~0.5 s idle, many times that on a loaded machine.
START_TIMEOUT = 60.0


def _ping(address: str, timeout: float = 2.0) -> bool:
    if address.startswith("ipc://") and not os.path.exists(address.removeprefix("ipc://")):
        return False
    with RpcClient(address, timeout=timeout, heartbeat_timeout=timeout, retries=0) as client:
        try:
            return bool(client.call("rpc.ping") == "pong")
        except CuaError:
            return False


def start_controller(extra: list[str] | None = None) -> None:
    """Start the local controller in the background unless it runs; wait until it answers."""
    address = local_controller_address()
    home = controller_home()
    with starting(home / "controller.starting"):
        if running_pid(home / "controller.pid") is None:
            spawn_and_wait(
                ["pool", "serve", *(extra or [])], home / "controller.log", home / "controller.pid", START_TIMEOUT
            )
    deadline = time.monotonic() + START_TIMEOUT
    while not _ping(address, 1.0):
        if time.monotonic() > deadline:
            log = controller_home() / "controller.log"
            raise RuntimeError(f"the local pool controller did not start within {START_TIMEOUT:g} s; see {log}")
        time.sleep(0.05)


def start_agent() -> int | None:
    """Start this computer's host agent in the background unless it runs."""
    home = host_home()
    with starting(home / "agent.starting"):
        pid = running_pid(home / "agent.pid")
        if pid is None:
            pid = spawn_and_wait(["host", "run"], home / "agent.log", home / "agent.pid", START_TIMEOUT)
    return pid


def ensure_local_pool() -> None:
    """The embedded default: a pool of this one computer, started on first use."""
    start_controller()
    config = host_config()
    if config is None:
        config = default_host_config(LOCAL)
        save_host_config(config)
    if config.get("controller") != LOCAL or not config.get("enabled", True):
        return
    if running_pid(host_home() / "agent.pid") is not None:
        return
    start_agent()
    with RpcClient(local_controller_address(), timeout=10, retries=0) as client:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if any(h["id"] == config["host_id"] and h["state"] == "up" for h in client.call("pool.computers")):
                return
            time.sleep(0.05)
    raise RuntimeError(
        f"this computer's host agent did not join within {START_TIMEOUT:g} s; see {host_home() / 'agent.log'}"
    )


def default_host_config(controller: str, **overrides: Any) -> dict[str, Any]:
    from cua_pool.agent import default_name

    config = {
        "host_id": uuid.uuid4().hex[:12],
        "name": default_name(),
        "controller": controller,
        "controller_key": None,
        "share": ["spaces"],
        "max_spaces": os.cpu_count() or 1,
        "advertise": None,
        "enabled": True,
    }
    config.update({k: v for k, v in overrides.items() if v is not None})
    return config


def controller_target(explicit: str | None = None) -> tuple[str, str | None]:
    """(address, controller key): --controller, $CUA_POOL_CONTROLLER, the paired one, else local."""
    key = os.environ.get("CUA_POOL_CONTROLLER_KEY")
    if explicit:
        return explicit, key or _paired_key(explicit)
    if os.environ.get("CUA_POOL_CONTROLLER"):
        address = os.environ["CUA_POOL_CONTROLLER"]
        return address, key or _paired_key(address)
    paired = client_config()
    if paired and paired.get("controller"):
        return str(paired["controller"]), paired.get("controller_key")
    return LOCAL, None


def _paired_key(address: str) -> str | None:
    paired = client_config()
    if paired and paired.get("controller") == address:
        return paired.get("controller_key")
    return None


def connect(address: str, controller_key: str | None, *, timeout: float = 30.0) -> RpcClient:
    """An RPC client to the controller; the local one is started first when it is not running."""
    if address == LOCAL:
        ensure_local_pool()
    return RpcClient(
        resolve(address),
        timeout=timeout,
        heartbeat_timeout=10.0,
        retries=1,
        security=client_security(resolve(address), controller_key),
    )


def stop_spaces() -> None:
    """Kill every member this computer's spaces hold and delete the spaces (`cua host remove`)."""
    import contextlib
    import shutil

    from cua_pool.registry import space_runtimes
    from cua_pool.spaces import Handle, Space

    runtimes = space_runtimes()
    spaces = host_home() / "spaces"
    for root in sorted(spaces.iterdir()) if spaces.is_dir() else []:
        space = Space(root)
        try:
            handle = Handle(**space.read_meta()["handle"])
            runtimes[handle.kind]().stop(space, handle, force=True)
        except (OSError, ValueError, KeyError, RuntimeError, CuaError):
            pass
        shutil.rmtree(root, ignore_errors=True)
        with contextlib.suppress(OSError):
            space.stash.rmdir()


def stop_local_pool() -> None:
    """Stop this computer's host agent, its spaces and the local controller."""
    from cua_pool.daemons import stop_pid

    for pid in (running_pid(host_home() / "agent.pid"), running_pid(controller_home() / "controller.pid")):
        if pid is not None:
            stop_pid(pid, timeout=5)
    stop_spaces()


def down(grace: float = 3.0) -> tuple[list[str], list[str]]:
    """Stop every pool process of this computer: the controller, the host agent and the members
    running in its spaces. Returns what was stopped and what could not be, a line each.

    The controller goes first, so it records nothing of the rest going down; the agent next, so it
    starts nothing new; the members last (SIGTERM, SIGKILL after ``grace``). Their spaces are
    kept: the next agent adopts them, ships what they logged and reports how they ended, so their
    jobs end as failed (or retry) with nothing lost, instead of staying "running" for ever.
    """
    from cua_pool.daemons import stop_pid
    from cua_pool.registry import space_runtimes
    from cua_pool.spaces import Handle, Space

    stopped: list[str] = []
    problems: list[str] = []
    for what, pidfile in (
        ("controller", controller_home() / "controller.pid"),
        ("host agent", host_home() / "agent.pid"),
    ):
        pid = running_pid(pidfile)
        if pid is None:
            continue
        if stop_pid(pid, timeout=5):
            stopped.append(f"{what}: stopped (pid {pid})")
        else:
            problems.append(f"{what} (pid {pid}) did not stop, even after SIGKILL")
    live: list[tuple[Space, Handle, Any]] = []
    spaces = host_home() / "spaces"
    for root in sorted(spaces.iterdir()) if spaces.is_dir() else []:
        space = Space(root)
        try:
            handle = Handle(**space.read_meta()["handle"])
            if not handle.pid and not handle.extra:
                continue  # never started
            runtime = space_runtimes()[handle.kind]()
            if runtime.running(space, handle):
                runtime.stop(space, handle, force=False)
                live.append((space, handle, runtime))
        except Exception as exc:  # one broken space or runtime must not keep the others running
            problems.append(f"member {space.id}: {type(exc).__name__}: {exc}")
    deadline, forced = time.monotonic() + grace, False
    while live:
        running = []
        for sp, h, rt in live:
            state = _still_running(rt, sp, h, problems)
            if state:
                running.append((sp, h, rt))
            elif state is not None:
                stopped.append(f"member {_describe(sp.id)}: stopped" + (f" (pid {h.pid})" if h.pid else ""))
        live = running
        if live and time.monotonic() > deadline:
            if forced:
                problems.extend(f"member {sp.id} (pid {h.pid}) did not stop, even after SIGKILL" for sp, h, _ in live)
                break
            for sp, h, rt in live:
                rt.stop(sp, h, force=True)
            deadline, forced = time.monotonic() + 2.0, True
        time.sleep(0.05 if live else 0)
    return stopped, problems


def _still_running(runtime: Any, space: Any, handle: Any, problems: list[str]) -> bool | None:
    """None when the runtime cannot tell (the problem is recorded): neither running nor stopped."""
    try:
        return bool(runtime.running(space, handle))
    except Exception as exc:
        problems.append(f"member {space.id}: {type(exc).__name__}: {exc}")
        return None


def _describe(member_id: str) -> str:
    """``JOB.ATTEMPT.RANK`` as words a user can look up with `cua jobs show`."""
    job, _, rest = member_id.partition(".")
    attempt, _, rank = rest.partition(".")
    return f"rank {rank} of job {job} (attempt {attempt})" if rank else member_id
