"""Rollouts sampled by an OpenAI-compatible server (vLLM, SGLang); the update scored in process.

``QwenVLPolicy(model=PATH, server=URL)`` renders each turn's prompt as it does in process, sends it as
chat messages (screenshots as PNG, lossless, so the server sees the pixels the trainer scores) and
reads back the sampled token ids. The rollout copy then scores those tokens itself, under the weights
the server was given (verl's recomputed old log-probabilities): the importance ratio is exact in the
trainer's numerics whatever precision the server samples at. Each published version is saved under
``publish_dir/v{version}`` and loaded by the server (``ServerPublisher``: vLLM's runtime LoRA API or
SGLang's ``update_weights_from_disk``); later requests ask for it by name.

What the server must do, and what is asked of it:

- return token ids: vLLM's ``return_token_ids`` (``choices[0].token_ids`` and ``prompt_token_ids``)
  or ``return_tokens_as_token_ids`` (each logprob's token as ``"token_id:N"``), with ``logprobs``;
- sample with the policy's settings and nothing else: every request sets temperature, top-p, no
  top-k, no min-p and no penalties, because vLLM otherwise fills them from the checkpoint's
  ``generation_config.json`` (Qwen2.5-VL's sets top-k 1 and a repetition penalty).

Checked on the first sampled reply of each published version, and refused with the reason: the
prompt token ids the server returns (where it returns them) equal the processor's here, and the
server's log-probabilities of that answer sit within ``tolerance`` (mean absolute nats a token) of
this process's. Another chat template or image budget, weights the server never loaded, or its
log-probabilities before temperature and top-p (vLLM's default ``--logprobs-mode raw_logprobs``;
use ``processed_logprobs``) each fail there, instead of training on samples from another policy.
"""

from __future__ import annotations

import json
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cua_core import CuaError

if TYPE_CHECKING:
    from cua_bench import OpenAIAgent
    from cua_bench_rl import Policy
    from cua_data import Prompt

__all__ = ["Sampled", "ServedSampler"]


@dataclass
class Sampled:
    """One answer as the server sampled it."""

    tokens: list[int]
    logprobs: list[float]
    truncated: bool
    prompt_ids: list[int] | None  # the prompt as the server tokenized it, where it says


def _token_id(entry: dict[str, Any]) -> int:
    token = str(entry.get("token", ""))
    if not token.startswith("token_id:"):
        raise CuaError(
            f"the server's logprobs name tokens as text ({token!r}), not ids: the trainer needs the ids it sampled. "
            "Use a server that honours return_token_ids or return_tokens_as_token_ids (vLLM 0.5 or newer)"
        )
    return int(token.removeprefix("token_id:"))


def parse_reply(reply: dict[str, Any]) -> Sampled:
    """The sampled token ids and log-probabilities of a chat-completions reply, or why there are none."""
    try:
        choice = reply["choices"][0]
    except (KeyError, IndexError, TypeError):
        raise CuaError(f"the server answered without choices[0]: {str(reply)[:300]}") from None
    content = (choice.get("logprobs") or {}).get("content")
    if not isinstance(content, list):
        raise CuaError("the server answered without logprobs.content: it must support logprobs (vLLM, SGLang do)")
    logprobs = [float(entry["logprob"]) for entry in content]
    ids = choice.get("token_ids")
    tokens = [int(t) for t in ids] if isinstance(ids, list) else [_token_id(entry) for entry in content]
    if len(tokens) != len(logprobs):
        raise CuaError(f"the server returned {len(tokens)} token ids but {len(logprobs)} logprobs")
    prompt = reply.get("prompt_token_ids") or choice.get("prompt_token_ids")
    return Sampled(
        tokens, logprobs, choice.get("finish_reason") == "length", [int(t) for t in prompt] if prompt else None
    )


def served_models(base_url: str, timeout: float = 30.0) -> list[str]:
    """The model names ``GET {base_url}/models`` lists."""
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as response:
            listed = json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise CuaError(
            f"server={base_url!r}: cannot list its models ({exc}); is an OpenAI-compatible server running there?"
        ) from exc
    return [str(entry["id"]) for entry in listed.get("data", []) if "id" in entry]


