"""``client_for`` and ``security_for``: a computer whose env server demands CURVE names the server's key
in ``info["server_key"]``, and everything handed that computer reaches it with this user's key pair."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import cua_bench
from cua_bench import Computer, client_for, security_for
from cua_bench.backends.sim import SimBackend
from cua_bench.server import EnvServer
from cua_core.errors import RpcTimeout, ServerLost
from cua_core.security import AllowList, ServerSecurity, load_or_create_keypair


@pytest.fixture
def curve_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """A sim env server on loopback tcp that serves CURVE clients only, allowing this user's key;
    its (address, public key)."""
    monkeypatch.setenv("CUA_CONFIG_DIR", str(tmp_path / "config"))  # this test's keys, never the user's
    ours = load_or_create_keypair()  # the pair client_for connects with
    folder = tmp_path / "server-keys"
    allow = AllowList(folder / "authorized_keys")
    allow.add(ours.public, "client_for")
    keys = load_or_create_keypair("env-server", folder)
    session = SimBackend.create_session(width=320, height=200)
    server = EnvServer(session, "tcp://127.0.0.1:*", security=ServerSecurity(keys, allow), backend="sim").start()
    try:
        yield server.address, keys.public.decode()
    finally:
        server.rpc.close()


def test_client_for_reaches_a_curve_only_server_with_the_key_the_computer_names(curve_server: tuple[str, str]) -> None:
    address, key = curve_server
    computer = Computer("sim", address, 320, 200, info={"server_key": key})
    with client_for(computer, step_timeout=10) as env:
        assert env.rpc.call("rpc.ping") == "pong"
        obs, info = env.reset(options={"task": "sim/click-button", "observes": "rgb"})
        assert obs["screenshot"].shape == (200, 320, 3) and info["task"]["name"]
    assert SimBackend().health(computer, timeout=5)  # Backend.health pings over CURVE too


def test_without_the_key_the_same_server_never_answers(curve_server: tuple[str, str]) -> None:
    address, _ = curve_server
    plain = Computer("sim", address, 320, 200)
    with (
        client_for(plain, step_timeout=1, heartbeat_timeout=1) as env,
        pytest.raises((RpcTimeout, ServerLost)),
    ):
        env.rpc.call("rpc.ping")
    # health never raises: no key, and a key that is none, are both a server that does not answer.
    assert not SimBackend().health(plain, timeout=0.5)
    assert not SimBackend().health(Computer("sim", address, 320, 200, info={"server_key": "short"}), timeout=0.5)


def test_security_for_reads_the_key_as_text_or_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_CONFIG_DIR", str(tmp_path / "config"))
    key = load_or_create_keypair("server", tmp_path / "server-keys").public
    assert security_for(Computer("sim", "ipc:///x", 1, 1)) is None
    as_text = security_for(Computer("sim", "tcp://10.0.0.2:5555", 1, 1, info={"server_key": key.decode()}))
    as_bytes = security_for(Computer("sim", "tcp://10.0.0.2:5555", 1, 1, info={"server_key": key}))
    assert as_text is not None and as_text == as_bytes and as_text.server_public == key
    assert as_text.keypair == load_or_create_keypair()  # this user's pair, under CUA_CONFIG_DIR
    assert {"client_for", "security_for"} <= set(cua_bench.__all__)
