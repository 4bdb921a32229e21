"""The loopback web server the chromium tasks start: it serves the task's pages and records every request.

Run by a task's setup as a program of the environment (so reset kills it with the other apps):

    python _webserver.py --spec BASE64_JSON --folder DIR

``spec`` is ``{"pages": {path: html}, "received": html}``. The server binds 127.0.0.1 on a port
the kernel picks, writes it to ``DIR/port`` once it listens, and appends one JSON line per request
(method, path, query, form fields and the Referer header) to ``DIR/requests.jsonl``, which the
evaluator reads: what the browser really sent, not what a page claims. Standard library only: it runs under any Python.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

MAX_BODY = 1 << 20


def fields(encoded: str) -> dict[str, list[str]]:
    return {key: list(values) for key, values in parse_qs(encoded, keep_blank_values=True).items()}


def make_handler(spec: dict[str, Any], log: Path) -> type[BaseHTTPRequestHandler]:
    pages: dict[str, str] = spec["pages"]
    received: str = spec.get("received", "<!doctype html><title>Received</title><p>Received.</p>")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def record(self, form: dict[str, list[str]], answer: str) -> None:
            url = urlsplit(self.path)
            entry = {
                "method": self.command,
                "path": url.path,
                "query": fields(url.query),
                "form": form,
                "referer": self.headers.get("Referer"),  # None for an address typed in the address bar
                "answer": answer,  # "page" (one of the task's), "received" or "none"
            }
            with lock, log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")

        def send_page(self, status: int, html: str) -> None:
            body = html.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path in pages:
                self.record({}, "page")
                self.send_page(200, pages[path])
            elif path == "/favicon.ico":
                self.record({}, "none")
                self.send_response(204)
                self.end_headers()
            else:
                self.record({}, "received")
                self.send_page(200, received)

        def do_POST(self) -> None:
            length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
            body = self.rfile.read(length).decode("utf-8", "replace")
            self.record(fields(body), "received")
            self.send_page(200, received)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the log file is the record
            return

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, help="base64 of the JSON spec")
    parser.add_argument("--folder", required=True, type=Path)
    args = parser.parse_args()
    spec = json.loads(base64.b64decode(args.spec))
    args.folder.mkdir(parents=True, exist_ok=True)
    log = args.folder / "requests.jsonl"
    log.touch()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(spec, log))
    partial = args.folder / "port.partial"
    partial.write_text(str(server.server_address[1]))
    os.replace(partial, args.folder / "port")  # whole or absent: setup never reads half a number
    server.serve_forever()


if __name__ == "__main__":
    main()
