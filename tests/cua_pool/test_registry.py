"""Space runtimes come from plugins; the built-in `process` one is loaded exactly like a third party's."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import pytest
from poolkit import Cluster

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


@pytest.fixture
def traced() -> Iterator[None]:
    pm = plugin_manager()
    plugin = _plugin("traced_plugin", TracedRuntime)
    pm.register(plugin, name="traced_plugin")
    try:
        yield
    finally:
        pm.unregister(plugin)


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
    import json

    assert json.loads(bytes(cluster.controller.result(job)["data"])) == {"TRACED_BY": "traced-plugin", "RANK": "0"}


def test_a_member_of_an_unknown_runtime_fails_with_the_reason_in_its_log(cluster: Cluster) -> None:
    cluster.add_host("a")
    job = cluster.submit("basic.py::hello", runtime="nosuch")
    info = cluster.wait_state(job, "failed")
    assert info["members"][0]["exit_code"] == 127
    assert "unknown space runtime 'nosuch'" in cluster.logs(job)
