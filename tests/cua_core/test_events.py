from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import numpy as np
import pytest

from cua_core.events import (
    AsyncPublisher,
    AsyncSubscriber,
    BusAddresses,
    Forwarder,
    Publisher,
    Subscriber,
    check_topic,
)


@pytest.fixture(params=["tcp", "ipc"])
def forwarder(request: pytest.FixtureRequest, private_dirs: object) -> Iterator[Forwarder]:
    if request.param == "tcp":
        addresses = BusAddresses("tcp://127.0.0.1:0", "tcp://127.0.0.1:0")
    else:
        addresses = BusAddresses.default()
    with Forwarder(addresses) as fwd:
        yield fwd


def _connected(pub: Publisher, sub: Subscriber, topic: str) -> None:
    """Publish probes until the subscriber sees one: the steady state after ZeroMQ's slow join."""
    for _ in range(100):
        pub.publish(topic, "probe")
        if sub.recv(timeout=0.05) is not None:
            while sub.recv(timeout=0.05) is not None:
                pass
            return
    raise AssertionError("subscription never reached the forwarder")


def test_ten_thousand_events_none_lost(forwarder: Forwarder) -> None:
    with (
        Subscriber(forwarder.addresses.subscribe, ["bench"]) as sub,
        Publisher(forwarder.addresses.publish) as pub,
    ):
        _connected(pub, sub, "bench.probe")
        for n in range(10_000):
            pub.publish("bench.episode.step", {"n": n, "reward": 0.5})
        got = []
        while len(got) < 10_000:
            event = sub.recv(timeout=5)
            assert event is not None, f"lost events: received {len(got)} of 10000"
            got.append(event)
        assert [e.body["n"] for e in got] == list(range(10_000))
        # ids carry the publisher and a sequence with no gaps
        seqs = [int(e.id.split(":")[1]) for e in got]
        assert seqs == list(range(seqs[0], seqs[0] + 10_000))
        assert sub.recv(timeout=0.1) is None


def test_prefix_matches_on_dotted_boundaries(forwarder: Forwarder) -> None:
    with (
        Subscriber(forwarder.addresses.subscribe, ["bench.run"]) as sub,
        Subscriber(forwarder.addresses.subscribe, ["pool.*", "env"]) as sub2,
        Publisher(forwarder.addresses.publish) as pub,
    ):
        _connected(pub, sub, "bench.run.probe")
        _connected(pub, sub2, "env.probe")
        for topic in [
            "bench.runner.x",
            "bench.run",
            "bench.run.started",
            "pool.host.up",
            "env.reset",
            "poolx",
        ]:
            pub.publish(topic, topic)
        assert [sub.recv(1).topic for _ in range(2)] == ["bench.run", "bench.run.started"]  # type: ignore[union-attr]
        assert sub.recv(0.2) is None
        assert [sub2.recv(1).topic for _ in range(2)] == ["pool.host.up", "env.reset"]  # type: ignore[union-attr]
        assert sub2.recv(0.2) is None


def test_events_carry_binary_frames(forwarder: Forwarder) -> None:
    with (
        Subscriber(forwarder.addresses.subscribe) as sub,
        Publisher(forwarder.addresses.publish) as pub,
    ):
        _connected(pub, sub, "env.probe")
        shot = np.arange(800 * 1280 * 3, dtype=np.uint32).astype(np.uint8).reshape(800, 1280, 3)
        pub.publish("env.screenshot", {"frame": shot, "png": b"\x89PNG" * 1000})
        event = sub.recv(timeout=2)
        assert event is not None
        np.testing.assert_array_equal(event.body["frame"], shot)
        assert bytes(event.body["png"]) == b"\x89PNG" * 1000


def test_many_publishers_one_subscriber(forwarder: Forwarder) -> None:
    pubs = [Publisher(forwarder.addresses.publish) for _ in range(4)]
    with Subscriber(forwarder.addresses.subscribe, ["rl"]) as sub:
        for p in pubs:
            _connected(p, sub, "rl.probe")
        for i, p in enumerate(pubs):
            for n in range(500):
                p.publish("rl.step.done", {"pub": i, "n": n})
        got = [sub.recv(timeout=5) for _ in range(2000)]
        for i in range(4):
            assert [e.body["n"] for e in got if e is not None and e.body["pub"] == i] == list(range(500))
    for p in pubs:
        p.close()


def test_asyncio_publisher_and_subscriber(forwarder: Forwarder) -> None:
    async def main() -> list[int]:
        sub = AsyncSubscriber(forwarder.addresses.subscribe, ["tui"])
        pub = AsyncPublisher(forwarder.addresses.publish)
        for _ in range(100):
            await pub.publish("tui.probe", -1)
            if await sub.recv(timeout=0.05) is not None:
                break
        while await sub.recv(timeout=0.05) is not None:
            pass
        for n in range(100):
            await pub.publish("tui.update", n)
        got = []
        async for event in sub:
            got.append(event.body)
            if len(got) == 100:
                break
        sub.close()
        pub.close()
        return got

    assert asyncio.run(main()) == list(range(100))


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a.", "has space", "caf\u00e9", 3])
def test_bad_topics_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="must be dotted words"):
        check_topic(bad)  # type: ignore[arg-type]


def test_forwarder_refuses_a_taken_address() -> None:
    with Forwarder(BusAddresses("tcp://127.0.0.1:0", "tcp://127.0.0.1:0")) as first:
        second = Forwarder(BusAddresses(first.addresses.publish, "tcp://127.0.0.1:0"))
        with pytest.raises(Exception, match="Address already in use"):
            second.start()


def test_forwarder_close_is_prompt() -> None:
    fwd = Forwarder(BusAddresses("tcp://127.0.0.1:0", "tcp://127.0.0.1:0")).start()
    start = time.monotonic()
    fwd.close()
    assert time.monotonic() - start < 1.0
