from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

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
    for dashed in ("-" + public[1:], "-h" + public[2:], "-c" + public[2:]):  # Z85 keys may start with "-"
        allowed = runner.invoke(main, ["keys", "allow", dashed, "--comment", "dash"])
        assert allowed.exit_code == 0 and f"allowed {dashed}" in allowed.output, allowed.output
        assert f"{dashed} dash" in runner.invoke(main, ["keys", "show"]).output
    bad = runner.invoke(main, ["keys", "allow", "xyz"])
    assert bad.exit_code == 1 and "40 Z85 characters" in bad.output


def test_serve_and_tail_as_processes(private_dirs: Path) -> None:
    env = {**os.environ, "CUA_RUNTIME_DIR": str(private_dirs)}
    serve = subprocess.Popen(
        [sys.executable, "-m", "cua_core.cli", "serve"], env=env, stdout=subprocess.PIPE, text=True
    )
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
        serve.wait(timeout=10)
        if tail is not None and tail.poll() is None:
            tail.kill()


def test_serve_refuses_an_exposed_address_without_keys() -> None:
    result = CliRunner().invoke(main, ["serve", "--publish", "tcp://0.0.0.0:0"])
    assert result.exit_code == 1
    assert "without CURVE keys" in result.output
