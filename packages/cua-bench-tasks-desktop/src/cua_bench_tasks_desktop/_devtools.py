"""Chromium's own account of how each page was reached, over the DevTools protocol on a private pipe.

A task that names a method ("follow its link", "using the address bar") needs evidence of the
method that only the browser has. The server's Referer was not it: ``javascript:location.href=...``
typed into the address bar sends the page's Referer as a click does. DevTools reports, for every
navigation of a tab:

- ``Page.frameRequestedNavigation``'s reason when the page started it (``anchorClick``,
  ``formSubmissionPost``, ``scriptInitiated``, ...); none when the browser did (the address bar);
- ``Network.requestWillBeSent``'s initiator: ``script`` with a stack when a script asked for the
  page, even for ``link.click()`` run from the address bar (whose reason is ``anchorClick``);
- the history entry's ``transitionType`` (``link``, ``typed``, ``form_submit``, ...), which alone
  is not enough: a navigation a ``javascript:`` URL makes is a ``link`` there too.

The protocol runs on ``--remote-debugging-pipe``: Chromium reads commands from fd 3 and writes
replies and events to fd 4, here both one end of a socket pair whose other end only the env server
holds. A ``--remote-debugging-port`` would be open to any program or page on the desktop's
loopback; a socket has no path to open (``/proc/PID/fd`` of a socket cannot be opened), so only a
program with ptrace rights over Chromium itself could reach it, and such a program could rewrite
the browser anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from cua_bench import TaskError

__all__ = ["DevTools", "Navigation"]

Message = dict[str, Any]
# A committed navigation's history entry is looked for over 10 s: on two cores under a full test run
# Chromium took over the 2 s once allowed, the transition stayed unknown and a form the oracle sent
# by hand scored 0 (chromium-select-option test/0, chromium-fill-form on docker).
LOOKUPS, LOOKUP_PAUSE = 200, 0.05


@dataclass
class Navigation:
    """One navigation of a tab's top frame, as Chromium saw it."""

    url: str
    method: str
    post: str | None  # the body Chromium sent (a form's fields, encoded), None for a GET
    source: str | None  # the URL the tab showed when it began (None: a new tab)
    reason: str | None  # why the page navigated (anchorClick, formSubmissionPost, ...); None: the browser did
    initiator: str  # "script" when a script asked for it, "other" for a person's click, Enter or typing
    loader: str  # Chromium's loader id: ties the request to its commit
    transition: str | None = None  # the history entry's transition type, once committed

    def clicked_link(self) -> bool:
        """A link on the page clicked (or Enter on it) by a person, not by a script."""
        return self.reason == "anchorClick" and self.initiator != "script" and self.transition == "link"

    def sent_form(self) -> bool:
        """A form on the page sent by a person (its button, Enter in a field), not by a script."""
        return self.reason == "formSubmissionPost" and self.initiator != "script" and self.transition == "form_submit"

    def typed(self) -> bool:
        """An address typed into the address bar: the browser started it, no page did."""
        return self.reason is None and self.initiator != "script" and self.transition == "typed"


