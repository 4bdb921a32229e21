"""How the env server gets into a macOS guest: over SSH, as the user Lume's and tart's images log on as.

Both providers' images come with Remote Login (SSH) on and a user that logs on by itself (Lume: ``lume``
/ ``lume``; tart: ``admin`` / ``admin``, their documentation's defaults). The host drives the guest with
the system's ``ssh`` client: a key (``ssh_key``), or the password handed to ssh through SSH_ASKPASS
(OpenSSH 8.4's ``SSH_ASKPASS_REQUIRE=force``), so no sshpass and no terminal are needed.

Three steps, each one SSH command fed on its standard input:

- the payload (``install``), once per golden VM: the server's wheels and our packages (the kit's
  ``server_payload`` for macOS on Apple silicon) unpacked under ``~/.cua``, installed into a venv of the
  guest's Python 3.11, stamped with the payload's hash so a clone of that VM skips it;
- the machine's CURVE key pair (``seed_keys``), made on the host: the host never trusts a key the
  guest announces;
- the server (``start_server``) as a LaunchAgent in the user's GUI (Aqua) session, so that it sees
  the desktop: a process started from the SSH login itself runs outside it, where capture sees no
  screen. ``launchctl bootstrap gui/UID`` loads it into the logged-on user's session.
"""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cua_bench import BackendError

__all__ = ["AGENT", "GUEST_PORT", "GuestHome", "Ssh", "agent_plist", "install", "probe", "seed_keys", "start_server"]

GUEST_PORT = 5555  # the env server's port on the guest's address (the host reaches it on Apple's NAT)
AGENT = "io.cua.env-server"  # the LaunchAgent's label
PATH = "/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"  # Homebrew's Python comes first
PYTHON_MISSING = 3  # install's exit code when the guest's Python is not 3.11


class Ssh:
    """``ssh user@host`` with the host key not pinned (every clone is a new machine on a private network)."""

    def __init__(self, host: str, user: str, *, password: str = "", key: str = "", binary: str = "ssh") -> None:
        self.host, self.user, self.password, self.key, self.binary = host, user, password, key, binary

    def argv(self, script: str) -> list[str]:
        options = ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                   "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=15"]  # fmt: skip
        if self.key:
            options += ["-i", self.key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes"]
        else:
            options += ["-o", "PreferredAuthentications=password,keyboard-interactive", "-o", "PubkeyAuthentication=no",
                        "-o", "NumberOfPasswordPrompts=1"]  # fmt: skip
        remote = f"/bin/bash -c {shlex.quote(f'export PATH={PATH}:$PATH; {script}')}"
        return [self.binary, *options, f"{self.user}@{self.host}", remote]

    def run(self, script: str, stdin: bytes = b"", timeout: float = 120.0) -> subprocess.CompletedProcess[bytes]:
        """The script in the guest's bash; its exit code is the script's (255: ssh itself failed)."""
        with tempfile.TemporaryDirectory(prefix="cua-ssh-") as scratch:
            env = dict(os.environ)
            if not self.key:
                askpass = Path(scratch) / "askpass"
                askpass.write_text('#!/bin/sh\nprintf "%s\\n" "$CUA_MACOS_SSH_SECRET"\n')
                askpass.chmod(0o700)
                env |= {"SSH_ASKPASS": str(askpass), "SSH_ASKPASS_REQUIRE": "force",
                        "DISPLAY": env.get("DISPLAY", ":0"), "CUA_MACOS_SSH_SECRET": self.password}  # fmt: skip
            try:
                return subprocess.run(self.argv(script), input=stdin, capture_output=True, timeout=timeout, env=env,
                                      check=False, start_new_session=True)  # fmt: skip
            except subprocess.TimeoutExpired as exc:
                raise BackendError(f"ssh {self.user}@{self.host} did not finish within {timeout:g} s") from exc

    def check(self, script: str, stdin: bytes = b"", timeout: float = 120.0, what: str = "") -> str:
        done = self.run(script, stdin, timeout)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).decode(errors="replace").strip()[-1500:]
            raise BackendError(
                f"{what or 'a command'} failed in the guest {self.host} (exit {done.returncode}): {said}"
            )
        return done.stdout.decode(errors="replace")

    def wait(self, timeout: float, interval: float = 2.0) -> None:
        """Until sshd answers and logs the user in; a BackendError with ssh's last words after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            done = self.run("true", timeout=30.0)
            if done.returncode == 0:
                return
            if time.monotonic() > deadline:
                said = done.stderr.decode(errors="replace").strip()[-500:]
                raise BackendError(f"ssh {self.user}@{self.host} did not log in within {timeout:g} s ({said}); the "
                                   "image must have Remote Login on (Lume's and tart's images do) and this user's "
                                   "password or key (ssh_user, ssh_password, ssh_key)")  # fmt: skip
            time.sleep(interval)


@dataclass(frozen=True)
class GuestHome:
    """What ``probe`` learnt: the user's home and uid, and the hash of the payload installed there ('' if none)."""

    home: str
    uid: int
    payload: str


