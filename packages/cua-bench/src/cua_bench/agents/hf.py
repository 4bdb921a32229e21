"""The ``hf`` agent: a local transformers vision-language model, generation batched across environments.

    cua-bench run sim --agent hf --model ./Qwen2.5-VL-3B-Instruct --adapter qwen2.5-vl --max-parallel 8

The runner builds one agent per environment; they share one engine per (model, device), whose
thread gathers the prompts that arrive within ``batch_wait_s`` of each other (up to
``max_batch``) and answers them with one ``generate`` call: N environments cost about one forward
pass per step instead of N. Prompts go through the family's own processor and chat template, so
what the model sees is what it was trained on.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cua_bench.agents.model import ModelAgent
from cua_bench.hookspecs import hookimpl
from cua_core import CuaError, Register

if TYPE_CHECKING:
    from cua_bench.agents.base import Agent
    from cua_data import Prompt

__all__ = ["HFAgent", "HFEngine", "engine"]


@dataclass
class HFEngine:
    """One loaded model and its batching thread."""

    path: str
    device: str
    max_batch: int
    batch_wait_s: float
    max_new_tokens: int
    model: Any = None
    processor: Any = None
    requests: queue.Queue[tuple[Prompt, Future[str]]] = field(default_factory=queue.Queue)
    batch_sizes: list[int] = field(default_factory=list)

    def load(self) -> HFEngine:
        try:
            import torch
            from transformers import AutoModelForImageTextToText

            from cua_data import load_processor
        except ImportError as exc:
            raise CuaError(
                "the hf agent needs torch and transformers: "
                f"pip install './packages/cua-bench[hf]' from a clone of cua ({exc})"
            ) from exc
        try:
            self.processor = load_processor(self.path)
            self.model = AutoModelForImageTextToText.from_pretrained(self.path)
        except (OSError, ValueError) as exc:
            raise CuaError(f"--model {self.path!r}: cannot load a transformers vision-language model: {exc}") from exc
        device = self.device if self.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(device).eval()
        self.device = device
        # Left padding: every row of a batch ends where its answer starts.
        self.processor.tokenizer.padding_side = "left"
        threading.Thread(target=self._serve, name=f"hf-engine-{self.path}", daemon=True).start()
        return self

    def submit(self, prompt: Prompt) -> Future[str]:
        future: Future[str] = Future()
        self.requests.put((prompt, future))
        return future

    def _serve(self) -> None:
        while True:
            batch = [self.requests.get()]
            try:
                while len(batch) < self.max_batch:
                    batch.append(self.requests.get(timeout=self.batch_wait_s))
            except queue.Empty:
                pass
            try:
                answers = self.generate([prompt for prompt, _ in batch])
            except Exception as exc:  # each waiting agent gets the error, the engine goes on
                for _, future in batch:
                    future.set_exception(exc)
                continue
            for (_, future), answer in zip(batch, answers, strict=True):
                future.set_result(answer)

    def generate(self, prompts: list[Prompt]) -> list[str]:
        import torch

        self.batch_sizes.append(len(prompts))
        texts = [
            self.processor.apply_chat_template(p.processor_messages(), add_generation_prompt=True, tokenize=False)
            for p in prompts
        ]
        images = [image for p in prompts for image in p.images]
        inputs = self.processor(text=texts, images=images or None, padding=True, return_tensors="pt")
        inputs = inputs.to(self.device)
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False)
        new = out[:, inputs["input_ids"].shape[1] :]
        return [str(t) for t in self.processor.batch_decode(new, skip_special_tokens=True)]


_ENGINES: dict[tuple[str, str, int, float, int], HFEngine] = {}
_ENGINES_LOCK = threading.Lock()


def engine(
    path: str, device: str = "auto", max_batch: int = 8, batch_wait_s: float = 0.02, max_new_tokens: int = 256
) -> HFEngine:
    """The process's engine for this model and settings, loaded on first use."""
    key = (path, device, max_batch, batch_wait_s, max_new_tokens)
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            _ENGINES[key] = HFEngine(path, device, max_batch, batch_wait_s, max_new_tokens).load()
        return _ENGINES[key]


class HFAgent(ModelAgent):
    """A local model (a folder or hub id already in the local cache) with its family's adapter: the
    one given, else the one its trainer recorded (``cua_data.model_folder``)."""

    def __init__(
        self,
        *,
        model: str,
        adapter: str | None = None,
        history: str | None = None,
        device: str = "auto",
        max_batch: int = 8,
        batch_wait_s: float = 0.02,
        max_new_tokens: int = 256,
        adapter_options: dict[str, Any] | None = None,
        adapter_check: int = 8,
    ) -> None:
        # A folder our trainers wrote records how its training prompts were rendered; evaluating it
        # with other ones would score prompts it never saw, so a mismatch is refused, naming both.
        from cua_data import prompt_settings

        try:
            settings = prompt_settings(model, adapter, history, adapter_options)
        except ValueError as exc:
            raise CuaError(str(exc)) from exc
        super().__init__(
            adapter=settings.adapter,
            history=settings.history,
            adapter_options=settings.options,
            adapter_check=adapter_check,
        )
        if max_batch < 1 or batch_wait_s < 0 or max_new_tokens < 1:
            raise CuaError("hf agent: max_batch and max_new_tokens must be >= 1, batch_wait_s >= 0")
        self.engine = engine(model, device, max_batch, batch_wait_s, max_new_tokens)

    def generate(self, prompt: Prompt) -> str:
        return self.engine.submit(prompt).result()


@hookimpl
def cua_bench_register_agents(register: Register[Callable[..., Agent]]) -> None:
    register(
        "hf",
        HFAgent,
        description="a local transformers model, batched across environments: --model PATH [--adapter A, "
        "recorded in folders cua's trainers write]",
    )
