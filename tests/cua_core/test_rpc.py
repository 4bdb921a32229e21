from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cua_core.codec import decode, encode
from cua_core.errors import RemoteError, RpcTimeout, ServerLost, VersionMismatch
from cua_core.rpc import AsyncRpcClient, RpcClient, RpcServer


class Boom(Exception):
    pass


@pytest.fixture
def server() -> Iterator[RpcServer]:
    srv = RpcServer("tcp://127.0.0.1:0", heartbeat_interval=0.1)

    @srv.method(inline=True)
    def echo(data: Any = None) -> Any:
        return data

    @srv.method()
    def sleep(seconds: float) -> float:
        time.sleep(seconds)
        return seconds

    @srv.method()
    def fail(message: str, note: str | None = None) -> None:
        error = Boom(message)
        if note is not None:
            error.add_note(note)
        raise error

    @srv.method()
    async def async_sleep(seconds: float) -> float:
        await asyncio.sleep(seconds)
        return seconds

    with srv:
        yield srv


def test_round_trip_of_values_blobs_and_arrays(server: RpcServer) -> None:
    with RpcClient(server.address) as client:
        assert client.call("rpc.ping") == "pong"
        assert client.call("echo", {"data": {"a": [1, 2.5, "x", None]}}) == {"a": [1, 2.5, "x", None]}
        shot = os.urandom(500_000)
        assert bytes(client.call("echo", {"data": shot})) == shot
        frame = np.random.default_rng(0).integers(0, 255, (800, 1280, 3), dtype=np.uint8)
        np.testing.assert_array_equal(client.call("echo", {"data": frame}), frame)
        assert "sleep" in client.call("rpc.methods")


def test_remote_exception_arrives_typed(server: RpcServer) -> None:
    with RpcClient(server.address) as client, pytest.raises(RemoteError) as info:
        client.call("fail", {"message": "disk full"})
    err = info.value
    assert err.remote_type.endswith("Boom")
    assert err.message == "disk full"
    assert err.method == "fail"
    assert "raise error" in err.traceback
    assert err.notes == ()


def test_the_notes_of_a_remote_exception_arrive_with_it(server: RpcServer) -> None:
    """What the server adds for the caller (a task's own traceback, say) travels apart from the message."""
    with RpcClient(server.address) as client, pytest.raises(RemoteError) as info:
        client.call("fail", {"message": "disk full", "note": "where: main.py, line 3"})
    assert (info.value.message, info.value.notes) == ("disk full", ("where: main.py, line 3",))


def test_wrong_method_and_params_say_what_is_wrong(server: RpcServer) -> None:
    with RpcClient(server.address) as client:
        with pytest.raises(RemoteError, match="did you mean 'echo'") as info:
            client.call("ecco")
        assert info.value.remote_type == "MethodNotFound"
        with pytest.raises(RemoteError, match=r"sleep\(seconds\).*unexpected parameter 'secs'"):
            client.call("sleep", {"secs": 1})


def test_heartbeats_keep_a_long_call_alive(server: RpcServer) -> None:
    with RpcClient(server.address, heartbeat_timeout=0.4) as client:
        assert client.call("sleep", {"seconds": 1.2}) == 1.2
        assert client.call("async_sleep", {"seconds": 1.0}) == 1.0


def test_timeout_is_a_clear_error(server: RpcServer) -> None:
    with RpcClient(server.address, timeout=0.3) as client:
        start = time.monotonic()
        with pytest.raises(RpcTimeout, match=r"no reply within 0\.3 s"):
            client.call("sleep", {"seconds": 2})
        assert time.monotonic() - start < 1.0
        # The late reply of the abandoned call must not be taken for the next call's.
        assert client.call("echo", {"data": "next"}) == "next"


def test_eight_concurrent_clients(server: RpcServer) -> None:
    results: dict[int, list[Any]] = {}
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            with RpcClient(server.address) as client:
                got = [client.call("sleep", {"seconds": 0.3})]
                got += [client.call("echo", {"data": [n, i]}) for i in range(200)]
                results[n] = got
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    assert not errors
    for n in range(8):
        assert results[n] == [0.3] + [[n, i] for i in range(200)]
    assert elapsed < 8 * 0.3, "the 8 sleeps ran one after another instead of in parallel"


