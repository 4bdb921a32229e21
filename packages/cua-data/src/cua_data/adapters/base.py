"""The adapter contract: what every model family implements, and the parts they all share.

A family differs from another in four things only, so that is all an adapter writes:

- ``model_size``: the size of the image the model is shown (its resize rule), which is also the
  frame its pixel coordinates are in;
- ``system_prompt`` / ``instruction_text``: the words around the task;
- ``format_output``: what the model writes for a batch of unified actions (used for history turns,
  SFT targets and round-trip tests);
- ``parse``: the model's raw output back into unified actions, or :class:`AdapterParseError`.

``render`` (shared, overridable) lays the prompt out the way the Qwen-VL, UI-TARS and OpenCUA
agents do: system, then the instruction with older turns summarised as text, then recent turns
as (screenshot, the model's answer) pairs, then the current screenshot. Which turns are shown in
full, and which keep their image, is the :class:`~cua_data.adapters.history.HistoryPolicy`'s.

Images in a :class:`Prompt` are placeholders ``{"type": "image", "index": i}`` into
``Prompt.images`` (already resized), as in a LiteSample; each transport fills them in its own
way (data URLs for chat-completions servers, ``{"type": "image"}`` for a transformers processor).
"""

from __future__ import annotations

import base64
import io
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from cua_core import Action, CuaError, format_action
from cua_data.adapters.history import HistoryPolicy
from cua_data.png import encode_png

__all__ = [
    "Adapter",
    "AdapterParseError",
    "ParsedOutput",
    "Prompt",
    "RawOutput",
    "Turn",
    "as_image",
    "data_url",
    "merge_roles",
]

# What a model hands back: text for the text families, JSON objects (or lists of them) for the
# API formats (Anthropic tool_use blocks, OpenAI computer_call items).
RawOutput = str | Mapping[str, Any] | Sequence[Any]


class AdapterParseError(CuaError, ValueError):
    """Model output that does not parse into unified actions; ``raw`` keeps the text verbatim.

    Agents turn it into an invalid action the model sees in its next observation, never a crash.
    """

    def __init__(self, message: str, raw: object) -> None:
        super().__init__(message)
        self.raw = raw


def data_url(image: Image.Image, image_format: str = "PNG") -> str:
    """``data:image/png;base64,...`` (lossless, the fast writer) or JPEG at quality 90 (``image_format="JPEG"``)."""
    if image_format.upper() == "PNG":
        return "data:image/png;base64," + base64.b64encode(encode_png(np.asarray(image.convert("RGB")))).decode()
    if image_format.upper() not in ("JPEG", "JPG"):
        raise ValueError(f"image_format must be PNG or JPEG, got {image_format!r}")
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=90)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode()


def as_image(screenshot: Any) -> Image.Image:
    """An RGB PIL image from what an observation holds: an RGB array, PNG/JPEG bytes, or an image."""
    if isinstance(screenshot, Image.Image):
        return screenshot if screenshot.mode == "RGB" else screenshot.convert("RGB")
    if isinstance(screenshot, bytes | bytearray | memoryview):
        return Image.open(io.BytesIO(bytes(screenshot))).convert("RGB")
    array = np.asarray(screenshot)
    if array.ndim != 3 or array.shape[2] not in (3, 4):
        raise ValueError(f"a screenshot must be an HxWx3 array, PNG bytes or a PIL image, got shape {array.shape}")
    return Image.fromarray(np.ascontiguousarray(array[:, :, :3]).astype(np.uint8), "RGB")


@dataclass(frozen=True)
class Turn:
    """One past step: the screen the model saw, what it did, and (when a model made it) its words.

    ``output`` is the model's raw output, replayed verbatim in history; when it is None (a replayed
    or scripted turn) the adapter writes the turn with ``format_output``.
    """

    screenshot: Any  # as_image() accepts it; None when the step was not observed
    actions: tuple[Action, ...]
    output: str | None = None
    thought: str | None = None


