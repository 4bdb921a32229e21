"""The guest's side of the bootstrap, run for real on this host: ``ssh`` is replaced by one that runs the remote
command here, in a home made for the test, so the shell scripts the backend sends run as written.

What runs: the probe, the key seeding, the payload install (a venv of python3.11, the wheels, our packages on
its path, the import check, the stamp) and the server's own command line from the LaunchAgent, with the
keys the host made, answering the host's key over CURVE. What cannot run here: macOS's bash 3.2 and
launchctl (the LaunchAgent is started by hand), and a macOS payload (this host's Linux wheels stand in).
"""

from __future__ import annotations

import os
import plistlib
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import cua_bench_macos.backend as backend_module
import cua_bench_macos.payload as payload_module
from cua_bench import Computer
from cua_bench.backend_kit import read_ready_line, ready_address
from cua_bench_macos import MacosBackend, Ssh, agent_plist, build_payload
from cua_bench_macos.guest import install, probe, seed_keys
from cua_core import load_or_create_keypair

LOCAL_SSH = r'''#!PYTHON
"""ssh that runs the remote command on this host, as the guest's user would, in $FAKE_GUEST_HOME."""
import os, subprocess, sys
env = dict(os.environ, HOME=os.environ["FAKE_GUEST_HOME"])
sys.exit(subprocess.run(["/bin/sh", "-c", sys.argv[-1]], env=env).returncode)
'''


@pytest.fixture
def guest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Ssh, Path]:
    home = tmp_path / "Users" / "lume"
    home.mkdir(parents=True)
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "ssh").write_text(LOCAL_SSH.replace("#!PYTHON", f"#!{sys.executable}"))
    (folder / "ssh").chmod(0o755)
    monkeypatch.setenv("FAKE_GUEST_HOME", str(home))
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    return Ssh("192.168.64.5", "lume", password="lume"), home


def _free_port() -> int:
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        port: int = probe_socket.getsockname()[1]
        return port


def test_the_keys_the_host_seeds_are_the_ones_the_servers_command_line_serves_with(
    guest: tuple[Ssh, Path], tmp_path: Path
) -> None:
    ssh, home = guest
    found = probe(ssh)
    assert (found.home, found.uid, found.payload) == (str(home), os.getuid(), "")
    key, public, secret = backend_module._keypair()
    seed_keys(ssh, public, secret)
    secret_file = home / ".cua" / "config" / "keys" / "default.key_secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600

    agent = plistlib.loads(agent_plist(str(home), load_or_create_keypair().public.decode(), 640, 480, {}))
    argv = list(agent["ProgramArguments"])
    argv[0] = sys.executable  # the guest's venv, here this one
    argv[argv.index("--backend") + 1] = "sim"  # the macos session needs a Mac; the server around it is the same
    port = _free_port()
    argv[argv.index("--address") + 1] = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, **agent["EnvironmentVariables"], "PATH": os.environ["PATH"]}
    server = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              cwd=agent["WorkingDirectory"])  # fmt: skip
    try:
        line = read_ready_line(server, 60.0)
        assert ready_address(line) == f"tcp://127.0.0.1:{port}"
        assert line.endswith(f"server_key={key}")  # it serves with the pair made on the host
        computer = Computer("macos", f"tcp://127.0.0.1:{port}", 640, 480, None, {"server_key": key})
        assert MacosBackend().health(computer, timeout=10.0)  # and answers this user's key over CURVE
        impostor = Computer("macos", computer.address, 640, 480, None, {"server_key": backend_module._keypair()[0]})
        assert not MacosBackend().health(impostor, timeout=2.0)  # a server with another key is not believed
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("python3.11") is None, reason="the install needs a python3.11 on PATH")
def test_the_install_script_makes_a_venv_that_imports_the_server(
    guest: tuple[Ssh, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ssh, home = guest
    monkeypatch.setattr(payload_module, "MACOS_PLATFORMS", None)  # this host's wheels: a Linux "guest"
    tarball, digest = build_payload(tmp_path / "payload", log=lambda line: None)
    install(ssh, tarball, digest, "python3.11")
    assert (home / ".cua" / "payload.sha256").read_text().strip() == digest
    assert probe(ssh).payload == digest  # the stamp a clone of this VM is checked by
    venv_python = home / ".cua" / "venv" / "bin" / "python"
    done = subprocess.run([str(venv_python), "-c", "import cua_bench_macos, sys; print(cua_bench_macos.__file__)"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.startswith(str(home / ".cua" / "payload" / "lib"))
