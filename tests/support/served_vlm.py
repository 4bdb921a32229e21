"""The tiny Qwen2.5-VL served as vLLM and SGLang serve a model: what server-backed rollouts are tested against.

Chat completions sample with the request's temperature and top-p (images arrive as data URLs, as a
client sends them) and answer with vLLM's extensions: ``choices[0].token_ids`` and
``prompt_token_ids`` (``return_token_ids``), ``"token_id:N"`` tokens (``return_tokens_as_token_ids``),
and one log-probability per sampled token. Those are the processed ones (after temperature and top-p:
vLLM's ``--logprobs-mode processed_logprobs``), taken from transformers' own warped scores, not from
the code under test; ``logprobs_mode="raw"`` gives vLLM's default instead. The faults a real server
can have are options: no token ids, a chat template with a system prompt, loads that load nothing. ``/v1/load_lora_adapter``
loads a peft adapter under ``lora_name`` (vLLM: ask for it as the ``model``);
``/update_weights_from_disk`` replaces the base weights (SGLang). ``GET /v1/models`` lists ``base``.
"""

from __future__ import annotations

import base64
import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch

from support.model_server import ModelServer, completion, model_server

__all__ = ["ServedTinyModel", "served_tiny_model"]


def _decode(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """Chat messages for the processor's template, and the images their data URLs hold."""
    from PIL import Image

    out, images = [], []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        parts = []
        for part in content:
            if part.get("type") == "image_url":
                data = part["image_url"]["url"].split(",", 1)[1]
                images.append(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))
                parts.append({"type": "image"})
            else:
                parts.append(part)
        out.append({**message, "content": parts})
    return out, images


class ServedTinyModel:
    def __init__(
        self,
        folder: Path,
        *,
        old_vllm: bool = False,
        logprobs_mode: str = "processed",
        token_ids: str = "both",
        system: str | None = None,
        ignore_loads: bool = False,
    ) -> None:
        from transformers import AutoModelForImageTextToText

        from cua_data.adapters.sft import load_processor

        self.folder, self.old_vllm = folder, old_vllm
        self.logprobs_mode, self.token_ids, self.system = logprobs_mode, token_ids, system
        self.ignore_loads = ignore_loads  # answers 200 to a load and keeps serving the base weights
        self.load = AutoModelForImageTextToText.from_pretrained
        self.processor = load_processor(folder)
        self.models: dict[str, Any] = {"base": self.load(folder).eval()}
        self.weight_version: str | None = None
        self.lock = threading.Lock()
        self.calls = 0

    def routes(self) -> dict[str, Any]:
        return {
            "/v1/load_lora_adapter": self.load_lora,
            "/v1/unload_lora_adapter": self.unload_lora,
            "/update_weights_from_disk": self.from_disk,
        }

    def gets(self) -> dict[str, dict[str, Any]]:
        return {"/v1/models": {"object": "list", "data": [{"id": "base", "object": "model"}]}}

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        from transformers import GenerationConfig

        with self.lock:
            model = self.models.get(body["model"])
            if model is None:
                return 404, {"object": "error", "message": f"The model `{body['model']}` does not exist."}
            messages, images = _decode(body["messages"])
            if self.system is not None:  # a server whose chat template adds a system prompt
                messages = [{"role": "system", "content": self.system}, *messages]
            text = self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            inputs = self.processor(text=[text], images=images or None, return_tensors="pt")
            temperature = float(body.get("temperature", 1.0))
            greedy = temperature == 0
            tokenizer = self.processor.tokenizer
            eos = [int(tokenizer.convert_tokens_to_ids("<|im_end|>"))]
            config = GenerationConfig(
                do_sample=not greedy,
                temperature=None if greedy else temperature,
                top_p=None if greedy else float(body.get("top_p", 1.0)),
                top_k=None if greedy else 0,
                sequence_bias={(int(t),): float(b) for t, b in (body.get("logit_bias") or {}).items()} or None,
                max_new_tokens=int(body.get("max_tokens") or 16),
                eos_token_id=eos,
                pad_token_id=int(tokenizer.pad_token_id),
                output_scores=True,
                output_logits=True,
                return_dict_in_generate=True,
            )
            self.calls += 1
            torch.manual_seed(self.calls)
            with torch.no_grad():
                out = model.generate(**inputs, generation_config=config)
            start = int(inputs["input_ids"].shape[1])
            tokens = [int(t) for t in out.sequences[0, start:]]
            ended = next((i + 1 for i, t in enumerate(tokens) if t in eos), None)
            tokens = tokens[: ended or len(tokens)]
            warped = out.scores if self.logprobs_mode == "processed" else out.logits
            logp = torch.log_softmax(torch.stack(warped, dim=1)[0].float(), dim=-1)
        content = []
        for i, token in enumerate(tokens):
            top = torch.topk(logp[i], int(body.get("top_logprobs") or 0) or 1)
            content.append(
                {
                    "token": f"token_id:{token}"
                    if body.get("return_tokens_as_token_ids") and self.token_ids != "none"
                    else tokenizer.decode([token]),
                    "logprob": float(logp[i, token]),
                    "top_logprobs": [
                        {"token": int(t), "logprob": float(v)} for v, t in zip(top.values, top.indices, strict=True)
                    ],
                }
            )
        reply = completion(tokenizer.decode(tokens, skip_special_tokens=True), start, len(tokens))
        choice = reply["choices"][0]
        choice["finish_reason"] = "stop" if ended else "length"
        choice["logprobs"] = {"content": content}
        if body.get("return_token_ids") and self.token_ids == "both":
            choice["token_ids"] = tokens
            reply["prompt_token_ids"] = [int(t) for t in inputs["input_ids"][0]]
        return 200, reply

    def load_lora(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        from peft import PeftModel

        name = body["lora_name"]
        with self.lock:
            if name in self.models and (self.old_vllm or not body.get("load_inplace")):
                return 400, {"object": "error", "message": f"The lora adapter '{name}' has already been loaded."}
            if self.ignore_loads:
                self.models[name] = self.models["base"]
            else:
                self.models[name] = PeftModel.from_pretrained(self.load(self.folder), body["lora_path"]).eval()
        return 200, {}

    def unload_lora(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.models.pop(body["lora_name"], None)
        return 200, {}

    def from_disk(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.models["base"] = self.load(body["model_path"]).eval()
            self.weight_version = body.get("weight_version")
        return 200, {"success": True, "message": "Succeeded to update model weights."}


@contextmanager
def served_tiny_model(folder: Path, **options: Any) -> Iterator[tuple[ModelServer, ServedTinyModel]]:
    """The tiny model behind a real HTTP server on loopback."""
    model = ServedTinyModel(folder, **options)
    with model_server(model.chat, model.routes(), model.gets()) as server:
        yield server, model
