"""The error types every cua package raises, so callers can catch by meaning, not by module."""

from __future__ import annotations


class CuaError(Exception):
    """Base of every error raised on purpose by cua."""


class ProtocolError(CuaError):
    """A message on the bus could not be understood."""


class VersionMismatch(ProtocolError):
    """The peer speaks another protocol version; upgrading one side is the fix."""

    def __init__(self, got: object, expected: int) -> None:
        super().__init__(
            f"bus protocol version mismatch: the peer sent v={got!r}, this side speaks "
            f"v={expected}; install the same cua-core version on both sides"
        )
        self.got = got
        self.expected = expected


class MalformedMessage(ProtocolError):
    """A frame that is not a valid envelope (bad msgpack, missing field, wrong type)."""


class RpcError(CuaError):
    """Base of the errors an RPC call raises on the calling side."""


class RpcTimeout(RpcError):
    """No reply within the call's timeout; the server may still be working on it."""


class ServerLost(RpcTimeout):
    """The server stopped answering heartbeats: it died, hung or is unreachable."""


class RemoteError(RpcError):
    """The handler raised on the server; carries the remote type, message and traceback text, and
    the exception's notes (PEP 678): what the server added for the caller, such as the traceback of
    a task's own code with the server's frames left out."""

    def __init__(
        self, remote_type: str, message: str, traceback: str = "", method: str = "", notes: tuple[str, ...] = ()
    ) -> None:
        where = f" in {method!r}" if method else ""
        super().__init__(f"{remote_type}{where}: {message}")
        self.remote_type = remote_type
        self.message = message
        self.traceback = traceback
        self.method = method
        self.notes = notes


class SecurityError(CuaError):
    """A refusal for safety: an exposed address without keys, a bad key file, an unknown peer."""


class ActionError(CuaError, ValueError):
    """An action that is not valid in the unified action space; the message says what and why."""


class PluginError(CuaError):
    """A plugin that could not be loaded or registered something invalid or twice."""
