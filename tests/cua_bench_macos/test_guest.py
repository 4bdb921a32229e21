"""How the host talks to the guest: ssh's command line (a key, or the password through askpass), the probe's
reading of the guest's answer, and the LaunchAgent that starts the server in the GUI session."""

from __future__ import annotations

import plistlib
import shlex
from typing import Any

import pytest

from cua_bench import BackendError
from cua_bench_macos import AGENT, Ssh, agent_plist
from cua_bench_macos.guest import probe


def test_with_a_key_ssh_never_asks_for_a_password_and_runs_bash() -> None:
    argv = Ssh("192.168.64.5", "lume", key="/keys/id_ed25519").argv("echo hi")
    assert argv[0] == "ssh" and argv[-2] == "lume@192.168.64.5"
    assert argv[argv.index("-i") : argv.index("-i") + 2] == ["-i", "/keys/id_ed25519"]
    assert "BatchMode=yes" in argv and "StrictHostKeyChecking=no" in argv
    remote = shlex.split(argv[-1])
    assert remote[:2] == ["/bin/bash", "-c"] and remote[2].endswith("; echo hi")
    assert remote[2].startswith("export PATH=/opt/homebrew/bin:")


def test_with_a_password_ssh_takes_it_from_askpass(ssh: Any) -> None:
    link = Ssh("192.168.64.5", "admin", password="admin")
    assert "PubkeyAuthentication=no" in link.argv("true")
    assert link.run("true").returncode == 0
    call = ssh.calls()[0]
    assert (call["password"], call["askpass_require"]) == ("admin\n", "force")


def test_the_probe_reads_home_uid_and_the_payload_stamp(ssh: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    found = probe(Ssh("192.168.64.5", "lume", password="lume"))
    assert (found.home, found.uid) == ("/Users/lume", 501) and len(found.payload) == 64
    monkeypatch.setenv("FAKE_SSH_HOME", "not a path")
    with pytest.raises(BackendError, match="not its home and uid"):
        probe(Ssh("192.168.64.5", "lume", password="lume"))


def test_the_launch_agent_runs_the_server_in_the_gui_session() -> None:
    agent = plistlib.loads(agent_plist("/Users/admin", "A" * 40, 1280, 800, {"CUA_OSWORLD_PASSWORD": "x"}))
    assert agent["Label"] == AGENT and agent["RunAtLoad"] is True
    assert agent["LimitLoadToSessionType"] == "Aqua"  # the logged-on user's desktop, not a background session
    assert agent["ProgramArguments"][:5] == ["/Users/admin/.cua/venv/bin/python", "-m", "cua_bench.server",
                                             "--backend", "macos"]  # fmt: skip
    assert "--curve" in agent["ProgramArguments"] and f"--allow={'A' * 40}" in agent["ProgramArguments"]
    assert agent["StandardOutPath"] == agent["StandardErrorPath"] == "/Users/admin/.cua/logs/server.log"
    assert agent["EnvironmentVariables"]["CUA_OSWORLD_PASSWORD"] == "x"
