"""``cua-bench-cua``: Cua's computer-server protocol in front of one of our environments.

    cua-bench-cua serve --backend local --port 8000           # a fresh local desktop, torn down on exit
    cua-bench-cua serve --env ipc:///run/user/0/cua/env-1.sock # an env server that already runs
    cua-bench-cua serve --backend sim --task sim/click-button  # reset to a task first

Cua's SDK (``Computer(os_type="linux", use_host_computer_server=True)``) and agents then drive it
at ``localhost:8000``, while our client (the ready line names the env server's address) resets
tasks and evaluates them on the same computer.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

import click

from cua_bench import AsyncEnvClient, security_for
from cua_bench.registry import backends
from cua_bench_cua.commands import Commands
from cua_bench_cua.endpoint import CuaEndpoint, check_bind
from cua_core import CONTEXT, ClientSecurity, CuaGroup

__all__ = ["main", "serve_endpoint"]


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-bench-cua", prog_name="cua-bench-cua")
def main() -> None:
    """Cua interop: serve Cua's computer-server protocol for one of our environments."""


@main.command()
@click.option(
    "--backend", help="provision a computer of this backend (sim, local, docker, ...) for as long as it serves"
)
@click.option("--env", "address", help="serve an env server that already runs (its address) instead")
@click.option("--host", default="127.0.0.1", show_default=True, help="where to listen; beyond loopback needs --token")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Cua's SDK uses 8000")
@click.option(
    "--token",
    envvar="CUA_ENDPOINT_TOKEN",
    help="required of every client as X-API-Key (or Cua's WebSocket authenticate message); env CUA_ENDPOINT_TOKEN",
)
@click.option("--task", help="reset the environment to this task first (its variant 0), e.g. desktop/xterm-create-file")
@click.option("--width", default=1280, show_default=True, type=click.IntRange(min=1))
@click.option("--height", default=800, show_default=True, type=click.IntRange(min=1))
def serve(
    backend: str | None,
    address: str | None,
    host: str,
    port: int,
    token: str | None,
    task: str | None,
    width: int,
    height: int,
) -> None:
    """Serve POST /cmd and WebSocket /ws until interrupted; prints `ready URL env=ADDRESS` once listening."""
    if (backend is None) == (address is None):
        raise click.UsageError("give --backend NAME (a new computer) or --env ADDRESS (a running env server)")
    check_bind(host, token)  # before provisioning anything
    if address is not None:
        asyncio.run(serve_endpoint(address, host=host, port=port, token=token, task=task))
        return
    assert backend is not None
    known = backends()
    if backend not in known:
        raise click.BadParameter(
            f"{backend!r} is not a backend; these are: {', '.join(sorted(known))}", param_hint="--backend"
        )
    impl = known[backend]()
    computer = impl.provision(width=width, height=height)
    try:
        asyncio.run(
            serve_endpoint(
                computer.address, host=host, port=port, token=token, task=task, security=security_for(computer)
            )
        )
    finally:
        impl.teardown(computer)


async def serve_endpoint(
    address: str,
    *,
    host: str,
    port: int,
    token: str | None,
    task: str | None = None,
    security: ClientSecurity | None = None,
) -> None:
    """Serve the env server at ``address`` on ``host:port`` until SIGINT or SIGTERM; ``security``: CURVE
    for a server beyond this host (``cua_bench.security_for`` of its computer)."""
    # run_command may take Cua's unbounded time
    env = AsyncEnvClient(address, step_timeout=660.0, security=security)
    try:
        if task is not None:
            await env.reset(options={"task": task, "observes": "none"})
        info: dict[str, Any] = await env.rpc.call("info", idempotent=True)
        endpoint = await CuaEndpoint(Commands(env, info["width"], info["height"]), host, port, token).start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        click.echo(f"ready {endpoint.url} env={address}")
        try:
            await stop.wait()
        finally:
            await endpoint.close()
    finally:
        with contextlib.suppress(Exception):
            await env.close()
