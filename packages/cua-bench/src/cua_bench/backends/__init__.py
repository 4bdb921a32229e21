"""Backends provision a computer and start the env server next to it; ``sim`` is built in."""

from cua_bench.backends.base import Backend, Computer, ProcessBackend

__all__ = ["Backend", "Computer", "ProcessBackend"]
