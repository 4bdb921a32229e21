"""Where env servers run: ``--placement NAME[:WHERE]``, one option for ``cua-bench run`` and training.

A placement wraps a backend so that its computers come up somewhere else: ``here`` (this computer, the
backend itself), and the placements plugins add (``cua_bench_register_placements``): cua-bench-rl's
``pool[:HOSTS]`` (jobs on pool hosts) and ``ray[:ADDRESS]`` (actors on a Ray cluster). The wrapped
backend is a ``Backend`` like any other, so the runner and the env workers need nothing else to use it.
"""

from __future__ import annotations

from cua_bench.backends.base import Backend
from cua_bench.hookspecs import hookimpl
from cua_core import CuaError, Register

__all__ = ["HERE", "cua_bench_register_placements", "parse_placement", "place"]

HERE = "here"


def parse_placement(text: str) -> tuple[str, str | None]:
    """``NAME[:WHERE]`` -> (name, where or None); the shape only, the placement checks ``where``."""
    if not isinstance(text, str) or not text.strip():
        raise CuaError(f"--placement must be NAME or NAME:WHERE (here, pool, ray:ADDRESS), got {text!r}")
    name, colon, where = text.strip().partition(":")
    if colon and not where:
        raise CuaError(f"--placement {text!r}: nothing after the colon; write {name} alone or {name}:WHERE")
    return name, where if colon else None


def place(backend: str, placement: str = HERE) -> Backend:
    """The backend named ``backend``, its computers placed as ``placement`` says.

    Raises:
        CuaError: an unknown placement (the installed ones named) or a ``where`` it refuses.
        PluginError: an unknown backend (the installed ones named).
    """
    from cua_bench.registry import placements

    name, where = parse_placement(placement)
    registry = placements()
    if name not in registry:
        hint = " (pool and ray come with cua-bench-rl: pip install './packages/cua-bench-rl[ray]')"
        raise CuaError(
            f"--placement {placement!r}: unknown placement {name!r}; installed: {', '.join(registry.names())}"
            + (hint if name in ("pool", "ray") else "")
        )
    found: Backend = registry[name](backend, where)
    return found


def _here(backend: str, where: str | None) -> Backend:
    if where is not None:
        raise CuaError(f"--placement here:{where}: 'here' takes no WHERE (it is this computer)")
    from cua_bench.registry import backends

    found: Backend = backends()[backend]()
    return found


@hookimpl
def cua_bench_register_placements(register: Register[object]) -> None:
    register(HERE, _here, description="this computer: the backend itself (the default)")