class DevTools:
    """A DevTools client on ``sock`` (the env server's end of Chromium's pipe) that records every tab's
    navigations, and whether DevTools' own window was opened (its console runs scripts, its element
    editor changes pages: either can fake a page's state without touching it as a person would)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._ids = itertools.count(1)
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._replies: dict[int, Future[Message]] = {}
        self._navigations: list[Navigation] = []
        self._pages: set[str] = set()  # the sessions of attached tabs
        self._targets: dict[str, str] = {}  # session -> its tab's target id, which is its top frame's id
        self._showing: dict[str, str] = {}  # session -> the URL its tab shows
        self._committed: dict[str, str] = {}  # session -> the loader of its tab's latest commit
        self._requested: dict[str, tuple[str, str]] = {}  # session -> (url, reason) of the page's pending request
        self._tampering: list[str] = []
        self._lookups = 0  # history lookups under way (see _look_up)
        self._reader = threading.Thread(target=self._read, name="cua-devtools", daemon=True)

    def start(self) -> DevTools:
        self._reader.start()
        # Every tab, present and future, attached paused: its domains are on before it loads.
        self._send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True})
        return self

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()

    async def navigations(self, timeout: float = 60.0) -> list[Navigation]:
        """Every navigation so far, once the events Chromium had sent before this call have arrived.

        Raises ``TaskError`` when Chromium does not settle within ``timeout``: judging on a partial
        account would give a silent 0 to work that was done.
        """

        async def settled() -> None:
            # Chromium answers in order: the browser's answer comes after the tabs it had attached, each
            # tab's after its earlier events and history lookups.
            await asyncio.wrap_future(self._send("Target.getTargets"))
            with self._lock:
                pages = list(self._pages)
            lookups = [asyncio.wrap_future(self._send("Page.getNavigationHistory", session=page)) for page in pages]
            await asyncio.gather(*lookups, return_exceptions=True)
            while self._lookups_under_way():  # the transitions of navigations committed before this call
                await asyncio.sleep(LOOKUP_PAUSE)

        try:
            await asyncio.wait_for(settled(), timeout)
        except TimeoutError as exc:
            raise TaskError(f"Chromium's DevTools account did not settle within {timeout:g} s") from exc
        except (OSError, ConnectionError):
            pass  # Chromium is gone: what it reported before it went is all there is
        with self._lock:
            return [Navigation(**vars(navigation)) for navigation in self._navigations]

    def _lookups_under_way(self) -> bool:
        with self._lock:
            return self._lookups > 0

    def tampering(self) -> list[str]:
        """What was done to the browser besides using its pages (DevTools opened), if anything."""
        with self._lock:
            return list(self._tampering)

    # -- the wire ---------------------------------------------------------------------------------

    def _send(self, method: str, params: Message | None = None, *, session: str | None = None) -> Future[Message]:
        number = next(self._ids)
        reply: Future[Message] = Future()
        message: Message = {"id": number, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        with self._lock:
            self._replies[number] = reply
        try:
            with self._send_lock:
                self._sock.sendall(json.dumps(message).encode() + b"\0")
        except OSError as exc:
            with self._lock:
                self._replies.pop(number, None)
            reply.set_exception(exc)
        return reply

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = self._sock.recv(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                with contextlib.suppress(ValueError):
                    self._receive(json.loads(raw))
        with self._lock:  # Chromium is gone: nobody answers any more
            waiting, self._replies = self._replies, {}
        for reply in waiting.values():
            reply.set_exception(ConnectionError("Chromium closed its DevTools pipe"))

    def _receive(self, message: Message) -> None:
        if "id" in message:
            with self._lock:
                reply = self._replies.pop(message["id"], None)
            if reply is not None:
                reply.set_result(message)
            return
        params, session = message.get("params") or {}, message.get("sessionId")
        handler = _EVENTS.get(message.get("method", ""))
        if handler is not None:
            handler(self, params, session)

    # -- events -----------------------------------------------------------------------------------

    def _attached(self, params: Message, _: str | None) -> None:
        session, target = params["sessionId"], params.get("targetInfo") or {}
        if str(target.get("url", "")).startswith("devtools://"):
            with self._lock:
                self._tampering.append("DevTools was opened")
        if target.get("type") == "page":
            with self._lock:
                self._pages.add(session)
                self._targets[session] = str(target.get("targetId", ""))
                # What the tab shows as it is attached: a tab that committed its page before Chromium read
                # setAutoAttach (the first tab, on a loaded machine) sends no frameNavigated for it, and its
                # next navigation would have no source (CI: a form sent by the site's page scored 0).
                if target.get("url"):
                    self._showing.setdefault(session, str(target["url"]))
            for domain in ("Page.enable", "Network.enable"):
                self._send(domain, session=session)
        self._send("Runtime.runIfWaitingForDebugger", session=session)

    def _detached(self, params: Message, _: str | None) -> None:
        with self._lock:
            self._pages.discard(params.get("sessionId", ""))

    def _requested_navigation(self, params: Message, session: str | None) -> None:
        if session is not None and self._top(params.get("frameId"), session):
            with self._lock:
                self._requested[session] = (params.get("url", ""), params.get("reason", ""))

    def _request(self, params: Message, session: str | None) -> None:
        if session is None or params.get("type") != "Document" or not self._top(params.get("frameId"), session):
            return
        if params.get("redirectResponse") is not None:
            return  # the same navigation, redirected
        request = params.get("request") or {}
        url = str(request.get("url", ""))
        with self._lock:
            asked = self._requested.pop(session, None)
            self._navigations.append(
                Navigation(
                    url=url,
                    method=str(request.get("method", "GET")),
                    post=request.get("postData"),
                    source=self._showing.get(session),
                    reason=asked[1] if asked is not None and asked[0] == url else None,
                    initiator=str((params.get("initiator") or {}).get("type", "other")),
                    loader=str(params.get("loaderId", "")),
                )
            )

    def _navigated(self, params: Message, session: str | None) -> None:
        frame = params.get("frame") or {}
        if session is None or frame.get("parentId"):
            return
        url, loader = str(frame.get("url", "")), str(frame.get("loaderId", ""))
        with self._lock:
            self._showing[session] = url
            self._committed[session] = loader
            self._requested.pop(session, None)
            self._lookups += 1
        self._look_up(session, url, loader, LOOKUPS)

    def _look_up(self, session: str, url: str, loader: str, tries: int) -> None:
        """Read the tab's current history entry for the navigation that committed ``url``: its transition.

        ``frameNavigated`` can come before the browser's history has the entry (or while the tab, between
        two renderers, answers nothing), so a lookup that finds another URL current is tried again a
        moment later, a few times: by then it is there. Once the tab has committed another page, the
        lookup stops (the transition stays unknown): the entry is no longer current, and waiting out
        every try held ``navigations`` up for 10 s.
        """

        def answered(reply: Future[Message]) -> None:
            message: Message = reply.result() if reply.exception() is None else {"error": "Chromium is gone"}
            history = message.get("result") or {}
            entries, index = history.get("entries") or [], history.get("currentIndex", -1)
            if 0 <= index < len(entries) and entries[index].get("url") == url:
                self._record_transition(loader, str(entries[index].get("transitionType", "")))
            elif tries > 1 and reply.exception() is None and not self._superseded(session, loader):
                # also "Not attached to an active page", mid-commit
                threading.Timer(LOOKUP_PAUSE, self._look_up, (session, url, loader, tries - 1)).start()
                return
            with self._lock:
                self._lookups -= 1

        self._send("Page.getNavigationHistory", session=session).add_done_callback(answered)

    def _superseded(self, session: str, loader: str) -> bool:
        with self._lock:
            return self._committed.get(session, loader) != loader

    def _record_transition(self, loader: str, transition: str) -> None:
        with self._lock:
            for navigation in self._navigations:
                if navigation.loader == loader and navigation.transition is None:
                    navigation.transition = transition

    def _top(self, frame: Any, session: str) -> bool:
        """Whether ``frame`` is the tab's top frame: Chromium gives a tab's top frame the tab's target id."""
        with self._lock:
            return isinstance(frame, str) and frame == self._targets.get(session)


_EVENTS: dict[str, Callable[[DevTools, Message, str | None], None]] = {
    "Target.attachedToTarget": DevTools._attached,
    "Target.detachedFromTarget": DevTools._detached,
    "Page.frameRequestedNavigation": DevTools._requested_navigation,
    "Network.requestWillBeSent": DevTools._request,
    "Page.frameNavigated": DevTools._navigated,
}