def probe(ssh: Ssh) -> GuestHome:
    out = ssh.check('printf "%s\\n%s\\n" "$HOME" "$(id -u)"; cat "$HOME/.cua/payload.sha256" 2>/dev/null || true',
                    what="reading the guest's home")  # fmt: skip
    lines = [*out.splitlines(), "", "", ""]
    if not lines[0].startswith("/") or not lines[1].strip().isdigit():
        raise BackendError(f"the guest answered the probe with {out!r}, not its home and uid")
    return GuestHome(lines[0], int(lines[1]), lines[2].strip())


def install(ssh: Ssh, tarball: Path, digest: str, python: str) -> None:
    """The payload into ``~/.cua``: a venv of the guest's ``python`` (3.11, as the wheels are), its wheels,
    our packages on its path, then an import of the server to prove it; stamped with ``digest`` last."""
    script = f"""set -e
py={shlex.quote(python)}
if ! "$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then exit {PYTHON_MISSING}; fi
rm -rf "$HOME/.cua/payload" "$HOME/.cua/venv" "$HOME/.cua/payload.sha256"
mkdir -p "$HOME/.cua/payload"
tar -xzf - -C "$HOME/.cua/payload"
"$py" -m venv "$HOME/.cua/venv"
wheels="$HOME/.cua/payload/wheels"
"$HOME/.cua/venv/bin/python" -m pip install -q --no-index --find-links "$wheels" "$wheels"/*.whl
site=$("$HOME/.cua/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$HOME/.cua/payload/lib" > "$site/cua.pth"
"$HOME/.cua/venv/bin/python" -c 'import cua_bench.server, cua_bench_macos.quartz'
echo {digest} > "$HOME/.cua/payload.sha256"
"""
    done = ssh.run(script, tarball.read_bytes(), timeout=900.0)
    if done.returncode == PYTHON_MISSING:
        raise BackendError(f"the guest has no Python 3.11 at {python!r} (the server's wheels are for 3.11): install "
                           "it in the golden VM (brew install python@3.11) or set guest_python, then rebuild with "
                           "`cua-bench image build macos`")  # fmt: skip
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode(errors="replace").strip()[-1500:]
        raise BackendError(f"installing the env server in the guest {ssh.host} failed (exit {done.returncode}): {said}")


def seed_keys(ssh: Ssh, public: bytes, secret: bytes) -> None:
    """The machine's CURVE key pair into ``~/.cua/config/keys`` (the secret 0600: the server refuses it otherwise)."""
    # tarfile and plistlib are imported where they are used: cua-bench loads this plugin in every env server.
    import tarfile

    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        for name, data, mode in (("keys/default.key", public, 0o644), ("keys/default.key_secret", secret, 0o600)):
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    ssh.check('umask 077; mkdir -p "$HOME/.cua/config" && tar -xf - -C "$HOME/.cua/config"', archive.getvalue(),
              what="writing the machine's keys")  # fmt: skip


def agent_plist(home: str, allow: str, width: int, height: int, settings: dict[str, str]) -> bytes:
    """The LaunchAgent that runs the server in the GUI session, its output in ``~/.cua/logs/server.log``."""
    import plistlib

    log = f"{home}/.cua/logs/server.log"
    return plistlib.dumps({
        "Label": AGENT,
        "ProgramArguments": [f"{home}/.cua/venv/bin/python", "-m", "cua_bench.server", "--backend", "macos",
                             "--address", f"tcp://0.0.0.0:{GUEST_PORT}", "--curve", f"--allow={allow}",
                             "--width", str(width), "--height", str(height)],
        "EnvironmentVariables": {"CUA_CONFIG_DIR": f"{home}/.cua/config", "PATH": PATH, "LANG": "en_US.UTF-8",
                                 **settings},
        "WorkingDirectory": home, "StandardOutPath": log, "StandardErrorPath": log,
        "RunAtLoad": True, "LimitLoadToSessionType": "Aqua", "ProcessType": "Interactive",
    })  # fmt: skip


def start_server(ssh: Ssh, plist: bytes) -> None:
    """Install the LaunchAgent and load it into the logged-on user's GUI session (replacing a loaded one)."""
    script = f"""set -e
mkdir -p "$HOME/Library/LaunchAgents" "$HOME/.cua/logs"
cat > "$HOME/Library/LaunchAgents/{AGENT}.plist"
launchctl bootout "gui/$(id -u)/{AGENT}" 2>/dev/null || true
: > "$HOME/.cua/logs/server.log"
launchctl bootstrap "gui/$(id -u)" "$HOME/Library/LaunchAgents/{AGENT}.plist"
"""
    ssh.check(script, plist, what="starting the env server (launchctl bootstrap)")


def server_log(ssh: Ssh, lines: int = 40) -> str:
    """The end of the server's output, for an error; what went wrong reading it otherwise."""
    done = ssh.run(f'tail -n {lines} "$HOME/.cua/logs/server.log"', timeout=30.0)
    text = (done.stdout if done.returncode == 0 else done.stderr).decode(errors="replace").strip()
    return text or "(empty)"
