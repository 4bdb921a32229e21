"""The controller publishes `pool.*` events on the bus (what the TUI watches)."""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest
from poolkit import JOBS, wait_for

from cua_core.events import BusAddresses, Forwarder, Subscriber, check_topic
from cua_pool import events
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


def test_every_event_seen_matches_its_documented_payload(tmp_path: Path) -> None:
    with Forwarder(BusAddresses.default()) as forwarder:
        sub = Subscriber(forwarder.addresses.subscribe, ["pool"])
        ctl = Controller(f"ipc://{tmp_path}/c.sock", home=tmp_path / "ctl", bus=forwarder.addresses).start()
        agent = None
        try:
            assert ctl._publisher is not None and ctl._publisher.wait_subscribed(5)
            agent = HostAgent(ctl.address, host_id="h", name="h", home=tmp_path / "h", max_spaces=1).start()
            ok = ctl.submit("basic.py", "hello", pack_code(JOBS / "basic.py"), args=[1])["id"]
            bad = ctl.submit("basic.py", "fail", pack_code(JOBS / "basic.py"))["id"]
            seen: list[tuple[str, dict]] = []

            def done() -> bool:
                while (event := sub.recv(timeout=0.05)) is not None:
                    seen.append((event.topic, event.body))
                ended = {body["job"] for topic, body in seen if topic in events.JOB_ENDED.values()}
                return {ok, bad} <= ended

            wait_for("both jobs' ends", done)
        finally:
            if agent is not None:
                agent.close()
            ctl.close()
            sub.close()
    for topic, body in seen:
        events.check(topic, body)
    topics = {topic for topic, _ in seen}
    assert {events.HOST_JOINED, events.JOB_PLACED, events.JOB_MEMBER_RUNNING, events.JOB_SUCCEEDED} <= topics
    assert events.JOB_FAILED in topics or events.JOB_ATTEMPT_FAILED in topics
    placed = next(body for topic, body in seen if topic == events.JOB_PLACED)
    assert placed["hosts"] == ["h"] and placed["attempt"] == 1


def test_the_contract_module_names_every_topic_under_pool() -> None:
    assert events.PACKAGE == "cua-pool" and events.VERSION >= 1
    for topic, payload in events.TOPICS.items():
        assert topic.startswith("pool.") and check_topic(topic) == topic
        assert issubclass(payload, tuple) and hasattr(payload, "_fields"), f"{topic}: not a NamedTuple"
        assert payload.__doc__ and not payload.__doc__.startswith(f"{payload.__name__}("), f"{topic}: no docstring"


def _outcomes(node: ast.expr) -> list[object]:
    """The values an argument can take: a constant, or either branch of ``a if c else b``."""
    if isinstance(node, ast.IfExp):
        return _outcomes(node.body) + _outcomes(node.orelse)
    return [node.value] if isinstance(node, ast.Constant) else [node]


def test_publishers_use_the_constants_and_every_end_state_has_a_topic() -> None:
    """No topic is a string literal in cua_pool, and every state `_finish` is called with has a topic."""
    import cua_pool

    source = Path(cua_pool.__file__).parent
    for path in source.glob("*.py"):
        if path.name == "events.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not re.fullmatch(r"pool\.(job|host)\.\w+", node.value), f"{path.name}: topic {node.value!r}"
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                assert not text.startswith(("pool.job.", "pool.host.")), f"{path.name}: an f-string topic"
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "_finish":
                states = _outcomes(node.args[1])
                assert states and all(state in events.JOB_ENDED for state in states), (path.name, states)
    for state, topic in events.JOB_ENDED.items():
        assert events.job_ended(state) == topic and events.TOPICS[topic] is events.JobEnded
    with pytest.raises(ValueError, match="cannot end in state 'paused'"):
        events.job_ended("paused")


def test_a_drifted_payload_raises_even_with_nobody_listening(tmp_path: Path) -> None:
    ctl = Controller(f"ipc://{tmp_path}/c.sock", home=tmp_path / "ctl")
    try:
        with pytest.raises(ValueError, match=r"pool\.job\.placed: missing \['hosts'\]"):
            ctl._notify(events.JOB_PLACED, {"job": "j", "attempt": 1})
        with pytest.raises(ValueError, match=r"pool\.job\.placed\.hosts: \('h',\) is not list\[str\]"):
            ctl._notify(events.JOB_PLACED, {"job": "j", "attempt": 1, "hosts": ("h",)})
        with pytest.raises(ValueError, match=r"'pool\.job\.paused' is not a cua-pool topic"):
            ctl._notify("pool.job.paused", {"job": "j"})
        ctl._publisher = None  # no bus at all: still checked
        with pytest.raises(ValueError, match=r"pool\.host\.lost: missing \['reason'\]"):
            ctl._notify(events.HOST_LOST, {"host": "h"})
        ctl._notify(events.HOST_LOST, {"host": "h", "reason": "gone"})
    finally:
        ctl.close()


def test_a_job_never_ends_in_an_unknown_state(tmp_path: Path) -> None:
    ctl = Controller(f"ipc://{tmp_path}/c.sock", home=tmp_path / "ctl")
    try:
        job = ctl.submit("basic.py", "hello", pack_code(JOBS / "basic.py"), args=[1])["id"]
        with pytest.raises(ValueError, match="cannot end in state 'done'"):
            ctl.gangs._finish(job, "done")
        assert ctl.store.job(job)["state"] == "pending"  # type: ignore[index]
    finally:
        ctl.close()
