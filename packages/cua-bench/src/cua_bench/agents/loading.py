"""Turning what a user names as the agent into a factory, with its options checked before anything starts.

``--agent`` takes a registered name (``random``), a file and class (``agents/mine.py:MyAgent``) or
a module and class (``my_pkg.agents:MyAgent``); Python callers may also pass a class, a factory or
an instance. Options are bound against the factory's signature up front, so a typo fails in a
second with the accepted names, not after the run has started its computers.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from cua_bench.agents.base import Agent
from cua_bench.importing import load_named
from cua_core.errors import CuaError

__all__ = ["AgentSpec", "agent_factory", "check_options", "load_agent_class"]

AgentSpec = str | Agent | Callable[..., Agent]


def load_agent_class(spec: str) -> Callable[..., Agent]:
    """``path/to/file.py:Class`` or ``package.module:Class``: the object named after the colon."""
    return load_named(spec, flag="--agent", base=Agent)


def check_options(factory: Callable[..., Any], options: Mapping[str, Any], label: str, *, kind: str = "agent") -> None:
    """Bind ``options`` to the factory's keyword parameters; a wrong name or a missing one is a CuaError
    naming the ``--{kind}-option`` to pass."""
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
            raise CuaError(f"{kind} {label}: unknown option {name!r}; {hint}(its options: {known})")
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
            f"{kind} {label}: needs --{kind}-option {' '.join(f'{n}=...' for n in missing)}"
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
