"""The env server beyond loopback: only with CURVE, serving the clients it allows and logging the others."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from cua_bench.client import EnvClient
from cua_bench.server import main
from cua_core.actions import Click, Point
from cua_core.errors import RpcTimeout, SecurityError, ServerLost
from cua_core.rpc import RpcClient
from cua_core.security import ClientSecurity, KeyPair, load_or_create_keypair


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--address", "tcp://0.0.0.0:7999"], "tcp://0.0.0.0:7999 is reachable from other computers: add --curve"),
        (["--address", "tcp://eth0:7999"], "add --curve"),
        (["--address", "tcp://127.0.0.1:7999", "--allow", "x" * 40], "--allow names client keys for CURVE"),
        (["--address", "tcp://127.0.0.1:7999", "--curve", "--allow", "short"], "is not a CURVE public key"),
        (["--address", "tcp://127.0.0.1:7999", "--curve", "--allow", "~" * 40], "is not a CURVE public key"),
        (["--address", "udp://127.0.0.1:7999"], "scheme 'udp' is not one of ipc, inproc, tcp"),
    ],
)
def test_refusals_name_the_fix(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert says in capsys.readouterr().err


class Served:
    def __init__(self, proc: subprocess.Popen[str], address: str, key: str) -> None:
        self.proc, self.address, self.key = proc, address, key
        self.stderr: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)


@pytest.fixture(scope="module")
def dashed() -> KeyPair:
    """A client key pair whose public key starts with '-' (1 in 85 does), which argparse would take
    for an option were it not written --allow=KEY."""
    while True:
        public, secret = zmq.curve_keypair()
        if public.startswith(b"-"):
            return KeyPair(public, secret)


@pytest.fixture
def served(tmp_path: Path, dashed: KeyPair) -> Iterator[Served]:
    """A sim env server on loopback tcp with CURVE and keys of its own (another config folder),
    allowing our key through --allow alone (it is in no allow-list file)."""
    ours = dashed.public.decode()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cua_bench.server", "--address", "tcp://127.0.0.1:*", "--curve", f"--allow={ours}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CUA_CONFIG_DIR": str(tmp_path / "server-config")},
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline().split()
        if not line:
            proc.wait(10)
            pytest.fail(f"the env server exited {proc.returncode} before its ready line: {proc.stderr.read()}")
        assert line[0] == "ready" and line[1].startswith("tcp://127.0.0.1:"), line
        assert line[2].startswith("server_key=") and len(line[2]) == len("server_key=") + 40, line
        yield Served(proc, line[1], line[2].removeprefix("server_key="))
    finally:
        proc.terminate()
        proc.wait(10)


def test_an_allowed_client_plays_over_curve(served: Served, dashed: KeyPair) -> None:
    security = ClientSecurity(dashed, served.key.encode())
    with EnvClient(served.address, security=security) as env:
        obs, info = env.reset(options={"task": "sim/click-button", "variant": 0, "observes": "rgb"})
        assert obs["screenshot"].shape == (800, 1280, 3) and info["task"]["name"]
        _, reward, terminated, _, step = env.step([Click(Point(500, 500))])
        assert step["step"] == 1 and not terminated and reward == 0.0
        assert env.solve()["reward"] == 1.0


def test_a_stranger_is_refused_and_the_refusal_logged(served: Served) -> None:
    stranger = load_or_create_keypair("stranger")
    with (
        RpcClient(
            served.address,
            timeout=5,
            heartbeat_timeout=2,
            retries=0,
            security=ClientSecurity(stranger, served.key.encode()),
        ) as client,
        pytest.raises(SecurityError, match="refused our CURVE key"),
    ):
        client.call("info")
    # Without CURVE at all, the handshake never completes: no answer, never a reply in clear.
    with (
        RpcClient(served.address, timeout=1, heartbeat_timeout=1, retries=0) as plain,
        pytest.raises((RpcTimeout, ServerLost)),
    ):
        plain.call("info")
    served.proc.terminate()
    served.proc.wait(10)
    served.reader.join(5)
    refusals = [line for line in served.stderr if "refused a client with CURVE key" in line]
    assert refusals and stranger.public.decode() in refusals[0], served.stderr
