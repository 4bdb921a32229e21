"""Plugin loading: built-ins, entry points, the environment switches and llm-style registries."""

from __future__ import annotations

import logging
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy
import pytest

from cua_core.errors import PluginError
from cua_core.plugins import Registry, collect, make_plugin_manager

PROJECT = "cua_test"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

Register = Callable[..., None]


def _hookspecs() -> ModuleType:
    specs = ModuleType("cua_test_hookspecs")

    @hookspec
    def cua_test_register_backends(register: Register) -> None:
        """Call register(name, backend) per backend."""

    @hookspec(firstresult=True)
    def cua_test_pick(options: list[str]) -> str | None:
        """The first plugin that answers chooses."""

    specs.cua_test_register_backends = cua_test_register_backends  # type: ignore[attr-defined]
    specs.cua_test_pick = cua_test_pick  # type: ignore[attr-defined]
    return specs


def _module(name: str, **hooks: Callable[..., Any]) -> ModuleType:
    module = ModuleType(name)
    for attr, function in hooks.items():
        setattr(module, attr, function)
    return module


def _backends_plugin(name: str, *backends: str) -> ModuleType:
    @hookimpl
    def cua_test_register_backends(register: Register) -> None:
        for backend in backends:
            register(backend, f"{name}:{backend}")

    return _module(name, cua_test_register_backends=cua_test_register_backends)


PLUGIN_SOURCE = textwrap.dedent(
    """
    import pluggy

    hookimpl = pluggy.HookimplMarker("cua_test")

    @hookimpl
    def cua_test_register_backends(register):
        register("{backend}", "{backend}-object")
    """
)


