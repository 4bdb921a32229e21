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
import html as html_lib
import itertools
import json
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_bench.html_windows import JavaScriptError

__all__ = [
    "CHROME_INSET",
    "CHROMIUM",
    "FLAGS",
    "HtmlWindow",
    "devtools_port",
    "evaluate",
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


async def page_socket(port: int) -> str:
    """The WebSocket URL of the window's page target."""
    targets = await asyncio.to_thread(_targets, port)
    pages = [t for t in targets if t.get("type") == "page" and t.get("webSocketDebuggerUrl")]
    if not pages:
        raise JavaScriptError(f"the window's Chromium (DevTools port {port}) has no page")
    return str(pages[0]["webSocketDebuggerUrl"])


async def evaluate(port: int, javascript: str, timeout: float = 30.0) -> Any:
    """``Runtime.evaluate`` (value returned by value, promises awaited) on the page; raises
    ``JavaScriptError`` with the exception's text when the script throws."""
    from websockets.asyncio.client import connect

    url = await page_socket(port)
    request_id = next(_IDS)
    params = {"expression": javascript, "returnByValue": True, "awaitPromise": True, "userGesture": True}
    async with asyncio.timeout(timeout), connect(url, max_size=None, open_timeout=10) as socket:
        await socket.send(json.dumps({"id": request_id, "method": "Runtime.evaluate", "params": params}))
        while True:
            message = json.loads(await socket.recv())
            if message.get("id") == request_id:
                break
    if "error" in message:
        raise JavaScriptError(f"DevTools refused the script: {message['error'].get('message', message['error'])}")
    result = message["result"]
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
