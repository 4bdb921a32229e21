"""The chromium tasks' evidence, without a desktop: what Chromium's DevTools events make of each way of
reaching a page, and which POSTs the site's record vouches for.

The events are the shapes Chromium 156 sent for each case on the local desktop (a link clicked,
``javascript:location.href=...`` and ``javascript:document.links[i].click()`` typed into the address
bar, an address typed, a form sent from a ``data:`` page); a fake Chromium on the other end of the
pipe replays them and answers history lookups, so the parsing and the judgement are pinned here and
the desktop tests (``test_tasks_apps.py``) play the same attacks for real.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from cua_bench.tasks import Task
from cua_bench_tasks_desktop._devtools import DevTools, Navigation
from cua_bench_tasks_desktop._web import Site, form_posts
from cua_bench_tasks_desktop._webserver import WebServer

TAB, SESSION = "TAB0", "S0"
BASE = "http://127.0.0.1:4000"


class FakeChromium:
    """The browser's end of the pipe: sends events, answers ``Page.getNavigationHistory`` from ``history``."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.history: list[tuple[str, str]] = []  # (url, transition) per entry; the last is current
        self.stale_answers = 0  # how many lookups still get the entry before the last (the commit lags)
        self.lock = threading.Lock()
        threading.Thread(target=self.serve, daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.sock.sendall(json.dumps(message).encode() + b"\0")

    def event(self, method: str, params: dict[str, Any], session: str | None = SESSION) -> None:
        self.send({"method": method, "params": params, **({"sessionId": session} if session else {})})

    def serve(self) -> None:
        buffer = b""
        while chunk := self.sock.recv(65536):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                command = json.loads(raw)
                result: dict[str, Any] = {}
                if command["method"] == "Page.getNavigationHistory":
                    entries = [{"id": i, "url": u, "transitionType": t} for i, (u, t) in enumerate(self.history)]
                    current = len(entries) - 1
                    if self.stale_answers > 0:
                        self.stale_answers -= 1
                        current -= 1
                    result = {"currentIndex": current, "entries": entries}
                self.send({"id": command["id"], "result": result, "sessionId": command.get("sessionId")})

    # -- what a tab does ---------------------------------------------------------------------------

    def open_tab(self, url: str) -> None:
        target = {"targetId": TAB, "type": "page", "url": url}
        self.event("Target.attachedToTarget", {"sessionId": SESSION, "targetInfo": target}, session=None)
        self.commit(url, "L0", "auto_toplevel")

    def navigate(
        self, url: str, *, reason: str | None, initiator: str, transition: str, post: str | None = None
    ) -> None:
        """One navigation of the tab's top frame, as Chromium reports it: requested by the page (a
        ``reason``) or not, its request, then its commit."""
        loader = f"L{len(self.history)}"
        if reason is not None:
            self.event("Page.frameRequestedNavigation", {"frameId": TAB, "reason": reason, "url": url})
        request = {"url": url, "method": "POST" if post is not None else "GET", **({"postData": post} if post else {})}
        initiated: dict[str, Any] = {"type": initiator}
        if initiator == "script":
            initiated["stack"] = {"callFrames": [{"functionName": "", "url": "", "lineNumber": 0}]}
        self.event(
            "Network.requestWillBeSent",
            {"type": "Document", "frameId": TAB, "loaderId": loader, "request": request, "initiator": initiated},
        )
        self.commit(url, loader, transition)

    def commit(self, url: str, loader: str, transition: str) -> None:
        self.history.append((url, transition))
        self.event("Page.frameNavigated", {"frame": {"id": TAB, "loaderId": loader, "url": url}})


@pytest.fixture
def chromium() -> Iterator[tuple[FakeChromium, DevTools]]:
    ours, theirs = socket.socketpair()
    fake = FakeChromium(theirs)
    tools = DevTools(ours).start()
    fake.open_tab(f"{BASE}/")
    yield fake, tools
    tools.close()
    theirs.close()


def navigations(tools: DevTools) -> list[Navigation]:
    return asyncio.run(tools.navigations(timeout=5))


ARTICLE = f"{BASE}/articles/2-bright-river"


def test_a_link_clicked_by_hand_is_a_click(chromium: tuple[FakeChromium, DevTools]) -> None:
    fake, tools = chromium
    fake.navigate(ARTICLE, reason="anchorClick", initiator="other", transition="link")
    [seen] = navigations(tools)
    assert (seen.url, seen.source, seen.reason, seen.transition) == (ARTICLE, f"{BASE}/", "anchorClick", "link")
    assert seen.clicked_link() and not seen.typed()


def test_a_tab_that_committed_before_it_was_attached_is_the_source_of_its_next_navigation() -> None:
    # Under load Chromium's first tab can load its page before it reads setAutoAttach: it is attached
    # showing the page, with no frameNavigated for it (CI: a form sent by the page scored 0).
    ours, theirs = socket.socketpair()
    fake = FakeChromium(theirs)
    tools = DevTools(ours).start()
    try:
        fake.history.append((f"{BASE}/", "typed"))
        target = {"targetId": TAB, "type": "page", "url": f"{BASE}/"}
        fake.event("Target.attachedToTarget", {"sessionId": SESSION, "targetInfo": target}, session=None)
        fake.navigate(
            f"{BASE}/submit", reason="formSubmissionPost", initiator="other", transition="form_submit", post="a=1"
        )
        [seen] = navigations(tools)
        assert (seen.source, seen.method, seen.post) == (f"{BASE}/", "POST", "a=1")
        assert seen.sent_form()
    finally:
        tools.close()
        theirs.close()


def test_javascript_in_the_address_bar_is_no_click(chromium: tuple[FakeChromium, DevTools]) -> None:
    fake, tools = chromium
    # javascript:location.href='...': the history entry is a "link" as a click's is; the reason is not.
    fake.navigate(ARTICLE, reason="scriptInitiated", initiator="script", transition="link")
    navigations(tools)
    # javascript:document.links[1].click(): reason anchorClick, but a script asked for the page.
    fake.navigate(ARTICLE, reason="anchorClick", initiator="script", transition="link")
    seen = navigations(tools)
    assert [n.transition for n in seen] == ["link", "link"]
    assert not any(n.clicked_link() for n in seen)


def test_a_typed_address_is_typed(chromium: tuple[FakeChromium, DevTools]) -> None:
    fake, tools = chromium
    fake.navigate(f"{BASE}/notes/2024?q=x", reason=None, initiator="other", transition="typed")
    navigations(tools)  # committed before the next one starts, as a person's are
    fake.navigate(f"{BASE}/notes/2024?q=x", reason="anchorClick", initiator="other", transition="link")
    assert [n.typed() for n in navigations(tools)] == [True, False]


def test_a_transition_is_found_when_the_history_lags_the_commit(chromium: tuple[FakeChromium, DevTools]) -> None:
    fake, tools = chromium
    fake.stale_answers = 3  # the first lookups still find the news page current
    fake.navigate(ARTICLE, reason="anchorClick", initiator="other", transition="link")
    assert [n.transition for n in navigations(tools)] == ["link"]


def test_a_page_left_before_its_history_entry_was_read_does_not_hold_the_account_up(
    chromium: tuple[FakeChromium, DevTools],
) -> None:
    # CI, on a loaded machine: the lookup for a page the tab had already left kept trying for 10 s, and
    # navigations() gave up at its 5 s. Now it stops once another page has committed.
    fake, tools = chromium
    fake.stale_answers = 10**6  # every lookup finds the page before: the commit lags
    fake.navigate(ARTICLE, reason="anchorClick", initiator="other", transition="link")
    fake.navigate(f"{BASE}/about", reason="anchorClick", initiator="other", transition="link")
    time.sleep(0.5)
    fake.stale_answers = 0
    article, about = navigations(tools)
    # The article's lookup may have caught its entry just as the next commit made it stale; or not.
    assert article.url == ARTICLE and article.transition in (None, "link")
    assert (about.url, about.transition) == (f"{BASE}/about", "link")


def test_frames_inside_the_page_and_redirects_are_not_navigations(chromium: tuple[FakeChromium, DevTools]) -> None:
    fake, tools = chromium
    fake.event(
        "Network.requestWillBeSent",
        {"type": "Document", "frameId": "IFRAME", "loaderId": "X", "request": {"url": ARTICLE, "method": "GET"}},
    )
    fake.event(
        "Network.requestWillBeSent",
        {"type": "Script", "frameId": TAB, "loaderId": "Y", "request": {"url": f"{BASE}/a.js", "method": "GET"}},
    )
    assert navigations(tools) == []


def test_devtools_opened_is_tampering(chromium: tuple[FakeChromium, DevTools]) -> None:
    fake, tools = chromium
    assert tools.tampering() == []
    target = {"targetId": "DT", "type": "other", "url": "devtools://devtools/bundled/devtools_app.html"}
    fake.event("Target.attachedToTarget", {"sessionId": "S1", "targetInfo": target}, session=None)
    navigations(tools)  # the event has arrived once the tab has answered
    assert tools.tampering() == ["DevTools was opened"]


# --- which POSTs the site's record vouches for ----------------------------------------------------


class Browser:
    """Chromium's account, as ``Site`` reads it."""

    def __init__(self, reports: list[Navigation], tampering: list[str] | None = None) -> None:
        self.reports, self.tampered = reports, tampering or []

    async def navigations(self) -> list[Navigation]:
        return self.reports

    def tampering(self) -> list[str]:
        return self.tampered


FORM = "name=Ada+Lovelace&city=Quito"
FIELDS = {"name": ["Ada Lovelace"], "city": ["Quito"]}


def post(base: str, body: str, headers: dict[str, str]) -> None:
    request = urllib.request.Request(f"{base}/submit", data=body.encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        response.read()


def sent_form(base: str, source: str, *, initiator: str = "other", body: str = FORM) -> Navigation:
    return Navigation(f"{base}/submit", "POST", body, source, "formSubmissionPost", initiator, "L1", "form_submit")


def judged(requests: list[dict[str, str]], reports: list[Navigation], tampering: list[str] | None = None) -> list[Any]:
    """What ``form_posts`` makes of ``requests`` (headers of each POST sent to a live site) and ``reports``
    (given the site's base: a function of it)."""
    server = WebServer({"/": "<p>form</p>"}, "<p>received</p>").start()
    try:
        task = Task(description="fill the form")
        task.scratch["web"] = Site(server, Browser([], tampering))  # type: ignore[arg-type]
        for headers in requests:
            post(server.base, FORM, {k: v.replace("BASE", server.base) for k, v in headers.items()})
        task.scratch["web"].browser.reports = [
            Navigation(
                **{
                    **vars(n),
                    "url": n.url.replace("BASE", server.base),
                    "source": (n.source or "").replace("BASE", server.base),
                }
            )
            for n in reports
        ]
        return asyncio.run(form_posts(task, "/submit"))
    finally:
        server.close()


HONEST = {"Origin": "BASE", "Referer": "BASE/"}


def test_a_form_sent_by_the_page_counts() -> None:
    assert judged([HONEST], [sent_form("BASE", "BASE/")]) == [FIELDS]


def test_a_form_on_a_data_page_does_not() -> None:
    # Chromium sends Origin "null" and no Referer from a data: page, and reports it as the source.
    assert judged([{"Origin": "null"}], [sent_form("BASE", "data:text/html,<form>")]) == [None]


def test_a_request_from_outside_chromium_does_not() -> None:
    # The right headers, forged: Chromium never sent it.
    assert judged([HONEST], []) == [None]


def test_a_form_sent_by_a_script_does_not() -> None:
    assert judged([HONEST], [sent_form("BASE", "BASE/", initiator="script")]) == [None]


def test_each_report_vouches_for_one_request() -> None:
    assert judged([HONEST, HONEST], [sent_form("BASE", "BASE/")]) == [FIELDS, None]


def test_other_fields_than_chromium_sent_do_not() -> None:
    assert judged([HONEST], [sent_form("BASE", "BASE/", body="name=Grace")]) == [None]


def test_nothing_counts_once_devtools_was_opened() -> None:
    assert judged([HONEST], [sent_form("BASE", "BASE/")], ["DevTools was opened"]) == [None]


# --- the site as a reward channel: the adversary's forged-request --------------------------------


def test_the_sites_record_is_forged_whole_into_the_next_episodes_site() -> None:
    from cua_bench.adversary import Channel, channels

    first = WebServer({"/": "<p>form</p>"}, "<p>received</p>").start()
    second = WebServer({"/": "<p>form</p>"}, "<p>received</p>").start()
    try:
        oracle, forged = Task(description="fill the form"), Task(description="fill the form")
        oracle.scratch["web"], forged.scratch["web"] = Site(first), Site(second)
        assert isinstance(oracle.scratch["web"], Channel) and list(channels(forged)) == ["web"]
        post(first.base, FORM, {"Origin": first.base, "Referer": f"{first.base}/"})
        recorded = oracle.scratch["web"].recorded()
        for command in forged.scratch["web"].forge(recorded):  # as the desktop's user would run it
            subprocess.run(command, shell=True, check=True, timeout=60)
        [request] = second.requests()
        assert (request.method, request.path, request.form) == ("POST", "/submit", FIELDS)
        assert (request.origin, request.referer) == (second.base, f"{second.base}/")  # moved to this episode's site
    finally:
        first.close()
        second.close()
