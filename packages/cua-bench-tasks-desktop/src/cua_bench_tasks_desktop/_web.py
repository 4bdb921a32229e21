"""The chromium tasks' plumbing: a loopback site per episode, Chromium on it, and the evidence of what happened.

Two records, both in the env server's memory and neither in a file the desktop's user can write
(a page saved with ctrl+s over the old request log scored every task): what the site received
(``_webserver``: each request with its Origin and Referer) and what Chromium says it did
(``_devtools``: each navigation's reason, initiator and transition, over a pipe only the env
server holds). A request counts only when both agree: anything on the desktop can send the site a
request, but only the task's page, used by hand, makes Chromium report a click or a form sent
from it. Chromium gets a fresh profile in the environment's TMPDIR, so every episode starts alike.
"""

from __future__ import annotations

import base64
import html
import json
import shlex
import socket
import subprocess
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from cua_bench import Session, Task, TaskError
from cua_bench.backend_kit import spawn
from cua_bench_tasks_desktop._common import PATIENCE, Match, act, click_at, env_var, key, no_window, wait_for, window
from cua_bench_tasks_desktop._devtools import DevTools, Navigation
from cua_bench_tasks_desktop._webserver import Fields, Request, WebServer, fields
from cua_core import Action, TypeText, Wait

__all__ = [
    "CHROMIUM_FLAGS",
    "RECEIVED",
    "Site",
    "document",
    "focus_page",
    "forged_form",
    "form_posts",
    "in_address_bar",
    "open_address",
    "received",
    "save_over_the_old_log",
    "send_from_a_data_page",
    "site",
    "start_chromium",
    "start_web",
]

RECEIVED = "Received"
CHROMIUM_FLAGS = (
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--password-store=basic",
    "--disable-features=Translate,AutofillServerCommunication", "--window-position=0,0", "--window-size=1100,760",
    "--force-renderer-accessibility",  # the page's widgets in the accessibility tree (AT-SPI)
    "--remote-debugging-pipe",  # DevTools on fds 3 and 4 (see start_chromium)
)  # fmt: skip
_SCRATCH = "web"
_FORGER = """
import base64, json, sys, urllib.parse, urllib.request
sent = json.loads(base64.b64decode(sys.argv[1]))
for r in sent["requests"]:
    query = urllib.parse.urlencode(r["query"], doseq=True)
    url = sent["base"] + r["path"] + ("?" + query if query else "")
    data = urllib.parse.urlencode(r["form"], doseq=True).encode() if r["method"] == "POST" else None
    headers = {name.title(): r[name] for name in ("referer", "origin") if r[name]}
    request = urllib.request.Request(url, data=data, method=r["method"], headers=headers)
    urllib.request.urlopen(request, timeout=20).read()
"""
_open: list[Site] = []  # this process's sites; an env server runs one episode at a time


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


@dataclass
class Site:
    """One episode's site and browser: what the evaluator reads."""

    server: WebServer
    browser: DevTools | None = None
    chromium: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return self.server.base

    def on_site(self, url: str | None) -> bool:
        """Whether ``url`` is a page of this site (not a ``data:`` page, nor another port)."""
        return url is not None and (url == self.base or url.startswith(self.base + "/"))

    def requests(self) -> list[Request]:
        return self.server.requests()

    async def navigations(self) -> list[Navigation]:
        if self.browser is None:
            raise TaskError("the site's Chromium was not started (start_chromium in setup)")
        return await self.browser.navigations()

    def tampering(self) -> list[str]:
        return self.browser.tampering() if self.browser is not None else []

    # -- a reward channel (cua_bench.adversary.Channel): its record forged from a shell ------------

    def recorded(self) -> list[Any]:
        return [{"base": self.base, **vars(request)} for request in self.requests() if request.answer != "none"]

    def forge(self, recorded: list[Any]) -> list[str]:
        """One ``python3`` run as the desktop's user that sends each request again to this episode's
        site, with the Referer and Origin Chromium had put on it (any program can set them)."""
        moved = [
            {
                **r,
                **{h: r[h].replace(r["base"], self.base, 1) if r[h] else r[h] for h in ("referer", "origin")},
            }
            for r in recorded
        ]
        payload = base64.b64encode(json.dumps({"base": self.base, "requests": moved}).encode()).decode()
        return [f"python3 -I -c {shlex.quote(_FORGER)} {payload}"]

    def close(self) -> None:
        self.server.close()
        if self.browser is not None:
            self.browser.close()


