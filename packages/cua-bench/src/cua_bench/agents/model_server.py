"""An OpenAI-compatible model server as a run sees it: one probe before anything starts, and a breaker after.

A dead ``--base-url`` used to be found episode by episode, each after its retries: minutes of
backoff to learn what one request could say. ``probe`` asks once, before any computer starts
(``GET {base}/models``, or a one-token chat request where a server has no ``/models``), and turns
each way of failing into one line naming the URL and the fix. ``Breaker`` covers the server that
dies mid-run: every agent of a run shares one (``Agent.shared``), and once the server is known down
(``after`` calls in a row failed after all their retries, or any 401/403) the agents raise
``ServerDown``, which stops the whole run rather than erroring the remaining episodes one by one.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import urllib.parse
from typing import Any

from cua_bench.agents.base import StopRun
from cua_core import CuaError

__all__ = ["Breaker", "ModelServerError", "ServerDown", "connection_problem", "key_problem", "probe"]

PROBE_TIMEOUT = 10.0  # seconds; a refused connection or an unknown host answers at once anyway


class ModelServerError(CuaError):
    """The model server refused or kept failing; the message carries its status and words."""


class ServerDown(ModelServerError, StopRun):
    """The model server is known down (or refuses the key): no episode can go on, so the run stops."""


def connection_problem(exc: BaseException, url: urllib.parse.SplitResult, timeout: float) -> str:
    """Why a request never got an answer, in words a user can act on."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused: nothing listens there (start the server, or fix --base-url)"
    if isinstance(exc, socket.gaierror):
        return f"the host name {url.hostname!r} does not resolve (DNS): fix --base-url"
    if isinstance(exc, TimeoutError | socket.timeout):
        return f"no answer within {timeout:g} s: check the host and port in --base-url, and that the server is up"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc}): a server without TLS wants http://, not https://"
    return f"{type(exc).__name__}: {exc}"


def key_problem(status: int, body: str, has_key: bool, key_env: str) -> str:
    """A 401/403, with what to do about the key."""
    if has_key:
        fix = f"the key in ${key_env} is wrong or lacks access: fix it"
    else:
        fix = f"no API key was sent: export {key_env}=KEY (or name another variable: --agent-option api_key_env=NAME)"
    return f"HTTP {status} ({body[:160].strip()}): {fix}"


class Breaker:
    """Whether the run's model server is known down, counted across every agent of the run.

    ``after`` calls in a row that failed after all their retries (connection errors, timeouts, 5xx)
    trip it; a 401/403 trips it at once. A call that succeeds closes it again, so a process that
    outlives a restart of the server (a trainer's sampler) is not stuck with it. ``down`` wakes the
    agents waiting out a retry's backoff, so they stop at once rather than finishing their retries.
    """

    def __init__(self, after: int = 1) -> None:
        self.after = after
        self.failures = 0
        self.down = threading.Event()
        self.reason = ""
        self.lock = threading.Lock()

    def ok(self) -> None:
        with self.lock:
            self.failures = 0
            self.down.clear()

    def failed(self, reason: str) -> bool:
        """One call failed after its retries; True once that makes the server known down."""
        with self.lock:
            self.failures += 1
            if self.failures >= self.after:
                self.trip(reason)
            return self.down.is_set()

    def trip(self, reason: str) -> None:
        self.reason = reason
        self.down.set()


def _request(
    url: urllib.parse.SplitResult, method: str, path: str, body: bytes | None, headers: dict[str, str]
) -> tuple[int, str]:
    import http.client  # here: every env server registers the model agents, and never calls a model

    cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    connection = cls(url.hostname or "", url.port, timeout=PROBE_TIMEOUT)
    try:
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


def _served(text: str) -> list[str]:
    try:
        data: Any = json.loads(text)
        return [str(item["id"]) for item in data["data"] if isinstance(item, dict) and "id" in item]
    except (ValueError, KeyError, TypeError):
        return []


def _names_model(text: str, model: str) -> bool:
    """Whether an error body is about the model name (vLLM: 404 "The model `x` does not exist.")."""
    named = any(f"{quote}{model}{quote}" in text for quote in "`'\"") or model in text.split()
    return bool(model) and named and "model" in text.lower()


def probe(url: urllib.parse.SplitResult, *, model: str, api_key: str, key_env: str) -> list[str]:
    """Check once that ``url`` is an OpenAI-compatible server that serves ``model``; the models it
    lists (empty when it lists none). Raises ``ModelServerError`` with one line naming the fix."""
    import http.client

    base = url.path.rstrip("/")
    where = f"{url.scheme}://{url.netloc}{base}"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        status, text = _request(url, "GET", f"{base}/models", None, headers)
        if status == 200:
            served = _served(text)
            if served and model not in served:
                raise ModelServerError(
                    f"--model {model!r} is not served at {where}; it serves: {', '.join(served[:20])} "
                    "(pass one of them to --model)"
                )
            return served
        if status in (401, 403):
            raise ModelServerError(
                f"model server {where} refused the request: " + key_problem(status, text, bool(api_key), key_env)
            )
        if status >= 500:
            raise ModelServerError(
                f"model server {where} answered GET /models with HTTP {status} ({text[:160].strip()}): "
                "it is up but not ready; wait for it to load the model, or check its log"
            )
        # No /models here (404, 405): one token of a chat request says whether the API is.
        body = {"model": model, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 1}
        headers = {**headers, "Content-Type": "application/json"}
        status, text = _request(url, "POST", f"{base}/chat/completions", json.dumps(body).encode(), headers)
    except (TimeoutError, OSError, http.client.HTTPException) as exc:
        raise ModelServerError(
            f"cannot reach the model server at {where}: {connection_problem(exc, url, PROBE_TIMEOUT)}"
        ) from None
    if status in (401, 403):
        raise ModelServerError(
            f"model server {where} refused the request: " + key_problem(status, text, bool(api_key), key_env)
        )
    if status >= 500:
        raise ModelServerError(f"model server {where} answered HTTP {status} ({text[:160].strip()}): check its log")
    if _names_model(text, model) and status != 200:
        raise ModelServerError(f"--model {model!r} is not served at {where}: HTTP {status} ({text[:160].strip()})")
    if status == 404:
        hint = "" if base.endswith("/v1") else f"; most servers serve under /v1: --base-url {where}/v1"
        raise ModelServerError(
            f"no OpenAI-compatible API at {where}: GET {base}/models and POST {base}/chat/completions "
            f"are both 404{hint}"
        )
    # 200, or a 4xx about the request itself (a model that wants an image, say): the API is there.
    return []
