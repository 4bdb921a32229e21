"""Building LiteSample messages the way CUA-Lite's preprocessing does, shared by every converter."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cua_core.actions import Action
from cua_data.errors import StoreError
from cua_data.lite_actions import to_lite_tool_call

__all__ = ["Trajectory", "call_id", "grounding_call", "read_image", "user_turn"]


def call_id(n: int) -> str:
    return f"call_{n:04d}"


def user_turn(text: str | None, image_index: int | None = 0) -> dict[str, Any]:
    """The opening user message: the screenshot first, then the instruction (CUA-Lite's order)."""
    content: list[dict[str, Any]] = []
    if image_index is not None:
        content.append({"type": "image", "index": image_index})
    if text:
        content.append({"type": "text", "text": text})
    return {"role": "user", "content": content}


def grounding_call(tool: str, coordinate: Sequence[float]) -> dict[str, Any]:
    """An assistant turn answering a point or bbox grounding question."""
    return {
        "role": "assistant",
        "tool_calls": [
            {
                "id": call_id(0),
                "type": "function",
                "function": {"name": tool, "arguments": {"coordinate": [round(v) for v in coordinate]}},
            }
        ],
    }


class Trajectory:
    """Accumulates a ``use`` (or single-step ``grounding.action``) conversation turn by turn."""

    def __init__(self, platform: str, instruction: str) -> None:
        self.platform = platform
        self.messages: list[dict[str, Any]] = [user_turn(instruction, 0)]
        self.images: list[str | bytes] = []
        self.steps = 0

    def add_screenshot(self, image: str | bytes) -> int:
        self.images.append(image)
        return len(self.images) - 1

    def act(
        self,
        actions: Sequence[Action],
        *,
        description: str | None = None,
        reasoning: str | None = None,
        result_image: str | bytes | None = None,
    ) -> None:
        """One assistant turn; ``result_image`` adds the tool result (the next screenshot)."""
        content: list[dict[str, Any]] = []
        if reasoning:
            content.append({"type": "inline_reasoning", "text": reasoning})
        if description:
            content.append({"type": "action_description", "text": description})
        ident = call_id(self.steps)
        turn: dict[str, Any] = {
            "role": "assistant",
            "tool_calls": [to_lite_tool_call(actions, self.platform, ident)],
        }
        if content:
            turn["content"] = content
        self.messages.append(turn)
        self.steps += 1
        if result_image is not None:
            index = self.add_screenshot(result_image)
            self.messages.append(
                {"role": "tool", "tool_call_id": ident, "content": [{"type": "image", "index": index}]}
            )

    def finish(self, answer: str | None = None) -> None:
        """End with a content-only assistant turn: the answer, or 'Done.' (CUA-Lite's ending)."""
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": answer or "Done."}]})


def read_image(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise StoreError(f"image {path} is missing") from None