def site(task: Task) -> Site:
    """The episode's site, which setup started."""
    found = task.scratch.get(_SCRATCH)
    if not isinstance(found, Site):
        raise TaskError("setup started no site (start_web)")
    return found


async def start_web(task: Task, pages: dict[str, str]) -> str:
    """Serve ``pages`` (path -> HTML) on 127.0.0.1 for this episode; returns the base URL (``http://127.0.0.1:PORT``).

    The last episode's site is closed first (its Chromium died with reset's apps).
    """
    while _open:
        _open.pop().close()
    server = WebServer(pages, document(RECEIVED, "<h1>Received</h1><p>Thank you.</p>")).start()
    task.scratch[_SCRATCH] = found = Site(server)
    _open.append(found)
    return found.base


async def start_chromium(task: Task, session: Session, url: str, title: Match) -> None:
    """Chromium on ``url`` with a fresh profile and DevTools on a private pipe, once the page's title shows.

    The env server starts it itself, as the session starts apps (the environment's variables, home
    and marker, so reset kills it), because only a child of this process can inherit the pipe:
    bash puts the socket on fds 3 and 4, where ``--remote-debugging-pipe`` looks for it.
    """
    env, home = getattr(session, "env", None), getattr(session, "home", None)
    if not isinstance(env, dict) or home is None:
        raise TaskError("the chromium tasks run on the local backend's desktop (the env server starts Chromium)")
    found = site(task)
    ours, theirs = socket.socketpair()
    fd = theirs.fileno()
    profile = f"{await env_var(session, 'TMPDIR')}/chromium-profile"
    argv = ["/bin/bash", "-c", f'exec "$@" 3<&{fd} 4>&{fd} {fd}<&-', "chromium", "chromium", *CHROMIUM_FLAGS]
    try:
        found.chromium = spawn([*argv, f"--user-data-dir={profile}", url], env, cwd=home, pass_fds=[fd])
    finally:
        theirs.close()
    found.browser = DevTools(ours).start()
    shown = await window(session, title, timeout=60)
    activate = getattr(session, "activate", None)  # the local session's, as its launch() does for its apps
    if activate is not None:
        await activate(shown["id"])  # the keyboard goes to the new window
    await session.settle()


async def received(task: Task, timeout: float = PATIENCE) -> None:
    """Oracle move: wait until the site has answered a request with its Received page (a form sent, a
    link followed) and Chromium has recorded the navigation whole. The records are the evidence, not
    the tab's title "Received": the page sets its title in an animation frame, and 5 of ~520 sweep
    episodes under a load of 15 never saw it."""
    found = site(task)

    async def answered() -> bool:
        paths = {r.path for r in found.requests() if r.answer == "received"}
        return any(urlsplit(n.url).path in paths and n.transition for n in await found.navigations())

    await wait_for(answered, "the page's server to receive the request", timeout)


async def focus_page(session: Session) -> None:
    """Oracle move: click a blank spot of the page (right of its content, below the bars) so that the
    keyboard goes to the page and Tab starts from its top, wherever Chromium had put the focus."""
    browser = await window(session, lambda title: title.endswith(" - Chromium"))
    await act(session, click_at(session, browser["bounds"], -120, -120))


async def form_posts(task: Task, path: str) -> list[Fields | None]:
    """One entry per POST to ``path`` the site received: its form fields when the site's own page sent
    it, used by hand, else None (a form on a ``data:`` page, a script, a request from outside Chromium).

    "Sent by the page" takes both records: the request came with the site's Origin and a Referer on
    the site, and Chromium reports a form submission from a page of the site, not by a script, with
    the same fields; each report vouches for one request. DevTools opened at any time voids them all.
    """
    found = site(task)
    reports = [
        n
        for n in await found.navigations()
        if n.method == "POST" and n.sent_form() and found.on_site(n.source)
        if urlsplit(n.url).path == path and found.on_site(n.url)
    ]
    sent: list[Fields | None] = []
    for request in found.requests():
        if request.method != "POST" or request.path != path:
            continue
        report = next((n for n in reports if fields(n.post or "") == request.form), None)
        honest = request.origin == found.base and found.on_site(request.referer) and not found.tampering()
        if report is not None and honest:
            reports.remove(report)
            sent.append(request.form)
        else:
            sent.append(None)
    return sent


