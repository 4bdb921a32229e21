"""The connection to the Docker Engine, the one error that says how to get one, and an engine of our own."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cua_bench import BackendError

__all__ = ["PrivateEngine", "connect"]


def connect(timeout: float = 10.0) -> Any:
    """A docker SDK client for ``$DOCKER_HOST`` (or the default socket) that has answered a ping."""
    import docker
    import docker.errors
    import requests.exceptions

    where = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    try:
        client = docker.from_env(timeout=int(max(1, timeout)))
        client.ping()
    except (docker.errors.DockerException, requests.exceptions.RequestException, OSError) as exc:
        raise BackendError(
            f"the Docker Engine at {where} is not reachable ({exc.__class__.__name__}); start it "
            "(`dockerd --iptables=false --ip6tables=false --bridge=none` works without a network) "
            "or point DOCKER_HOST at a running one"
        ) from exc
    return client


class PrivateEngine:
    """A dockerd of our own (data, sockets and containerd under ``folder``), for tests, benchmarks and CI.

    Started without networking of its own (``--bridge=none``, no iptables), so it works in a
    sandbox where the host's network must not change; containers use ``--network none`` or host.
    ``stop()`` removes the containers it ran and stops it, keeping the folder (images included) for
    the next start; ``remove()`` also deletes the folder.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.host = f"unix://{folder / 'docker.sock'}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> str:
        if shutil.which("dockerd") is None:
            raise BackendError("dockerd is not installed: apt-get install docker.io")
        self.folder.mkdir(parents=True, exist_ok=True)
        log = open(self.folder / "dockerd.log", "ab")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(
            ["dockerd", "--iptables=false", "--ip6tables=false", "--bridge=none", f"--host={self.host}",
             f"--data-root={self.folder / 'data'}", f"--exec-root={self.folder / 'exec'}",
             f"--pidfile={self.folder / 'dockerd.pid'}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                tail = (self.folder / "dockerd.log").read_text(errors="replace").splitlines()[-10:]
                raise BackendError(f"dockerd exited with code {self.proc.returncode}:\n" + "\n".join(tail))
            try:
                with _env("DOCKER_HOST", self.host):
                    connect(timeout=2)
                return self.host
            except BackendError as exc:
                if time.monotonic() > deadline:
                    self.stop()
                    why = f"dockerd did not answer within {timeout:g} s; see {self.folder}/dockerd.log"
                    raise BackendError(why) from exc
                time.sleep(0.2)

    def stop(self, timeout: float = 30.0) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(BackendError), _env("DOCKER_HOST", self.host):
                client = connect(timeout=5)
                for container in client.containers.list(all=True):
                    with contextlib.suppress(Exception):
                        container.remove(force=True)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def remove(self) -> None:
        """Stop, then delete the folder: images, and the mounts dockerd leaves (its netns) undone first."""
        self.stop()
        prefix = f"{self.folder.resolve()}/"
        with open("/proc/self/mounts") as table:
            mounts = [line.split()[1] for line in table if line.split()[1].startswith(prefix)]
        for mount in sorted(mounts, key=len, reverse=True):
            subprocess.run(["umount", "--lazy", mount], capture_output=True, check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old
