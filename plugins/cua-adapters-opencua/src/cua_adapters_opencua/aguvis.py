"""The ``aguvis`` adapter: Aguvis-7B/72B, ``Action: <low-level instruction>`` then pyautogui / ``mobile.*`` code.

Aguvis answers in two assistant turns (xlang-ai/aguvis ``src/aguvis/constants.py``, ``assistant_template``):
recipient ``all`` carries ``Action: <instruction>``, recipient ``os`` the code, with ``[0, 1]`` fractions
for coordinates. Decoded without special tokens that reads ``<instruction>\\nassistantos\\n<code>``; the
reader is OSWorld's ``parse_aguvis_response`` (xlang-ai/OSWorld ``mm_agents/aguvis_agent.py``): an answer
starting ``WAIT``/``DONE``/``FAIL`` is that special action; otherwise the code starts at the line
``assistantos`` or the first line of code. Special tokens left in the text (``<|im_start|>``,
``<|recipient|>``, ``<|diff_marker|>``...) are dropped first, so the raw and the decoded text read alike.
``format_output`` writes the training records' form, ``Action: <thought>`` then the code.

``WAIT`` carries no duration and reads as ``Wait()`` (the unified default), ``DONE`` as ``Done()``, ``FAIL``
as ``Fail()``. Option ``platform``: ``desktop`` (the grounding system message OSWorld uses) or ``mobile``
(the agent system message listing ``mobile.*``; clicks are taps, ``mobile.wait(seconds=...)`` waits).
Past steps are the prompt's ``Previous actions:`` lines (default ``HistoryPolicy(last_n=0)``), each the
step's ``Action:`` instruction, as Aguvis was trained.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from cua_adapters_opencua import prompts
from cua_adapters_opencua.code import CodeStyle, read_code, relative_xy, write_code
from cua_adapters_opencua.options import choice, pixels
from cua_core import ActionError
from cua_core import actions as ua
from cua_data import Adapter, AdapterParseError, HistoryPolicy, ParsedOutput, RawOutput, Turn, smart_resize

__all__ = ["AguvisAdapter"]

MIN_PIXELS, MAX_PIXELS = 3136, 12845056  # Qwen2-VL's image processor defaults (Aguvis is a Qwen2-VL tune)
_PLATFORMS = ("desktop", "mobile")
_SPECIAL_TOKENS = re.compile(r"<\|(?:im_start|im_end|recipient|diff_marker|endoftext)\|>")
_CODE_START = ("pyautogui", "mobile.", "computer.", "browser.")
_SPECIALS = ("WAIT", "DONE", "FAIL")
_MAX_OUTPUT = 100_000


class AguvisAdapter(Adapter):
    """Aguvis: a low-level instruction, then pyautogui or ``mobile.*`` code in ``[0, 1]`` fractions."""

    name: ClassVar[str] = "aguvis"
    expresses: ClassVar[frozenset[str]] = frozenset(
        {"click", "mouse_move", "mouse_down", "mouse_up", "drag", "scroll", "type", "key", "key_down", "key_up"}
        | {"wait", "done", "fail", "tap", "long_press", "swipe", "system_button"}
    )

    def __init__(
        self,
        *,
        history: HistoryPolicy | None = None,
        platform: str = "desktop",
        min_pixels: int | str = MIN_PIXELS,
        max_pixels: int | str = MAX_PIXELS,
    ) -> None:
        super().__init__(history=history or HistoryPolicy(last_n=0))
        self.platform = choice(self.name, "platform", platform, _PLATFORMS)
        self.min_pixels = pixels(self.name, "min_pixels", min_pixels)
        self.max_pixels = pixels(self.name, "max_pixels", max_pixels)
        if self.min_pixels > self.max_pixels:
            raise ValueError(f"{self.name}: min_pixels {self.min_pixels} is above max_pixels {self.max_pixels}")

    def model_size(self, width: int, height: int) -> tuple[int, int]:
        h, w = smart_resize(height, width, factor=28, min_pixels=self.min_pixels, max_pixels=self.max_pixels)
        return w, h

    # -- prompt --------------------------------------------------------------------------------

    def system_prompt(self, size: tuple[int, int]) -> str | None:
        return prompts.AGUVIS_AGENT_SYSTEM if self.platform == "mobile" else prompts.AGUVIS_GROUNDING_SYSTEM

    def instruction_text(self, instruction: str, summaries: Sequence[str]) -> str:
        previous = "\n".join(summaries) if summaries else "None"
        return prompts.AGUVIS_USER_INSTRUCTION.format(overall_goal=instruction, previous_actions=previous)

    def summarize(self, step: int, turn: Turn) -> str:
        said = _instruction(turn.output or "") or turn.thought
        return f"Step {step}: {said}" if said else super().summarize(step, turn)

    # -- writing -------------------------------------------------------------------------------

    def format_output(self, actions: Sequence[ua.Action], size: tuple[int, int], thought: str | None = None) -> str:
        frame = self.model_size(*size)
        mobile = self.platform == "mobile"
        style = CodeStyle(
            self.name,
            lambda p: relative_xy(p, frame),
            wait=(lambda seconds: f"mobile.wait(seconds={seconds!r})") if mobile else (lambda _seconds: "WAIT"),
            mobile=mobile,
        )
        lines = [f"Action: {thought}"] if thought else []
        for action in actions:
            if isinstance(action, ua.Done | ua.Fail):
                lines.append("DONE" if isinstance(action, ua.Done) else "FAIL")
            elif isinstance(action, ua.Scroll) and mobile:
                raise ActionError(f"{self.name}: on a phone a scroll is a swipe; write mobile.swipe")
            else:
                lines.extend(write_code([action], style))
        return "\n".join(lines)

    # -- reading -------------------------------------------------------------------------------

    def parse(self, output: RawOutput, size: tuple[int, int]) -> ParsedOutput:
        if not isinstance(output, str):
            raise AdapterParseError(f"{self.name}: expected the model's text, got {type(output).__name__}", output)
        if len(output) > _MAX_OUTPUT:
            raise AdapterParseError(f"{self.name}: the output is {len(output)} characters long", output)
        text = _SPECIAL_TOKENS.sub("", output).strip()
        special = _special(text)
        if special is not None:
            return ParsedOutput([special], output, None)
        lines = [line.strip() for line in text.splitlines() if line.strip() and line.strip() != "assistantall"]
        start = next(
            (i for i, line in enumerate(lines) if line == "assistantos" or line.startswith((*_CODE_START, *_SPECIALS))),
            None,
        )
        if start is None:
            raise AdapterParseError(
                f"{self.name}: no code; expected 'Action: <instruction>' then a line of pyautogui or mobile.* code",
                output,
            )
        code = [line for line in lines[start:] if line != "assistantos"]
        end = _special(code[-1]) if code else None
        if end is not None:
            code = code[:-1]
        try:
            actions = read_code(
                "\n".join(code), platform=self.platform, size=self.model_size(*size), relative=lambda _s: True
            )
        except (ValueError, ActionError) as exc:
            raise AdapterParseError(f"{self.name}: {exc}", output) from None
        if end is not None:
            if actions and isinstance(actions[-1], ua.Done | ua.Fail):
                raise AdapterParseError(f"{self.name}: the code ends the task twice", output)
            actions.append(end)
        if not actions:
            raise AdapterParseError(f"{self.name}: the answer performs no action", output)
        thought = " ".join(lines[:start]).removeprefix("Action:").strip() or None
        return ParsedOutput(actions, output, thought)


def _special(text: str) -> ua.Action | None:
    """OSWorld's rule: an answer that starts with WAIT, DONE or FAIL (any case) is that action."""
    lowered = text.strip().lower()
    if lowered.startswith("wait"):
        return ua.Wait()
    if lowered.startswith("done"):
        return ua.Done()
    if lowered.startswith("fail"):
        return ua.Fail()
    return None


def _instruction(output: str) -> str | None:
    for line in _SPECIAL_TOKENS.sub("", output).splitlines():
        if line.strip().startswith("Action:"):
            return line.strip().removeprefix("Action:").strip() or None
    return None
