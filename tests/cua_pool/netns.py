"""Several "computers" on this machine: network namespaces joined by veth pairs to a bridge.

The hub namespace holds the bridge (10.213.0.1, where the controller listens); host namespace i
holds ``eth0`` at 10.213.0.(10+i). Every address lives inside these namespaces only, so nothing
here touches the machine's own network. A host's link can be taken down to make it vanish.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from poolkit import wait_for

SUBNET = "10.213.0"


def require_namespaces() -> None:
    """Skip the calling test module without root and iproute2; under CI (which runs as root) that is
    a failure, not a skip."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        if os.environ.get("CI"):
            raise RuntimeError("the network-namespace tests need root and iproute2, and CI must run them")
        pytest.skip("network namespaces need root and iproute2 (`ip`)", allow_module_level=True)


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def in_ns(ns: str, *args: str) -> None:
    ip("netns", "exec", ns, *args)


class Computer:
    """One namespace with its own config and runtime folders (its own keys, its own pool home)."""

    def __init__(self, net: Net, name: str, ns: str, address: str) -> None:
        self.net = net
        self.name = name
        self.ns = ns
        self.address = address
        self.root = net.root / name
        self.env = dict(os.environ)
        self.env.update(
            {
                "CUA_CONFIG_DIR": str(self.root / "config"),
                "CUA_RUNTIME_DIR": str(Path("/tmp") / f"cua-ns-{net.tag}-{name}"),
                "PYTHONUNBUFFERED": "1",
            }
        )
        self.env.pop("CUA_POOL_CONTROLLER", None)
        self.procs: list[subprocess.Popen[bytes]] = []

    def cua(self, *args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns, sys.executable, "-m", "cua_pool.cli", *args],
            env=self.env,
            check=False,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"[{self.name}] cua {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
            )
        return done

    def spawn(self, *args: str, log: str) -> subprocess.Popen[bytes]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / log).open("ab") as out:
            proc = subprocess.Popen(
                ["ip", "netns", "exec", self.ns, sys.executable, "-m", "cua_pool.cli", *args],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def log(self, name: str) -> str:
        path = self.root / name
        return path.read_text(errors="replace") if path.exists() else ""

    def public_key(self) -> str:
        out = self.cua("host", "pair").stdout
        return out.strip().splitlines()[-1].rsplit(" ", 1)[1]

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        # Members run in their own sessions: stop them from their space folders.
        for meta in (self.root / "config" / "pool" / "host" / "spaces").glob("*/member.json"):
            with contextlib.suppress(OSError, ValueError, KeyError, ProcessLookupError):
                pid = int(json.loads(meta.read_text())["handle"]["pid"])
                if pid > 0:
                    os.killpg(pid, signal.SIGKILL)
        runtime = Path(self.env["CUA_RUNTIME_DIR"])
        if runtime.is_dir():
            for entry in runtime.iterdir():
                entry.unlink(missing_ok=True)
            runtime.rmdir()


class Net:
    def __init__(self, root: Path, hosts: int) -> None:
        self.root = root
        self.tag = f"{os.getpid() % 100000}"
        self.hub = f"cph{self.tag}"
        self.made: list[str] = []
        self.links: dict[str, str] = {}
        ip("netns", "add", self.hub)
        self.made.append(self.hub)
        in_ns(self.hub, "ip", "link", "set", "lo", "up")
        in_ns(self.hub, "ip", "link", "add", "br0", "type", "bridge")
        in_ns(self.hub, "ip", "addr", "add", f"{SUBNET}.1/24", "dev", "br0")
        in_ns(self.hub, "ip", "link", "set", "br0", "up")
        self.controller = Computer(self, "ctl", self.hub, f"{SUBNET}.1")
        self.hosts: list[Computer] = []
        for i in range(1, hosts + 1):
            self.add_host(i)

    def add_host(self, i: int) -> Computer:
        ns = f"cp{self.tag}h{i}"
        hub_end = f"v{i}"
        ip("netns", "add", ns)
        self.made.append(ns)
        # Created inside the hub namespace, so no interface ever appears in the machine's own one.
        in_ns(self.hub, "ip", "link", "add", hub_end, "type", "veth", "peer", "name", "eth0", "netns", ns)
        in_ns(self.hub, "ip", "link", "set", hub_end, "master", "br0")
        in_ns(self.hub, "ip", "link", "set", hub_end, "up")
        in_ns(ns, "ip", "link", "set", "lo", "up")
        in_ns(ns, "ip", "addr", "add", f"{SUBNET}.{10 + i}/24", "dev", "eth0")
        in_ns(ns, "ip", "link", "set", "eth0", "up")
        host = Computer(self, f"h{i}", ns, f"{SUBNET}.{10 + i}")
        self.links[host.name] = hub_end
        self.hosts.append(host)
        return host

    def link_down(self, host: Computer) -> None:
        in_ns(self.hub, "ip", "link", "set", self.links[host.name], "down")

    def close(self) -> None:
        for computer in [*self.hosts, self.controller]:
            computer.stop()
        for ns in reversed(self.made):
            with contextlib.suppress(subprocess.CalledProcessError):
                ip("netns", "del", ns)


def wait(what: str, check: Any, timeout: float = 30.0) -> Any:
    return wait_for(what, check, timeout, every=0.1)