def test_many_requests_in_flight_on_one_async_client(server: RpcServer) -> None:
    async def main() -> tuple[list[Any], float]:
        async with AsyncRpcClient(server.address) as client:
            start = time.monotonic()
            got = await asyncio.gather(
                *[client.call("async_sleep", {"seconds": 0.3}) for _ in range(50)],
                *[client.call("sleep", {"seconds": 0.3}) for _ in range(10)],
                *[client.call("echo", {"data": i}) for i in range(100)],
            )
            return got, time.monotonic() - start

    got, elapsed = asyncio.run(main())
    assert got == [0.3] * 60 + list(range(100))
    assert elapsed < 1.5


def test_async_client_reports_remote_errors_and_timeouts(server: RpcServer) -> None:
    async def main() -> None:
        async with AsyncRpcClient(server.address, timeout=0.3) as client:
            with pytest.raises(RemoteError, match="nope"):
                await client.call("fail", {"message": "nope"})
            with pytest.raises(RpcTimeout):
                await client.call("sleep", {"seconds": 1})

    asyncio.run(main())


def test_async_heartbeats_keep_a_long_call_alive(server: RpcServer) -> None:
    async def main() -> Any:
        async with AsyncRpcClient(server.address, heartbeat_timeout=0.3, timeout=5) as client:
            return await client.call("sleep", {"seconds": 1.0})  # 3x the heartbeat timeout

    assert asyncio.run(main()) == 1.0


def test_async_replies_racing_sends_all_arrive(server: RpcServer) -> None:
    """2,000 calls from 64 tasks, sends and replies interleaved: ZeroMQ's edge-triggered FD can be
    consumed by a send, and a reply missed so would hang its call until the timeout."""

    async def main() -> list[Any]:
        async with AsyncRpcClient(server.address, timeout=10) as client:

            async def caller(n: int) -> list[Any]:
                return [await client.call("echo", {"data": [n, i]}) for i in range(32)]

            return await asyncio.wait_for(asyncio.gather(*[caller(n) for n in range(64)]), 20)

    got = asyncio.run(main())
    assert got == [[[n, i] for i in range(32)] for n in range(64)]


def test_an_async_client_serves_one_loop_at_a_time(server: RpcServer) -> None:
    client = AsyncRpcClient(server.address)
    assert asyncio.run(client.call("echo", {"data": 1})) == 1
    assert asyncio.run(client.call("echo", {"data": 2})) == 2  # the first loop closed: the next one takes over
    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(client.call("echo", {"data": 3})) == 3
        with pytest.raises(RuntimeError, match="one event loop"):
            asyncio.run(client.call("echo", {"data": 4}))
        loop.run_until_complete(client.close())
    finally:
        loop.close()


def test_a_handler_blocking_the_loop_still_heartbeats_answers_pings_and_keeps_order() -> None:
    """While an async handler blocks the event loop (a task's setup doing something slow and
    synchronous), the server must still send heartbeats and answer health checks, and the requests
    that waited must run in the order they came."""
    started: list[int] = []
    with RpcServer("tcp://127.0.0.1:0", heartbeat_interval=0.1) as srv:

        async def block(seconds: float) -> float:
            time.sleep(seconds)  # synchronous on purpose: the loop can do nothing else meanwhile
            return seconds

        async def note(n: int) -> int:
            started.append(n)
            return n

        srv.register("block", block)
        srv.register("note", note)

        async def pipelined() -> list[Any]:
            async with AsyncRpcClient(srv.address, timeout=10, heartbeat_timeout=0.35) as client:
                blocked = asyncio.ensure_future(client.call("block", {"seconds": 1.2}))
                await asyncio.sleep(0.1)
                notes = [asyncio.ensure_future(client.call("note", {"n": n})) for n in range(40)]
                return await asyncio.gather(blocked, *notes)

        pings: list[float] = []

        def ping_while_blocked() -> None:
            time.sleep(0.3)
            with RpcClient(srv.address, timeout=1.0, heartbeat_timeout=1.0, retries=0) as client:
                begun = time.monotonic()
                assert client.call("rpc.ping") == "pong"
                pings.append(time.monotonic() - begun)

        pinger = threading.Thread(target=ping_while_blocked)
        pinger.start()
        got = asyncio.run(pipelined())  # ServerLost here: no heartbeat for 0.35 s while blocked
        pinger.join()
    assert got == [1.2, *range(40)]
    assert started == list(range(40)), "requests read while the loop was blocked ran out of order"
    assert pings and pings[0] < 0.5, f"a health check waited {pings} s for a blocked loop"


