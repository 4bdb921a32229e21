"""Cua interop, all of it, apart from the core: `cb` (Cua Bench's command line, ``cua_bench_cua.cb``),
Cua's RL worker names (``workers``, what ``cua_bench.workers`` resolves), our environments speaking
Cua's computer-server protocol, and the ``cua`` backend that drives a Cua computer-server as one of
our environments."""

from typing import TYPE_CHECKING

from cua_core import lazy_getattr

if TYPE_CHECKING:
    from cua_bench_cua import workers
    from cua_bench_cua.commands import Commands
    from cua_bench_cua.endpoint import CuaEndpoint, EndpointError

# Imported on first use: ``workers`` needs cua-bench-rl (the ``rl`` extra), and cua-bench loads this plugin's
# backend (so this package) in every env server, which serves Cua's protocol (the endpoint, websockets) only
# when asked to.
__getattr__ = lazy_getattr(
    __name__,
    {
        "Commands": "cua_bench_cua.commands",
        "CuaEndpoint": "cua_bench_cua.endpoint",
        "EndpointError": "cua_bench_cua.endpoint",
        "workers": "cua_bench_cua.workers",
    },
)

__all__ = ["Commands", "CuaEndpoint", "EndpointError", "workers"]
