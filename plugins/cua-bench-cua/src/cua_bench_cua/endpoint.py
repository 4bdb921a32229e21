"""Cua's computer-server protocol on a port: ``POST /cmd``, WebSocket ``/ws`` and ``GET /status``.

Plain asyncio streams for HTTP/1.1 and websockets' Sans-I/O protocol for the WebSocket, so one port
serves both (as Cua's FastAPI server does) without a web framework in our dependencies. Replies
keep the real server's shapes: ``/cmd`` answers ``data: {json}`` lines (its streaming response),
errors before a command runs are HTTP errors with ``{"detail": ...}``, and ``/ws`` answers one JSON
object per message. A malformed request is answered and the server keeps serving.

Loopback only unless a token is given; with one, every request must carry it (``X-API-Key`` or
``Authorization: Bearer``, or Cua's ``authenticate`` message as the first WebSocket message).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from cua_bench_cua.commands import Commands, Reply
from cua_core import CuaError

__all__ = ["CuaEndpoint", "EndpointError", "check_bind"]

log = logging.getLogger(__name__)

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024  # write_bytes sends 1 MiB chunks, base64'd
REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed"}


class EndpointError(CuaError):
    """The endpoint cannot start as asked; the message says how to fix it."""


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token."""
    if token:
        return
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise EndpointError(
            f"--host {host} is reachable from other computers: give a token (--token or CUA_ENDPOINT_TOKEN) "
            "that clients send as X-API-Key, or listen on 127.0.0.1"
        )


@dataclass
class _Http:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)


