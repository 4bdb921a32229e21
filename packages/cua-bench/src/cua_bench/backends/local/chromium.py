"""Cua's HTML task windows on the local desktop: Chromium app windows driven over the DevTools protocol.

``launch_window(html=...)`` writes the page into the environment's tmp and starts Chromium on it
as an app window (``--app=file://...``: no tabs, no address bar) with a profile of its own under
tmp and ``--remote-debugging-port=0``; Chromium writes the port it chose to ``DevToolsActivePort``
in the profile. JavaScript runs through ``Runtime.evaluate`` on the window's page target, over the
target's WebSocket (loopback only; each call opens its own connection, so the calls work from any
event loop). The profile asks for the system title bar, so openbox frames the window and its X
client area is exactly the page: the page's origin on the screen is the client window's origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import html as html_lib
import itertools
import json
import time
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_bench.html_windows import JavaScriptError

__all__ = [
    "CHROME_INSET",
    "CHROMIUM",
    "FLAGS",
    "DevTools",
    "HtmlWindow",
    "devtools",
    "devtools_port",
    "evaluate",
    "frame_context",
    "page_document",
    "prepare_profile",
]

CHROMIUM = "chromium"
FLAGS = (
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--password-store=basic",
    "--disable-features=Translate,AutofillServerCommunication", "--disable-default-apps",
    "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--force-renderer-accessibility",
    "--test-type",  # no "unsupported command-line flag" bar (--no-sandbox) above the page
)  # fmt: skip
_IDS = itertools.count(1)
# What Chromium draws around the page inside its window (an infobar above it), in device pixels.
CHROME_INSET = (
    "(() => { const s = window.devicePixelRatio || 1; "
    "return [(window.outerWidth - window.innerWidth) / 2 * s, (window.outerHeight - window.innerHeight) * s]; })()"
)


@dataclass
class HtmlWindow:
    """One launched window: its Chromium process, DevTools port and X window."""

    pid: int
    port: int
    wid: int
    profile: Path
    title: str


def page_document(content: str, title: str) -> str:
    """``content`` as a whole document: Cua wraps a fragment (no ``<html``) in a page; the title is Cua's."""
    if "<html" in content.lower():
        return content
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1.0'>"
        f"<title>{html_lib.escape(title)}</title></head><body>{content}</body></html>"
    )


def prepare_profile(profile: Path) -> None:
    """A fresh profile that uses the window manager's title bar and frame (not Chromium's own)."""
    default = profile / "Default"
    default.mkdir(parents=True, exist_ok=True)
    prefs = {"browser": {"custom_chrome_frame": False}}
    (default / "Preferences").write_text(json.dumps(prefs))
    (profile / "First Run").write_text("")


async def devtools_port(profile: Path, alive: Any, deadline: float) -> int:
    """The port Chromium wrote to ``DevToolsActivePort`` (first line) once it listens."""
    path = profile / "DevToolsActivePort"
    while True:
        try:
            first = path.read_text().splitlines()[0]
            return int(first)
        except (OSError, IndexError, ValueError):
            pass
        if not alive():
            raise JavaScriptError(f"Chromium exited before opening its DevTools port ({profile})")
        if time.monotonic() > deadline:
            raise JavaScriptError(f"Chromium wrote no DevToolsActivePort within the timeout ({profile})")
        await asyncio.sleep(0.02)


def _targets(port: int) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
        targets: list[dict[str, Any]] = json.loads(response.read())
    return targets


async def page_socket(port: int, target: str | None = None) -> str:
    """The WebSocket URL of the window's page target (or of the target with id ``target``)."""
    targets = await asyncio.to_thread(_targets, port)
    if target is not None:
        found = [t for t in targets if t.get("id") == target and t.get("webSocketDebuggerUrl")]
        if not found:
            raise JavaScriptError(f"the frame {target} has no document yet (still loading)")
        return str(found[0]["webSocketDebuggerUrl"])
    pages = [t for t in targets if t.get("type") == "page" and t.get("webSocketDebuggerUrl")]
    if not pages:
        raise JavaScriptError(f"the window's Chromium (DevTools port {port}) has no page")
    return str(pages[0]["webSocketDebuggerUrl"])


