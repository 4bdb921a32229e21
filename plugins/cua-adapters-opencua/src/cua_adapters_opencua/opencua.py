"""The ``opencua`` adapter: OpenCUA-7B/32B (AgentNet), ``## Thought`` / ``## Action`` / ``## Code`` answers.

Layouts (xlang-ai/OpenCUA ``evaluation/agentnetbench/agent/opencua.py``): L1 ``## Action:`` + ``## Code:``,
L2 adds ``## Thought:`` before them, L3 adds ``## Observation:`` first. The code is pyautogui plus
``computer.triple_click``, ``computer.wait`` and ``computer.terminate(status='success'|'failure')``; the
OSWorld agent (xlang-ai/OSWorld ``mm_agents/opencua_agent.py``, ``parse_response_to_cot_and_action``) takes
the last fenced block (```` ```python ```` or ```` ```code ````); we also accept a bare ``## Code:`` section
(AgentNet's own records) and bare code (the model's grounding answers).

Coordinates (option ``coordinates``): OpenCUA-7B/32B write pixels of the image after
``smart_resize(factor=28, min_pixels=3136, max_pixels=12845056)`` (OSWorld ``--coordinate_type qwen25``),
while AgentNet's records (and so some answers) are ``[0, 1]`` fractions. ``"auto"`` (the default) is the
official ``qwen25`` projection's rule, per call: ``x`` and ``y`` both in ``[0, 1]`` means fractions, anything
else pixels (so a pixel click at ``(1, 1)`` reads as the far corner: an ambiguity the official agent has
too). ``"absolute"`` and ``"relative"`` force one frame; ``format_output`` writes pixels unless ``relative``.

History (option ``history_text``, OSWorld's ``history_type``): each past step is an assistant message
``# Step k:`` + ``## Action:`` (``"action"``, the default), + ``## Thought:`` (``"thought"``), or the whole
answer as the model wrote it (``"response"``). The last ``HistoryPolicy.last_n`` steps keep their screenshot
(default 2, so 3 images with the current one, as the OSWorld agent); the task comes last, after the screen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from PIL import Image

from cua_adapters_opencua import prompts
from cua_adapters_opencua.code import CodeStyle, absolute_xy, coordinates_of, read_code, relative_xy, write_code
from cua_adapters_opencua.options import choice, pixels
from cua_core import ActionError
from cua_core import actions as ua
from cua_data import (
    Adapter,
    AdapterParseError,
    HistoryPolicy,
    ParsedOutput,
    Prompt,
    RawOutput,
    Turn,
    merge_roles,
    smart_resize,
)

__all__ = ["OpenCUAAdapter"]

MIN_PIXELS, MAX_PIXELS = 3136, 12845056  # OSWorld opencua_agent.py, coordinate_type "qwen25"
_COORDINATES = ("auto", "absolute", "relative")
_LEVELS = ("l1", "l2", "l3")
_HISTORY_TEXT = ("action", "thought", "response")
_SECTION = {
    "observation": re.compile(r"^##\s*Observation\s*:?[\n\r]+(.*?)(?=^##|\Z)", re.S | re.M),
    "thought": re.compile(r"^##\s*Thought\s*:?[\n\r]+(.*?)(?=^##|\Z)", re.S | re.M),
    "action": re.compile(r"^##\s*Action\s*:?[\n\r]+(.*?)(?=^##|\Z)", re.S | re.M),
    "code": re.compile(r"^##\s*Code\s*:?[\n\r]+(.*?)(?=^##|\Z)", re.S | re.M),
}
_FENCE = re.compile(r"```(?:code|python)?\s*(.*?)\s*```", re.S | re.I)
_MAX_OUTPUT = 100_000


def sections(text: str) -> dict[str, str]:
    """The ``## Observation/Thought/Action/Code`` sections present in ``text``, stripped."""
    found = {}
    for name, pattern in _SECTION.items():
        match = pattern.search(text)
        if match and match.group(1).strip():
            found[name] = match.group(1).strip()
    return found