@dataclass
class Prompt:
    """Chat messages whose image parts point into ``images`` (resized to the model's size)."""

    messages: list[dict[str, Any]]
    images: list[Image.Image] = field(default_factory=list)

    def with_images(self, encode: Callable[[Image.Image], dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages with each image placeholder replaced by ``encode(image)``."""
        out = []
        for message in self.messages:
            content = message.get("content")
            if isinstance(content, list):
                parts = [
                    encode(self.images[part["index"]]) if part.get("type") == "image" else part for part in content
                ]
                out.append({**message, "content": parts})
            else:
                out.append(message)
        return out

    def openai_messages(self, image_format: str = "PNG") -> list[dict[str, Any]]:
        """For OpenAI-compatible chat-completions servers (vLLM, SGLang, llama.cpp): data URLs."""
        return self.with_images(
            lambda image: {"type": "image_url", "image_url": {"url": data_url(image, image_format)}}
        )

    def processor_messages(self) -> list[dict[str, Any]]:
        """For a transformers processor's chat template; pass ``self.images`` beside them."""
        return self.with_images(lambda _image: {"type": "image"})


@dataclass
class ParsedOutput:
    """Unified actions in order (a final Done or Fail ends the episode), and the model's reasoning.

    ``safety_checks`` are checks the model's API raised on these actions and wants acknowledged
    before they run (OpenAI's ``pending_safety_checks``: ``{"id", "code", "message"}``). The adapter
    only reads them; whether to stop or to go on is the agent's decision.
    """

    actions: list[Action]
    raw: RawOutput
    thought: str | None = None
    safety_checks: list[dict[str, Any]] = field(default_factory=list)


class Adapter(ABC):
    """One model family's prompt format and output grammar. Subclasses set ``name`` and the four methods.

    ``history`` chooses which past turns are shown in full; ``options`` are the family's own
    (pixel budgets, prompt variants), given on the command line as ``--adapter-option KEY=VALUE``.

    Args:
        history: which past turns ``render`` shows in full and which keep their image; None for
            ``HistoryPolicy()``'s defaults.
    """

    name: ClassVar[str]
    # The unified action kinds this family can express; round-trip tests cover exactly these.
    expresses: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, *, history: HistoryPolicy | None = None) -> None:
        self.history = history or HistoryPolicy()

    # -- what a family defines ----------------------------------------------------------------

    @abstractmethod
    def model_size(self, width: int, height: int) -> tuple[int, int]:
        """``(width, height)`` of the image the model sees for a ``width`` x ``height`` screen.

        Given its own result it must return it unchanged: ``render`` sizes a prompt from the images it is
        handed, which ``ModelAgent`` has resized already.

        Args:
            width: the screen's width in pixels.
            height: the screen's height in pixels.

        Returns:
            The model's image size in pixels, the frame its pixel coordinates are in.

        Raises:
            ValueError: a size the family's resize rule refuses (not positive; ``smart_resize``: an aspect
                ratio of 200 or more).
        """

    @abstractmethod
    def format_output(self, actions: Sequence[Action], size: tuple[int, int], thought: str | None = None) -> str:
        """What this family's model writes for ``actions`` on a screen of ``size`` (width, height).

        Args:
            actions: unified actions in order, coordinates in [0, 1000]; a Done or Fail comes last.
            size: the screen's (width, height) in pixels, from which the model's frame is worked out.
            thought: the model's reasoning, written where the family puts it; None for none.

        Returns:
            The model's output: ``parse`` of it on ``size`` gives ``actions`` back, to the precision of the
            model's coordinates, for the kinds in ``expresses`` (round-trip tests check it).

        Raises:
            ActionError: an action the family cannot express (``cua_core.errors.ActionError``).
        """

    @abstractmethod
    def parse(self, output: RawOutput, size: tuple[int, int]) -> ParsedOutput:
        """The model's raw output as unified actions for a screen of ``size``; AdapterParseError if not.

        Args:
            output: what the model returned: text, or JSON objects for the API formats.
            size: the screen's (width, height) in pixels; the model's coordinates are mapped from its
                frame to [0, 1000].

        Returns:
            The actions in order, the raw output, the model's reasoning and any safety checks its API raised.

        Raises:
            AdapterParseError: output that does not parse; agents show the model the message and act on
                nothing that step, rather than crash.
        """

    def system_prompt(self, size: tuple[int, int]) -> str | None:
        """The system message (tool description, output format), or None for families without one.

        Args:
            size: the screen's (width, height) in pixels, for families that tell the model its screen.

        Returns:
            The system message's text, or None (the default); ``render`` sends none for None or ''.
        """
        return None

    def instruction_text(self, instruction: str, summaries: Sequence[str]) -> str:
        """The user's opening text: the task, then older turns summarised one line each.

        Args:
            instruction: the task's description.
            summaries: one line per past turn not shown in full, oldest first (``summarize``'s lines).

        Returns:
            The text of the opening user message; by default the instruction, then the lines under
            ``Previous actions:``.
        """
        if not summaries:
            return instruction
        return f"{instruction}\n\nPrevious actions:\n" + "\n".join(summaries)

    # -- shared -------------------------------------------------------------------------------

    def summarize(self, step: int, turn: Turn) -> str:
        """One line for a turn that is no longer shown in full: ``Step k: action; action``.

        Args:
            step: the turn's number, counting from 1.
            turn: the past turn.

        Returns:
            The line, its actions in the unified text form (``click(500, 300)``).
        """
        return f"Step {step}: " + "; ".join(format_action(a) for a in turn.actions)

    def output_of(self, turn: Turn, size: tuple[int, int]) -> str:
        """What a past turn shows as the model's answer: its own words when a model wrote them, so the
        history replays what the model said, and ``format_output`` only for replayed or scripted turns.

        Args:
            turn: the past turn.
            size: the screen's (width, height) in pixels, for ``format_output``.

        Returns:
            ``turn.output`` verbatim, else ``format_output`` of the turn's actions and thought.

        Raises:
            ActionError: a turn without output whose actions the family cannot express.
        """
        return turn.output if turn.output is not None else self.format_output(turn.actions, size, turn.thought)

    def resize(self, screenshot: Any) -> Image.Image:
        """The screenshot as the model is shown it, so its pixel coordinates are in ``model_size``'s frame.

        Args:
            screenshot: an HxWx3 (or 4) array, PNG or JPEG bytes, or a PIL image.

        Returns:
            An RGB image of ``model_size`` of the screenshot's size (bicubic); not resized when it has
            that size already.

        Raises:
            ValueError: ``screenshot`` is none of those, or ``model_size`` refuses its size.
        """
        image = as_image(screenshot)
        target = self.model_size(image.width, image.height)
        return image if image.size == target else image.resize(target, Image.Resampling.BICUBIC)

    def render(self, instruction: str, history: Sequence[Turn], screenshot: Any) -> Prompt:
        """The prompt for the next step: ``history`` are the turns so far, oldest first.

        ``screenshot`` is the current screen (None when the agent observes no screenshot; the
        screen size then comes from the newest turn that has one).

        Args:
            instruction: the task's description.
            history: the past turns, oldest first.
            screenshot: the current screen, anything ``resize`` takes; None when the agent observes none.

        Returns:
            System message, opening text (with older turns summarised), the turns shown in full as
            (screenshot, answer) pairs, then the current screenshot; consecutive messages of one role
            merged, images resized and in placeholder order.

        Raises:
            ValueError: there is no screenshot in ``screenshot`` or ``history``, so no screen size.
            ActionError: a turn to show in full has no output and actions the family cannot express.
        """
        size = self._screen_size(history, screenshot)
        images: list[Image.Image] = []
        messages: list[dict[str, Any]] = []
        system = self.system_prompt(size)
        if system:
            messages.append({"role": "system", "content": [{"type": "text", "text": system}]})
        views = self.history.plan(len(history), current_image=screenshot is not None)
        summaries = [self.summarize(v.index + 1, history[v.index]) for v in views if not v.full]
        opening = self.instruction_text(instruction, summaries)
        messages.append({"role": "user", "content": [{"type": "text", "text": opening}]})
        for view in views:
            if not view.full:
                continue
            turn = history[view.index]
            if view.image and turn.screenshot is not None:
                images.append(self.resize(turn.screenshot))
                messages.append({"role": "user", "content": [{"type": "image", "index": len(images) - 1}]})
            messages.append({"role": "assistant", "content": [{"type": "text", "text": self.output_of(turn, size)}]})
        if screenshot is not None:
            images.append(self.resize(screenshot))
            messages.append({"role": "user", "content": [{"type": "image", "index": len(images) - 1}]})
        return Prompt(merge_roles(messages), images)

    def _screen_size(self, history: Sequence[Turn], screenshot: Any) -> tuple[int, int]:
        for shot in [screenshot, *(t.screenshot for t in reversed(history))]:
            if shot is not None:
                image = as_image(shot)
                return image.width, image.height
        raise ValueError(f"{self.name}: no screenshot in the observation or the history, so no screen size")


def merge_roles(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive messages of one role become one (chat templates expect roles to alternate)."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"] and message["role"] != "system":
            merged[-1] = {**merged[-1], "content": [*merged[-1]["content"], *message["content"]]}
        else:
            merged.append(message)
    return merged
