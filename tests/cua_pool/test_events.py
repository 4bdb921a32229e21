"""The controller publishes `pool.*` events on the bus (what the TUI watches)."""

from __future__ import annotations

import time
from pathlib import Path

from poolkit import JOBS, wait_for

from cua_core.events import BusAddresses, Forwarder, Subscriber
from cua_pool.agent import HostAgent
from cua_pool.cli_jobs import pack_code
from cua_pool.controller import Controller


def test_host_and_job_events_reach_a_subscriber(tmp_path: Path) -> None:
    with Forwarder(BusAddresses.default()) as forwarder:
        sub = Subscriber(forwarder.addresses.subscribe, ["pool"])
        ctl = Controller(f"ipc://{tmp_path}/c.sock", home=tmp_path / "ctl", bus=forwarder.addresses).start()
        agent = None
        try:
            assert ctl._publisher is not None
            assert ctl._publisher.wait_subscribed(5)
            agent = HostAgent(ctl.address, host_id="h", name="h", home=tmp_path / "h", max_spaces=1).start()
            job = ctl.submit("basic.py", "hello", pack_code(JOBS / "basic.py"), args=[1])["id"]
            seen: list[tuple[str, dict]] = []

            def done() -> bool:
                while (event := sub.recv(timeout=0.05)) is not None:
                    seen.append((event.topic, event.body))
                return any(topic == "pool.job.succeeded" for topic, _ in seen)

            wait_for("the job's events", done)
            topics = [topic for topic, _ in seen]
            assert (
                topics.index("pool.host.joined") < topics.index("pool.job.placed") < topics.index("pool.job.succeeded")
            )
            assert ("pool.job.submitted", {"job": job, "file": "basic.py", "fn": "hello"}) in seen
            assert {"job": job} == dict(seen[topics.index("pool.job.succeeded")][1])
        finally:
            if agent is not None:
                agent.close()
            ctl.close()
            sub.close()
            time.sleep(0.05)
