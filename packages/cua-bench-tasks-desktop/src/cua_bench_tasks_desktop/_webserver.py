"""The chromium tasks' loopback web server: it serves the task's pages and keeps every request it receives.

It runs in the env server's own process (a thread), not as a program of the environment, so its
record lives in the env server's memory: no file the desktop's user could overwrite. A page saved
with ctrl+s over a log file once scored every chromium task. In an isolated local environment the
env server is out of the desktop user's reach too: it became that user from root (so the kernel
marks it undumpable) and keeps a capability the user's programs lack, so they can neither ptrace it
nor read its memory or file descriptors. On a shared host the env server runs as the same user as
the desktop, and nothing of the host user's is out of that user's reach; there is still no path to
write.

The server binds 127.0.0.1 (in an isolated environment that is the environment's own loopback,
which its Chromium shares) on a port the kernel picks. Anything on the desktop can still *send* it a
request (a ``data:`` page holding a form, say), so a request alone proves nothing: the evaluator
also reads the Origin and Referer Chromium put on it and Chromium's own account of the navigation
(``_devtools``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["Request", "WebServer", "fields"]

MAX_BODY = 1 << 20
Fields = dict[str, list[str]]


def fields(encoded: str) -> Fields:
    """Form or query fields as the browser encoded them: ``{name: [value, ...]}``, blanks kept."""
    return {key: list(values) for key, values in parse_qs(encoded, keep_blank_values=True).items()}


@dataclass(frozen=True)
class Request:
    """One request as it arrived."""

    method: str
    path: str
    query: Fields
    form: Fields
    referer: str | None  # None for an address typed into the address bar
    origin: str | None  # Chromium sends one with a POST: the page's origin, or "null" from a data: page
    answer: str  # "page" (one of the task's), "received" or "none"


@dataclass
class WebServer:
    """Serves ``pages`` (path -> HTML), and ``received`` at any other path; keeps every request."""

    pages: dict[str, str]
    received: str
    _requests: list[Request] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``."""
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> WebServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="cua-web", daemon=True).start()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def requests(self) -> list[Request]:
        """Every request received so far, in order."""
        with self._lock:
            return list(self._requests)

    def keep(self, request: Request) -> None:
        with self._lock:
            self._requests.append(request)


def _handler(site: WebServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def record(self, form: Fields, answer: str) -> None:
            url = urlsplit(self.path)
            site.keep(
                Request(
                    method=self.command,
                    path=url.path,
                    query=fields(url.query),
                    form=form,
                    referer=self.headers.get("Referer"),
                    origin=self.headers.get("Origin"),
                    answer=answer,
                )
            )

        def send_page(self, html: str) -> None:
            body = html.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path in site.pages:
                self.record({}, "page")
                self.send_page(site.pages[path])
            elif path == "/favicon.ico" or path.startswith("/.well-known/"):
                self.record({}, "none")
                self.send_response(204)
                self.end_headers()
            else:
                self.record({}, "received")
                self.send_page(site.received)

        def do_POST(self) -> None:
            length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
            body = self.rfile.read(length).decode("utf-8", "replace")
            self.record(fields(body), "received")
            self.send_page(site.received)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the record is in memory
            return

    return Handler
