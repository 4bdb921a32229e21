"""The ``openai`` agent: any OpenAI-compatible chat-completions server (vLLM, SGLang, llama.cpp, ...).

    cua-bench run sim --agent openai --model Qwen/Qwen3-VL-8B-Instruct --adapter qwen3-vl \\
        --base-url http://127.0.0.1:8000/v1

The stdlib's ``http.client`` with one kept-alive connection per agent: no SDK to install, and
nothing between us and the server that could retry or rewrite behind our back. Retries are ours:
connection errors, 408/409/429 and 5xx are retried with exponential backoff (honouring
Retry-After) up to ``max_retries``; any other status is a failure of the run's settings (wrong
model name, bad key) and raises at once, so the episode errors instead of scoring a silent 0.
The API key is read from the environment variable ``api_key_env`` names, never from a flag.

Before a run, ``preflight`` probes the server once (``model_server.probe``); during it, the agents
share a ``Breaker``: a call that still fails after its retries (``breaker_after`` of them in a row),
or any 401/403, means the server is down, and the run stops (``ServerDown``) instead of erroring
each remaining episode after its own retries.
"""

from __future__ import annotations

import json
import os
import random
import threading
import urllib.parse
from typing import TYPE_CHECKING, Any

from cua_bench.agents.model import ModelAgent
from cua_bench.agents.model_server import Breaker, ModelServerError, ServerDown, connection_problem, key_problem, probe
from cua_bench.hookspecs import hookimpl
from cua_core import CuaError, Register

if TYPE_CHECKING:
    import http.client
    from collections.abc import Callable

    from PIL import Image

    from cua_bench.agents.base import Agent
    from cua_data import Prompt

__all__ = ["ModelServerError", "OpenAIAgent"]

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
# One limit per server, shared by every agent of the run that talks to it (one per environment).
_LIMITS: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()


def _limit(base_url: str, concurrency: int) -> threading.BoundedSemaphore:
    with _LIMITS_LOCK:
        return _LIMITS.setdefault((base_url, concurrency), threading.BoundedSemaphore(concurrency))


