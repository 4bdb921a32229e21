"""Request/reply over DEALER/ROUTER: request ids, timeouts, idempotent retries and heartbeats."""

from cua_core.rpc.client import AsyncRpcClient, RpcClient
from cua_core.rpc.server import RpcServer

__all__ = ["AsyncRpcClient", "RpcClient", "RpcServer"]
