"""Plugin loading shared by every cua package, so all of them extend and are steered the same way.

Each package keeps one typed ``hookspecs`` module (as pytest and tox do) whose specs carry
``pluggy.HookspecMarker("<package>")``; plugins mark their hooks with
``pluggy.HookimplMarker("<package>")``. We add no marker helpers: pluggy's markers already are
the whole API, and one more name to learn would only hide them. Built-ins go through the same
manager as third-party plugins, so they can rely on nothing a third party could not.

Hooks that add named things (backends, agents, adapters, trainers) follow simonw's llm: the hook
receives a typed ``register(name, obj, description=...)`` callback (:class:`Register`), and
:func:`collect` checks every name and object and refuses a duplicate with both plugins named, so a
clash or a wrong object is found when loading rather than by whichever plugin happened to win::

    # cua_bench/hookspecs.py
    hookspec = pluggy.HookspecMarker("cua_bench")

    @hookspec
    def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
        "Call register(name, backend_class, description=...) once per backend."

    # cua_bench/registry.py
    pm = make_plugin_manager("cua_bench", hookspecs, builtins=["cua_bench.backends.sim"])
    backends = collect(pm, "cua_bench_register_backends", kind="backend", validate=is_subclass_of(Backend))

Users steer loading without editing code: ``CUA_BENCH_DISABLE_PLUGINS=docker,cua_bench.backends.sim``
blocks plugins by name, ``CUA_BENCH_LOAD_PLUGINS=docker`` auto-loads only the named entry points
(and ``CUA_BENCH_LOAD_PLUGINS=`` none at all), the way ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` and
``-p no:name`` let a user rule out a broken or unwanted plugin.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar

import pluggy

from cua_core.errors import PluginError

__all__ = ["Register", "Registry", "Validator", "collect", "is_callable", "is_subclass_of", "make_plugin_manager"]

log = logging.getLogger(__name__)

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)

# Names end up in config files, command lines and URLs; one spelling rule keeps them portable.
_VALID_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


def make_plugin_manager(
    project: str, hookspecs: ModuleType, builtins: Iterable[object | str] = ()
) -> pluggy.PluginManager:
    """Build a package's manager: its specs, its built-ins, then the installed plugins.

    ``project`` names both the pluggy project and the entry-point group, so a plugin needs to
    know one name only. Built-ins (modules, or dotted names imported here so a disabled one is
    never imported) register first under their module name; entry points follow, honouring
    ``<PROJECT>_DISABLE_PLUGINS`` and ``<PROJECT>_LOAD_PLUGINS``. Every failure is a
    :class:`PluginError` that names the plugin, because the traceback alone points into pluggy.
    """
    if not project.isidentifier():
        # The name becomes an environment variable prefix; "cua-bench" could not be set in a shell.
        raise ValueError(f"project must be an import-style name like 'cua_bench', got {project!r}")
    pm = pluggy.PluginManager(project)
    pm.add_hookspecs(hookspecs)
    disable_var = f"{project.upper()}_DISABLE_PLUGINS"
    load_var = f"{project.upper()}_LOAD_PLUGINS"
    disabled = _env_names(disable_var) or set()
    only = _env_names(load_var)
    # Blocked before anything registers, so later register() calls are refused too.
    for name in sorted(disabled):
        pm.set_blocked(name)

    builtin_names = [_register_builtin(pm, builtin) for builtin in builtins]
    entry_points = _entry_points(project)
    _warn_unknown(disable_var, disabled, [*builtin_names, *entry_points])
    if only is not None:
        _warn_unknown(load_var, only, list(entry_points))

    for name, (ep, dist) in entry_points.items():
        if only is not None and name not in only:
            continue
        try:
            # Through pluggy, one name at a time, so list_plugin_distinfo() stays right and a
            # failure can be pinned on this entry point and its distribution.
            pm.load_setuptools_entrypoints(project, name=name)
        except Exception as exc:
            raise PluginError(
                f"plugin {name!r} (entry point {ep.value!r} in group {project!r}, distribution "
                f"{dist.name} {dist.version}) failed to load: {type(exc).__name__}: {exc}"
            ) from exc

    _check_pending(pm)
    for name in entry_points:
        plugin = pm.get_plugin(name)
        if plugin is not None and not pm.get_hookcallers(plugin):
            _warn_hookless(pm, name, plugin)
    return pm


def _warn_hookless(pm: pluggy.PluginManager, name: str, plugin: object) -> None:
    """A plugin that implements nothing is almost always one whose ``@hookimpl`` marker is missing;
    without this warning the user only sees "unknown agent" for the name it meant to add."""
    unmarked = sorted(attr for attr in dir(plugin) if attr.startswith(f"{pm.project_name}_"))
    hint = (
        f"; {', '.join(unmarked)} lack(s) the @hookimpl marker (pluggy.HookimplMarker({pm.project_name!r}))"
        if unmarked
        else ""
    )
    log.warning("plugin %r of %r loaded but implements no hook, so it adds nothing%s", name, pm.project_name, hint)


def _env_names(var: str) -> set[str] | None:
    """None when unset, because an empty value is a deliberate "none" for the load list."""
    value = os.environ.get(var)
    if value is None:
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def _register_builtin(pm: pluggy.PluginManager, builtin: object) -> str:
    name = builtin if isinstance(builtin, str) else pm.get_canonical_name(builtin)
    if pm.is_blocked(name):
        return name
    try:
        plugin = importlib.import_module(builtin) if isinstance(builtin, str) else builtin
        pm.register(plugin, name=name)
    except Exception as exc:
        raise PluginError(
            f"built-in plugin {name!r} of {pm.project_name!r} failed to load: {type(exc).__name__}: {exc}"
        ) from exc
    return name


def _entry_points(
    group: str,
) -> dict[str, tuple[importlib.metadata.EntryPoint, importlib.metadata.Distribution]]:
    """The group's entry points by name; the first one wins, the same one pluggy would load."""
    found: dict[str, tuple[importlib.metadata.EntryPoint, importlib.metadata.Distribution]] = {}
    for dist in importlib.metadata.distributions():
        for ep in dist.entry_points:
            if ep.group == group:
                found.setdefault(ep.name, (ep, dist))
    return found


