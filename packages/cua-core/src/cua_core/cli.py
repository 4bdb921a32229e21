"""`cua-bus`: run the forwarder, watch events, call a method, manage CURVE keys, see a live demo."""

from __future__ import annotations

import json
import logging
import shutil
import socket
import stat
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import click

from cua_core.addresses import check_address
from cua_core.command import CONTEXT, CuaGroup
from cua_core.errors import CuaError
from cua_core.events import BusAddresses, Forwarder, Publisher, Subscriber
from cua_core.rpc import RpcClient, RpcServer
from cua_core.security import AllowList, ServerSecurity, load_or_create_keypair

__all__ = ["main"]


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-core")
@click.option("-v", "--verbose", is_flag=True, help="Log debug messages.")
def main(verbose: bool) -> None:
    """The cua message bus: events (PUB/SUB through a forwarder) and RPC (DEALER/ROUTER)."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, format="%(levelname)s %(message)s")


def _addresses(publish: str | None, subscribe: str | None) -> BusAddresses:
    default = BusAddresses.default()
    return BusAddresses(check_address(publish or default.publish), check_address(subscribe or default.subscribe))


def _reachable(address: str, what: str, fix: str) -> str:
    """Check an address before connecting to it.

    ZeroMQ connects lazily: a socket nobody listens on makes a subscriber wait for ever and a
    call wait out its whole timeout, in silence. An ipc socket can be checked for certain (is it
    there, does anyone accept on it); a tcp one only for its form.
    """
    scheme = check_address(address).partition("://")[0]
    if scheme == "tcp":
        port = address.rpartition(":")[2]
        if port in ("*", "0"):
            raise CuaError(f"{address}: connecting needs the port the {what} listens on, not {port}")
        return address
    path = Path(address.removeprefix("ipc://"))
    if not path.exists():
        raise CuaError(f"no {what} at {address}: the socket {path} does not exist; {fix}")
    if not stat.S_ISSOCK(path.stat().st_mode):
        raise CuaError(f"{address}: {path} is not a socket; pass the address of a running {what}")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except ConnectionRefusedError:
            raise CuaError(
                f"no {what} at {address}: nothing listens on {path} (left by a process that stopped); {fix}"
            ) from None
        except OSError:
            pass  # a path too long to probe, or no permission: ZeroMQ will say
    return address


@main.command()
@click.option("--publish", help="Where publishers connect (XSUB). Default: this user's ipc socket.")
@click.option("--subscribe", help="Where subscribers connect (XPUB). Default: this user's ipc socket.")
@click.option("--secure", is_flag=True, help="Require CURVE keys from the allow-list (needed off loopback).")
def serve(publish: str | None, subscribe: str | None, secure: bool) -> None:
    """Run the event forwarder until interrupted."""
    try:
        security = ServerSecurity(load_or_create_keypair(), AllowList()) if secure else None
        forwarder = Forwarder(_addresses(publish, subscribe), security=security).start()
    except (CuaError, OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"publish   {forwarder.addresses.publish}")
    click.echo(f"subscribe {forwarder.addresses.subscribe}")
    try:
        forwarder.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        forwarder.close()


@main.command()
@click.argument("topics", nargs=-1)
@click.option("--subscribe", help="The forwarder's subscribe address.")
@click.option("--count", type=click.IntRange(min=0), default=0, help="Stop after this many events (0: never).")
def tail(topics: tuple[str, ...], subscribe: str | None, count: int) -> None:
    """Print events as they arrive, one JSON line each (all topics by default)."""
    address = _reachable(
        _addresses(None, subscribe).subscribe,
        "event forwarder",
        "start one with `cua-bus serve` (or pass the running one's --subscribe address)",
    )
    try:
        sub = Subscriber(address, topics or ("",))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    seen = 0
    with sub:
        for event in sub:
            line = {
                "topic": event.topic,
                "id": event.id,
                "ts": event.ts,
                "body": _printable(event.body),
            }
            click.echo(json.dumps(line))
            seen += 1
            if count and seen >= count:
                return


@main.command()
@click.argument("address")
@click.argument("method")
@click.argument("params", default="{}")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True)
def call(address: str, method: str, params: str, timeout: float) -> None:
    """Call METHOD on the RPC server at ADDRESS with PARAMS, a JSON object of named parameters."""
    try:
        parsed = json.loads(params)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="PARAMS") from exc
    if not isinstance(parsed, dict):
        raise click.BadParameter("must be a JSON object such as '{\"x\": 1}'", param_hint="PARAMS")
    _reachable(address, "RPC server", "start the server first, or check the address")
    try:
        with RpcClient(address, timeout=timeout) as client:
            result = client.call(method, parsed)
    except (CuaError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(json.dumps(_printable(result), indent=2))


@main.group()
def keys() -> None:
    """CURVE keys: this machine's pair and the clients it accepts."""


