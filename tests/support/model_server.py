"""A real OpenAI-compatible HTTP server on loopback that replays recorded answers.

The ``openai`` agent is tested against this over real sockets, not a patched client: retries,
status codes, keep-alive and request bodies are what a vLLM or SGLang server would see.
``answer(request) -> (status, body)`` decides each reply; every request body is kept.
``routes`` adds other POST paths (a server's own APIs, such as vLLM's ``/v1/load_lora_adapter``),
each answered the same way; ``gets`` answers GET paths (``/v1/models``) with a fixed body; any other
path is a 404, as on a server without that API.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


def completion(content: str, prompt_tokens: int = 100, completion_tokens: int = 10) -> dict[str, Any]:
    """A chat-completions reply body carrying ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


def request_text(request: dict[str, Any]) -> str:
    """Every text part of every message, joined: what a replay keys its answers on."""
    parts = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if p.get("type") == "text"]
    return "\n".join(parts)


class ModelServer:
    def __init__(
        self, answer: Answer, routes: dict[str, Answer] | None = None, gets: dict[str, dict[str, Any]] | None = None
    ) -> None:
        self.answer = answer
        self.routes = dict(routes or {})
        self.gets = dict(gets or {})
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with owner.lock:
                    owner.requests.append(body)
                    owner.headers.append(dict(self.headers))
                route = owner.answer if self.path == "/v1/chat/completions" else owner.routes.get(self.path)
                if route is None:
                    status, reply = 404, {"error": {"message": f"no route {self.path}"}}
                else:
                    status, reply = route(body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                reply = owner.gets.get(self.path)
                data = json.dumps(reply if reply is not None else {"error": {"message": "no route"}}).encode()
                self.send_response(200 if reply is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> ModelServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def model_server(
    answer: Answer, routes: dict[str, Answer] | None = None, gets: dict[str, dict[str, Any]] | None = None
) -> Iterator[ModelServer]:
    server = ModelServer(answer, routes, gets).start()
    try:
        yield server
    finally:
        server.close()
