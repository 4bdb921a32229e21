"""Space runtimes come from plugins; the built-in `process` one is loaded exactly like a third party's."""

from __future__ import annotations

import json
import os
import signal
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from poolkit import Cluster, wait_for

from cua_core.errors import PluginError
from cua_pool.hookspecs import hookimpl
from cua_pool.registry import plugin_manager, space_runtimes
from cua_pool.runtimes.process import ProcessRuntime
from cua_pool.spaces import Handle, Space, SpaceRuntime


class TracedRuntime(ProcessRuntime):
    """A third-party runtime: the process runtime, marking each member's environment."""

    name = "traced"

    def start(self, space: Space, env: dict[str, str]) -> Handle:
        return super().start(space, {**env, "TRACED_BY": "traced-plugin"})


def _plugin(name: str, runtime: Any) -> types.ModuleType:
    module = types.ModuleType(name)

    @hookimpl
    def cua_pool_register_space_runtimes(register: Any) -> None:
        register(runtime.name, runtime)

    module.cua_pool_register_space_runtimes = cua_pool_register_space_runtimes  # type: ignore[attr-defined]
    return module


def _registered(name: str, runtime: Any) -> Iterator[None]:
    """``runtime`` registered by a plugin ``name`` for the test, unregistered after."""
    pm = plugin_manager()
    plugin = _plugin(name, runtime)
    pm.register(plugin, name=name)
    try:
        yield
    finally:
        pm.unregister(plugin)


@pytest.fixture
def traced() -> Iterator[None]:
    yield from _registered("traced_plugin", TracedRuntime)


def test_process_runtime_is_a_builtin_plugin() -> None:
    runtimes = space_runtimes()
    assert "process" in runtimes.names()
    assert runtimes.plugin_of("process") == "cua_pool.runtimes.process"
    assert isinstance(runtimes["process"](), SpaceRuntime)


def test_unknown_runtime_names_the_known_ones() -> None:
    with pytest.raises(PluginError, match=r"unknown space runtime 'proces'; did you mean 'process'"):
        space_runtimes()["proces"]


def test_a_duplicate_runtime_name_is_refused_with_both_plugins_named() -> None:
    pm = plugin_manager()
    clash = _plugin("clash_plugin", ProcessRuntime)
    pm.register(clash, name="clash_plugin")
    try:
        with pytest.raises(
            PluginError,
            match=r"'process' registered by plugin 'cua_pool.runtimes.process' and by plugin 'clash_plugin'",
        ):
            space_runtimes()
    finally:
        pm.unregister(clash)


def test_a_third_party_runtime_runs_members(traced: None, cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("basic.py::env", "TRACED_BY", "RANK", runtime="traced")
    cluster.wait_state(job, "succeeded")
    assert json.loads(bytes(cluster.controller.result(job)["data"])) == {"TRACED_BY": "traced-plugin", "RANK": "0"}


def test_a_member_of_an_unknown_runtime_fails_with_the_reason_in_its_log(cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("basic.py::hello", runtime="nosuch")
    info = cluster.wait_state(job, "failed")
    assert info["members"][0]["exit_code"] == 127
    assert "unknown space runtime 'nosuch'" in cluster.logs(job)


class WholeGangRuntime(ProcessRuntime):
    """A runtime that places gangs itself (as ``ray`` does): its host takes every rank of a job, and it
    reports a member whose exit status vanished as lost with its computer."""

    name = "wholegang"
    places_gangs = True

    def lost(self, space: Space, handle: Handle) -> str | None:
        return "its node went away (the test's runtime says so)"


@pytest.fixture
def whole_gang() -> Iterator[None]:
    yield from _registered("whole_gang_plugin", WholeGangRuntime)


def test_a_runtime_that_places_gangs_gets_every_rank_on_one_host(whole_gang: None, cluster: Cluster) -> None:
    cluster.add_host("a", max_spaces=1)  # spaces are not counted: the runtime reserves the real resources
    cluster.add_host("b", max_spaces=1)
    assert "wholegang" in {h["id"]: h["gang_runtimes"] for h in cluster.controller.computers()}["a"]
    job = cluster.submit("gang.py::show_env", nodes_min=3, nodes_max=3, runtime="wholegang")
    info = cluster.wait_state(job, "succeeded")
    assert [m["rank"] for m in info["members"]] == [0, 1, 2] and len({m["host"] for m in info["members"]}) == 1
    assert info["attempts"][0]["world_size"] == 3


def test_a_member_its_runtime_calls_lost_restarts_the_gang_from_max_restarts(
    whole_gang: None, cluster: Cluster
) -> None:
    cluster.add_host("a")
    job = cluster.submit("gang.py::show_env", 30.0, nodes_min=2, nodes_max=2, runtime="wholegang", max_restarts=1)
    info = wait_for("both ranks running", lambda: (i := cluster.job(job)) and len(i["members"]) == 2 and i)
    wait_for("rank 1's first line", lambda: "ENV " in cluster.logs(job, 1))
    space = Path(wait_for("rank 1's space", lambda: _space_of(cluster, info["members"][1]["id"])))
    os.killpg(json.loads((space / "member.json").read_text())["handle"]["pid"], signal.SIGKILL)  # no exit status
    info = wait_for("attempt 2", lambda: (i := cluster.job(job)) and i["job"]["attempt"] == 2 and i, timeout=30)
    assert info["job"]["restarts"] == 1 and info["job"]["failures"] == 0
    assert "its node went away" in info["attempts"][0]["reason"]
    cluster.controller.cancel(job)


def _space_of(cluster: Cluster, member: str) -> Path | None:
    found = [p for p in cluster.root.glob(f"*/spaces/{member}") if (p / "member.json").exists()]
    return found[0] if found else None
