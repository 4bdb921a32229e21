"""The ``openai`` agent: any OpenAI-compatible chat-completions server (vLLM, SGLang, llama.cpp, ...).

    cua-bench run sim --agent openai --model Qwen/Qwen3-VL-8B-Instruct --adapter qwen3-vl \\
        --base-url http://127.0.0.1:8000/v1

The stdlib's ``http.client`` with one kept-alive connection per agent: no SDK to install, and
nothing between us and the server that could retry or rewrite behind our back. Retries are ours:
connection errors, 408/409/429 and 5xx are retried with exponential backoff (honouring
Retry-After) up to ``max_retries``; any other status is a failure of the run's settings (wrong
model name, bad key) and raises at once, so the episode errors instead of scoring a silent 0.
The API key is read from the environment variable ``api_key_env`` names, never from a flag.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import threading
import time
import urllib.parse
from typing import TYPE_CHECKING, Any

from cua_bench.agents.model import ModelAgent
from cua_bench.hookspecs import hookimpl
from cua_core.errors import CuaError
from cua_core.plugins import Register

if TYPE_CHECKING:
    from collections.abc import Callable

    from PIL import Image

    from cua_bench.agents.base import Agent
    from cua_data.adapters import Prompt

__all__ = ["ModelServerError", "OpenAIAgent"]

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
# One limit per server, shared by every agent of the run that talks to it (one per environment).
_LIMITS: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()


class ModelServerError(CuaError):
    """The model server refused or kept failing; the message carries its status and words."""


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
    ) -> None:
        super().__init__(
            adapter=adapter,
            history=history,
            adapter_options=adapter_options,
            acknowledge_safety_checks=acknowledge_safety_checks,
        )
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise CuaError(f"--base-url {base_url!r}: expected http(s)://HOST[:PORT]/v1")
        if concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise CuaError("openai agent: concurrency must be >= 1, max_retries >= 0 and timeout > 0")
        if image_format.lower() not in ("png", "jpeg"):
            raise CuaError(f"openai agent: image_format must be png or jpeg, got {image_format!r}")
        self.model = model
        self.url = url
        self.path = url.path.rstrip("/") + "/chat/completions"
        self.api_key = os.environ.get(api_key_env, "")
        self.max_tokens, self.temperature, self.timeout = max_tokens, temperature, timeout
        self.max_retries, self.backoff = max_retries, backoff
        self.limit = _limit(base_url, concurrency)
        self.image_format = image_format.upper()
        self.connection: http.client.HTTPConnection | None = None
        self.encoded: dict[int, tuple[Image.Image, dict[str, Any]]] = {}  # id(image) -> its part
        self.counters.update({"prompt_tokens": 0, "completion_tokens": 0, "retries": 0})

    def reset(self, task: Any) -> None:
        super().reset(task)
        self.encoded = {}

    # -- the request ----------------------------------------------------------------------------

    def _encode(self, image: Image.Image) -> dict[str, Any]:
        """Each screenshot is encoded once per episode, however many prompts show it again."""
        kept = self.encoded.get(id(image))
        if kept is not None and kept[0] is image:
            return kept[1]
        from cua_data.adapters import data_url  # not at import: env servers load this module too

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
        usage = reply.get("usage") or {}
        self.counters["prompt_tokens"] += usage.get("prompt_tokens") or 0
        self.counters["completion_tokens"] += usage.get("completion_tokens") or 0
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
        if self.connection is None:
            cls = http.client.HTTPSConnection if self.url.scheme == "https" else http.client.HTTPConnection
            self.connection = cls(self.url.hostname or "", self.url.port, timeout=self.timeout)
        return self.connection

    def _post(self, body: bytes) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        where = f"{self.url.scheme}://{self.url.netloc}{self.path}"
        for attempt in range(self.max_retries + 1):
            wait = self.backoff * 2**attempt * (0.5 + random.random())
            try:
                connection = self._connect()
                connection.request("POST", self.path, body, headers)
                response = connection.getresponse()
                data = response.read()
            except (TimeoutError, OSError, http.client.HTTPException) as exc:
                self.close()
                problem = f"{type(exc).__name__}: {exc}"
            else:
                if response.status == 200:
                    try:
                        return dict(json.loads(data))
                    except ValueError:
                        raise ModelServerError(f"{where} answered 200 with no JSON: {data[:200]!r}") from None
                problem = f"HTTP {response.status}: {data[:300].decode(errors='replace')}"
                if response.status not in _RETRY_STATUS:
                    raise ModelServerError(f"{where} refused the request ({problem}); check --model and the API key")
                retry_after = response.getheader("Retry-After")
                if retry_after and retry_after.replace(".", "", 1).isdigit():
                    wait = max(wait, float(retry_after))
            if attempt == self.max_retries:
                break
            self.counters["retries"] += 1
            time.sleep(wait)
        raise ModelServerError(f"{where}: no answer after {self.max_retries + 1} attempts (last: {problem})")

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
