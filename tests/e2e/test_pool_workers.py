"""Env workers on another computer: a trainer in one network namespace provisions a worker through
the pool, whose env server runs as a job on a host in another namespace, and plays it over the veth
pair and bridge between them (tcp + CURVE), never through the controller.

Needs root (network namespaces); CI runs as root, so there a missing privilege is a failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "cua_pool"))

from netns import SUBNET, Net, require_namespaces, wait  # the pool tests' namespace harness

PORT = 7071
CONTROLLER = f"tcp://{SUBNET}.1:{PORT}"

require_namespaces()

pytestmark = pytest.mark.slow

# Runs on the trainer's computer: what a training run does with pool workers, reported as JSON.
TRAINER = """
import json, sys
from cua_bench_rl.placement import PoolBackend
from cua_bench_rl.workers import EnvWorkers, client_for
from cua_core.actions import Click, Point

out = {}
with EnvWorkers(PoolBackend("sim"), 1, width=640, height=400, start_timeout=60) as workers:
    computer = workers[0].computer
    out["address"], out["info"] = computer.address, computer.info
    with client_for(computer) as env:
        obs, _ = env.reset(options={"task": "sim/click-button", "variant": 2})
        out["shape"] = list(obs["screenshot"].shape)
        out["step"] = env.step([Click(Point(5, 5))])[4]["step"]
        out["reward"] = env.solve()["reward"]
print("RESULT " + json.dumps(out), flush=True)
"""


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Net]:
    """h1 shares its desktop with the pool; h2 is the trainer, a paired client with no host agent."""
    pool = Net(tmp_path_factory.mktemp("netns-workers"), hosts=2)
    try:
        ctl, desktop, trainer = pool.controller, pool.hosts[0], pool.hosts[1]
        ctl.env["CUA_POOL_CONTROLLER"] = f"ipc://{ctl.env['CUA_RUNTIME_DIR']}/pool-controller.sock"
        ctl.spawn("pool", "serve", "--address", CONTROLLER, log="controller.log")
        wait("the controller", lambda: ctl.cua("computers", check=False).returncode == 0)
        key = ctl.cua("host", "pair").stdout.strip().splitlines()[-1].rsplit(" ", 1)[1]
        for computer in (desktop, trainer):
            computer.cua("host", "pair", "--controller", CONTROLLER, "--controller-key", key)
            ctl.cua("host", "pair", "--allow", computer.public_key(), "--comment", computer.name)
        desktop.cua(
            "host", "setup", "--share", "spaces", "--name", "h1", "--controller", CONTROLLER,
            "--controller-key", key, "--no-start",
        )  # fmt: skip
        desktop.spawn("host", "run", log="agent.log")
        wait("h1 up", lambda: '"state": "up"' in ctl.cua("computers", "--json").stdout)
        yield pool
    finally:
        pool.close()


def test_a_trainer_plays_a_desktop_on_another_computer(net: Net, tmp_path: Path) -> None:
    ctl, desktop, trainer = net.controller, net.hosts[0], net.hosts[1]
    script = tmp_path / "trainer.py"
    script.write_text(TRAINER)
    done = subprocess.run(
        ["ip", "netns", "exec", trainer.ns, sys.executable, str(script)],
        env=trainer.env,
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, f"{done.stdout}{done.stderr}\n--- agent:\n{desktop.log('agent.log')[-3000:]}"
    result = json.loads(done.stdout.split("RESULT ", 1)[1])
    # The env server listened on h1's own address and the trainer on h2 reached it across the bridge.
    assert result["address"].startswith(f"tcp://{desktop.address}:")
    assert result["info"]["host_name"] == "h1" and len(result["info"]["server_key"]) == 40
    assert result["shape"] == [400, 640, 3] and result["step"] == 1 and result["reward"] == 1.0
    job = json.loads(ctl.cua("jobs", "show", result["info"]["job"], "--json").stdout)
    assert job["job"]["state"] in ("succeeded", "cancelled")  # torn down with the workers
    assert json.loads(ctl.cua("computers", "--json").stdout)[0]["spaces"] == 0
