"""SFT collation through a real (tiny, locally built) Qwen2.5-VL processor and model."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

from cua_adapters_qwen import Qwen25VLAdapter
from cua_core.actions import Click, Drag, KeyPress, Point, TypeText
from cua_data import LiteSample, Metadata
from cua_data.adapters import HistoryPolicy, as_image
from cua_data.adapters.sft import IGNORE_INDEX, collate, load_processor, sft_examples
from cua_data.converters.build import Trajectory
from cua_data.tiny_models import build_tiny_qwen25_vl


def png(shade: int, size: tuple[int, int] = (1280, 800)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (shade, 255 - shade, 40)).save(out, "PNG")
    return out.getvalue()


def trajectory(steps: int = 3, answer: str | None = "It is 42.") -> LiteSample:
    t = Trajectory("desktop", "Find the answer in the spreadsheet")
    t.add_screenshot(png(0))
    plan = [
        ([Click(Point(100, 200))], "Open the file."),
        ([TypeText("42", press_enter=True)], None),
        ([Drag(Point(10, 10), Point(500, 500)), KeyPress(("ctrl", "c"))], "Select and copy."),
    ]
    for i, (actions, description) in enumerate(plan[:steps]):
        t.act(actions, description=description, result_image=png(40 * (i + 1)))
    t.finish(answer)
    return LiteSample(Metadata("desktop", "use"), t.messages, t.images)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    from transformers import Qwen2_5_VLForConditionalGeneration

    folder = build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen25"))
    return Qwen2_5_VLForConditionalGeneration.from_pretrained(folder), load_processor(folder)


def test_one_example_per_assistant_turn() -> None:
    adapter = Qwen25VLAdapter(history=HistoryPolicy(last_n=1))
    examples = sft_examples(trajectory(answer=None), adapter, as_image)
    assert len(examples) == 4  # three action turns and the final "Done."
    targets = [target for _, target in examples]
    assert targets[0] == adapter.format_output([Click(Point(100, 200))], (1280, 800), "Open the file.")
    assert targets[1].count("<tool_call>") == 2  # type, then the Enter that submits it
    assert targets[2].startswith("Select and copy.\n<tool_call>")
    assert '"status": "success"' in targets[3]
    prompts = [prompt for prompt, _ in examples]
    assert [len(p.images) for p in prompts] == [1, 2, 2, 2]  # last_n=1: the newest past turn keeps its image
    assert "Step 1: click" in prompts[2].messages[1]["content"][0]["text"]
    assert all(p.images[-1].size == adapter.model_size(1280, 800) for p in prompts)


def test_an_answer_the_family_cannot_write() -> None:
    with pytest.raises(ValueError, match=r"messages\[\d+\]: qwen2.5-vl cannot write this turn"):
        sft_examples(trajectory(answer="It is 42."), Qwen25VLAdapter(), as_image)
    # CUA-Lite's bare "Done." is terminate(success), which it can.
    last = sft_examples(trajectory(answer=None), Qwen25VLAdapter(), as_image)[-1][1]
    assert '"action": "terminate", "status": "success"' in last


def test_only_use_trajectories() -> None:
    sample = trajectory(answer=None)
    sample.metadata.task_type = "grounding.action"
    with pytest.raises(ValueError, match="reads 'use' trajectories"):
        sft_examples(sample, Qwen25VLAdapter(), as_image)


def test_labels_cover_exactly_the_targets(tiny: tuple[Any, Any]) -> None:
    _, processor = tiny
    examples = sft_examples(trajectory(answer=None), Qwen25VLAdapter(), as_image)
    batch = collate(examples, processor)
    assert set(batch) >= {"input_ids", "attention_mask", "labels", "pixel_values", "image_grid_thw"}
    assert batch["input_ids"].shape == batch["labels"].shape == batch["attention_mask"].shape
    for row, (_, target) in enumerate(examples):
        labels = batch["labels"][row]
        kept = labels[labels != IGNORE_INDEX]
        assert processor.tokenizer.decode(kept) == target + "<|im_end|>"
        # One contiguous span, ending at the row's last real token but one (the template's newline).
        positions = (labels != IGNORE_INDEX).nonzero().flatten().tolist()
        assert positions == list(range(positions[0], positions[-1] + 1))
        length = int(batch["attention_mask"][row].sum())
        assert positions[-1] == length - 2


def test_padding_is_masked(tiny: tuple[Any, Any]) -> None:
    _, processor = tiny
    examples = sft_examples(trajectory(answer=None), Qwen25VLAdapter(), as_image)
    batch = collate(examples, processor)
    lengths = batch["attention_mask"].sum(dim=1)
    assert len(set(lengths.tolist())) > 1, "the examples must differ in length for this test to mean anything"
    for row, length in enumerate(lengths.tolist()):
        assert batch["attention_mask"][row, :length].all() and not batch["attention_mask"][row, length:].any()
        assert (batch["labels"][row, length:] == IGNORE_INDEX).all()
        assert (batch["input_ids"][row, length:] == processor.tokenizer.pad_token_id).all()


def test_image_tokens_match_the_grid(tiny: tuple[Any, Any]) -> None:
    model, processor = tiny
    examples = sft_examples(trajectory(answer=None), Qwen25VLAdapter(), as_image)
    batch = collate(examples, processor)
    merge = processor.image_processor.merge_size
    expected = int((batch["image_grid_thw"].prod(dim=1) // merge**2).sum())
    assert int((batch["input_ids"] == model.config.image_token_id).sum()) == expected
    assert batch["image_grid_thw"].shape[0] == sum(len(p.images) for p, _ in examples)
    assert batch["pixel_values"].shape[0] == int(batch["image_grid_thw"].prod(dim=1).sum())


def test_max_length_is_enforced(tiny: tuple[Any, Any]) -> None:
    _, processor = tiny
    examples = sft_examples(trajectory(answer=None), Qwen25VLAdapter(), as_image)
    with pytest.raises(ValueError, match="over max_length 10"):
        collate(examples, processor, max_length=10)


def test_a_training_step_changes_the_weights(tiny: tuple[Any, Any]) -> None:
    model, processor = tiny
    examples = sft_examples(trajectory(answer=None), Qwen25VLAdapter(), as_image)
    batch = collate(examples[:2], processor)
    model.train()
    before = model.lm_head.weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(**batch).loss
    assert torch.isfinite(loss)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    model.eval()
    assert not torch.equal(before, model.lm_head.weight)


def test_the_tiny_model_generates(tiny: tuple[Any, Any]) -> None:
    model, processor = tiny
    prompt = sft_examples(trajectory(answer=None), Qwen25VLAdapter(), as_image)[0][0]
    text = processor.apply_chat_template(prompt.processor_messages(), tokenize=False, add_generation_prompt=True)
    inputs = processor(text=[text], images=prompt.images, return_tensors="pt")
    out = model.generate(**inputs, max_new_tokens=4, do_sample=False)
    assert out.shape[1] > inputs["input_ids"].shape[1]
    # The screenshot costs a few dozen image tokens with the tiny budget.
    tokens = int((inputs["input_ids"] == model.config.image_token_id).sum())
    assert tokens == int(inputs["image_grid_thw"].prod()) // 4 and 10 <= tokens <= 60