_SERVER = textwrap.dedent(
    """
    import sys, time
    from cua_core.rpc import RpcServer
    srv = RpcServer(sys.argv[1], heartbeat_interval=0.1)
    srv.register("sleep", lambda seconds: time.sleep(seconds) or seconds)
    srv.register("pid", __import__("os").getpid, inline=True)
    srv.start()
    print("ready", flush=True)
    time.sleep(3600)
    """
)


def _spawn_server(address: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, address], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_server_killed_mid_request_gives_a_timely_error(private_dirs: Path) -> None:
    address = f"ipc://{private_dirs}/victim.sock"
    proc = _spawn_server(address)
    try:
        with RpcClient(address, heartbeat_timeout=1.0, timeout=60) as client:
            assert client.call("pid") == proc.pid
            threading.Timer(0.5, os.kill, (proc.pid, signal.SIGKILL)).start()
            start = time.monotonic()
            with pytest.raises(ServerLost, match="no reply or heartbeat for 1 s"):
                client.call("sleep", {"seconds": 30})
            elapsed = time.monotonic() - start
        # killed at 0.5 s, noticed within the 1 s heartbeat bound (plus scheduling slack)
        assert 1.4 <= elapsed < 2.5
    finally:
        proc.kill()
        proc.wait()


def test_server_killed_mid_async_request_gives_a_timely_error(private_dirs: Path) -> None:
    address = f"ipc://{private_dirs}/victim-async.sock"
    proc = _spawn_server(address)

    async def main() -> float:
        async with AsyncRpcClient(address, heartbeat_timeout=1.0, timeout=60) as client:
            assert await client.call("pid") == proc.pid
            asyncio.get_running_loop().call_later(0.5, os.kill, proc.pid, signal.SIGKILL)
            start = time.monotonic()
            with pytest.raises(ServerLost, match="no reply or heartbeat for 1 s"):
                await client.call("sleep", {"seconds": 30})
            return time.monotonic() - start

    try:
        elapsed = asyncio.run(main())
        assert 1.4 <= elapsed < 2.5  # killed at 0.5 s, noticed within the 1 s heartbeat bound
    finally:
        proc.kill()
        proc.wait()


def test_only_idempotent_calls_are_retried(private_dirs: Path) -> None:
    address = f"ipc://{private_dirs}/flaky.sock"
    proc = _spawn_server(address)
    with RpcClient(address, heartbeat_timeout=0.5, retries=3) as client:
        first = client.call("pid")
        proc.kill()
        proc.wait()
        with pytest.raises(ServerLost):
            client.call("pid")  # not idempotent: one try, then the error
        threading.Timer(0.3, lambda: procs.append(_spawn_server(address))).start()
        procs: list[subprocess.Popen[str]] = []
        try:
            second = client.call("pid", idempotent=True)  # retried until the new server answers
            assert second != first
            assert second == procs[0].pid
        finally:
            for p in procs:
                p.kill()
                p.wait()


def _raw_dealer(address: str) -> zmq.Socket[Any]:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger = 0
    sock.rcvtimeo = 2000
    sock.connect(address)
    return sock