class OpenAIAgent(ModelAgent):
    """A model behind ``POST {base_url}/chat/completions``, paired with the adapter of its family."""

    def __init__(
        self,
        *,
        model: str,
        adapter: str,
        base_url: str = "http://127.0.0.1:8000/v1",
        api_key_env: str = "OPENAI_API_KEY",
        history: str = "full",
        max_tokens: int = 1024,
        temperature: float = 0.0,
        timeout: float = 120.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        concurrency: int = 8,
        image_format: str = "png",
        adapter_options: dict[str, Any] | None = None,
        acknowledge_safety_checks: bool = False,
        adapter_check: int = 8,
        breaker_after: int = 1,
    ) -> None:
        super().__init__(
            adapter=adapter,
            history=history,
            adapter_options=adapter_options,
            acknowledge_safety_checks=acknowledge_safety_checks,
            adapter_check=adapter_check,
        )
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise CuaError(f"--base-url {base_url!r}: expected http(s)://HOST[:PORT]/v1")
        if concurrency < 1 or max_retries < 0 or timeout <= 0 or breaker_after < 1:
            raise CuaError("openai agent: concurrency and breaker_after must be >= 1, max_retries >= 0 and timeout > 0")
        if image_format.lower() not in ("png", "jpeg"):
            raise CuaError(f"openai agent: image_format must be png or jpeg, got {image_format!r}")
        self.model = model
        self.url = url
        self.path = url.path.rstrip("/") + "/chat/completions"
        self.api_key_env = api_key_env
        self.api_key = os.environ.get(api_key_env, "")
        self.breaker_after = breaker_after
        self.max_tokens, self.temperature, self.timeout = max_tokens, temperature, timeout
        self.max_retries, self.backoff = max_retries, backoff
        self.limit = _limit(base_url, concurrency)
        self.image_format = image_format.upper()
        self.connection: http.client.HTTPConnection | None = None
        self.encoded: dict[int, tuple[Image.Image, dict[str, Any]]] = {}  # id(image) -> its part
        self.counters.update({"prompt_tokens": 0, "completion_tokens": 0, "retries": 0, "calls_without_usage": 0})

    @property
    def where(self) -> str:
        return f"{self.url.scheme}://{self.url.netloc}{self.url.path.rstrip('/')}"

    def preflight(self) -> None:
        probe(self.url, model=self.model, api_key=self.api_key, key_env=self.api_key_env)

    def notes(self) -> list[str]:
        found = []
        if not self.api_key:
            found.append(f"no API key: ${self.api_key_env} is not set, so no Authorization header was sent")
        if not self.url.path.rstrip("/").endswith("/v1"):
            found.append(f"--base-url {self.where} has no /v1 path: accepted, but most servers serve under /v1")
        missing, calls = self.counters["calls_without_usage"], self.counters["model_calls"]
        if missing:
            which = "its answers" if missing == calls else "some of its answers"
            found.append(f"usage not reported: the model server sent no token counts with {which} (not counted as 0)")
        return found

    def usage(self) -> dict[str, float]:
        """Token counts only where the server reported some: an absent count is not 0 tokens."""
        counters = dict(self.counters)
        if counters["model_calls"] - counters["calls_without_usage"] <= 0:
            del counters["prompt_tokens"], counters["completion_tokens"]
        return counters

    def reset(self, task: Any) -> None:
        super().reset(task)
        self.encoded = {}

    # -- the request ----------------------------------------------------------------------------

    def _encode(self, image: Image.Image) -> dict[str, Any]:
        """Each screenshot is encoded once per episode, however many prompts show it again."""
        kept = self.encoded.get(id(image))
        if kept is not None and kept[0] is image:
            return kept[1]
        from cua_data import data_url  # not at import: env servers load this module too

        part = {"type": "image_url", "image_url": {"url": data_url(image, self.image_format)}}
        self.encoded[id(image)] = (image, part)
        return part

    def request_body(self, prompt: Prompt) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": prompt.with_images(self._encode),
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        }

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """One chat-completions request with this agent's retries, key and concurrency limit: the reply's JSON."""
        with self.limit:
            return self._post(json.dumps(body).encode())

    def generate(self, prompt: Prompt) -> str | dict[str, Any]:
        reply = self.complete(self.request_body(prompt))
        usage = reply.get("usage")
        if isinstance(usage, dict) and usage:
            self.reply_usage = usage
            self.counters["prompt_tokens"] += usage.get("prompt_tokens") or 0
            self.counters["completion_tokens"] += usage.get("completion_tokens") or 0
        else:  # not reported: never counted as 0 tokens (the summary says so)
            self.counters["calls_without_usage"] += 1
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise ModelServerError(f"model server answered without choices[0].message: {str(reply)[:300]}") from None
        if message.get("tool_calls"):
            # A server with a tool parser (vLLM --tool-call-parser) hands calls back structured; the
            # adapter reads them as the family's own JSON.
            return {"content": message.get("content"), "tool_calls": message["tool_calls"]}
        return str(message.get("content") or "")

    def _connect(self) -> http.client.HTTPConnection:
        # http.client is imported here, not at the top: every env server registers this agent (a built-in
        # plugin) and never calls a model; http.client with the email parser would cost each ~0.5 MiB.
        import http.client

        if self.connection is None:
            cls = http.client.HTTPSConnection if self.url.scheme == "https" else http.client.HTTPConnection
            self.connection = cls(self.url.hostname or "", self.url.port, timeout=self.timeout)
        return self.connection

    def _post(self, body: bytes) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        where = f"{self.url.scheme}://{self.url.netloc}{self.path}"
        import http.client

        breaker = self.shared(f"breaker {self.where}", lambda: Breaker(self.breaker_after))
        for attempt in range(self.max_retries + 1):
            wait = self.backoff * 2**attempt * (0.5 + random.random())
            try:
                connection = self._connect()
                connection.request("POST", self.path, body, headers)
                response = connection.getresponse()
                data = response.read()
            except (TimeoutError, OSError, http.client.HTTPException) as exc:
                self.close()
                problem = connection_problem(exc, self.url, self.timeout)
            else:
                if response.status == 200:
                    breaker.ok()
                    try:
                        return dict(json.loads(data))
                    except ValueError:
                        raise ModelServerError(f"{where} answered 200 with no JSON: {data[:200]!r}") from None
                text = data[:300].decode(errors="replace")
                if response.status in (401, 403):
                    reason = key_problem(response.status, text, bool(self.api_key), self.api_key_env)
                    breaker.trip(reason)
                    raise ServerDown(f"the model server {self.where} refused the request: {reason}")
                problem = f"HTTP {response.status}: {text}"
                if response.status not in _RETRY_STATUS:
                    raise ModelServerError(f"{where} refused the request ({problem}); check --model and the API key")
                retry_after = response.getheader("Retry-After")
                if retry_after and retry_after.replace(".", "", 1).isdigit():
                    wait = max(wait, float(retry_after))
            if attempt == self.max_retries:
                break
            self.counters["retries"] += 1
            if breaker.down.wait(wait):  # another agent found the server down: stop waiting on it
                raise ServerDown(f"the model server {self.where} went down: {breaker.reason}")
        attempts = self.max_retries + 1
        reason = f"no answer after {attempts} attempt{'s' if attempts > 1 else ''} (last: {problem})"
        if breaker.failed(reason):
            raise ServerDown(f"the model server {self.where} went down: {breaker.reason}")
        raise ModelServerError(f"{where}: {reason}")

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


@hookimpl
def cua_bench_register_agents(register: Register[Callable[..., Agent]]) -> None:
    register(
        "openai",
        OpenAIAgent,
        description="an OpenAI-compatible chat server (vLLM, SGLang, ...): --model M --adapter A --base-url URL",
    )
