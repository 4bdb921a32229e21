"""The ``macos`` backend's whole lifecycle against transcripts of Lume's API and tart's CLI (fixtures/), with
``ssh`` faked: which requests and commands, in which order, and what the guest is sent over SSH.

No Mac runs here, so no guest's env server can answer: ``answering`` makes the backend's health probe
say yes (and ``test_a_server_that_never_answers...`` says no). What is checked is everything up to it.
"""

from __future__ import annotations

import io
import json
import os
import plistlib
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zmq.auth

import cua_bench_macos.backend as backend_module
from cua_bench import BackendError, Computer
from cua_bench.backend_kit import OWNER_LABEL, labels
from cua_bench_macos import AGENT, MacosBackend
from cua_core import load_or_create_keypair

GOLDEN = "cua-macos-golden"


def _keys(stdin: bytes, scratch: Path) -> tuple[str, int]:
    """The public key in the key archive sent to the guest, and the secret file's mode."""
    with tarfile.open(fileobj=io.BytesIO(stdin)) as tar:
        names = {member.name: member for member in tar.getmembers()}
        assert set(names) == {"keys/default.key", "keys/default.key_secret"}
        tar.extractall(scratch, filter="data")
    public, secret = zmq.auth.load_certificate(str(scratch / "keys" / "default.key_secret"))
    assert secret is not None
    return public.decode(), names["keys/default.key_secret"].mode


def _check_boot(calls: list[dict[str, Any]], computer: Computer, user: str, password: str, tmp: Path) -> None:
    """One boot's SSH: log in (``true``), probe, keys, then the LaunchAgent, all as ``user`` at the VM's address."""
    ip = computer.info["ip"]
    assert [call["argv"][-2] for call in calls] == [f"{user}@{ip}"] * 4
    assert [call["password"] for call in calls] == [password + "\n"] * 4  # askpass handed ssh the password
    assert {call["askpass_require"] for call in calls} == {"force"}
    assert calls[0]["script"].endswith("true'")
    assert "id -u" in calls[1]["script"]
    assert "tar -xf - -C" in calls[2]["script"]
    key, mode = _keys(calls[2]["stdin"], tmp)
    assert key == computer.info["server_key"] and mode == 0o600  # the client checks the server by the key made here
    assert "launchctl bootstrap" in calls[3]["script"]
    agent = plistlib.loads(calls[3]["stdin"])
    assert agent["Label"] == AGENT and agent["LimitLoadToSessionType"] == "Aqua"
    assert agent["ProgramArguments"] == [
        f"/Users/{user}/.cua/venv/bin/python", "-m", "cua_bench.server", "--backend", "macos", "--address",
        "tcp://0.0.0.0:5555", "--curve", f"--allow={load_or_create_keypair().public.decode()}",
        "--width", str(computer.width), "--height", str(computer.height),
    ]  # fmt: skip
    assert agent["EnvironmentVariables"]["CUA_CONFIG_DIR"] == f"/Users/{user}/.cua/config"


@pytest.mark.usefixtures("answering")
def test_lume_clones_boots_resets_by_a_fresh_clone_and_deletes(
    lume: Callable[[str], Any], ssh: Any, payload_home: Path, tmp_path: Path
) -> None:
    replay = lume("lume_lifecycle")
    backend = MacosBackend(lume_url=replay.url, home=str(payload_home))
    computer = backend.provision(width=1024, height=768)
    name = computer.info["vm"]
    assert name.startswith("cua-env-") and replay.bound["vm"] == name
    assert computer.address == "tcp://192.168.64.5:5555" and computer.info["provider"] == "lume"
    assert (payload_home / "machines" / f"{name}.json").exists()  # the owner record prune reads
    _check_boot(ssh.calls(), computer, "lume", "lume", tmp_path / "k1")
    first_key = computer.info["server_key"]

    backend.restore(computer)
    assert computer.address == "tcp://192.168.64.6:5555"  # the fresh clone's address
    assert computer.info["server_key"] != first_key  # and its own key pair
    _check_boot(ssh.calls()[4:], computer, "lume", "lume", tmp_path / "k2")

    backend.teardown(computer)
    assert not (payload_home / "machines" / f"{name}.json").exists()
    assert len(ssh.calls()) == 8  # nothing is run in a guest that is being deleted
    replay.check()