_envelope_like = st.fixed_dictionaries(
    {},
    optional={
        "v": st.sampled_from([0, 1, 2, "1", None]),
        "kind": st.sampled_from(["req", "rep", "event", "hb", "x", 1]),
        "id": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=4), st.floats()),
        "ts": st.one_of(st.floats(), st.text(max_size=3)),
        "method": st.one_of(st.sampled_from(["echo", "nope", "sleep"]), st.integers(0, 9)),
        "body": st.one_of(st.none(), st.integers(0, 9), st.dictionaries(st.text(max_size=5), st.integers(0, 9))),
    },
).map(msgpack.packb)
_frames = st.lists(st.one_of(st.binary(max_size=200), _envelope_like), min_size=1, max_size=3)


def test_fuzzed_frames_each_get_a_clear_error_and_the_server_keeps_serving(
    server: RpcServer,
) -> None:
    sock = _raw_dealer(server.address)
    seen = {"count": 0}

    @settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_frames)
    def fuzz(frames: list[bytes]) -> None:
        sock.send_multipart(frames)
        reply = decode(sock.recv_multipart())  # one reply per message, never silence
        seen["count"] += 1
        if reply.kind == "err":
            assert reply.body["type"] and reply.body["message"]
        else:  # only a well-formed call of a real method succeeds: the frames must have been one
            assert reply.kind == "rep"
            call = decode(frames)
            assert call.kind == "req" and call.method in server.methods() and isinstance(call.body, dict)

    fuzz()
    assert seen["count"] >= 1000
    sock.close()
    with RpcClient(server.address) as client:
        assert client.call("echo", {"data": "still serving"}) == "still serving"


def test_version_mismatch_reaches_the_client_as_a_clear_error(server: RpcServer) -> None:
    sock = _raw_dealer(server.address)
    env = {"v": 99, "kind": "req", "id": 1, "ts": 0.0, "method": "echo", "body": {}}
    sock.send(msgpack.packb(env))
    reply = decode(sock.recv_multipart())
    assert reply.body["type"] == "VersionMismatch"
    assert "v=99" in reply.body["message"]
    sock.close()


def test_client_refuses_a_reply_of_another_version() -> None:
    ctx = zmq.Context.instance()
    router = ctx.socket(zmq.ROUTER)
    router.linger = 0
    port = router.bind_to_random_port("tcp://127.0.0.1")

    def answer() -> None:
        ident, _ = router.recv_multipart()
        router.send_multipart([ident, msgpack.packb({"v": 2, "kind": "rep", "id": 1, "ts": 0, "body": 1})])

    threading.Thread(target=answer, daemon=True).start()
    with RpcClient(f"tcp://127.0.0.1:{port}") as client, pytest.raises(VersionMismatch):
        client.call("anything")
    router.close()


def test_registration_errors() -> None:
    srv = RpcServer("tcp://127.0.0.1:0")
    with pytest.raises(ValueError, match="already registered"):
        srv.register("rpc.ping", lambda: 1)

    async def coro() -> None:
        return None

    with pytest.raises(ValueError, match="cannot be inline"):
        srv.register("c", coro, inline=True)


def test_bind_failure_is_raised_by_start() -> None:
    with RpcServer("tcp://127.0.0.1:0") as first:
        second = RpcServer(first.address)
        with pytest.raises(zmq.ZMQError):
            second.start()


def test_unencodable_result_is_reported(server: RpcServer) -> None:
    server.register("bad", object)
    with RpcClient(server.address) as client, pytest.raises(RemoteError, match="could not be sent"):
        client.call("bad")


def test_async_method_registered_after_start_is_served() -> None:
    # A server whose methods were all sync at start() had no event loop; an async method added
    # later used to kill the I/O thread on its first call, and then even rpc.ping got ServerLost.
    with RpcServer("tcp://127.0.0.1:0", heartbeat_interval=0.1) as srv:

        async def late(value: int) -> int:
            await asyncio.sleep(0)
            return value + 1

        srv.register("late", late)
        with RpcClient(srv.address, timeout=5, heartbeat_timeout=2) as client:
            assert client.call("late", {"value": 41}) == 42
            assert client.call("rpc.ping") == "pong"


