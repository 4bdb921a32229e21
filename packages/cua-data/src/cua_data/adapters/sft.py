"""Supervised fine-tuning data: LiteSample trajectories as (prompt, target) pairs, and their batches.

One example per decision: the prompt is what the agent would have rendered at that step (the
family's adapter over the instruction, the turns so far and the screenshot then), the target is
what the family's model should have written (``adapter.format_output``). Training on exactly what
the agent renders at run time keeps the two from drifting apart.

``collate`` tokenizes through the family's own transformers processor, so image tokens and pixel
tensors are the ones the model expects, and masks the loss to the target: labels are -100 on the
prompt, the padding and the template's text after the turn, and the token ids on the target and
its end-of-turn token. torch and transformers are imported inside
(``pip install './packages/cua-data[sft]'`` from a clone).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from cua_core import Action, Done
from cua_data.adapters.base import Adapter, Prompt, Turn
from cua_data.lite_actions import from_lite_tool_call
from cua_data.schema import LiteSample

if TYPE_CHECKING:
    import torch

__all__ = ["IGNORE_INDEX", "collate", "load_processor", "sft_examples"]

IGNORE_INDEX = -100
"""The label torch's cross-entropy skips: prompt, padding and template text carry no loss."""

# Per-token tensors a processor returns beside input_ids; everything else is per image and concatenated.
_TOKEN_ALIGNED = {"input_ids": None, "attention_mask": 0, "mm_token_type_ids": 0, "token_type_ids": 0}


def _text(content: Any, kinds: Sequence[str]) -> str:
    if isinstance(content, str):
        return content if "text" in kinds else ""
    parts = [p.get("text", "") for p in content or [] if isinstance(p, Mapping) and p.get("type") in kinds]
    return "\n".join(part for part in parts if part)


def sft_examples(
    sample: LiteSample, adapter: Adapter, load_image: Callable[[str | bytes], Image.Image]
) -> list[tuple[Prompt, str]]:
    """(prompt, target) for each assistant turn of a ``use`` trajectory, in order.

    Images are referenced by index into ``sample.images`` (store keys or bytes; ``load_image``
    opens one). A turn's thought is its ``inline_reasoning`` then its ``action_description``. A
    content-only assistant turn ends the episode: ``Done(answer)``, or ``Done()`` for CUA-Lite's
    bare "Done.". Actions the family cannot write raise the adapter's error, naming the turn.
    """
    if sample.metadata.task_type != "use":
        raise ValueError(f"sft_examples reads 'use' trajectories, got task type {sample.metadata.task_type!r}")
    loaded: dict[int, Image.Image] = {}

    def image(index: int) -> Image.Image:
        if index not in loaded:
            loaded[index] = load_image(sample.images[index])
        return loaded[index]

    instruction: str | None = None
    screen: Image.Image | None = None
    history: list[Turn] = []
    examples: list[tuple[Prompt, str]] = []
    for m, message in enumerate(sample.messages):
        role, content = message.get("role"), message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, Mapping) and part.get("type") == "image" and role in ("user", "tool"):
                screen = image(int(part["index"]))
        if role == "user" and instruction is None:
            instruction = _text(content, ("text",))
        if role != "assistant":
            continue
        if instruction is None or screen is None:
            raise ValueError(f"messages[{m}]: an assistant turn before the instruction and a screenshot")
        actions = _turn_actions(message, m)
        thought = _text(content, ("inline_reasoning", "action_description")) or None
        try:
            target = adapter.format_output(actions, screen.size, thought)
        except ValueError as exc:
            raise ValueError(f"messages[{m}]: {adapter.name} cannot write this turn: {exc}") from exc
        examples.append((adapter.render(instruction, history, screen), target))
        history.append(Turn(screen, tuple(actions), thought=thought))
    return examples


def _turn_actions(message: Mapping[str, Any], m: int) -> list[Action]:
    calls = message.get("tool_calls") or []
    if not calls:
        answer = _text(message.get("content"), ("text",)).strip()
        return [Done(None if answer in ("", "Done.") else answer)]
    actions: list[Action] = []
    for c, call in enumerate(calls):
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or function.get("name") not in ("computer", "mobile"):
            name = function.get("name") if isinstance(function, Mapping) else None
            raise ValueError(f"messages[{m}].tool_calls[{c}]: {name!r} is not an action batch (computer or mobile)")
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            function = {**function, "arguments": json.loads(arguments)}
        actions.extend(from_lite_tool_call(function))
    return actions