@pytest.mark.usefixtures("answering")
def test_tart_clones_runs_headless_resets_by_a_fresh_clone_and_deletes(
    tart: Callable[[str], Any], ssh: Any, payload_home: Path, no_lume: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("FAKE_SSH_HOME", "/Users/admin")
    replay = tart("tart_lifecycle")
    backend = MacosBackend(lume_url=no_lume, home=str(payload_home))  # provider=auto: no Lume, so tart
    computer = backend.provision(width=1024, height=768)
    assert computer.address == "tcp://192.168.64.7:5555" and computer.info["provider"] == "tart"
    _check_boot(ssh.calls(), computer, "admin", "admin", tmp_path / "k1")
    backend.restore(computer)
    assert computer.address == "tcp://192.168.64.8:5555"
    _check_boot(ssh.calls()[4:], computer, "admin", "admin", tmp_path / "k2")
    backend.teardown(computer)
    replay.check()
    assert (payload_home / "runs" / f"{computer.info['vm']}.log").exists()  # `tart run`'s output, kept


@pytest.mark.usefixtures("answering")
def test_a_golden_vm_without_this_hosts_payload_gets_it_installed(
    lume: Callable[[str], Any], ssh: Any, payload_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SSH_DIGEST", "")  # the guest has no payload stamp
    replay = lume("lume_lifecycle")
    backend = MacosBackend(lume_url=replay.url, home=str(payload_home), guest_python="/opt/homebrew/bin/python3.11")
    computer = backend.provision(width=1024, height=768)
    install = ssh.calls()[2]
    assert "tar -xzf - -C" in install["script"] and install["stdin"] == b"a payload archive"
    assert "py=/opt/homebrew/bin/python3.11" in install["script"]
    assert "cua_bench.server, cua_bench_macos.quartz" in install["script"]  # proven importable before stamping
    assert install["script"].index("import cua_bench.server") < install["script"].rindex("payload.sha256")
    backend.teardown(computer)  # the same three requests as the transcript's restore begins with
    assert replay.failures == []


@pytest.mark.parametrize(("transcript", "provider"), [("lume_build", "lume"), ("tart_build", "tart")])
def test_build_image_pulls_the_image_installs_the_payload_and_stops_the_golden_vm(
    transcript: str, provider: str, lume: Callable[[str], Any], tart: Callable[[str], Any], ssh: Any,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_lume: str,
) -> None:  # fmt: skip
    built: list[Path] = []

    def fake_payload(folder: Path, log: Callable[[str], None] = print) -> tuple[Path, str]:
        folder.mkdir(parents=True)
        (folder / "payload.tar.gz").write_bytes(b"built payload")
        built.append(folder)
        return folder / "payload.tar.gz", "f00d"

    monkeypatch.setattr(backend_module, "build_payload", fake_payload)
    replay = lume(transcript) if provider == "lume" else tart(transcript)
    url = replay.url if provider == "lume" else no_lume
    result = MacosBackend(lume_url=url, home=str(tmp_path / "home")).build_image(log=lambda line: None)
    assert result.image == GOLDEN and built == [tmp_path / "home" / "payload"]
    scripts = [call["script"] for call in ssh.calls()]
    assert scripts[0].endswith("true'") and "tar -xzf - -C" in scripts[1] and len(scripts) == 2
    assert ssh.calls()[1]["stdin"] == b"built payload" and "echo f00d >" in scripts[1]
    replay.check()


def test_a_server_that_never_answers_is_an_error_with_its_log_and_the_machine_is_removed(
    lume: Callable[[str], Any], ssh: Any, payload_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(MacosBackend, "health", lambda self, computer, timeout=2.0: False)
    monkeypatch.setenv("FAKE_SSH_LOG", "BackendError: macOS has not allowed python3.11 Screen Recording")
    replay = lume("lume_silent_server")
    backend = MacosBackend(lume_url=replay.url, home=str(payload_home), boot_timeout=1.0)
    with pytest.raises(BackendError, match=r"(?s)was not ready within 1 s.*log ends:\n.*Screen Recording"):
        backend.provision(width=1024, height=768, timeout=1.0)
    replay.check()  # stopped and deleted
    assert list((payload_home / "machines").iterdir()) == []


def test_a_guest_without_python_311_is_an_error_naming_the_fix_and_the_machine_is_removed(
    lume: Callable[[str], Any], ssh: Any, payload_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SSH_DIGEST", "")
    monkeypatch.setenv("FAKE_SSH_INSTALL_EXIT", "3")
    replay = lume("lume_silent_server")
    backend = MacosBackend(lume_url=replay.url, home=str(payload_home))
    with pytest.raises(BackendError, match=r"no Python 3.11 at 'python3.11'.*brew install python@3.11"):
        backend.provision(width=1024, height=768)
    replay.check()


def test_lume_refusing_to_run_a_clone_is_an_error_quoting_lume_and_the_clone_is_deleted(
    lume: Callable[[str], Any], ssh: Any, payload_home: Path
) -> None:
    replay = lume("lume_refused")
    with pytest.raises(BackendError, match="Invalid run request body"):
        MacosBackend(lume_url=replay.url, home=str(payload_home)).provision(width=1024, height=768)
    replay.check()
    assert ssh.calls() == []


def test_a_tart_run_that_ends_at_once_is_an_error_quoting_it_and_the_clone_is_deleted(
    tart: Callable[[str], Any], ssh: Any, payload_home: Path, no_lume: str
) -> None:
    replay = tart("tart_run_fails")
    with pytest.raises(BackendError, match="the VM failed to start"):
        MacosBackend(lume_url=no_lume, home=str(payload_home)).provision(width=1024, height=768)
    replay.check()


def test_prune_removes_the_machines_of_dead_owners_only(
    tart: Callable[[str], Any], ssh: Any, payload_home: Path, no_lume: str
) -> None:
    replay = tart("tart_prune")
    backend = MacosBackend(lume_url=no_lume, home=str(payload_home))
    machines = payload_home / "machines"
    machines.mkdir()
    dead = {**labels("macos"), OWNER_LABEL: f"{os.uname().nodename}:999999999"}
    (machines / "cua-env-000000dead01.json").write_text(json.dumps(dead))
    (machines / "cua-env-000000a11ve2.json").write_text(json.dumps(labels("macos")))  # this process: alive
    assert backend.prune() == ["cua-env-000000dead01"]
    replay.check()  # my-own-vm and the golden VM were never touched
    assert sorted(p.name for p in machines.iterdir()) == ["cua-env-000000a11ve2.json"]