@pytest.fixture
def make_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Write a fake installed distribution that importlib.metadata finds on sys.path."""
    modules: list[str] = []
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(
        entry_points: dict[str, str],
        sources: dict[str, str],
        dist: str = "fakeplugin",
        front: bool = False,
    ) -> None:
        root = tmp_path
        if front:  # a directory of its own, ahead of the others on sys.path
            root = tmp_path / f"front-{dist}"
            root.mkdir()
            monkeypatch.syspath_prepend(str(root))
        info = root / f"{dist}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
        (info / "entry_points.txt").write_text(f"[{PROJECT}]\n{lines}")
        for module, source in sources.items():
            (root / f"{module}.py").write_text(source)
            modules.append(module)

    yield make
    # The same module names are reused by other tests; a cached module would hide their files.
    for module in modules:
        sys.modules.pop(module, None)


@pytest.fixture
def two_entry_points(make_dist: Callable[..., None]) -> None:
    make_dist(
        {"fake": "fake_plugin_mod", "other": "other_plugin_mod"},
        {
            "fake_plugin_mod": PLUGIN_SOURCE.format(backend="docker"),
            "other_plugin_mod": PLUGIN_SOURCE.format(backend="libvirt"),
        },
    )


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUA_TEST_DISABLE_PLUGINS", raising=False)
    monkeypatch.delenv("CUA_TEST_LOAD_PLUGINS", raising=False)


def test_builtins_register_under_their_module_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cua_test_dotted_builtin.py").write_text(PLUGIN_SOURCE.format(backend="local"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cua_test_dotted_builtin", raising=False)
    sim = _backends_plugin("cua_test.sim", "sim")

    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[sim, "cua_test_dotted_builtin"])

    assert pm.project_name == PROJECT
    assert pm.get_plugin("cua_test.sim") is sim
    assert pm.get_plugin("cua_test_dotted_builtin") is sys.modules["cua_test_dotted_builtin"]
    assert collect(pm, "cua_test_register_backends").names() == ["sim", "local"]
    monkeypatch.delitem(sys.modules, "cua_test_dotted_builtin")


def test_entry_point_plugin_is_loaded_from_its_distribution(
    make_dist: Callable[..., None],
) -> None:
    make_dist({"fake": "fake_plugin_mod"}, {"fake_plugin_mod": PLUGIN_SOURCE.format(backend="x")})

    pm = make_plugin_manager(PROJECT, _hookspecs())

    assert pm.get_plugin("fake") is sys.modules["fake_plugin_mod"]
    assert [dist.project_name for _, dist in pm.list_plugin_distinfo()] == ["fakeplugin"]
    backends = collect(pm, "cua_test_register_backends")
    assert backends["x"] == "x-object"
    assert backends.plugin_of("x") == "fake"


def test_disable_blocks_a_builtin_and_an_entry_point_now_and_later(
    two_entry_points: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUA_TEST_DISABLE_PLUGINS", " fake , cua_test.sim,cua_test_not_importable")
    sim = _backends_plugin("cua_test.sim", "sim")
    local = _backends_plugin("cua_test.local", "local")

    # A disabled dotted built-in is never imported, so disabling one that is broken works.
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[sim, local, "cua_test_not_importable"])

    assert not pm.has_plugin("fake")
    assert not pm.has_plugin("cua_test.sim")
    assert pm.has_plugin("other")
    assert pm.has_plugin("cua_test.local")
    assert pm.register(_backends_plugin("again", "again"), name="fake") is None
    assert collect(pm, "cua_test_register_backends").names() == ["local", "libvirt"]


def test_load_plugins_allow_lists_entry_points_but_keeps_builtins(
    two_entry_points: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUA_TEST_LOAD_PLUGINS", "other")

    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("b", "sim")])

    assert pm.has_plugin("other")
    assert not pm.has_plugin("fake")
    assert "fake_plugin_mod" not in sys.modules
    assert collect(pm, "cua_test_register_backends").names() == ["sim", "libvirt"]


def test_empty_load_plugins_loads_no_third_party_plugin(
    two_entry_points: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUA_TEST_LOAD_PLUGINS", "")

    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("b", "sim")])

    assert not pm.has_plugin("fake")
    assert not pm.has_plugin("other")
    assert collect(pm, "cua_test_register_backends").names() == ["sim"]


def test_without_switches_every_entry_point_loads(two_entry_points: None) -> None:
    pm = make_plugin_manager(PROJECT, _hookspecs())

    assert pm.has_plugin("fake")
    assert pm.has_plugin("other")


def test_unknown_names_in_the_switches_warn_with_what_is_available(
    two_entry_points: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("CUA_TEST_DISABLE_PLUGINS", "nope,b")
    monkeypatch.setenv("CUA_TEST_LOAD_PLUGINS", "fake,missing")

    with caplog.at_level(logging.WARNING, logger="cua_core.plugins"):
        pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("b", "x")])

    assert pm.has_plugin("fake")
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 2
    disable, load = messages
    assert "CUA_TEST_DISABLE_PLUGINS" in disable
    assert "'nope'" in disable
    assert "available: b, fake, other" in disable
    assert "CUA_TEST_LOAD_PLUGINS" in load
    assert "'missing'" in load
    assert "available: fake, other" in load


def test_known_names_do_not_warn(
    two_entry_points: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("CUA_TEST_DISABLE_PLUGINS", "b,other")
    monkeypatch.setenv("CUA_TEST_LOAD_PLUGINS", "fake")

    with caplog.at_level(logging.WARNING, logger="cua_core.plugins"):
        make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("b", "x")])

    assert caplog.records == []


def test_entry_point_import_failure_names_the_plugin_and_distribution(
    make_dist: Callable[..., None],
) -> None:
    make_dist({"broken": "broken_plugin_mod"}, {"broken_plugin_mod": "raise RuntimeError('boom')"})

    with pytest.raises(PluginError) as caught:
        make_plugin_manager(PROJECT, _hookspecs())

    message = str(caught.value)
    assert "'broken'" in message
    assert "broken_plugin_mod" in message
    assert "fakeplugin 0.1" in message
    assert "RuntimeError: boom" in message
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_duplicate_entry_point_blames_the_distribution_pluggy_loads(
    make_dist: Callable[..., None],
) -> None:
    make_dist({"dup": "dup_later_mod"}, {"dup_later_mod": "raise RuntimeError('later')"}, "later")
    make_dist(
        {"dup": "dup_first_mod"},
        {"dup_first_mod": "raise RuntimeError('first')"},
        "firstdist",
        front=True,
    )

    with pytest.raises(PluginError) as caught:
        make_plugin_manager(PROJECT, _hookspecs())

    assert "distribution firstdist 0.1" in str(caught.value)
    assert "RuntimeError: first" in str(caught.value)


def test_entry_point_to_a_missing_module_is_a_plugin_error(
    make_dist: Callable[..., None],
) -> None:
    make_dist({"ghost": "cua_test_no_such_module"}, {})

    with pytest.raises(PluginError, match=r"'ghost'.*fakeplugin") as caught:
        make_plugin_manager(PROJECT, _hookspecs())

    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_builtin_import_failure_is_a_plugin_error() -> None:
    with pytest.raises(PluginError, match="cua_test_no_such_builtin") as caught:
        make_plugin_manager(PROJECT, _hookspecs(), builtins=["cua_test_no_such_builtin"])

    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_hookimpl_with_arguments_outside_the_spec_is_a_plugin_error() -> None:
    @hookimpl
    def cua_test_pick(options: list[str], extra: int) -> str:
        return "x"

    bad = _module("cua_test.bad", cua_test_pick=cua_test_pick)

    with pytest.raises(PluginError, match=r"'cua_test\.bad'") as caught:
        make_plugin_manager(PROJECT, _hookspecs(), builtins=[bad])

    assert isinstance(caught.value.__cause__, pluggy.PluginValidationError)


def test_unknown_hook_names_plugin_hook_and_the_likely_spec() -> None:
    @hookimpl
    def cua_test_register_backend(register: Register) -> None:
        """Misspelt: the spec is cua_test_register_backends."""

    @hookimpl(optionalhook=True)
    def cua_test_future_hook() -> None:
        """Optional: allowed, so it must not be blamed beside the typo."""

    typo = _module("cua_test.typo", cua_test_register_backend=cua_test_register_backend)
    newer = _module("cua_test.newer", cua_test_future_hook=cua_test_future_hook)

    with pytest.raises(PluginError) as caught:
        make_plugin_manager(PROJECT, _hookspecs(), builtins=[newer, typo])

    message = str(caught.value)
    assert "plugin 'cua_test.typo' implements 'cua_test_register_backend'" in message
    assert "cua_test_future_hook" not in message
    assert "did you mean 'cua_test_register_backends'" in message
    assert isinstance(caught.value.__cause__, pluggy.PluginValidationError)


def test_optional_unknown_hook_is_allowed() -> None:
    @hookimpl(optionalhook=True)
    def cua_test_future_hook() -> None:
        """A hook from a newer host version."""

    plugin = _module("cua_test.newer", cua_test_future_hook=cua_test_future_hook)

    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[plugin])

    assert pm.has_plugin("cua_test.newer")


def test_project_must_be_an_import_style_name() -> None:
    with pytest.raises(ValueError, match="import-style name like 'cua_bench', got 'cua-test'"):
        make_plugin_manager("cua-test", _hookspecs())


def test_firstresult_hook_returns_the_first_answer_through_the_manager() -> None:
    @hookimpl
    def cua_test_pick(options: list[str]) -> str | None:
        return None  # no opinion: pluggy moves on to the next implementation

    @hookimpl(tryfirst=True)
    def cua_test_pick_first(options: list[str]) -> str | None:
        return options[-1]

    silent = _module("cua_test.silent", cua_test_pick=cua_test_pick)
    first = ModuleType("cua_test.first")
    first.cua_test_pick = cua_test_pick_first  # type: ignore[attr-defined]
    # pluggy finds hooks by attribute name, so the function's own name does not matter.

    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[silent, first])
    assert pm.hook.cua_test_pick(options=["a", "b"]) == "b"

    pm.unregister(name="cua_test.first")
    assert pm.hook.cua_test_pick(options=["a", "b"]) is None


def test_registry_duplicate_names_both_plugins() -> None:
    pm = make_plugin_manager(
        PROJECT,
        _hookspecs(),
        builtins=[_backends_plugin("a", "sim", "docker"), _backends_plugin("b", "docker")],
    )

    with pytest.raises(PluginError) as caught:
        collect(pm, "cua_test_register_backends")

    assert str(caught.value) == "backend 'docker' registered by plugin 'a' and by plugin 'b'"


def test_registry_kind_appears_in_messages() -> None:
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("a", "x"), _backends_plugin("b", "x")])

    with pytest.raises(PluginError, match=r"^agent 'x' registered by plugin 'a' and by plugin 'b'$"):
        collect(pm, "cua_test_register_backends", kind="agent")


def test_registry_unknown_name_suggests_the_closest_and_lists_known_sorted() -> None:
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("a", "sim", "local", "docker")])
    backends = collect(pm, "cua_test_register_backends")

    with pytest.raises(PluginError) as caught:
        backends["dockr"]

    assert str(caught.value) == ("unknown backend 'dockr'; did you mean 'docker'? (known: docker, local, sim)")
    with pytest.raises(PluginError, match="did you mean 'local'"):
        backends.plugin_of("locl")
    with pytest.raises(PluginError, match=r"^unknown backend 'zzz' \(known"):
        backends.meta("zzz")


def test_empty_registry_says_nothing_is_registered() -> None:
    with pytest.raises(PluginError, match="no trainer is registered"):
        Registry[object]("trainer")["grpo"]


@pytest.mark.parametrize("name", ["", "Docker", "-docker", "_x", "a b", "dock/er", "é", 3, None])
def test_invalid_names_are_rejected(name: object) -> None:
    @hookimpl
    def cua_test_register_backends(register: Register) -> None:
        register(name, object())

    plugin = _module("cua_test.bad_name", cua_test_register_backends=cua_test_register_backends)
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[plugin])

    with pytest.raises(PluginError, match=r"plugin 'cua_test\.bad_name' registered a backend named"):
        collect(pm, "cua_test_register_backends")


@pytest.mark.parametrize("name", ["docker", "0x", "qwen2.5-vl", "ui_tars"])
def test_valid_names_are_accepted(name: str) -> None:
    registry = Registry[object]("adapter")
    registry.add(name, object(), "p")
    assert name in registry


def test_registry_api() -> None:
    @hookimpl
    def cua_test_register_backends(register: Register) -> None:
        register("docker", "D", extra="docker", gpu=True)
        register("sim", "S")

    plugin = _module("cua_test.plug", cua_test_register_backends=cua_test_register_backends)
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("first", "local"), plugin])

    backends = collect(pm, "cua_test_register_backends")

    assert backends.names() == ["local", "docker", "sim"]
    assert list(backends) == ["local", "docker", "sim"]
    assert len(backends) == 3
    assert "sim" in backends
    assert "vm" not in backends
    assert backends["docker"] == "D"
    assert backends.plugin_of("docker") == "cua_test.plug"
    assert backends.plugin_of("local") == "first"
    assert backends.meta("docker") == {"extra": "docker", "gpu": True}
    assert backends.meta("sim") == {}
    backends.meta("docker")["gpu"] = False
    assert backends.meta("docker")["gpu"] is True
    assert collect(pm, "cua_test_pick").names() == []  # a hook no plugin implements


def test_register_cannot_claim_another_plugins_name() -> None:
    @hookimpl
    def cua_test_register_backends(register: Register) -> None:
        register("docker", "D", plugin="someone-else")

    plugin = _module("cua_test.honest", cua_test_register_backends=cua_test_register_backends)
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[plugin])

    backends = collect(pm, "cua_test_register_backends")

    assert backends.plugin_of("docker") == "cua_test.honest"
    assert backends.meta("docker") == {"plugin": "someone-else"}


def test_failing_registration_hook_names_the_plugin() -> None:
    @hookimpl
    def cua_test_register_backends(register: Register) -> None:
        raise KeyError("oops")

    plugin = _module("cua_test.crash", cua_test_register_backends=cua_test_register_backends)
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[plugin])

    with pytest.raises(PluginError, match=r"plugin 'cua_test\.crash' failed in") as caught:
        collect(pm, "cua_test_register_backends")

    assert isinstance(caught.value.__cause__, KeyError)


def test_collect_from_a_hook_that_does_not_exist() -> None:
    pm = make_plugin_manager(PROJECT, _hookspecs())

    with pytest.raises(PluginError, match="no hook 'cua_test_register_agents'"):
        collect(pm, "cua_test_register_agents")


def test_collect_refuses_a_wrapper_implementation() -> None:
    @hookimpl(wrapper=True)
    def cua_test_register_backends(register: Register) -> Iterator[None]:
        yield

    plugin = _module("cua_test.wrap", cua_test_register_backends=cua_test_register_backends)
    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[plugin])

    with pytest.raises(PluginError, match=r"'cua_test\.wrap' implements .* as a wrapper"):
        collect(pm, "cua_test_register_backends")


def test_an_entry_point_plugin_without_hookimpl_markers_is_named_in_a_warning(
    make_dist: Callable[..., None], caplog: pytest.LogCaptureFixture
) -> None:
    # The marker forgotten: pluggy ignores the function, and the user used to see only "unknown agent".
    make_dist({"unmarked": "unmarked_mod"}, {"unmarked_mod": "def cua_test_register_backends(register):\n    pass\n"})
    with caplog.at_level(logging.WARNING, logger="cua_core.plugins"):
        pm = make_plugin_manager(PROJECT, _hookspecs())
    assert "plugin 'unmarked' of 'cua_test' loaded but implements no hook" in caplog.text
    assert "cua_test_register_backends lack(s) the @hookimpl marker" in caplog.text
    assert collect(pm, "cua_test_register_backends").names() == []


def test_registered_objects_are_validated_naming_the_plugin() -> None:
    from cua_core.plugins import is_callable, is_subclass_of

    pm = make_plugin_manager(PROJECT, _hookspecs(), builtins=[_backends_plugin("strings", "a")])
    with pytest.raises(
        PluginError, match=r"plugin 'strings' registered backend 'a': 'strings:a' is not a subclass of builtins.int"
    ):
        collect(pm, "cua_test_register_backends", validate=is_subclass_of(int))
    with pytest.raises(PluginError, match=r"'strings:a' is not callable"):
        collect(pm, "cua_test_register_backends", validate=is_callable)

    @hookimpl
    def cua_test_register_backends(register: Register) -> None:
        register("b", int, description=3)

    pm.register(_module("bad_description", cua_test_register_backends=cua_test_register_backends))
    with pytest.raises(PluginError, match="description that is not a str"):
        collect(pm, "cua_test_register_backends")


def test_registries_are_kept_until_their_plugins_change() -> None:
    calls: list[int] = []

    @hookimpl
    def cua_test_register_backends(register: Register) -> None:
        calls.append(1)
        register("counted", object())

    pm = make_plugin_manager(
        PROJECT, _hookspecs(), builtins=[_module("counting", cua_test_register_backends=cua_test_register_backends)]
    )
    first = collect(pm, "cua_test_register_backends")
    assert collect(pm, "cua_test_register_backends") is first and len(calls) == 1
    late = _backends_plugin("late", "x")
    pm.register(late)
    assert collect(pm, "cua_test_register_backends").names() == ["counted", "x"] and len(calls) == 2
    pm.unregister(late)
    assert collect(pm, "cua_test_register_backends").names() == ["counted"]
    assert collect(pm, "cua_test_register_backends", cache=False) is not first and len(calls) == 4


def test_cua_bench_refuses_a_backend_that_is_not_a_backend_class() -> None:
    from cua_bench.registry import backends, plugin_manager

    @pluggy.HookimplMarker("cua_bench")
    def cua_bench_register_backends(register: Register) -> None:
        register("not-a-backend", dict)

    plugin = _module("wrong_backend", cua_bench_register_backends=cua_bench_register_backends)
    plugin_manager().register(plugin)
    try:
        with pytest.raises(
            PluginError,
            match=r"'wrong_backend' registered backend 'not-a-backend': <class 'dict'> is not a subclass of cua_bench.backends.base.Backend",
        ):
            backends()
    finally:
        plugin_manager().unregister(plugin)
    assert "sim" in backends()
