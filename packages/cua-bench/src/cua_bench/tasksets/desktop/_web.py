"""The chromium tasks' plumbing: a loopback server per episode, and Chromium with the flags that work offline.

Setup starts ``_webserver.py`` as a program of the environment (reset kills it with the apps) on a
port the kernel picks; the evaluator reads the requests it recorded, i.e. what the browser really
sent, including each request's Referer: a page reached by following a link names the page the link
was on, one typed into the address bar names none. Chromium gets a fresh profile in the
environment's TMPDIR, so every episode starts alike.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

from cua_bench.session import Session
from cua_bench.tasks import TaskError
from cua_bench.tasksets.desktop._common import Match, act, click_at, env_var, shell, start, wait_for, window

__all__ = [
    "CHROMIUM_FLAGS",
    "RECEIVED",
    "document",
    "focus_page",
    "posts",
    "received",
    "start_chromium",
    "start_web",
    "web_requests",
]

SERVER = Path(__file__).with_name("_webserver.py")
FOLDER = "cua-web"  # under the environment's TMPDIR
RECEIVED = "Received"
CHROMIUM_FLAGS = (
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--password-store=basic",
    "--disable-features=Translate,AutofillServerCommunication", "--window-position=0,0", "--window-size=1100,760",
    "--force-renderer-accessibility",  # the page's widgets in the accessibility tree (AT-SPI)
)  # fmt: skip


def document(title: str, body: str) -> str:
    """A plain page titled ``title`` (any text) with ``body`` (HTML).

    The page is titled "Loading" until it has loaded, its ``autofocus`` field has the focus and a
    frame has been drawn (Chromium drops keys that come before the first frame), so setup, waiting
    for the real title, hands over a page that is ready for the keyboard.
    """
    ready = (
        "addEventListener('load',()=>{const f=document.querySelector('[autofocus]');if(f)f.focus();"
        f"requestAnimationFrame(()=>requestAnimationFrame(()=>{{document.title={json.dumps(title)};}}));}})"
    ).replace("</", "<\\/")
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Loading</title>"
        "<style>body{font-family:sans-serif;font-size:18px;margin:24px} input,select,textarea,button"
        "{font-size:18px;margin:4px 0} label{display:block;margin:8px 0}</style>"
        f"<script>{ready}</script></head><body>{body}</body></html>"
    )


async def start_web(session: Session, pages: dict[str, str]) -> str:
    """Serve ``pages`` (path -> HTML) on 127.0.0.1; returns the base URL (``http://127.0.0.1:PORT``)."""
    spec = {"pages": pages, "received": document(RECEIVED, "<h1>Received</h1><p>Thank you.</p>")}
    encoded = base64.b64encode(json.dumps(spec).encode()).decode()
    folder = f"$TMPDIR/{FOLDER}"
    command = (
        f'rm -rf "{folder}" && mkdir -p "{folder}" || exit 1\n'
        f'nohup {shell(sys.executable)} {shell(str(SERVER))} --spec {encoded} --folder "{folder}" '
        f'>"{folder}/server.log" 2>&1 &'
    )
    result = await session.run_command(command, timeout=10)
    if result.returncode != 0:
        raise TaskError(f"the task's web server did not start: {result.stderr.strip()}")

    async def port() -> str | None:
        found = await session.run_command(f'cat "{folder}/port" 2>/dev/null', timeout=5)
        return found.stdout.strip() or None

    return f"http://127.0.0.1:{await wait_for(port, 'the web server to listen', timeout=15)}"


async def web_requests(session: Session) -> list[dict[str, Any]]:
    """Every request the server received, in order (empty when it never started)."""
    result = await session.run_command(f'cat "$TMPDIR/{FOLDER}/requests.jsonl" 2>/dev/null', timeout=10)
    requests = []
    for line in result.stdout.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            requests.append(entry)
    return requests


async def posts(session: Session, path: str) -> list[dict[str, list[str]]]:
    """The form fields of every POST to ``path``."""
    return [
        r.get("form") or {} for r in await web_requests(session) if r.get("method") == "POST" and r.get("path") == path
    ]


async def received(session: Session) -> None:
    """Oracle move: wait until the server has answered a request with its Received page (a form sent,
    a link followed). The server's record is the evidence, not the tab's title "Received": the page
    sets its title in an animation frame, and 5 of ~520 sweep episodes under a load of 15 never saw it."""

    async def answered() -> bool:
        return any(entry.get("answer") == "received" for entry in await web_requests(session))

    await wait_for(answered, "the page's server to receive the request")


async def focus_page(session: Session) -> None:
    """Oracle move: click a blank spot of the page (right of its content, below the bars) so that the
    keyboard goes to the page and Tab starts from its top, wherever Chromium had put the focus."""
    browser = await window(session, lambda title: title.endswith(" - Chromium"))
    await act(session, click_at(session, browser["bounds"], -120, -120))


async def start_chromium(session: Session, url: str, title: Match) -> str:
    """Chromium on ``url`` with a fresh profile, once the page's title shows."""
    profile = f"{await env_var(session, 'TMPDIR')}/chromium-profile"
    return await start(session, "chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}", url, title=title, timeout=60)
