"""The bus against raw pyzmq, measured in one run (these machines are noisy, so only ratios count).

RPC: round-trip time of an echo of a 100-byte body and of a ~500 KB binary frame (a 1280x800 PNG
screenshot's size), over tcp loopback and ipc, through cua's RpcServer/RpcClient versus a raw
DEALER/ROUTER echo with the same payload. The server runs in its own process in both cases. cua is
measured twice: with an ``inline`` handler (run on the I/O thread, for cheap methods) and with a
pooled one (run in a worker thread, the default for methods that may block).

Events: events/s from a publisher process through a forwarder process to a subscriber, cua's
Publisher/Forwarder/Subscriber versus raw PUB -> zmq.proxy(XSUB, XPUB) -> SUB with the same body bytes.

The last line is ``key=value`` pairs: ratios are cua/raw for RPC time (lower is better; the worse of
tcp and ipc) and cua/raw for events/s (higher is better).

Run: .venv/bin/python bench/bus.py [--quick]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import msgpack
import zmq

from cua_core.events import BusAddresses, Forwarder, Publisher, Subscriber
from cua_core.rpc import RpcClient, RpcServer

SMALL = b"s" * 100
LARGE = b"L" * 500_000


# -- servers, each in its own process ---------------------------------------------------------


def _raw_echo_server(address: str, ready: Any) -> None:
    sock = zmq.Context().socket(zmq.ROUTER)
    sock.bind(address)
    ready.set()
    while True:
        sock.send_multipart(sock.recv_multipart(copy=False), copy=False)


def _cua_echo_server(address: str, ready: Any) -> None:
    server = RpcServer(address)
    server.register("echo_inline", lambda data: data, inline=True)
    server.register("echo_pooled", lambda data: data)
    server.start()
    ready.set()
    while True:
        time.sleep(3600)


def _raw_forwarder(front: str, back: str, ready: Any) -> None:
    ctx = zmq.Context()
    xsub, xpub = ctx.socket(zmq.XSUB), ctx.socket(zmq.XPUB)
    for sock in (xsub, xpub):
        sock.sndhwm = sock.rcvhwm = 200_000
    xsub.bind(front)
    xpub.bind(back)
    ready.set()
    zmq.proxy(xsub, xpub)


def _cua_forwarder(front: str, back: str, ready: Any) -> None:
    Forwarder(BusAddresses(front, back)).start()
    ready.set()
    while True:
        time.sleep(3600)


def _raw_publisher(address: str, count: int, go: Any) -> None:
    sock = zmq.Context().socket(zmq.PUB)
    sock.sndhwm = 200_000
    sock.connect(address)
    body = msgpack.packb({"n": 0, "data": SMALL})
    go.wait()
    for _ in range(count):
        sock.send_multipart([b"bench.event", body])
    time.sleep(1)


def _cua_publisher(address: str, count: int, go: Any) -> None:
    pub = Publisher(address)
    go.wait()
    for n in range(count):
        pub.publish("bench.event", {"n": n, "data": SMALL})
    time.sleep(1)


def _start(target: Callable[..., None], *args: Any) -> Any:
    ctx = mp.get_context("spawn")
    ready = ctx.Event()
    proc = ctx.Process(target=target, args=(*args, ready), daemon=True)
    proc.start()
    if not ready.wait(30):
        raise RuntimeError(f"{target.__name__} did not start")
    return proc


# -- measurements -----------------------------------------------------------------------------


def _raw_round_trip(address: str, payload: bytes, n: int) -> float:
    sock: zmq.Socket[Any] = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(address)
    for _ in range(20):
        sock.send(payload, copy=False)
        sock.recv_multipart(copy=False)
    start = time.perf_counter()
    for _ in range(n):
        sock.send(payload, copy=False)
        sock.recv_multipart(copy=False)
    elapsed = time.perf_counter() - start
    sock.close()
    return elapsed / n


def _cua_round_trip(client: RpcClient, method: str, payload: bytes, n: int) -> float:
    params = {"data": payload}
    for _ in range(20):
        client.call(method, params)
    start = time.perf_counter()
    for _ in range(n):
        client.call(method, params)
    return (time.perf_counter() - start) / n


def measure_rpc(transport: str, rounds: int, n_small: int, n_large: int) -> dict[str, float]:
    """Median over interleaved rounds of the mean round trip, in microseconds."""
    folder = tempfile.mkdtemp(prefix="cua-bench-")
    if transport == "tcp":
        raw_addr, cua_addr = "tcp://127.0.0.1:47811", "tcp://127.0.0.1:47812"
    else:
        raw_addr, cua_addr = f"ipc://{folder}/raw.sock", f"ipc://{folder}/cua.sock"
    procs = [_start(_raw_echo_server, raw_addr), _start(_cua_echo_server, cua_addr)]
    samples: dict[str, list[float]] = {}
    try:
        with RpcClient(cua_addr) as client:
            for _ in range(rounds):
                for size, payload, n in (("small", SMALL, n_small), ("large", LARGE, n_large)):
                    for mode, method in (
                        ("raw", ""),
                        ("inline", "echo_inline"),
                        ("pooled", "echo_pooled"),
                    ):
                        seconds = (
                            _cua_round_trip(client, method, payload, n)
                            if method
                            else _raw_round_trip(raw_addr, payload, n)
                        )
                        samples.setdefault(f"{mode}_{size}", []).append(seconds * 1e6)
    finally:
        for proc in procs:
            proc.kill()
    return {key: statistics.median(values) for key, values in samples.items()}


class _RawReceiver:
    def __init__(self, address: str) -> None:
        self._sock: zmq.Socket[Any] = zmq.Context.instance().socket(zmq.SUB)
        self._sock.setsockopt(zmq.RCVHWM, 200_000)
        self._sock.subscribe(b"bench")
        self._sock.connect(address)

    def recv(self, timeout: float) -> Any:
        return self._sock.recv_multipart(copy=False) if self._sock.poll(int(timeout * 1000)) else None

    def close(self) -> None:
        self._sock.close()


def _events_per_s(publisher: Callable[..., None], pub_addr: str, receiver: Any, count: int) -> float:
    """Events/s seen by ``receiver`` while a publisher process sends ``count`` events."""
    ctx = mp.get_context("spawn")
    go = ctx.Event()
    proc = ctx.Process(target=publisher, args=(pub_addr, count, go), daemon=True)
    proc.start()
    time.sleep(1.5)  # the publisher process starts and both subscriptions settle
    go.set()
    received = 0
    first = 0.0
    while received < count and receiver.recv(timeout=5) is not None:
        if received == 0:
            first = time.perf_counter()
        received += 1
    last = time.perf_counter()
    receiver.close()
    proc.join()
    if received < count:
        raise RuntimeError(f"{publisher.__name__}: the subscriber lost events: {received} of {count}")
    return (received - 1) / (last - first)


def measure_events(rounds: int, count: int) -> dict[str, float]:
    folder = tempfile.mkdtemp(prefix="cua-bench-")
    raw = (f"ipc://{folder}/raw-pub.sock", f"ipc://{folder}/raw-sub.sock")
    ours = (f"ipc://{folder}/cua-pub.sock", f"ipc://{folder}/cua-sub.sock")
    procs = [_start(_raw_forwarder, *raw), _start(_cua_forwarder, *ours)]
    samples: dict[str, list[float]] = {"raw": [], "cua": []}
    try:
        for _ in range(rounds):
            samples["raw"].append(_events_per_s(_raw_publisher, raw[0], _RawReceiver(raw[1]), count))
            cua = Subscriber(ours[1], ["bench"])
            samples["cua"].append(_events_per_s(_cua_publisher, ours[0], cua, count))
    finally:
        for proc in procs:
            proc.kill()
    return {key: statistics.median(values) for key, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, for a smoke run")
    args = parser.parse_args()
    rounds = 2 if args.quick else 5
    n_small, n_large, n_events = (500, 50, 20_000) if args.quick else (3000, 300, 100_000)

    ratios: dict[str, list[float]] = {}
    for transport in ("tcp", "ipc"):
        rpc = measure_rpc(transport, rounds, n_small, n_large)
        for size in ("small", "large"):
            raw = rpc[f"raw_{size}"]
            for mode in ("inline", "pooled"):
                ours = rpc[f"{mode}_{size}"]
                ratios.setdefault(f"{mode}_{size}", []).append(ours / raw)
                print(
                    f"rpc {transport} {size:5} {mode:6}: cua {ours:8.1f} us  raw {raw:8.1f} us  ratio {ours / raw:.2f}"
                )
    events = measure_events(rounds, n_events)
    print(f"events through the forwarder: cua {events['cua']:,.0f}/s  raw {events['raw']:,.0f}/s")
    figures = {
        "rpc_small_ratio": max(ratios["inline_small"]),
        "rpc_large_ratio": max(ratios["inline_large"]),
        "events_ratio": events["cua"] / events["raw"],
        "rpc_small_pooled_ratio": max(ratios["pooled_small"]),
        "rpc_large_pooled_ratio": max(ratios["pooled_large"]),
        "events_per_s": events["cua"],
    }
    print(" ".join(f"{k}={v:.2f}" if k != "events_per_s" else f"{k}={v:.0f}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