def _warn_unknown(var: str, wanted: set[str], available: list[str]) -> None:
    # A typo here would silently do nothing; a warning says so without breaking a working setup.
    for name in sorted(wanted - set(available)):
        log.warning(
            "%s names %r, which matches no plugin; available: %s",
            var,
            name,
            ", ".join(sorted(available)) or "(none)",
        )


def _check_pending(pm: pluggy.PluginManager) -> None:
    """pluggy's check_pending, with a message that names plugin and hook by their names."""
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        specs = sorted(name for name, caller in vars(pm.hook).items() if caller.has_spec())
        problems = []
        for name, caller in sorted(vars(pm.hook).items()):
            if caller.has_spec():
                continue
            for impl in caller.get_hookimpls():
                if not impl.optionalhook:
                    close = difflib.get_close_matches(name, specs, n=1)
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    problems.append(f"plugin {impl.plugin_name!r} implements {name!r}{hint}")
        raise PluginError(
            f"unknown hook for {pm.project_name!r}: {'; '.join(problems) or exc}; "
            f"known hooks: {', '.join(specs) or '(none)'}"
        ) from exc


class Registry(Generic[T]):
    """Named objects contributed by plugins, each remembering which plugin gave it.

    Lookups fail with a :class:`PluginError` that lists what exists and suggests a spelling,
    because the name usually comes from a user's command line or config file.
    """

    def __init__(self, kind: str, validate: Validator | None = None) -> None:
        self.kind = kind
        self._validate = validate
        self._objects: dict[str, T] = {}
        self._plugins: dict[str, str] = {}
        self._meta: dict[str, dict[str, Any]] = {}

    def add(self, name: str, obj: T, plugin: str, /, **meta: Any) -> None:
        """Record one object; the name rules and the duplicate check live here, not in hooks."""
        if not isinstance(name, str) or not _VALID_NAME.fullmatch(name):
            raise PluginError(
                f"plugin {plugin!r} registered a {self.kind} named {name!r}: names must be "
                "lower-case letters, digits, '_', '.' or '-', starting with a letter or digit"
            )
        if name in self._objects:
            raise PluginError(
                f"{self.kind} {name!r} registered by plugin {self._plugins[name]!r} and by plugin {plugin!r}"
            )
        problem = self._validate(obj) if self._validate is not None else None
        if problem:
            raise PluginError(f"plugin {plugin!r} registered {self.kind} {name!r}: {problem}")
        description = meta.get("description", "")
        if not isinstance(description, str):
            raise PluginError(f"plugin {plugin!r} registered {self.kind} {name!r} with a description that is not a str")
        self._objects[name] = obj
        self._plugins[name] = plugin
        self._meta[name] = dict(meta)

    def __getitem__(self, name: str) -> T:
        self._require(name)
        return self._objects[name]

    def __contains__(self, name: object) -> bool:
        return name in self._objects

    def __iter__(self) -> Iterator[str]:
        return iter(self._objects)

    def __len__(self) -> int:
        return len(self._objects)

    def names(self) -> list[str]:
        """In registration order: built-ins first, as they were registered first."""
        return list(self._objects)

    def plugin_of(self, name: str) -> str:
        """Which plugin to blame, or to uninstall, for this name."""
        self._require(name)
        return self._plugins[name]

    def meta(self, name: str) -> dict[str, Any]:
        """A copy, so a caller cannot change what the next caller sees."""
        self._require(name)
        return dict(self._meta[name])

    def _require(self, name: str) -> None:
        if name in self._objects:
            return
        known = sorted(self._objects)
        if not known:
            raise PluginError(f"unknown {self.kind} {name!r}: no {self.kind} is registered")
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise PluginError(f"unknown {self.kind} {name!r}{hint} (known: {', '.join(known)})")

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()!r})"


