"""A real Ray cluster across network namespaces: the head on the hub (10.213.0.1), one node per host
namespace, each started with Ray's own ``ray start``. Drivers (a script, or a host agent) run on the
hub, as a Ray driver runs on a node. Shared by the pool's ray runtime tests and cua-bench-rl's ray
placement tests."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from netns import SUBNET, Computer, Net, require_namespaces

HEAD = f"{SUBNET}.1"
PORT = 6380
ADDRESS = f"{HEAD}:{PORT}"
RAY = str(Path(sys.executable).with_name("ray"))
# A lost node is declared dead after ~2 s instead of Ray's default ~30 s: the tests wait on it.
RAY_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_failure_threshold": "4",
}


def kill_namespace(ns: str) -> None:
    """SIGKILL every process in ``ns``: a computer that vanishes (Ray's daemons and its workers)."""
    pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True, check=False).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)


class RayCluster:
    def __init__(self, net: Net, temp: Path) -> None:
        self.net, self.temp = net, temp
        self.env = {**os.environ, **RAY_ENV}
        self.env.pop("RAY_ADDRESS", None)

    def ray(self, ns: str, *args: str, private_x11: bool = False) -> None:
        """``ray start`` in ``ns``; ``private_x11``: with a /tmp/.X11-unix of its own, as a computer of its own
        has (Xvfb finds a free display by its abstract socket, which is per network namespace, so two nodes
        on one filesystem would both take :0 and steal each other's socket file)."""
        command = [RAY, "start", *args, "--disable-usage-stats", f"--temp-dir={self.temp}"]
        if private_x11:
            inner = 'mount -t tmpfs -o mode=1777 cua-x11 /tmp/.X11-unix && exec "$@"'
            command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", inner, "sh", *command]
        done = subprocess.run(
            ["ip", "netns", "exec", ns, *command],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"ray start {' '.join(args)}:\n{done.stdout}{done.stderr}"

    def join(self, host: Computer, cpus: int) -> None:
        """Start ``host``'s node (again, after a test killed it: later tests then find it up whatever their
        order). Its own /tmp/.X11-unix, as on a computer of its own."""
        self.ray(host.ns, f"--address={ADDRESS}", f"--node-ip-address={host.address}", f"--num-cpus={cpus}",
                 private_x11=True)  # fmt: skip

    def drive(self, script: str, *args: str, timeout: float = 300) -> dict[str, object]:
        """Run ``script`` as a Ray driver on the head's namespace; its ``RESULT {json}`` line."""
        path = self.temp / "driver.py"
        path.write_text(script)
        done = subprocess.run(
            ["ip", "netns", "exec", self.net.hub, sys.executable, str(path), *args],
            env={**self.env, "VICTIM_NS": self.net.hosts[0].ns, "PYTHONPATH": str(Path(__file__).parents[1])},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        assert done.returncode == 0 and lines, f"driver exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        result: dict[str, object] = json.loads(lines[-1].removeprefix("RESULT "))
        return result


@contextlib.contextmanager
def ray_cluster(root: Path, hosts: int, cpus: int) -> Iterator[RayCluster]:
    """A head and ``hosts`` nodes, ``cpus`` CPUs each, torn down (every process killed) after."""
    require_namespaces()
    net = Net(root, hosts=hosts)
    # Ray's socket paths must stay short (AF_UNIX): a temp dir of its own under /tmp, not pytest's.
    temp = Path(f"/tmp/cua-ray-{net.tag}")
    temp.mkdir(exist_ok=True)
    try:
        found = RayCluster(net, temp)
        found.ray(net.hub, "--head", f"--node-ip-address={HEAD}", f"--port={PORT}", f"--num-cpus={cpus}",
                  "--include-dashboard=false")  # fmt: skip
        for host in net.hosts:
            found.join(host, cpus)
        yield found
    finally:
        for ns in [*(host.ns for host in net.hosts), net.hub]:
            kill_namespace(ns)
        net.close()
        shutil.rmtree(temp, ignore_errors=True)