class CuaEndpoint:
    """Serves ``commands`` on ``host:port`` until :meth:`close`."""

    def __init__(self, commands: Commands, host: str = "127.0.0.1", port: int = 8000, token: str | None = None) -> None:
        check_bind(host, token)
        self.commands = commands
        self.host = host
        self.port = port
        self.token = token or None
        self._server: asyncio.Server | None = None

    async def start(self) -> CuaEndpoint:
        try:
            self._server = await asyncio.start_server(self._connection, self.host, self.port, limit=MAX_HEAD)
        except OSError as exc:
            raise EndpointError(f"cannot listen on {self.host}:{self.port} ({exc}); pick another --port") from exc
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    def _authorised(self, headers: Mapping[str, str]) -> bool:
        if self.token is None:
            return True
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ").strip()
        return self._matches(given)

    def _matches(self, given: object) -> bool:
        return isinstance(given, str) and self.token is not None and hmac.compare_digest(given, self.token)

    # -- HTTP -------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                except asyncio.LimitOverrunError:
                    await self._respond(writer, 400, {"detail": f"request head over {MAX_HEAD} bytes"}, close=True)
                    return
                request = _parse_head(head)
                if request is None:
                    await self._respond(writer, 400, {"detail": "malformed HTTP request"}, close=True)
                    return
                if request.path == "/ws" and request.headers.get("upgrade", "").lower() == "websocket":
                    await self._websocket(head, reader, writer)
                    return
                if not await self._http(request, reader, writer):
                    return
        except Exception:  # a connection's failure never stops the server
            log.exception("connection failed")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _http(self, request: _Http, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection must close."""
        if "chunked" in request.headers.get("transfer-encoding", "").lower():
            # Take in the body we refuse (up to its last chunk, a second at most) before answering:
            # closing on a client that is still sending it gives that client a broken pipe, not our answer.
            with contextlib.suppress(TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
                await asyncio.wait_for(reader.readuntil(b"0\r\n\r\n"), 1.0)
            detail = "chunked request bodies are not supported: send Content-Length"
            await self._respond(writer, 400, {"detail": detail}, close=True)
            return False
        length_text = request.headers.get("content-length", "0")
        if not length_text.isdigit() or int(length_text) > MAX_BODY:
            await self._respond(
                writer, 400, {"detail": f"Content-Length {length_text!r} is not 0..{MAX_BODY}"}, close=True
            )
            return False
        body = await reader.readexactly(int(length_text)) if int(length_text) else b""
        keep = request.headers.get("connection", "").lower() != "close"
        if request.path == "/status" and request.method == "GET":
            await self._respond(writer, 200, {"status": "ok", "os_type": "linux", "features": []}, close=not keep)
            return keep
        if request.path != "/cmd":
            await self._respond(writer, 404, {"detail": "Not Found"}, close=not keep)
            return keep
        if request.method != "POST":
            await self._respond(writer, 405, {"detail": "Method Not Allowed"}, close=not keep)
            return keep
        if not self._authorised(request.headers):
            detail = "API key required" if self.token else "Authentication failed"
            await self._respond(writer, 401, {"detail": detail}, close=not keep)
            return keep
        try:
            message = json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            await self._respond(writer, 400, {"detail": f"Invalid JSON body: {exc}"}, close=not keep)
            return keep
        command = message.get("command") if isinstance(message, dict) else None
        if not command:
            await self._respond(writer, 400, {"detail": "Command is required"}, close=not keep)
            return keep
        if not self.commands.known(command):
            await self._respond(writer, 400, {"detail": f"Unknown command: {command}"}, close=not keep)
            return keep
        reply = await self.commands.run(command, message.get("params", {}))
        await self._send(writer, 200, f"data: {json.dumps(reply)}\n\n".encode(), "text/plain", close=not keep)
        return keep

    async def _respond(self, writer: asyncio.StreamWriter, status: int, body: Reply, *, close: bool) -> None:
        await self._send(writer, status, json.dumps(body).encode(), "application/json", close=close)

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, body: bytes, kind: str, *, close: bool) -> None:
        head = (
            f"HTTP/1.1 {status} {REASONS.get(status, '')}\r\ncontent-type: {kind}\r\n"
            f"content-length: {len(body)}\r\ncache-control: no-cache\r\n"
            f"connection: {'close' if close else 'keep-alive'}\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()

    # -- WebSocket ----------------------------------------------------------------------------------

    async def _websocket(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        protocol = ServerProtocol(max_size=MAX_BODY)
        protocol.receive_data(head)
        events = protocol.events_received()
        if not events or not isinstance(events[0], Request):
            await self._flush(protocol, writer)
            return
        request = events[0]
        response = protocol.accept(request)
        protocol.send_response(response)
        await self._flush(protocol, writer)
        if response.status_code != 101:
            return
        # Authenticated by header, or (Cua's cloud handshake) by the first message.
        authenticated = self._authorised({k.lower(): v for k, v in request.headers.raw_items()})
        parts: list[bytes] = []
        while True:
            try:
                data = await reader.read(65536)
            except ConnectionError:
                return
            if data:
                protocol.receive_data(data)
            else:
                protocol.receive_eof()
            for frame in protocol.events_received():
                if not isinstance(frame, Frame) or frame.opcode not in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                    continue  # ping, pong, close: the protocol answers them itself
                parts.append(bytes(frame.data))
                if not frame.fin:
                    continue
                text, parts = b"".join(parts), []
                if not authenticated:
                    authenticated = self._authenticate(protocol, text)
                    continue
                protocol.send_text(json.dumps(await self._ws_reply(text)).encode())
            await self._flush(protocol, writer)
            if not data or protocol.close_expected():
                return

    def _authenticate(self, protocol: ServerProtocol, text: bytes) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            message = None
        params = message.get("params") if isinstance(message, dict) else None
        if not isinstance(message, dict) or message.get("command") != "authenticate" or not isinstance(params, dict):
            error = "First message must be authentication"
        elif not params.get("api_key"):
            error = "API key required"
        elif not self._matches(params["api_key"]):
            error = "Authentication failed"
        else:
            protocol.send_text(json.dumps({"success": True, "message": "Authentication successful"}).encode())
            return True
        protocol.send_text(json.dumps({"success": False, "error": error}).encode())
        protocol.send_close(1008, error)
        return False

    async def _ws_reply(self, text: bytes) -> Reply:
        try:
            message = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            return {"success": False, "error": f"Invalid JSON: {exc}"}
        if not isinstance(message, dict):
            return {"success": False, "error": "a message must be a JSON object {command, params}"}
        command = message.get("command")
        if not isinstance(command, str) or not self.commands.known(command):
            return {"success": False, "error": f"Unknown command: {command}"}
        return await self.commands.run(command, message.get("params", {}))

    @staticmethod
    async def _flush(protocol: ServerProtocol, writer: asyncio.StreamWriter) -> None:
        for chunk in protocol.data_to_send():
            if chunk:
                writer.write(chunk)
            elif writer.can_write_eof():
                writer.write_eof()
        with contextlib.suppress(ConnectionError):
            await writer.drain()


def _parse_head(head: bytes) -> _Http | None:
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ")
    except ValueError:
        return None
    if not version.startswith("HTTP/1."):
        return None
    headers = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            return None
        headers[name.strip().lower()] = value.strip()
    return _Http(method, target.split("?", 1)[0], headers)
