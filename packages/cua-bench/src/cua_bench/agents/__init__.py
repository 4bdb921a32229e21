"""Agents act on observations; ``oracle``, ``random``, ``noop`` and ``replay`` are built in."""

from cua_bench.agents.base import Agent

__all__ = ["Agent"]