Validator = Callable[[Any], str | None]
"""Checks one registered object; returns what is wrong with it (a phrase), or None when it is fine."""


class Register(Protocol[T_contra]):
    """The ``register`` callback a registration hook receives (each hookspec narrows ``T_contra``).

    ``description`` is one line shown by listings (``cua-bench list``); other keywords are kept as
    metadata (``Registry.meta``).
    """

    def __call__(self, name: str, obj: T_contra, /, *, description: str = "", **meta: Any) -> None: ...


def is_subclass_of(base: type) -> Validator:
    """A validator for hooks that register classes (backends, adapters)."""

    def check(obj: Any) -> str | None:
        if isinstance(obj, type) and issubclass(obj, base):
            return None
        return f"{obj!r} is not a subclass of {base.__module__}.{base.__qualname__}"

    return check


def is_callable(obj: Any) -> str | None:
    """A validator for hooks that register factories or functions."""
    return None if callable(obj) else f"{obj!r} is not callable (a class or a function is expected)"


def collect(
    pm: pluggy.PluginManager,
    hook_name: str,
    kind: str = "backend",
    *,
    validate: Validator | None = None,
    cache: bool = True,
) -> Registry[Any]:
    """Call a registration hook once per implementation, so each name is tied to its plugin.

    Calling implementations one by one (rather than ``pm.hook.<name>()``) is what lets the
    ``register`` callback know which plugin is speaking. ``validate`` refuses a wrong object when
    it is registered, naming the plugin, instead of when a user first picks it. The result is
    kept until the hook's implementations change (a plugin registered or unregistered), so
    callers may ask for a registry on every use; ``cache=False`` for hooks whose answer depends
    on something else (an environment variable). Annotate the result at the call site, e.g.
    ``backends: Registry[type[Backend]] = collect(...)``.
    """
    caller = getattr(pm.hook, hook_name, None)
    if caller is None:
        raise PluginError(f"{pm.project_name!r} has no hook {hook_name!r}; were its hookspecs added?")
    impls = caller.get_hookimpls()
    key = (kind, tuple((impl.plugin_name, id(impl.function)) for impl in impls))
    kept: dict[str, tuple[Any, Registry[Any]]] = pm.__dict__.setdefault("_cua_registries", {})
    if cache and hook_name in kept and kept[hook_name][0] == key:
        return kept[hook_name][1]
    registry: Registry[Any] = Registry(kind, validate)
    for impl in impls:
        if impl.wrapper or impl.hookwrapper:
            # A wrapper is a generator: calling it would run nothing and register nothing.
            raise PluginError(f"plugin {impl.plugin_name!r} implements {hook_name!r} as a wrapper")

        try:
            impl.function(register=_register_for(registry, impl.plugin_name))
        except PluginError:
            raise
        except Exception as exc:
            raise PluginError(
                f"plugin {impl.plugin_name!r} failed in {hook_name!r}: {type(exc).__name__}: {exc}"
            ) from exc
    if cache:
        kept[hook_name] = (key, registry)
    return registry


def _register_for(registry: Registry[Any], plugin: str) -> Callable[..., None]:
    """A callback bound to one plugin, so a plugin cannot claim to be another."""

    def register(name: str, obj: Any, /, **meta: Any) -> None:
        registry.add(name, obj, plugin, **meta)

    return register
