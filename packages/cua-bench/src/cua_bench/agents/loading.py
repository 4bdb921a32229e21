"""Turning what a user names as the agent into a factory, with its options checked before anything starts.

``--agent`` takes a registered name (``random``), a file and class (``agents/mine.py:MyAgent``) or
a module and class (``my_pkg.agents:MyAgent``); Python callers may also pass a class, a factory or
an instance. Options are bound against the factory's signature up front, so a typo fails in a
second with the accepted names, not after the run has started its computers.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cua_bench.agents.base import Agent
from cua_bench.importing import FileImportError, import_file
from cua_core.errors import CuaError

__all__ = ["AgentSpec", "agent_factory", "load_agent_class"]

AgentSpec = str | Agent | Callable[..., Agent]


def load_agent_class(spec: str) -> Callable[..., Agent]:
    """``path/to/file.py:Class`` or ``package.module:Class``: the object named after the colon."""
    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise CuaError(f"--agent {spec!r}: expected FILE.py:Class or module:Class")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise CuaError(f"--agent {spec!r}: no file {where}")
        try:
            module = import_file(path, "cua_bench_agent")
        except FileImportError as exc:
            raise CuaError(f"--agent {spec!r}: {exc}") from exc.__cause__
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise CuaError(f"--agent {spec!r}: cannot import module {where!r}: {exc}") from exc
    found = getattr(module, attr, None)
    if found is None:
        names = [n for n, v in vars(module).items() if isinstance(v, type) and issubclass(v, Agent) and v is not Agent]
        close = difflib.get_close_matches(attr, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else (f" (agents there: {', '.join(names)})" if names else "")
        raise CuaError(f"--agent {spec!r}: {where} has no {attr!r}{hint}")
    if isinstance(found, type) and not issubclass(found, Agent):
        raise CuaError(f"--agent {spec!r}: {attr} is not a cua_bench.Agent subclass")
    if not callable(found):
        raise CuaError(f"--agent {spec!r}: {attr} is not a class or factory")
    return found  # type: ignore[no-any-return]


def check_options(factory: Callable[..., Any], options: Mapping[str, Any], label: str) -> None:
    """Bind ``options`` to the factory's keyword parameters; a wrong name or a missing one is a CuaError."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return  # a builtin without a signature: nothing to check against
    params = signature.parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    accepted = [n for n, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n != "self"]
    for name in options:
        if name not in accepted and not takes_any:
            close = difflib.get_close_matches(name, accepted, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            known = ", ".join(accepted) or "none"
            raise CuaError(f"agent {label}: unknown option {name!r}; {hint}(its options: {known})")
    missing = [
        n
        for n, p in params.items()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        and n not in options
        and n != "self"
    ]
    if missing:
        raise CuaError(
            f"agent {label}: needs --agent-option {' '.join(f'{n}=...' for n in missing)}"
            f" (its options: {', '.join(accepted)})"
        )


def agent_factory(
    spec: AgentSpec, options: Mapping[str, Any], *, max_parallel: int = 1
) -> tuple[Callable[[], Agent], str]:
    """A no-argument factory of ready agents, and the name the run records for them."""
    if isinstance(spec, Agent):
        if options:
            raise CuaError("agent options go to a class or factory; this agent is already built")
        if max_parallel > 1:
            raise CuaError(
                f"an Agent instance keeps one episode's state, so it cannot serve {max_parallel} environments "
                "at once: pass its class (or a factory) instead, or max_parallel=1"
            )
        return (lambda: spec), type(spec).__name__
    if isinstance(spec, str):
        if ":" in spec:
            factory, label = load_agent_class(spec), spec
        else:
            from cua_bench.registry import agents

            factory, label = agents()[spec], spec
    elif callable(spec):
        factory, label = spec, getattr(spec, "__qualname__", repr(spec))
    else:
        raise CuaError(f"agent must be a name, an Agent, a class or a factory, got {type(spec).__name__}")
    check_options(factory, options, repr(label))
    kwargs = dict(options)

    def build() -> Agent:
        agent = factory(**kwargs)
        if not isinstance(agent, Agent):
            raise CuaError(f"agent {label!r} made a {type(agent).__name__}, which is not a cua_bench.Agent")
        return agent

    return build, label
