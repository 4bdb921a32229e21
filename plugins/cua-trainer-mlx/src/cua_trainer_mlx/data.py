"""SFT examples as token ids for a text-only model: the adapter's prompt with its screenshots left out.

mlx-lm has no vision tower, so the MLX trainer sees the text of what the agent renders (system
prompt, instruction, past actions) and the target, through the tokenizer's own chat template, and
learns the target from that text alone. The loss covers the target and the end-of-turn token after
it, as :func:`cua_data.adapters.sft.collate` places it for the VLM trainers; the prompt, the
template's text after the turn and the padding carry none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cua_bench_rl import Example
from cua_core import CuaError

__all__ = ["Encoded", "batch", "encode", "text_messages"]


@dataclass(frozen=True)
class Encoded:
    """One example's token ids; ids[start:stop] are the target and its end-of-turn token."""

    ids: list[int]
    start: int
    stop: int


def text_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The messages with image parts dropped and text parts joined (as Qwen's template joins them)."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"
            )
        out.append({"role": message["role"], "content": content or ""})
    return out


def encode(example: Example, tokenizer: Any, *, max_length: int | None = None) -> Encoded:
    """Token ids of prompt + target through the chat template, and where the target's loss goes.

    A sequence longer than ``max_length`` is an error, not a truncation (as in ``collate``): cutting
    would cut the target away from its prompt.
    """
    prompt, target = example
    messages = text_messages(prompt.messages)
    head = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    answer = {"role": "assistant", "content": target}
    full = tokenizer.apply_chat_template([*messages, answer], tokenize=False, add_generation_prompt=False)
    if not full.startswith(head + target):
        raise CuaError("mlx: the chat template does not write the target right after the generation prompt")
    tail = full[len(head) + len(target) :]  # the end-of-turn token and the template's separator
    ids = list(tokenizer.encode(full, add_special_tokens=False))
    suffix = list(tokenizer.encode(target + tail, add_special_tokens=False))
    trailing = list(tokenizer.encode(tail, add_special_tokens=False))
    if not trailing or ids[len(ids) - len(suffix) :] != suffix:
        raise CuaError("mlx: the target's tokens differ alone and in context; cannot place the loss")
    if max_length is not None and len(ids) > max_length:
        raise CuaError(f"mlx: an example is {len(ids)} tokens, over max_length {max_length}; raise max_length")
    return Encoded(ids, len(ids) - len(suffix), len(ids) - len(trailing) + 1)


def batch(rows: Sequence[Encoded], pad_id: int) -> tuple[Any, Any, Any]:
    """Right-padded (inputs, targets, loss mask), each ``[rows, longest - 1]``: position j predicts token j+1."""
    import mlx.core as mx
    import numpy as np

    longest = max(len(row.ids) for row in rows)
    ids = np.full((len(rows), longest), pad_id, dtype=np.int32)
    mask = np.zeros((len(rows), longest), dtype=np.float32)
    for r, row in enumerate(rows):
        ids[r, : len(row.ids)] = row.ids
        mask[r, row.start : row.stop] = 1.0
    return mx.array(ids[:, :-1]), mx.array(ids[:, 1:]), mx.array(mask[:, 1:])
