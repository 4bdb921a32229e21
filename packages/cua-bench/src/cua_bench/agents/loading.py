"""Turning what a user names as the agent into a factory, with its options checked before anything starts.

``--agent`` takes a registered name (``random``), a file and class (``agents/mine.py:MyAgent``) or
a module and class (``my_pkg.agents:MyAgent``); Python callers may also pass a class, a factory or
an instance. Options are bound against the factory's signature and typed by its annotations up
front, so a typo or a wrong value fails in a second with the accepted names, not after the run has
started its computers or loaded a model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cua_bench.agents.base import Agent
from cua_bench.importing import load_named
from cua_core import CuaError, typed_options

__all__ = ["AgentSpec", "agent_factory", "check_options", "load_agent_class"]

AgentSpec = str | Agent | Callable[..., Agent]


def load_agent_class(spec: str) -> Callable[..., Agent]:
    """``path/to/file.py:Class`` or ``package.module:Class``: the object named after the colon."""
    return load_named(spec, flag="--agent", base=Agent)


def check_options(
    factory: Callable[..., Any], options: Mapping[str, Any], label: str, *, kind: str = "agent"
) -> dict[str, Any]:
    """``options`` bound to the factory's keyword parameters and typed by their annotations
    (``cua_core.options``): a wrong name, a wrong type or a missing one is an error naming the
    ``--{kind}-option`` to pass."""
    return typed_options(factory, options, label=f"{kind} {label}", flag=f"--{kind}-option")


def agent_factory(
    spec: AgentSpec, options: Mapping[str, Any], *, max_parallel: int = 1
) -> tuple[Callable[[], Agent], str, dict[str, Any]]:
    """A no-argument factory of ready agents, the name the run records for them, and the options as
    they were typed (what the run records: ``seed=3`` given as text is the number 3)."""
    if isinstance(spec, Agent):
        if options:
            raise CuaError("agent options go to a class or factory; this agent is already built")
        if max_parallel > 1:
            raise CuaError(
                f"an Agent instance keeps one episode's state, so it cannot serve {max_parallel} environments "
                "at once: pass its class (or a factory) instead, or max_parallel=1"
            )
        return (lambda: spec), type(spec).__name__, {}
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
    kwargs = check_options(factory, options, repr(label))

    def build() -> Agent:
        agent = factory(**kwargs)
        if not isinstance(agent, Agent):
            raise CuaError(f"agent {label!r} made a {type(agent).__name__}, which is not a cua_bench.Agent")
        return agent

    return build, label, kwargs
