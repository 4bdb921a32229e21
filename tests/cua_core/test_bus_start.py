"""A forwarder started after the publishers: run events still reach it, and `ensure_forwarder` starts
one (detached) only when none answers."""

from __future__ import annotations

import os
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cua_core.addresses import runtime_dir
from cua_core.events import BestEffortPublisher, BusAddresses, Forwarder, Subscriber, ensure_forwarder


def _gone(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        return True


@pytest.fixture
def xdg_runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This user's runtime dir chosen the way a desktop session chooses it: $XDG_RUNTIME_DIR/cua."""
    folder = Path(tempfile.mkdtemp(prefix="cua-x-", dir="/tmp"))
    monkeypatch.delenv("CUA_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder / "cua"
    pid_file = folder / "cua" / "bus.pid"
    if pid_file.exists():  # stop the forwarder this test started, by its pid
        pid = int(pid_file.read_text())
        if not _gone(pid):
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while not _gone(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


def test_a_publisher_made_before_the_forwarder_reaches_it_once_it_starts() -> None:
    bus = BestEffortPublisher("run-1")
    assert bus.publisher is not None  # connected though nothing listens yet
    bus.publish("bench.run.early", {"n": 0})  # nobody to deliver it to: dropped, never an error
    with Forwarder(BusAddresses.default()) as forwarder, Subscriber(forwarder.addresses.subscribe, ["bench"]) as sub:
        assert bus.publisher.wait_subscribed(10), "ZeroMQ did not reconnect to the forwarder started later"
        bus.publish("bench.run.late", {"n": 1})
        event = sub.recv(timeout=5)
    bus.close()
    assert event is not None and event.topic == "bench.run.late" and event.body == {"run": "run-1", "n": 1}


def test_ensure_forwarder_starts_one_detached_once(xdg_runtime: Path) -> None:
    assert runtime_dir() == xdg_runtime
    addresses = BusAddresses.default()
    assert addresses.publish == f"ipc://{xdg_runtime}/bus-publish.sock"
    assert ensure_forwarder() is True
    pid = int((xdg_runtime / "bus.pid").read_text())
    assert os.getsid(pid) == pid  # its own session: it outlives whoever started it
    assert (xdg_runtime / "bus-publish.sock").exists() and (xdg_runtime / "bus-subscribe.sock").exists()
    assert ensure_forwarder() is False  # one answers now: nothing started
    assert int((xdg_runtime / "bus.pid").read_text()) == pid
    with Subscriber(addresses.subscribe, ["bench"]) as sub:
        bus = BestEffortPublisher("run-2")
        event = None
        for n in range(100):  # probes until the subscription has come through the started forwarder
            bus.publish("bench.run.probe", {"n": n})
            if (event := sub.recv(timeout=0.05)) is not None:
                break
        bus.close()
    assert event is not None and event.topic == "bench.run.probe" and event.body["run"] == "run-2"
    assert "publish" in (xdg_runtime / "bus.log").read_text()  # `cua-bus serve` said where it listens


def test_ensure_forwarder_replaces_a_socket_left_by_a_dead_one(xdg_runtime: Path) -> None:
    assert runtime_dir() == xdg_runtime
    for name in ("bus-publish", "bus-subscribe"):  # what a forwarder killed with -9 leaves behind
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(str(xdg_runtime / f"{name}.sock"))
        stale.close()
    assert (xdg_runtime / "bus-publish.sock").exists()
    assert ensure_forwarder() is True
    assert ensure_forwarder() is False