def test_curve_clients_opened_and_closed_in_quick_succession_never_collide() -> None:
    """Each CURVE client watches its socket for a refused key; pyzmq named that watch by the socket's file
    descriptor, which the next client reuses before the old name is released: "Address already in use"
    (a pool's health checks hit it). Failed within 0-62 rounds before the fix; 300 stays well under the
    context's limit of sockets (closed ones count until libzmq reaps them)."""
    import zmq

    from cua_core import ClientSecurity, KeyPair

    public, secret = zmq.curve_keypair()
    server_public, _ = zmq.curve_keypair()
    security = ClientSecurity(KeyPair(public, secret), server_public)
    for _ in range(300):
        RpcClient("tcp://127.0.0.1:1", timeout=0.1, retries=0, security=security).close()


def _wakeups(tid: int) -> int:
    """How many times thread ``tid`` of this process has been switched out (each sleep that ended counts)."""
    total = 0
    with open(f"/proc/self/task/{tid}/status") as status:
        for line in status:
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_idle_server_does_not_wake_for_heartbeats() -> None:
    """Heartbeats are owed only to requests in flight: an idle server's I/O thread sleeps until a message
    comes (issue 36: hundreds of idle env servers on one computer). Counted in wake-ups, not CPU time, so
    a loaded machine does not change the answer; it woke 50 times a second here before."""
    with RpcServer("tcp://127.0.0.1:0", heartbeat_interval=0.02) as srv:
        with RpcClient(srv.address) as client:
            assert client.call("rpc.ping") == "pong"
        time.sleep(0.2)  # the client's disconnect, handled
        assert srv._thread is not None and srv._thread.native_id is not None
        tid = srv._thread.native_id
        before = _wakeups(tid)
        time.sleep(1.0)
        woke = _wakeups(tid) - before
        assert woke <= 2, f"the idle I/O thread woke {woke} times in 1 s"
        begun = time.monotonic()
    assert time.monotonic() - begun < 2, "close() waited for a poll that nothing woke"


def test_the_first_heartbeat_comes_one_interval_after_the_request_not_after_an_old_tick() -> None:
    """With no heartbeat clock while idle, it starts when a request comes: the first heartbeat follows one
    interval later (a clock of its own would have sent it anywhere up to two intervals later)."""
    with RpcServer("tcp://127.0.0.1:0", heartbeat_interval=0.5) as srv:
        srv.register("sleep", lambda seconds: time.sleep(seconds) or seconds)
        time.sleep(0.3)  # idle a while: any old clock would be out of phase with the request
        ctx = zmq.Context.instance()
        sock = ctx.socket(zmq.DEALER)
        try:
            sock.connect(srv.address)
            sock.send_multipart([bytes(f) for f in encode("req", {"seconds": 1.6}, id=1, method="sleep")])
            sent = time.monotonic()
            beats: list[float] = []
            while True:
                env = decode(sock.recv_multipart())
                if env.kind != "hb":
                    break
                beats.append(time.monotonic() - sent)
        finally:
            sock.close(linger=0)
    assert env.kind == "rep" and env.body == 1.6
    assert len(beats) >= 2, beats
    assert 0.45 <= beats[0] < 0.9, f"the first heartbeat came {beats[0]:.2f} s after the request (interval 0.5 s)"


def test_a_reply_finished_while_close_drains_is_still_sent() -> None:
    """close(grace) sends the replies of requests in flight: a ``close`` method that has another thread stop
    the server (it cannot join its own threads) still gets its reply (it was dropped, the caller timed out)."""
    srv = RpcServer("tcp://127.0.0.1:0", heartbeat_interval=0.1)

    def close_me() -> bool:
        threading.Thread(target=srv.close, daemon=True).start()
        time.sleep(0.1)  # close() has begun by now
        return True

    srv.register("close_me", close_me)
    srv.start()
    with RpcClient(srv.address, timeout=3, retries=0) as client:
        assert client.call("close_me") is True
