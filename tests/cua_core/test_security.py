from __future__ import annotations

import asyncio
import logging
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cua_core.errors import RpcTimeout, SecurityError, ServerLost
from cua_core.events import BusAddresses, Forwarder, Publisher, Subscriber
from cua_core.rpc import AsyncRpcClient, RpcClient, RpcServer
from cua_core.security import AllowList, ClientSecurity, KeyPair, ServerSecurity, load_or_create_keypair


def test_keys_are_created_private_and_reloaded(tmp_path: Path) -> None:
    folder = tmp_path / "keys"
    pair = load_or_create_keypair("host", folder)
    assert len(pair.public) == 40 and len(pair.secret) == 40
    assert stat.S_IMODE((folder / "host.key_secret").stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert load_or_create_keypair("host", folder) == pair
    assert pair.secret.decode() not in repr(pair)  # secrets never end up in logs


def test_callers_racing_to_create_the_pair_all_get_the_same_one(tmp_path: Path) -> None:
    """Threads that start at once (a worker pool provisioning) must neither see the secret before it
    is private (that was refused as 'readable by others') nor get different pairs."""
    barrier = threading.Barrier(8)

    def load(name: str) -> KeyPair:
        barrier.wait()
        return load_or_create_keypair(name, tmp_path)

    with ThreadPoolExecutor(8) as pool:
        for round_ in range(10):  # the window is narrow: many rounds make a lost race show
            name = f"raced{round_}"
            pairs = list(pool.map(load, [name] * 8))
            assert len({p.public for p in pairs}) == 1 and len({p.secret for p in pairs}) == 1
            assert (tmp_path / f"{name}.key").read_bytes().count(pairs[0].public) == 1
    assert len(list(tmp_path.iterdir())) == 2 * 10  # no scratch folder left behind


def test_default_location_is_the_config_dir(private_dirs: Path, tmp_path: Path) -> None:
    load_or_create_keypair()
    assert (tmp_path / "config" / "keys" / "default.key_secret").exists()


def test_a_secret_readable_by_others_is_refused(tmp_path: Path) -> None:
    load_or_create_keypair("k", tmp_path)
    (tmp_path / "k.key_secret").chmod(0o644)
    with pytest.raises(SecurityError, match="chmod 600"):
        load_or_create_keypair("k", tmp_path)


@pytest.mark.parametrize("name", ["", "../x", ".hidden"])
def test_bad_key_names(name: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="plain file name"):
        load_or_create_keypair(name, tmp_path)


def test_allow_list_validates_and_deduplicates(tmp_path: Path) -> None:
    allow = AllowList(tmp_path / "authorized_keys")
    key = load_or_create_keypair("c", tmp_path).public
    allow.add(key, "laptop")
    allow.add(key.decode(), "again")
    assert allow.keys() == {key: "laptop"}
    assert key in allow
    with pytest.raises(SecurityError, match="40 Z85 characters"):
        allow.add("short")
    (tmp_path / "authorized_keys").write_text("# comment\n\nnot-a-key x\n")
    with pytest.raises(SecurityError, match=r"authorized_keys:3"):
        allow.keys()


@pytest.mark.parametrize("address", ["tcp://0.0.0.0:0", "tcp://*:0", "tcp://10.1.2.3:5555", "tcp://example.org:1"])
def test_listening_beyond_loopback_needs_keys(address: str) -> None:
    with pytest.raises(SecurityError, match="without CURVE keys"):
        RpcServer(address)
    with pytest.raises(SecurityError, match="without CURVE keys"):
        Forwarder(BusAddresses(address, "tcp://127.0.0.1:0"))


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:0", "tcp://localhost:0", "tcp://[::1]:0", "ipc:///tmp/x.sock"])
def test_loopback_and_ipc_need_no_keys(address: str) -> None:
    RpcServer(address)  # constructing checks the address; nothing is bound until start()


def _secured(tmp_path: Path) -> tuple[ServerSecurity, ClientSecurity, ClientSecurity]:
    server_pair = load_or_create_keypair("server", tmp_path)
    allow = AllowList(tmp_path / "authorized_keys")
    good = load_or_create_keypair("good", tmp_path)
    bad = load_or_create_keypair("bad", tmp_path)
    allow.add(good.public, "good client")
    server = ServerSecurity(server_pair, allow)
    return server, ClientSecurity(good, server_pair.public), ClientSecurity(bad, server_pair.public)


def test_rpc_with_curve_accepts_allowed_and_refuses_unknown_keys(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server_sec, good, bad = _secured(tmp_path)
    # 0.0.0.0 is allowed because keys are given; the clients still connect over loopback.
    with RpcServer("tcp://0.0.0.0:0", security=server_sec) as srv:
        port = srv.address.rsplit(":", 1)[1]
        address = f"tcp://127.0.0.1:{port}"
        with RpcClient(address, security=good) as client:
            assert client.call("rpc.ping") == "pong"
        caplog.set_level(logging.WARNING, logger="cua_core.security")
        with RpcClient(address, security=bad, timeout=5) as client:
            start = time.monotonic()
            with pytest.raises(SecurityError, match="refused our CURVE key"):
                client.call("rpc.ping")
            assert time.monotonic() - start < 2
        assert any("refused a client" in r.message and bad.keypair.public.decode() in r.message for r in caplog.records)
        # A client without any keys gets nowhere either (plain-text handshake to a CURVE server).
        with (
            RpcClient(address, timeout=0.5, heartbeat_timeout=0.5) as client,
            pytest.raises(RpcTimeout),
        ):
            client.call("rpc.ping")


def test_a_key_refused_while_the_client_has_no_peer_is_named_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between a refused handshake and the next reconnect the client has no peer, and a send finds no
    queue (seen under load). That send waited out the heartbeat timeout and blamed a lost server;
    the monitor already knew the key was refused."""
    import zmq

    from cua_core.rpc import client as rpc_client

    server_sec, _good, bad = _secured(tmp_path)
    real_send, unsent = rpc_client.send_frames, [1]

    def no_peer_once(sock: object, frames: object, **kwargs: object) -> None:
        if unsent:
            unsent.pop()
            raise zmq.Again()
        real_send(sock, frames, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rpc_client, "send_frames", no_peer_once)
    with (
        RpcServer("tcp://127.0.0.1:0", security=server_sec) as srv,
        RpcClient(srv.address, security=bad, timeout=5, heartbeat_timeout=3) as client,
    ):
        time.sleep(0.5)  # the handshake fails meanwhile
        start = time.monotonic()
        with pytest.raises(SecurityError, match="refused our CURVE key"):
            client.call("rpc.ping")
        assert time.monotonic() - start < 1


def test_a_client_whose_handshake_failed_gets_an_error_not_a_hang(tmp_path: Path) -> None:
    """Once a plain-text handshake to a CURVE server has failed, the client's socket has no peer until
    it reconnects, and a send then blocked for ever (now and then, when the failure came before the
    send). Either way the call must end within about the heartbeat timeout."""
    server_sec, _good, bad = _secured(tmp_path)
    with RpcServer("tcp://127.0.0.1:0", security=server_sec) as srv:
        with RpcClient(srv.address, timeout=5, heartbeat_timeout=0.5, retries=0) as plain:
            time.sleep(0.3)  # the handshake fails meanwhile
            for _ in range(2):
                start = time.monotonic()
                with pytest.raises(ServerLost):
                    plain.call("rpc.ping")
                assert time.monotonic() - start < 2
        with RpcClient(srv.address, timeout=5, heartbeat_timeout=0.5, retries=0, security=bad) as refused:
            with pytest.raises(SecurityError):
                refused.call("rpc.ping")
            start = time.monotonic()
            with pytest.raises((SecurityError, ServerLost)):  # asking again ends too
                refused.call("rpc.ping")
            assert time.monotonic() - start < 2

        async def plain_async() -> None:
            client = AsyncRpcClient(srv.address, timeout=5, heartbeat_timeout=0.5, retries=0)
            try:
                await asyncio.sleep(0.3)
                with pytest.raises(ServerLost):
                    await client.call("rpc.ping")
            finally:
                await client.close()

        asyncio.run(plain_async())


def test_allow_list_changes_apply_without_restart(tmp_path: Path) -> None:
    server_sec, _good, bad = _secured(tmp_path)
    with RpcServer("tcp://127.0.0.1:0", security=server_sec) as srv:
        with RpcClient(srv.address, security=bad) as client, pytest.raises(SecurityError):
            client.call("rpc.ping")
        server_sec.allow.add(bad.keypair.public, "now allowed")
        with RpcClient(srv.address, security=bad) as client:
            assert client.call("rpc.ping") == "pong"


def test_events_with_curve(tmp_path: Path) -> None:
    server_sec, good, _bad = _secured(tmp_path)
    with (
        Forwarder(BusAddresses("tcp://127.0.0.1:0", "tcp://127.0.0.1:0"), security=server_sec) as fwd,
        Subscriber(fwd.addresses.subscribe, security=good) as sub,
        Publisher(fwd.addresses.publish, security=good) as pub,
    ):
        for _ in range(100):
            pub.publish("pool.host.up", 1)
            if sub.recv(timeout=0.05) is not None:
                break
        else:
            raise AssertionError("no event crossed the secured forwarder")


def test_a_server_key_given_as_text_works_like_bytes(tmp_path: Path) -> None:
    server_sec, good, _ = _secured(tmp_path)
    as_text = ClientSecurity(good.keypair, good.server_public.decode())  # type: ignore[arg-type]
    assert as_text.server_public == good.server_public
    with RpcServer("tcp://127.0.0.1:0", security=server_sec) as srv, RpcClient(srv.address, security=as_text) as client:
        assert client.call("rpc.ping") == "pong"
    with pytest.raises(SecurityError, match="40 Z85 characters"):
        ClientSecurity(good.keypair, "short")  # type: ignore[arg-type]
