"""The Lume client against a replay of Lume's API (fixtures/lume_*.json, written from Lume's HTTP API
reference): each call is the documented request, in order, and Lume's answers are read as documented."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from cua_bench import BackendError
from cua_bench_macos import LumeClient

GOLDEN = "cua-macos-golden"


def test_a_golden_vm_is_pulled_run_addressed_and_stopped_with_the_documented_requests(
    lume: Callable[[str], Any],
) -> None:
    replay = lume("lume_build")
    client = LumeClient(replay.url, poll=0.01)
    assert client.answers()
    assert not client.exists(GOLDEN)  # Lume's 400 for a VM it does not have
    client.create("macos-sequoia-vanilla:latest", GOLDEN)
    client.start(GOLDEN)
    assert client.wait_ip(GOLDEN, 5.0) == "192.168.64.4"
    client.stop(GOLDEN)
    replay.check()


def test_lumes_refusal_is_an_error_quoting_its_message(lume: Callable[[str], Any]) -> None:
    replay = lume("lume_refused")
    client = LumeClient(replay.url)
    client.names()
    assert client.exists(GOLDEN)
    client.clone(GOLDEN, "cua-env-0123456789ab")
    client.configure("cua-env-0123456789ab", 4, 8192, 1024, 768)
    with pytest.raises(
        BackendError, match=r"Lume refused POST /lume/vms/cua-env-0123456789ab/run \(400\): Invalid run"
    ):
        client.start("cua-env-0123456789ab")
    assert not client.running("cua-env-0123456789ab")
    client.delete("cua-env-0123456789ab")
    replay.check()


def test_the_replay_fails_a_request_that_is_not_the_transcripts_next(lume: Callable[[str], Any]) -> None:
    """The replay is the test's teeth: a request out of order is recorded and answered 599."""
    replay = lume("lume_build")
    client = LumeClient(replay.url)
    with pytest.raises(BackendError, match="599"):
        client.stop(GOLDEN)  # the transcript starts with GET /lume/vms
    with pytest.raises(AssertionError, match="unexpected request #1: POST /lume/vms/cua-macos-golden/stop"):
        replay.check()


def test_the_replay_fails_a_request_whose_body_differs(lume: Callable[[str], Any]) -> None:
    replay = lume("lume_build")
    assert LumeClient(replay.url).answers()
    LumeClient(replay.url).exists(GOLDEN)
    request = urllib.request.Request(f"{replay.url}/lume/pull", data=json.dumps({"image": "other:latest"}).encode(),
                                     method="POST")  # fmt: skip
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(request)
    assert replay.failures and "other:latest" in replay.failures[0]


def test_an_unreachable_lume_is_no_answer_and_a_call_says_where_it_looked(no_lume: str) -> None:
    client = LumeClient(no_lume)
    assert not client.answers(timeout=1.0)
    with pytest.raises(BackendError, match=rf"Lume's API at {no_lume} did not answer GET /lume/vms .*lume serve"):
        client.names()


def test_a_vm_that_never_gets_an_address_times_out_naming_its_state(lume: Callable[[str], Any]) -> None:
    replay = lume("lume_build")
    client = LumeClient(replay.url, poll=0.01)
    client.answers()
    with pytest.raises(BackendError, match=r"has no address after 0 s \(it is gone\)"):
        client.wait_ip(GOLDEN, 0.0)  # Lume answers 400 (no such VM) to the first GET
