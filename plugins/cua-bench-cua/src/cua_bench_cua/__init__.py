"""Cua interop: our environments speak Cua's computer-server protocol, and the ``cua`` backend
drives a Cua computer-server as one of our environments."""

from cua_bench_cua.commands import Commands
from cua_bench_cua.endpoint import CuaEndpoint, EndpointError

__all__ = ["Commands", "CuaEndpoint", "EndpointError"]
