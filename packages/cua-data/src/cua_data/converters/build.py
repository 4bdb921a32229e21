"""Building LiteSample messages the way CUA-Lite's preprocessing does, shared by every converter."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from cua_core import Action
from cua_core import actions as ua
from cua_data.errors import StoreError
from cua_data.lite_actions import to_lite_tool_call
from cua_data.schema import LiteSample, Metadata

__all__ = [
    "EpisodeError",
    "Step",
    "Trajectory",
    "call_id",
    "episode",
    "find_image",
    "grounding_call",
    "image_size",
    "read_image",
    "user_turn",
]


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


class EpisodeError(Exception):
    """A record that cannot become a row; the message is the report's skip reason."""


@dataclass
class Step:
    """One decision: the screenshot it was taken on, what was done, and why."""

    image: bytes
    actions: list[ua.Action]
    end: ua.Done | ua.Fail | None = None
    description: str | None = None
    reasoning: str | None = None
    sidecar: dict[str, Any] | None = None  # an assistant ``metadata`` part (not shown to models)


def episode(platform: str, instruction: str, steps: Sequence[Step], others: dict[str, Any]) -> LiteSample:
    """A ``use`` row ended as CUA-Lite's are: 'Done.'/the answer, or an unanswered last call.

    Step i's result is step i+1's screenshot; a terminate is never a tool call; a failure goes to others.
    """
    if not steps or not any(step.actions for step in steps):
        raise EpisodeError("no executable action")
    if any(step.end is not None for step in steps[:-1]):
        raise EpisodeError("steps after terminate")
    if any(not step.actions for step in steps[:-1]):
        raise EpisodeError("a step with no action")
    traj = Trajectory(platform, instruction)
    traj.add_screenshot(steps[0].image)
    for i, step in enumerate(steps):
        if not step.actions:
            continue  # a bare terminate: its screenshot was the previous step's result
        result = steps[i + 1].image if i + 1 < len(steps) else None
        traj.act(step.actions, description=step.description, reasoning=step.reasoning, result_image=result)
        if step.sidecar is not None:
            turn = traj.messages[-2 if result is not None else -1]
            turn.setdefault("content", []).append({"type": "metadata", "data": step.sidecar})
    end = steps[-1].end
    if isinstance(end, ua.Fail):
        others["terminate_status"] = "failure"
        if end.reason:
            others["terminate_reason"] = end.reason
    if end is not None and (not steps[-1].actions or (isinstance(end, ua.Done) and end.answer)):
        traj.finish(end.answer if isinstance(end, ua.Done) else None)
    width, height = image_size(steps[0].image)
    others.setdefault("resolution", [width, height])
    return LiteSample(Metadata(platform, "use", others=others), traj.messages, traj.images)


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of encoded image bytes (Pillow reads the header only)."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (OSError, ValueError) as exc:
        raise EpisodeError("corrupt image") from exc


def find_image(name: str, folders: Iterable[Path]) -> Path | None:
    """The first ``folder/name`` that exists; ``name`` may use Windows separators (GUI-360)."""
    relative = name.replace("\\", "/").lstrip("/")
    if ".." in relative.split("/"):
        return None  # a record cannot point outside its dataset
    for folder in folders:
        path = folder / relative
        if path.is_file():
            return path
    return None