class ServedSampler:
    """The server a policy samples through, and the versions published to it.

    One per server: a copy of the policy (the rollout side, a KL reference) shares it, so whichever
    copy publishes, every copy then asks for the version now served.
    """

    def __init__(
        self,
        base_url: str,
        *,
        adapter: str,
        model: str | None = None,
        publish_dir: str | None = None,
        concurrency: int = 8,
        timeout: float = 600.0,
        tolerance: float = 0.1,
    ) -> None:
        from cua_trainer_grpo.publish import ServerPublisher

        self.base_url = base_url.rstrip("/")
        listed = served_models(self.base_url)
        if model is None:
            if not listed:
                raise CuaError(f"server={base_url!r} lists no model; name one with served_model=NAME")
            model = listed[0]
        elif model not in listed:
            raise CuaError(f"served_model={model!r}: the server at {base_url} serves {listed}, not that")
        self.base_model = self.model = model
        folder = Path(publish_dir) if publish_dir else Path(tempfile.mkdtemp(prefix="cua-served-"))
        self.publisher = ServerPublisher(self.base_url, folder, version=-1)
        self.adapter, self.concurrency, self.timeout, self.tolerance = adapter, concurrency, timeout, tolerance
        self.checked = False  # the first sampled reply is checked against in-process scoring
        self._local = threading.local()  # one kept-alive connection per pool thread
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="served")

    def __deepcopy__(self, memo: dict[int, Any]) -> ServedSampler:
        return self  # one server: copies of the policy share it

    def _client(self) -> OpenAIAgent:
        client = getattr(self._local, "client", None)
        if client is None:
            from cua_bench import OpenAIAgent

            client = OpenAIAgent(
                model=self.model, adapter=self.adapter, base_url=self.base_url, timeout=self.timeout,
                concurrency=self.concurrency,
            )  # fmt: skip
            self._local.client = client
        return client

    def request(
        self, prompt: Prompt, *, temperature: float, top_p: float, max_tokens: int, banned: Sequence[int] = ()
    ) -> dict[str, Any]:
        """The request body: the prompt, and every sampling setting stated, so nothing comes from the checkpoint.
        ``banned`` tokens get OpenAI's strongest logit bias (-100: a probability below 1e-40)."""
        return {
            "model": self.model,
            "messages": prompt.openai_messages("PNG"),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": top_p if temperature > 0 else 1.0,
            "top_k": -1,
            "min_p": 0.0,
            "repetition_penalty": 1.0,
            "presence_penalty": 0.0,
            "frequency_penalty": 0.0,
            "logit_bias": {str(token): -100 for token in banned},
            "n": 1,
            "logprobs": True,
            "return_token_ids": True,
            "return_tokens_as_token_ids": True,
        }

    def sample(
        self,
        prompts: Sequence[Prompt],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
        banned: Sequence[int] = (),
    ) -> list[Sampled]:
        """One answer per prompt, sent at once (the server batches them)."""
        bodies = [
            self.request(p, temperature=temperature, top_p=top_p, max_tokens=max_tokens, banned=banned) for p in prompts
        ]
        replies = list(self._pool.map(lambda body: self._client().complete(body), bodies))
        return [parse_reply(reply) for reply in replies]

    def check(self, answer: Sampled, prompt_ids: list[int] | None, scored: list[float] | None, **about: Any) -> None:
        """Refuse a server that sampled from another prompt (``prompt_ids``: the processor's here) or another
        distribution (``scored``: this process's log-probabilities of the answer; None for a greedy one, whose
        server log-probabilities are not of a sampling distribution). ``about``: version, checkpoint and
        sampling, for the message. Marks the version checked once a sampled answer passed."""
        if prompt_ids is not None and answer.prompt_ids is not None and prompt_ids != answer.prompt_ids:
            theirs = answer.prompt_ids
            at = next(
                (i for i, (a, b) in enumerate(zip(prompt_ids, theirs, strict=False)) if a != b),
                min(len(prompt_ids), len(theirs)),
            )
            raise CuaError(
                f"the server at {self.base_url} tokenized the prompt differently from {about['checkpoint']}'s "
                f"processor ({len(theirs)} tokens against {len(prompt_ids)}, first difference at token {at}): "
                "training would score another prompt than the one sampled from. Serve the same checkpoint folder "
                "(its chat template and preprocessor_config.json) as the policy's model"
            )
        if scored is None or not answer.tokens:
            return
        gap = sum(abs(a - b) for a, b in zip(scored, answer.logprobs, strict=True)) / len(scored)
        if not gap <= self.tolerance:
            raise CuaError(
                f"the server's log-probabilities of its first answer of version {about['version']} sit {gap:.3f} "
                f"nats a token from this process's scoring of the same tokens (tolerance {self.tolerance}): it "
                "does not sample from the distribution trained on. Check that it serves the policy's checkpoint "
                f"and loads the published weights; at {about['sampling']} start vLLM with --logprobs-mode "
                "processed_logprobs; or raise logprob_tolerance if the gap is the server's precision"
            )
        self.checked = True

    def publish(self, policy: Policy, version: int) -> None:
        """Save ``policy``'s weights as ``version`` and have the server serve them; ask for them from now on."""
        self.publisher.publish(policy, version)
        saved = self.publisher.folder / f"v{self.publisher.version}"
        self.model = self.publisher.model_name if (saved / "adapter_config.json").is_file() else self.base_model