def load_processor(path: str | Path) -> Any:
    """The family's processor from a checkpoint folder, images only when torchvision is missing (or the
    folder holds no video processor).

    transformers 5's Qwen-VL processors also load a video processor, and every video processor
    needs torchvision; without it ``AutoProcessor`` fails outright. Agents and training need
    images only, so the same processor class is loaded without its video part.
    """
    import transformers

    auto: Any = transformers.AutoProcessor  # untyped library: Any keeps mypy strict elsewhere
    try:
        return auto.from_pretrained(path)
    except ImportError as exc:
        if "torchvision" not in str(exc).lower():
            raise
    except OSError as exc:
        # A folder whose processor was saved without its video part (by a trainer before cua_model.json):
        # the images-only processor below is all it holds.
        if "video" not in str(exc).lower():
            raise
    config = json.loads((Path(path) / "processor_config.json").read_text())
    base = getattr(transformers, config["processor_class"])
    attributes = [a for a in base.get_attributes() if a != "video_processor"]
    images_only: Any = type(base.__name__, (base,), {"get_attributes": classmethod(lambda cls: list(attributes))})
    return images_only.from_pretrained(path)


def collate(
    examples: Sequence[tuple[Prompt, str]], processor: Any, *, max_length: int | None = None
) -> dict[str, torch.Tensor]:
    """A right-padded batch: ``input_ids``, ``attention_mask``, ``labels`` and the image tensors.

    An example longer than ``max_length`` is an error, not a truncation: cutting a sequence would
    cut image tokens away from their pixels or the target away from its prompt.
    """
    import torch

    if not examples:
        raise ValueError("collate: no examples")
    rows = [_encode(prompt, target, processor) for prompt, target in examples]
    longest = max(int(row["input_ids"].shape[-1]) for row in rows)
    if max_length is not None and longest > max_length:
        raise ValueError(f"collate: an example is {longest} tokens, over max_length {max_length}; drop or shorten it")
    pad_id = processor.tokenizer.pad_token_id
    if pad_id is None:
        raise ValueError("collate: the processor's tokenizer has no pad token")
    batch: dict[str, torch.Tensor] = {}
    for key in rows[0]:
        values = [row[key] for row in rows if key in row]
        if key in _TOKEN_ALIGNED or key == "labels":
            fill = pad_id if key == "input_ids" else IGNORE_INDEX if key == "labels" else _TOKEN_ALIGNED[key]
            batch[key] = torch.stack(
                [torch.nn.functional.pad(v[0], (0, longest - v.shape[-1]), value=fill) for v in values]
            )
        else:
            batch[key] = torch.cat(values, dim=0)
    return batch


def _encode(prompt: Prompt, target: str, processor: Any) -> dict[str, Any]:
    """One example's tensors, labels set on the target and the end-of-turn token that follows it."""
    messages = prompt.processor_messages()
    head = processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    answer = {"role": "assistant", "content": [{"type": "text", "text": target}]}
    full = processor.apply_chat_template([*messages, answer], tokenize=False, add_generation_prompt=False)
    if not full.startswith(head + target):
        raise ValueError("collate: the chat template does not write the target right after the generation prompt")
    tail = full[len(head) + len(target) :]  # the end-of-turn token and the template's separator
    encoded = dict(processor(text=[full], images=prompt.images or None, return_tensors="pt"))
    ids = encoded["input_ids"]
    # The target and tail hold no images, so they tokenize alone as they do in place (the
    # generation prompt ends in a newline and the tail starts with a special token): checked.
    tokenizer = processor.tokenizer
    suffix = tokenizer(target + tail, add_special_tokens=False)["input_ids"]
    trailing = tokenizer(tail, add_special_tokens=False)["input_ids"]
    if not trailing or ids[0, ids.shape[-1] - len(suffix) :].tolist() != suffix:
        raise ValueError("collate: the target's tokens differ alone and in context; cannot place the labels")
    labels = ids.new_full(ids.shape, IGNORE_INDEX)
    start, stop = ids.shape[-1] - len(suffix), ids.shape[-1] - len(trailing) + 1
    labels[0, start:stop] = ids[0, start:stop]
    encoded["labels"] = labels
    return encoded
