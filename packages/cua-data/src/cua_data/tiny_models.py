"""Tiny Qwen-VL checkpoints built on the spot: real architectures, random weights, nothing downloaded.

Tests, the training examples and benchmarks use them where no real checkpoint can be fetched;
point the same code at a real checkpoint folder (``Qwen/Qwen2.5-VL-3B-Instruct``) to train for real.
Needs the ``sft`` extra (torch, transformers; ``tokenizers`` comes with transformers).

Each builder writes a folder laid out like a hub checkpoint (``config.json``, safetensors weights,
``tokenizer.json``, ``preprocessor_config.json``, ``chat_template.jinja``, ``processor_config.json``),
so code under test loads it with ``from_pretrained`` exactly as it would load the real model. The
tokenizer is a byte-level BPE trained here on a few lines, with Qwen's special tokens (``<tool_call>``
and ``</tool_call>`` are added but not special, as in Qwen's own tokenizer, so decoding with
``skip_special_tokens`` keeps them). The image processor's ``max_pixels`` is small, so a 1280x800
screenshot costs 40 tokens, and the whole build takes well under a second once transformers is imported.

transformers 5.23's Qwen-VL processors also load a video processor, which needs torchvision; load
the processor with :func:`cua_data.adapters.sft.load_processor`, which falls back to images only.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["QWEN2_VL_CHAT_TEMPLATE", "build_tiny_qwen25_vl"]

# Qwen/Qwen2.5-VL-7B-Instruct chat_template.json (the same as Qwen2-VL's).
QWEN2_VL_CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}<|im_start|>system\n"
    "You are a helpful assistant.<|im_end|>\n{% endif %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n{% else %}"
    "{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}Picture {{ image_count.value }}: "
    "{% endif %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_SPECIAL = [
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
    "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>",
]  # fmt: skip
_ADDED = ["<tool_call>", "</tool_call>"]
_CORPUS = [
    "You are a helpful assistant.",
    "The user query: open the settings and click the button. Task progress: Step 1: click",
    '{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [120, 340]}}',
    '{"name": "mobile_use", "arguments": {"action": "type", "text": "hello world"}}',
    "Thought: I need to type the name. Action: type it into the search box.",
    "# Tools\n\nYou may call one or more functions to assist with the user query.",
]


def _tokenizer() -> object:
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import Qwen2TokenizerFast  # type: ignore[attr-defined]  # lazily exported

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=512, special_tokens=_SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator(_CORPUS * 4, trainer)
    bpe.add_tokens([AddedToken(token, special=False, normalized=False) for token in _ADDED])
    return Qwen2TokenizerFast(
        tokenizer_object=bpe, bos_token=None, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token=None
    )


def build_tiny_qwen25_vl(folder: Path, *, max_pixels: int = 28 * 28 * 40, seed: int = 0) -> Path:
    """A Qwen2.5-VL checkpoint of ~200k parameters in ``folder`` (created); returns ``folder``."""
    import torch
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer()
    ids = tokenizer.convert_tokens_to_ids  # type: ignore[attr-defined]
    tokenizer.save_pretrained(folder)  # type: ignore[attr-defined]
    Qwen2VLImageProcessorPil(min_pixels=28 * 28 * 4, max_pixels=max_pixels).save_pretrained(folder)
    (folder / "chat_template.jinja").write_text(QWEN2_VL_CHAT_TEMPLATE)
    (folder / "processor_config.json").write_text(json.dumps({"processor_class": "Qwen2_5_VLProcessor"}))
    config = Qwen2_5_VLConfig(
        text_config={
            "vocab_size": len(tokenizer),  # type: ignore[arg-type]
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "max_position_embeddings": 4096,
            # head_dim 16: the three M-RoPE sections (time, height, width) share its 8 frequencies.
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
            "bos_token_id": None,
            "eos_token_id": ids("<|im_end|>"),
            "pad_token_id": ids("<|endoftext|>"),
        },
        vision_config={
            "depth": 2,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_heads": 2,
            "out_hidden_size": 64,
            "fullatt_block_indexes": [1],
            "window_size": 56,
        },
        image_token_id=ids("<|image_pad|>"),
        video_token_id=ids("<|video_pad|>"),
        vision_start_token_id=ids("<|vision_start|>"),
        vision_end_token_id=ids("<|vision_end|>"),
    )
    torch.manual_seed(seed)
    model = Qwen2_5_VLForConditionalGeneration(config)
    model.generation_config.eos_token_id = ids("<|im_end|>")
    model.generation_config.pad_token_id = ids("<|endoftext|>")
    model.save_pretrained(folder)
    return folder
