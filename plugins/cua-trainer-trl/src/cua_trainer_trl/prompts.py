"""What the GRPO rollout reads off a TRL prompt and off the model's chat template.

A prompt names its episode (``EpisodeSpec.key``) in a message's ``task`` field and carries its images in its image parts
(TRL fills them in from the dataset's ``images`` column); the chat template says how a model's turn
ends and how the next user message and assistant turn begin, so the environment's words between turns
are written in the family's own markup.
"""

from __future__ import annotations

from typing import Any

from cua_bench import EpisodeSpec
from cua_bench_rl import spec_of_key
from cua_core import CuaError

__all__ = ["images_of", "task_of", "turn_frame"]

_TURN, _ENV = "@@cua-model-turn@@", "@@cua-env-text@@"


def turn_frame(processor: Any) -> tuple[int, str]:
    """The end-of-turn token the model writes, and the chat template's text from after it to the start of
    the model's next turn, with ``{env}`` where the environment's words go (read off the template itself,
    so any family's markup is used, not Qwen's written in here)."""
    tokenizer = getattr(processor, "tokenizer", processor)
    talk = [
        {"role": "user", "content": [{"type": "text", "text": "start"}]},
        {"role": "assistant", "content": [{"type": "text", "text": _TURN}]},
    ]
    said = str(processor.apply_chat_template(talk, tokenize=False))
    more = [*talk, {"role": "user", "content": [{"type": "text", "text": _ENV}]}]
    answered = str(processor.apply_chat_template(more, tokenize=False, add_generation_prompt=True))
    closing = said[said.index(_TURN) + len(_TURN) :] if _TURN in said else ""
    end_text = closing.strip()
    end = tokenizer.convert_tokens_to_ids(end_text) if end_text else None
    if not answered.startswith(said) or not isinstance(end, int) or end == tokenizer.unk_token_id:
        raise CuaError(
            "rollout_func: cannot tell this chat template's end of turn (its assistant turn should end in one "
            "special token, like Qwen's <|im_end|>); this rollout supports such templates only"
        )
    frame = closing[closing.index(end_text) + len(end_text) :] + answered[len(said) :]
    return int(end), frame.replace("{", "{{").replace("}", "}}").replace(_ENV, "{env}")


def task_of(prompt: Any) -> EpisodeSpec:
    """The episode a prompt's messages name by key (either form ``spec_of_key`` reads: a dataset built
    before ``EpisodeSpec`` holds ``sim/click-button@train:3``)."""
    messages = prompt if isinstance(prompt, list) else []
    keys = [m.get("task") for m in messages if isinstance(m, dict) and m.get("task")]
    if not keys:
        raise CuaError(
            "rollout_func: a prompt has no task key on its messages; build the dataset with "
            "cua_trainer_trl.task_dataset(...), or put the episode's key ('sim/click-button/train/3') in a "
            "message's 'task' field"
        )
    try:
        return spec_of_key(str(keys[0]))
    except ValueError as exc:
        raise CuaError(f"rollout_func: {exc}") from exc


def images_of(prompt: list[dict[str, Any]]) -> list[Any]:
    return [
        part["image"]
        for message in prompt
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if isinstance(part, dict) and part.get("type") == "image" and part.get("image") is not None
    ]