# --- the hands of wrong ways ------------------------------------------------------------------

FORMER_LOG = "cua-web/requests.jsonl"
"""Where, under TMPDIR, the site's requests were logged until a page saved over the log scored every task."""
FORGED = "Forged"


async def open_address(session: Session, url: str, shows: Match, tries: int = 3) -> None:
    """Type ``url`` into the address bar (ctrl+l selects what is there) and press Enter, until the window's
    title ``shows`` it: again (after Escape) when it has not in 20 s. The address bar takes the focus
    asynchronously, and on a loaded machine a try's keys went elsewhere (CI: a chromium-select-option wrong
    way waited 60 s for its ``data:`` page), as ``in_address_bar`` found for the site's pages."""
    for attempt in range(tries):
        if attempt:
            await act(session, key("escape"))
        await act(session, key("ctrl+l"))
        await act(session, TypeText(url), Wait(0.2), key("enter"))
        try:
            await window(session, shows, timeout=20)
            return
        except TaskError:
            if attempt == tries - 1:
                raise


async def in_address_bar(task: Task, session: Session, *moves: Action, tries: int = 3) -> None:
    """ctrl+l, then ``moves`` in the address bar (typing and Enter), until the site has answered a request:
    again (after Escape, for whatever the last try left there) when it has heard nothing in 20 s. The
    address bar takes the focus asynchronously, and on a loaded machine a try's keys went elsewhere
    (CI: 1 of ~3,300 tests each time, in chromium-open-url's oracle and then a chromium-click-link wrong way)."""
    for attempt in range(tries):
        if attempt:
            await act(session, key("escape"))
        await act(session, key("ctrl+l"))
        await act(session, *moves)
        try:
            await received(task, timeout=20)
            return
        except TaskError:
            if attempt == tries - 1:
                raise


async def save_over_the_old_log(session: Session, entries: list[dict[str, Any]]) -> None:
    """The attack that scored all five tasks 1.0 while the site logged to a file: a ``data:text/plain``
    page holding forged log lines, saved with ctrl+s over the log. The record is in the env server's
    memory now, so the dialog finds no such folder, and the attacker gives up (Escape)."""
    lines = "".join(json.dumps(entry) + "\n" for entry in entries)
    await open_address(session, "data:text/plain," + quote(lines), lambda title: title.startswith("data:text/plain,"))
    for _ in range(3):  # a key pressed while the page is still taking the focus can go nowhere
        await act(session, key("ctrl+s"))
        try:
            await window(session, "Save File", timeout=5)
            break
        except TaskError:
            continue
    target = f"{await env_var(session, 'TMPDIR')}/{FORMER_LOG}"
    # The file chooser drops Enter while it completes the typed path; its Save button (alt+s) does not.
    await act(session, key("ctrl+a"), TypeText(target), Wait(0.5), key("alt+s"))
    for _ in range(3):
        try:
            await no_window(session, "Save File", timeout=5)
            return
        except TaskError:
            await act(session, key("escape"))
    await no_window(session, "Save File")


def forged_form(action: str, values: dict[str, list[str]]) -> str:
    """A page (for ``send_from_a_data_page``) whose form posts ``values`` to ``action``; Enter in its
    one (nameless) field sends it."""
    hidden = "".join(
        f"<input type=hidden name='{html.escape(name)}' value='{html.escape(value)}'>"
        for name, listed in values.items()
        for value in listed
    )
    return f"<form method=post action='{html.escape(action)}'>{hidden}<input autofocus><button>Send</button></form>"


async def send_from_a_data_page(task: Task, session: Session, body: str) -> None:
    """A forged request that reaches the site: a ``data:text/html`` page with ``body`` typed into the
    address bar, whose focused element (a form's field, a link with ``autofocus``) Enter sends. Its
    request looks like the real one to the site; the browser knows which page it came from."""
    await open_address(session, "data:text/html," + quote(f"<title>{FORGED}</title>{body}"), f"{FORGED} - Chromium")
    await act(session, Wait(0.5), key("enter"))
    await received(task)
