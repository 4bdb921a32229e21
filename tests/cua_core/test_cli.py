from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import zmq
from click.testing import CliRunner
from support.signals import ctrl_c

from cua_core.cli import main
from cua_core.events import BusAddresses, Publisher
from cua_core.rpc import RpcServer


def test_demo_shows_a_live_round_trip() -> None:
    result = CliRunner().invoke(main, ["demo", "--requests", "20"])
    assert result.exit_code == 0, result.output
    assert "event      <- demo.action.click" in result.output
    assert "slow(1.2)  -> 1.2" in result.output
    assert "unexpected parameter 'bogus'" in result.output
    assert "events     <- ['demo.action.type0', 'demo.action.type1', 'demo.action.type2']" in result.output
    assert result.output.rstrip().endswith("bus demo: ok")


def test_call_prints_json_and_reports_errors() -> None:
    with RpcServer("tcp://127.0.0.1:0") as srv:
        srv.register("add", lambda a, b: a + b)
        runner = CliRunner()
        ok = runner.invoke(main, ["call", srv.address, "add", '{"a": 2, "b": 3}'])
        assert ok.exit_code == 0 and json.loads(ok.output) == 5
        bad_json = runner.invoke(main, ["call", srv.address, "add", "{nope"])
        assert bad_json.exit_code == 2 and "not JSON" in bad_json.output
        not_object = runner.invoke(main, ["call", srv.address, "add", "[1]"])
        assert not_object.exit_code == 2 and "JSON object" in not_object.output
        remote = runner.invoke(main, ["call", srv.address, "ad"])
        assert remote.exit_code == 1 and "did you mean 'add'" in remote.output


def test_keys_init_show_allow(tmp_path: Path) -> None:
    runner = CliRunner()
    public = runner.invoke(main, ["keys", "init"]).output.strip()
    assert len(public) == 40
    assert runner.invoke(main, ["keys", "init"]).output.strip() == public  # kept, not replaced
    other = runner.invoke(main, ["keys", "init"]).output.strip()
    allowed = runner.invoke(main, ["keys", "allow", other, "--comment", "ci runner"])
    assert allowed.exit_code == 0
    shown = runner.invoke(main, ["keys", "show"]).output
    assert f"public key: {public}" in shown and "ci runner" in shown
    # Z85 keys may start with "-". Built from another key than the one allowed above (which itself
    # starts with "-" one time in 85, and allowing it again is refused); a leading "-", "-h" or "-c"
    # keeps any valid key valid.
    base = public
    while base[0] == "-" or base[1] in "hc" or base == public:
        base = zmq.curve_keypair()[0].decode()
    for dashed in ("-" + base[1:], "-h" + base[2:], "-c" + base[2:]):
        allowed = runner.invoke(main, ["keys", "allow", dashed, "--comment", "dash"])
        assert allowed.exit_code == 0 and f"allowed {dashed}" in allowed.output, allowed.output
        assert f"{dashed} dash" in runner.invoke(main, ["keys", "show"]).output
    bad = runner.invoke(main, ["keys", "allow", "xyz"])
    assert bad.exit_code == 1 and "40 Z85 characters" in bad.output


def test_serve_and_tail_as_processes(private_dirs: Path) -> None:
    env = {**os.environ, "CUA_RUNTIME_DIR": str(private_dirs)}
    serve = subprocess.Popen(ctrl_c("cua_core.cli", "serve"), env=env, stdout=subprocess.PIPE, text=True)
    tail = None
    try:
        assert serve.stdout is not None
        assert serve.stdout.readline().startswith("publish")
        tail = subprocess.Popen(
            [sys.executable, "-m", "cua_core.cli", "tail", "job", "--count", "3"],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        with Publisher(BusAddresses.default().publish) as pub:
            deadline = time.monotonic() + 20
            while tail.poll() is None and time.monotonic() < deadline:
                pub.publish("job.log", {"line": "hello", "blob": b"x" * 5000})
                pub.publish("other.topic", 1)
                time.sleep(0.05)
        out, _ = tail.communicate(timeout=5)
        lines = [json.loads(line) for line in out.splitlines()]
        assert len(lines) == 3
        assert all(line["topic"] == "job.log" for line in lines)
        assert lines[0]["body"] == {"line": "hello", "blob": "<5000 bytes>"}
    finally:
        serve.send_signal(signal.SIGINT)
        serve.wait(timeout=60)  # a loaded machine is slow to tear down, not stuck
        if tail is not None and tail.poll() is None:
            tail.kill()


def test_serve_refuses_an_exposed_address_without_keys() -> None:
    result = CliRunner().invoke(main, ["serve", "--publish", "tcp://0.0.0.0:0"])
    assert result.exit_code == 1
    assert "without CURVE keys" in result.output


def _bus(args: list[str], env_dir: Path) -> subprocess.CompletedProcess[str]:
    """As a process with a timeout: the bugs these tests pin down were hangs."""
    env = {**os.environ, "CUA_RUNTIME_DIR": str(env_dir)}
    return subprocess.run(
        [sys.executable, "-m", "cua_core.cli", *args], env=env, capture_output=True, text=True, timeout=20, check=False
    )


def test_tail_without_a_forwarder_says_so_instead_of_hanging(private_dirs: Path) -> None:
    missing = _bus(["tail"], private_dirs)
    assert missing.returncode == 1
    assert "bus-subscribe.sock does not exist" in missing.stderr and "cua-bus serve" in missing.stderr
    assert "Traceback" not in missing.stderr
    # A socket file left by a forwarder that stopped: there, but nobody listens.
    import socket as sockets

    stale = private_dirs / "stale.sock"
    with sockets.socket(sockets.AF_UNIX) as s:
        s.bind(str(stale))
    left = _bus(["tail", "--subscribe", f"ipc://{stale}"], private_dirs)
    assert left.returncode == 1 and "nothing listens" in left.stderr and "cua-bus serve" in left.stderr
    bad = _bus(["tail", "--subscribe", "nowhere"], private_dirs)
    assert bad.returncode == 1 and "ipc://PATH or tcp://HOST:PORT" in bad.stderr


def test_call_names_the_address_forms_and_missing_sockets(private_dirs: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["call", "notanaddress", "rpc.ping"])
    assert bad.exit_code == 1, bad.output
    assert "'notanaddress' is not a bus address: write ipc://PATH or tcp://HOST:PORT" in bad.output
    assert "ZMQError" not in bad.output and len(bad.output.strip().splitlines()) == 1
    start = time.monotonic()
    gone = runner.invoke(main, ["call", f"ipc://{private_dirs}/nobody.sock", "rpc.ping"])
    assert gone.exit_code == 1 and "no RPC server at" in gone.output and "does not exist" in gone.output
    assert time.monotonic() - start < 5  # not the whole 30 s timeout
    assert runner.invoke(main, ["call", "tcp://127.0.0.1:7070", "rpc.ping", "--timeout", "0"]).exit_code == 2


def test_nothing_done_is_not_a_success() -> None:
    runner = CliRunner()
    key = runner.invoke(main, ["keys", "init"]).output.strip()
    assert runner.invoke(main, ["keys", "allow", key, "--comment", "me"]).exit_code == 0
    again = runner.invoke(main, ["keys", "allow", key, "--comment", "someone else"])
    assert again.exit_code == 1 and "already allowed" in again.output and "nothing changed" in again.output
    assert "someone else" not in runner.invoke(main, ["keys", "show"]).output
    assert runner.invoke(main, ["demo", "--requests", "0"]).exit_code == 2  # no round trip to time
    assert runner.invoke(main, ["tail", "--count", "-1"]).exit_code == 2
