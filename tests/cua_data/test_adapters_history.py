"""History policies, on every installed adapter: the image cap and the text budget hold however long the episode."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from cua_core.actions import Click, Point, TypeText
from cua_data.adapters import Adapter, HistoryPolicy, Prompt, Turn
from cua_data.registry import adapters

SCREEN = np.full((800, 1280, 3), 230, np.uint8)
INSTRUCTION = "Open the file called report.txt and type hello."


def _turns(count: int) -> list[Turn]:
    actions: list[Any] = [(Click(Point(100 + i * 7, 200)),) if i % 2 else (TypeText(f"w{i}"),) for i in range(count)]
    return [Turn(SCREEN, a) for a in actions]


def _images(prompt: Prompt) -> int:
    return sum(
        p.get("type") == "image" for m in prompt.messages if isinstance(m["content"], list) for p in m["content"]
    )


def _answers(prompt: Prompt) -> int:
    """Assistant turns shown (consecutive ones are merged into one message, as chat templates want)."""
    return sum(len(m["content"]) for m in prompt.messages if m["role"] == "assistant")


def _text(prompt: Prompt) -> int:
    return sum(len(p.get("text", "")) for m in prompt.messages if isinstance(m["content"], list) for p in m["content"])


def test_every_family_is_installed() -> None:
    assert {
        "qwen2.5-vl",
        "qwen3-vl",
        "ui-tars",
        "ui-tars-1.5",
        "opencua",
        "aguvis",
        "anthropic",
        "openai-computer",
    } <= set(adapters().names())


@pytest.mark.parametrize("name", adapters().names())
def test_full_history_shows_every_turn_with_its_screen(name: str) -> None:
    adapter = adapters()[name](history=HistoryPolicy())  # some families default to a cap (OpenCUA: 3 images)
    for count in (0, 1, 4):
        prompt = adapter.render(INSTRUCTION, _turns(count), SCREEN)
        assert _images(prompt) == len(prompt.images) == count + 1
        assert all(image.size == adapter.model_size(1280, 800) for image in prompt.images)
        assert _answers(prompt) == count
        assert prompt.messages[-1]["role"] == "user"  # the model answers next


@pytest.mark.parametrize("name", adapters().names())
def test_last_n_and_an_image_cap_keep_the_budget_flat(name: str) -> None:
    adapter = adapters()[name](history=HistoryPolicy(last_n=3, max_images=2))
    sizes = []
    for count in (0, 3, 10, 30):
        prompt = adapter.render(INSTRUCTION, _turns(count), SCREEN)
        assert _images(prompt) == len(prompt.images) == min(count + 1, 2)
        if type(adapter).render is Adapter.render:  # families with their own layout (OpenCUA's) differ here
            assert _answers(prompt) == min(count, 3)
            steps = [int(n) for n in re.findall(r"\bStep (\d+):", _user_text(prompt))]
            assert steps == list(range(1, max(0, count - 3) + 1))
        sizes.append(_text(prompt))
    # Text grows by one short line per older turn (under 80 characters), never by a whole turn.
    assert sizes[3] - sizes[2] <= 20 * 80


def _user_text(prompt: Prompt) -> str:
    return "\n".join(
        p.get("text", "")
        for m in prompt.messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for p in m["content"]
    )


def test_policies_parse_from_the_command_line_and_refuse_nonsense() -> None:
    assert HistoryPolicy.parse("full") == HistoryPolicy()
    assert HistoryPolicy.parse("last=3,images=2") == HistoryPolicy(3, 2)
    assert HistoryPolicy.parse("images=4") == HistoryPolicy(None, 4)
    for bad in ("last", "last=x", "recent=3", "images=0", "last=-1"):
        with pytest.raises(ValueError, match="history"):
            HistoryPolicy.parse(bad)


def test_the_cap_drops_the_oldest_images_first() -> None:
    views = HistoryPolicy(max_images=3).plan(5)
    assert [v.image for v in views] == [False, False, False, True, True]  # + the current screen = 3
    assert all(v.full for v in views)
    assert [v.image for v in HistoryPolicy(max_images=3).plan(5, current_image=False)] == [
        False,
        False,
        True,
        True,
        True,
    ]