class DevTools:
    """One DevTools session on a page target: commands answered in order; the execution contexts the
    page reported kept (``Runtime.enable`` reports every existing one before it answers)."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.contexts: list[dict[str, Any]] = []

    async def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        request_id = next(_IDS)
        await self.socket.send(json.dumps({"id": request_id, "method": method, "params": params or {}}))
        while True:
            message = json.loads(await self.socket.recv())
            if message.get("id") == request_id:
                break
            if message.get("method") == "Runtime.executionContextCreated":
                self.contexts.append(message["params"]["context"])
        if "error" in message:
            error = message["error"].get("message", message["error"])
            if method == "Runtime.evaluate":
                raise JavaScriptError(f"DevTools refused the script: {error}")
            raise JavaScriptError(f"DevTools refused {method}: {error}")
        result: dict[str, Any] = message.get("result", {})
        return result


@contextlib.asynccontextmanager
async def devtools(port: int, target: str | None = None) -> AsyncIterator[DevTools]:
    """A session on the page of the Chromium listening on ``port``, or on its target ``target`` (bound
    the calls with ``asyncio.timeout``)."""
    from websockets.asyncio.client import connect

    url = await page_socket(port, target)
    async with connect(url, max_size=None, open_timeout=10) as socket:
        yield DevTools(socket)


async def frame_context(tools: DevTools, selector: str) -> tuple[str, int | None]:
    """The frame id of the page's iframe ``selector`` and the execution context of its document (its
    main world), or None where the frame is a target of its own (a page of another site, in a
    process of its own)."""
    found = await tools.call("Runtime.evaluate", {"expression": f"document.querySelector({json.dumps(selector)})"})
    element = found.get("result", {})
    if element.get("subtype") != "node":
        raise JavaScriptError(f"the page has no frame {selector}")
    node = (await tools.call("DOM.describeNode", {"objectId": element["objectId"]}))["node"]
    frame_id = node.get("frameId")
    if not frame_id:
        raise JavaScriptError(f"{selector} is not a frame")
    await tools.call("Runtime.enable")
    ids = [
        int(c["id"])
        for c in tools.contexts
        if c.get("auxData", {}).get("frameId") == frame_id and c.get("auxData", {}).get("isDefault")
    ]
    return str(frame_id), max(ids) if ids else None


async def evaluate(port: int, javascript: str, timeout: float = 30.0, *, frame: str | None = None) -> Any:
    """``Runtime.evaluate`` (value returned by value, promises awaited) on the page, or in the document
    of its iframe ``frame`` (a CSS selector); raises ``JavaScriptError`` with the exception's text when
    the script throws."""
    params: dict[str, Any] = {
        "expression": javascript, "returnByValue": True, "awaitPromise": True, "userGesture": True,
    }  # fmt: skip
    async with asyncio.timeout(timeout):
        async with devtools(port) as tools:
            target = None
            if frame is not None:
                target, context = await frame_context(tools, frame)
                if context is not None:
                    params["contextId"], target = context, None
            if target is None:
                result = await tools.call("Runtime.evaluate", params)
        if target is not None:
            async with devtools(port, target) as tools:
                result = await tools.call("Runtime.evaluate", params)
    return _value(result)


def _value(result: dict[str, Any]) -> Any:
    details = result.get("exceptionDetails")
    if details:
        exception = details.get("exception") or {}
        text = exception.get("description") or exception.get("value") or details.get("text", "exception")
        raise JavaScriptError(f"JavaScript threw: {text}")
    value = result.get("result", {})
    if "value" not in value and value.get("type") not in ("undefined", None):
        if value.get("subtype") == "null":
            return None
        # A value that is not JSON (a DOM node, a function): Cua's bridge gives its description.
        return value.get("description")
    return value.get("value")
