"""Our client of a Cua computer-server: one WebSocket, one command at a time.

The WebSocket rather than ``POST /cmd`` (which Cua's SDK tries first): one connection for the
environment's life, no HTTP per command. ``CUA_COMPUTER_SERVER_URL`` names the server
(``http://127.0.0.1:8000`` by default); Cua's cloud sandboxes also want ``CUA_API_KEY`` and
``CUA_CONTAINER_NAME``, sent as its ``authenticate`` message.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import TYPE_CHECKING, Any

from cua_core import CuaError

# websockets and urllib.request (with http.client) are imported where a command is sent: cua-bench loads
# this plugin's backend in every env server, and only the ``cua`` backend's server sends one.
if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

__all__ = ["URL_ENV", "CommandError", "ComputerServer", "ServerUnreachable", "server_url"]

URL_ENV = "CUA_COMPUTER_SERVER_URL"
DEFAULT_URL = "http://127.0.0.1:8000"


class ServerUnreachable(CuaError):
    """No computer-server answers at the URL; the message says how to point at one."""


class CommandError(CuaError):
    """The computer-server answered ``success: false``; ``error`` is its message."""

    def __init__(self, command: str, error: str) -> None:
        super().__init__(f"computer-server {command}: {error}")
        self.command = command
        self.error = error


def server_url() -> str:
    return os.environ.get(URL_ENV, DEFAULT_URL).rstrip("/")


def _unreachable(url: str, why: object) -> ServerUnreachable:
    return ServerUnreachable(
        f"no Cua computer-server answers at {url} ({why}); start one (`python -m computer_server --port 8000` "
        f"from PyPI's cua-computer-server) or set {URL_ENV} to where it listens"
    )


def call_once(url: str, command: str, /, timeout: float = 10.0, **params: Any) -> dict[str, Any]:
    """One command over ``POST /cmd``, blocking: for what runs before an event loop does."""
    import urllib.error
    import urllib.request

    body = json.dumps({"command": command, "params": params}).encode()
    headers = {"Content-Type": "application/json", **_auth_headers()}
    request = urllib.request.Request(f"{url}/cmd", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode().strip()
    except (urllib.error.URLError, OSError) as exc:
        raise _unreachable(url, exc) from exc
    if not text.startswith("data: "):
        raise ServerUnreachable(f"{url}/cmd answered {text[:200]!r}, not a computer-server reply")
    reply: dict[str, Any] = json.loads(text.removeprefix("data: "))
    if not reply.get("success", False):
        raise CommandError(command, str(reply.get("error", reply)))
    return reply


def _auth_headers() -> dict[str, str]:
    key, name = os.environ.get("CUA_API_KEY"), os.environ.get("CUA_CONTAINER_NAME")
    return {**({"X-API-Key": key} if key else {}), **({"X-Container-Name": name} if name else {})}


class ComputerServer:
    """Commands to the computer-server at ``url``, over a WebSocket opened on first use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._ws: ClientConnection | None = None
        self._lock = asyncio.Lock()

    async def _connect(self) -> ClientConnection:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        if self._ws is None:
            ws_url = "ws" + self.url.removeprefix("http") + "/ws"
            try:
                self._ws = await connect(ws_url, max_size=None, additional_headers=_auth_headers(), ping_interval=None)
            except (OSError, WebSocketException) as exc:
                raise _unreachable(self.url, exc) from exc
            key, name = os.environ.get("CUA_API_KEY"), os.environ.get("CUA_CONTAINER_NAME")
            if key and name:
                await self._exchange({"command": "authenticate", "params": {"api_key": key, "container_name": name}})
        return self._ws

    async def _exchange(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self._ws is not None
        await self._ws.send(json.dumps(message))
        reply: dict[str, Any] = json.loads(await self._ws.recv())
        return reply

    async def call(self, command: str, /, **params: Any) -> dict[str, Any]:
        """The reply to ``command``; ``CommandError`` when it failed, ``ServerUnreachable`` when the server is gone."""
        from websockets.exceptions import WebSocketException

        async with self._lock:
            await self._connect()
            try:
                reply = await self._exchange({"command": command, "params": params})
            except (OSError, WebSocketException) as exc:
                self._ws = None  # reconnect on the next command
                raise _unreachable(self.url, exc) from exc
        if not reply.get("success", False):
            raise CommandError(command, str(reply.get("error", reply)))
        return reply

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
            self._ws = None
