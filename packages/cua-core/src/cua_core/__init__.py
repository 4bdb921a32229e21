"""cua-core: the bus (ZeroMQ + msgpack events and RPC), the unified action space, plugin loading."""

from cua_core.codec import PROTOCOL_VERSION, Envelope, decode, encode
from cua_core.errors import (
    ActionError,
    CuaError,
    MalformedMessage,
    PluginError,
    ProtocolError,
    RemoteError,
    RpcError,
    RpcTimeout,
    SecurityError,
    ServerLost,
    VersionMismatch,
)
from cua_core.events import (
    AsyncPublisher,
    AsyncSubscriber,
    BusAddresses,
    Event,
    Forwarder,
    Publisher,
    Subscriber,
)
from cua_core.rpc import AsyncRpcClient, RpcClient, RpcServer
from cua_core.security import AllowList, ClientSecurity, KeyPair, ServerSecurity, load_or_create_keypair

__version__ = "0.1.0"

__all__ = [
    "PROTOCOL_VERSION",
    "ActionError",
    "AllowList",
    "AsyncPublisher",
    "AsyncRpcClient",
    "AsyncSubscriber",
    "BusAddresses",
    "ClientSecurity",
    "CuaError",
    "Envelope",
    "Event",
    "Forwarder",
    "KeyPair",
    "MalformedMessage",
    "PluginError",
    "ProtocolError",
    "Publisher",
    "RemoteError",
    "RpcClient",
    "RpcError",
    "RpcServer",
    "RpcTimeout",
    "SecurityError",
    "ServerLost",
    "ServerSecurity",
    "Subscriber",
    "VersionMismatch",
    "__version__",
    "decode",
    "encode",
    "load_or_create_keypair",
]
