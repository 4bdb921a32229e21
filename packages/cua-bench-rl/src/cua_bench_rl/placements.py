"""cua-bench-rl's placements for ``--placement`` (cua-bench's ``cua_bench_register_placements``).

``pool[:HOST,HOST...]``: env servers as jobs on pool hosts (``PoolBackend``); ``ray[:ADDRESS]``: env
servers in actors on a Ray cluster (``RayBackend``). Both take the ``--backend-option`` variables set in
this process to the computers they start elsewhere, where this process's environment does not reach.
"""

from __future__ import annotations

from cua_bench import Backend
from cua_bench.hookspecs import hookimpl
from cua_core import Register

__all__ = ["cua_bench_register_placements"]


def _options(backend: str) -> dict[str, str]:
    """The inner backend's option variables as set here (``--backend-option`` exports them)."""
    import os

    from cua_bench.registry import backends

    registry = backends()
    declared = getattr(registry[backend], "options", ()) if backend in registry else ()
    return {o.env: os.environ[o.env] for o in declared if os.environ.get(o.env)}


def pool(backend: str, where: str | None) -> Backend:
    from cua_bench_rl.placement import PoolBackend

    hosts = [h.strip() for h in where.split(",") if h.strip()] if where else "any"
    return PoolBackend(backend, hosts=hosts)


def ray(backend: str, where: str | None) -> Backend:
    from cua_bench_rl.ray_placement import RayBackend

    return RayBackend(backend, address=where, options=_options(backend))


@hookimpl
def cua_bench_register_placements(register: Register[object]) -> None:
    register("pool", pool, description="jobs on cua-pool hosts: pool[:HOST,HOST...] (cua-bench-rl[pool])")
    register("ray", ray, description="actors on a Ray cluster: ray[:ADDRESS] (cua-bench-rl[ray])")