@keys.command("init")
def keys_init() -> None:
    """Create this machine's key pair (kept if it exists) and print the public key."""
    click.echo(load_or_create_keypair().public.decode())


@keys.command("show")
def keys_show() -> None:
    """Print this machine's public key and the allow-list."""
    pair = load_or_create_keypair()
    click.echo(f"public key: {pair.public.decode()}")
    allow = AllowList()
    click.echo(f"allowed clients ({allow.path}):")
    for key, comment in allow.keys().items():
        click.echo(f"  {key.decode()} {comment}")


# A Z85 key may start with "-" (and hold an "h"): taken as the key, never as options, so this
# command's help is --help alone.
@keys.command("allow", context_settings={"ignore_unknown_options": True, "help_option_names": ["--help"]})
@click.argument("public_key")
@click.option("--comment", default="", help="Who this key belongs to.")
def keys_allow(public_key: str, comment: str) -> None:
    """Accept clients holding PUBLIC_KEY (40 Z85 characters)."""
    allow = AllowList()
    try:
        known = public_key.encode() in allow
        allow.add(public_key, comment)
    except CuaError as exc:
        raise click.ClickException(str(exc)) from exc
    if known:
        raise CuaError(f"{public_key} is already allowed ({allow.path}); nothing changed")
    click.echo(f"allowed {public_key}")


@main.command()
@click.option("--requests", type=click.IntRange(min=1), default=200, show_default=True, help="Round trips to time.")
def demo(requests: int) -> None:
    """A live round trip: a forwarder, an RPC server and a client on ipc, with events shown as they flow."""
    runtime = Path(tempfile.mkdtemp(prefix="cua-demo-"))
    addresses = BusAddresses(f"ipc://{runtime}/pub.sock", f"ipc://{runtime}/sub.sock")
    with (
        Forwarder(addresses) as forwarder,
        RpcServer(f"ipc://{runtime}/rpc.sock", name="demo") as server,
    ):
        publisher = Publisher(forwarder.addresses.publish)
        lock = threading.Lock()

        def act(kind: str, screenshot: bytes | None = None) -> dict[str, Any]:
            with lock:  # a Publisher belongs to one thread at a time
                publisher.publish(f"demo.action.{kind}", {"kind": kind})
            return {"ok": True, "bytes": len(screenshot or b"")}

        def slow(seconds: float) -> float:
            time.sleep(seconds)
            return seconds

        server.register("act", act)
        server.register("echo", lambda data: data, inline=True)
        server.register("slow", slow)
        watcher = Subscriber(forwarder.addresses.subscribe, ["demo"])
        time.sleep(0.2)  # let the subscription reach the forwarder (ZeroMQ's slow-joiner)
        click.echo(f"forwarder  publish={forwarder.addresses.publish}")
        click.echo(f"           subscribe={forwarder.addresses.subscribe}")
        click.echo(f"rpc server {server.address} serving {', '.join(server.methods())}")
        with RpcClient(server.address, heartbeat_timeout=2.0) as client:
            click.echo(f"\nrpc.methods -> {client.call('rpc.methods')}")
            click.echo(f"act(click) -> {client.call('act', {'kind': 'click'})}")
            event = watcher.recv(timeout=2.0)
            click.echo(f"event      <- {event.topic if event else 'none!'} {event.body if event else ''}")
            click.echo(f"slow(1.2)  -> {client.call('slow', {'seconds': 1.2})} (kept alive by heartbeats)")
            try:
                client.call("act", {"kind": "click", "bogus": 1})
            except CuaError as exc:
                click.echo(f"bad call   -> {type(exc).__name__}: {exc}")
            screenshot = bytes(500_000)  # the size of a 1280x800 PNG screenshot
            for label, payload in (("100 B", bytes(100)), ("500 KB", screenshot)):
                times = []
                for _ in range(requests):
                    start = time.perf_counter()
                    client.call("echo", {"data": payload})
                    times.append((time.perf_counter() - start) * 1e6)
                click.echo(
                    f"echo {label:>6}: p50 {statistics.median(times):7.0f} us  "
                    f"p99 {sorted(times)[int(len(times) * 0.99) - 1]:7.0f} us  ({requests} round trips)"
                )
            for n in range(3):
                client.call("act", {"kind": f"type{n}"})
            got = [watcher.recv(timeout=2.0) for _ in range(3)]
            click.echo(f"events     <- {[e.topic for e in got if e is not None]}")
        watcher.close()
        publisher.close()
    shutil.rmtree(runtime, ignore_errors=True)
    click.echo("\nbus demo: ok")


def _printable(value: Any) -> Any:
    """JSON-safe view of a decoded body: binary frames shown by size."""
    if isinstance(value, dict):
        return {k: _printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable(v) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"<array {value.dtype} {tuple(value.shape)}>"
    return value


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
