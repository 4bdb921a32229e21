"""A machine's settings drive: what its env server needs to know, made on the host for each machine.

``env`` holds KEY=VALUE lines (values quoted as a POSIX shell quotes them) that the guest's init
(init.sh, or start-server.ps1 on Windows) reads, and ``config/keys`` the machine's CURVE key pair,
made here: the host never trusts a key the guest announces. A Linux guest reads a tar archive in a
qcow2 disk (a memory snapshot needs every writable disk to be qcow2); Windows reads no tar, so its
drive is an ISO on a CD-ROM, which a snapshot skips as read-only.
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import zmq.auth

from cua_bench.backend_kit import COMPUTER_ENV, COMPUTER_USER, BackendError, server_settings

__all__ = ["GUEST_PORT", "iso_drive", "seed_files", "tar_disk"]

GUEST_PORT = 5555  # the env server's port on the guest's side of QEMU's user network
ENV_ROOT_IN_GUEST = "/var/lib/cua/env"  # the env server's folders: off the /tmp its reset empties
TCG_TIMEOUT_SCALE = "6"  # QEMU's emulator against a host CPU, with room for a loaded host

Files = dict[str, tuple[bytes, int]]  # path in the drive -> (content, mode)


def seed_files(
    width: int, height: int, allow: Sequence[str], accel: str, *, computer: bool = False
) -> tuple[str, Files]:
    """The machine's public key (clients check the server by it) and the drive's files: ``env``, and the key
    pair, the secret readable by its owner only. ``allow``: the client keys the server answers;
    ``computer``: the image is OSWorld's computer, whose server runs as its user on the whole machine."""
    with tempfile.TemporaryDirectory() as scratch:
        public_file, secret_file = zmq.auth.create_certificates(scratch, "default")
        public = zmq.auth.load_certificate(public_file)[0].decode()
        settings = {
            "CUA_GUEST_PORT": str(GUEST_PORT), "CUA_GUEST_ALLOW": " ".join(allow), "CUA_GUEST_WIDTH": str(width),
            "CUA_GUEST_HEIGHT": str(height), "CUA_CONFIG_DIR": "/run/cua/config",
            # The desktop's timeouts are sized for a host CPU: openbox took over 10 s to start on TCG under load.
            # The host's own scale, where it set one, wins.
            "CUA_LOCAL_TIMEOUT_SCALE": os.environ.get(
                "CUA_LOCAL_TIMEOUT_SCALE", TCG_TIMEOUT_SCALE if accel == "tcg" else "1"
            ),
        }  # fmt: skip
        # A machine sees none of the host's folders. OSWorld's computer is the whole machine: its /tmp and home
        # are the real ones, and its server's settings the kit's.
        if computer:
            settings |= server_settings(None, folders=False) | COMPUTER_ENV | {"CUA_GUEST_USER": COMPUTER_USER}
        else:
            settings |= server_settings(ENV_ROOT_IN_GUEST, folders=False)
        env = "".join(f"{key}={shlex.quote(value)}\n" for key, value in settings.items()).encode()
        files = {
            "env": (env, 0o644),
            "config/keys/default.key": (Path(public_file).read_bytes(), 0o644),
            "config/keys/default.key_secret": (Path(secret_file).read_bytes(), 0o600),
        }
    return public, files


def tar_disk(out: Path, files: Files) -> Path:
    """``files`` as a tar archive in the qcow2 disk ``out`` (mode 0600: the secret key is in it)."""
    import tarfile  # here: cua-bench loads this plugin in every env server, which never seeds a disk

    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(scratch) / "seed.tar"
        raw.write_bytes(archive.getvalue())
        _run(["qemu-img", "convert", "-q", "-f", "raw", "-O", "qcow2", str(raw), str(out)], "qemu-img")
    out.chmod(0o600)
    return out


def iso_drive(out: Path, files: Files, label: str = "CUA_SEED") -> Path:
    """``files`` as an ISO at ``out`` (Joliet names, as Windows reads them; mode 0600)."""
    tool = shutil.which("xorriso")
    if tool is None:
        raise BackendError("a Windows machine's settings drive is an ISO, made with xorriso: apt-get install xorriso")
    with tempfile.TemporaryDirectory() as scratch:
        for name, (data, mode) in files.items():
            path = Path(scratch) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(mode)
        _run([tool, "-as", "mkisofs", "-quiet", "-J", "-joliet-long", "-r", "-V", label, "-o", str(out), scratch],
             "xorriso")  # fmt: skip
    out.chmod(0o600)
    return out


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackendError(f"{what} could not make the machine's settings drive: {done.stderr.strip()[-1500:]}")