class OpenCUAAdapter(Adapter):
    """OpenCUA-7B/32B: pyautogui code in an L1/L2/L3 answer; pixels on the smart-resized screenshot."""

    name: ClassVar[str] = "opencua"
    expresses: ClassVar[frozenset[str]] = frozenset(
        {"click", "mouse_move", "mouse_down", "mouse_up", "drag", "scroll", "type", "key", "key_down", "key_up"}
        | {"wait", "done", "fail"}
    )

    def __init__(
        self,
        *,
        history: HistoryPolicy | None = None,
        coordinates: str = "auto",
        cot_level: str = "l2",
        history_text: str = "action",
        min_pixels: int | str = MIN_PIXELS,
        max_pixels: int | str = MAX_PIXELS,
    ) -> None:
        super().__init__(history=history or HistoryPolicy(last_n=2))
        self.coordinates = choice(self.name, "coordinates", coordinates, _COORDINATES)
        self.cot_level = choice(self.name, "cot_level", cot_level, _LEVELS)
        self.history_text = choice(self.name, "history_text", history_text, _HISTORY_TEXT)
        self.min_pixels = pixels(self.name, "min_pixels", min_pixels)
        self.max_pixels = pixels(self.name, "max_pixels", max_pixels)
        if self.min_pixels > self.max_pixels:
            raise ValueError(f"{self.name}: min_pixels {self.min_pixels} is above max_pixels {self.max_pixels}")

    def model_size(self, width: int, height: int) -> tuple[int, int]:
        h, w = smart_resize(height, width, factor=28, min_pixels=self.min_pixels, max_pixels=self.max_pixels)
        return w, h

    def system_prompt(self, size: tuple[int, int]) -> str | None:
        return prompts.OPENCUA_SYSTEM[self.cot_level]

    # -- prompt: OSWorld's layout (history as assistant steps, then the screen, then the task) ---------

    def render(self, instruction: str, history: Sequence[Turn], screenshot: Any) -> Prompt:
        size = self._screen_size(history, screenshot)
        images: list[Image.Image] = []
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": [{"type": "text", "text": self.system_prompt(size)}]}
        ]
        for view in self.history.plan(len(history), current_image=screenshot is not None):
            turn = history[view.index]
            if view.full and view.image and turn.screenshot is not None:
                images.append(self.resize(turn.screenshot))
                messages.append({"role": "user", "content": [{"type": "image", "index": len(images) - 1}]})
            text = prompts.OPENCUA_STEP.format(step_num=view.index + 1) + self.step_text(turn, size)
            messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
        content: list[dict[str, Any]] = []
        if screenshot is not None:
            images.append(self.resize(screenshot))
            content.append({"type": "image", "index": len(images) - 1})
        content.append({"type": "text", "text": prompts.OPENCUA_INSTRUCTION.format(instruction=instruction)})
        messages.append({"role": "user", "content": content})
        return Prompt(merge_roles(messages), images)

    def step_text(self, turn: Turn, size: tuple[int, int]) -> str:
        """A past step as the history shows it (``history_text``)."""
        output = self.output_of(turn, size)
        if self.history_text == "response":
            return output
        found = sections(output)
        action = found.get("action") or "; ".join(ua.format_action(a) for a in turn.actions)
        thought = found.get("thought") or turn.thought
        if self.history_text == "thought" and thought:
            return prompts.OPENCUA_THOUGHT_HISTORY.format(thought=thought, action=action)
        return prompts.OPENCUA_ACTION_HISTORY.format(action=action)

    # -- writing -------------------------------------------------------------------------------

    def _style(self, size: tuple[int, int]) -> CodeStyle:
        frame = self.model_size(*size)
        if self.coordinates == "relative":
            return CodeStyle(self.name, lambda p: relative_xy(p, frame), triple_click="computer.triple_click")
        return CodeStyle(self.name, lambda p: absolute_xy(p, frame), triple_click="computer.triple_click")

    def format_output(self, actions: Sequence[ua.Action], size: tuple[int, int], thought: str | None = None) -> str:
        code = "\n".join(write_code(actions, self._style(size)))
        fence = "code" if code.startswith("computer.") else "python"
        # No low-level instruction is known for replayed actions; their unified text form stands in for it.
        action = "; ".join(ua.format_action(a) for a in actions)
        head = f"## Thought:\n{thought}\n\n" if thought else ""
        return f"{head}## Action:\n{action}\n\n## Code:\n```{fence}\n{code}\n```\n"

    # -- reading -------------------------------------------------------------------------------

    def parse(self, output: RawOutput, size: tuple[int, int]) -> ParsedOutput:
        if not isinstance(output, str):
            raise AdapterParseError(f"{self.name}: expected the model's text, got {type(output).__name__}", output)
        if len(output) > _MAX_OUTPUT:
            raise AdapterParseError(f"{self.name}: the output is {len(output)} characters long", output)
        found = sections(output)
        blocks = _FENCE.findall(output)
        if blocks:
            code = blocks[-1]
        elif "code" in found:
            code = found["code"]
        elif not found and output.strip():
            code = output.strip()
        else:
            raise AdapterParseError(
                f"{self.name}: no code; expected a ```python block or a '## Code:' section after '## Action:'", output
            )
        frame = self.model_size(*size)

        def relative(statement: Any) -> bool:
            if self.coordinates != "auto":
                return self.coordinates == "relative"
            numbers = coordinates_of(statement)
            return all(isinstance(n, int | float) and 0 <= n <= 1 for n in numbers)

        try:
            actions = read_code(
                code,
                platform="desktop",
                size=frame,
                relative=relative,
                rename={"computer.triple_click": "pyautogui.tripleClick"},
            )
        except (ValueError, ActionError) as exc:
            raise AdapterParseError(f"{self.name}: {exc}", output) from None
        if not actions:
            raise AdapterParseError(f"{self.name}: the code {code[:80]!r} performs no action", output)
        return ParsedOutput(actions, output, found.get("thought") or found.get("action"))
