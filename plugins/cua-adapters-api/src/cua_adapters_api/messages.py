"""A rendered :class:`~cua_data.adapters.Prompt` as each API's own request body (pure; no network).

``render`` lays a prompt out as plain chat (assistant turns are the model's raw JSON output as
text, screenshots are image placeholders). The APIs want the turns as the model produced them:

- Anthropic Messages: ``system`` apart; screenshots as ``image`` blocks with a base64 ``source``;
  an assistant turn as its ``tool_use`` blocks, and the screenshot that follows it as the
  ``tool_result`` of those calls (every ``tool_use`` must be answered in the next user turn).
- OpenAI Responses: ``instructions`` apart; screenshots as ``input_image``; an assistant turn as
  its output items (``reasoning``, ``computer_call``) and the screenshot after it as a
  ``computer_call_output`` (``{"type": "computer_screenshot", "image_url": ...}``, as in
  openai/openai-agents-python ``src/agents/run_internal/tool_actions.py``).

A turn whose screenshot the history policy dropped has no image to answer with: Anthropic gets
a text ``tool_result``; OpenAI, whose ``computer_call_output`` must be a screenshot, gets that
turn as assistant text instead of a ``computer_call``. Pass the result as keyword arguments with
the tool from :func:`anthropic_tool` / :func:`openai_tool`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import Image

from cua_adapters_api.anthropic import content_blocks
from cua_adapters_api.common import check_size
from cua_adapters_api.openai_computer import output_items
from cua_data import AdapterParseError, Prompt, data_url

__all__ = ["anthropic_request", "anthropic_tool", "openai_request", "openai_tool"]

NO_SCREENSHOT = "No screenshot of this step is shown."


@dataclass(frozen=True)
class _Event:
    """One part of the prompt in order: a user's text or image, or one assistant turn's output."""

    kind: str  # "text", "image" or "output"
    text: str = ""
    image: Image.Image | None = None


def _events(prompt: Prompt) -> tuple[str | None, list[_Event]]:
    system: list[str] = []
    events: list[_Event] = []
    for message in prompt.messages:
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": str(content)}]
        for part in parts:
            if message["role"] == "system":
                system.append(part.get("text", ""))
            elif part.get("type") == "image":
                events.append(_Event("image", image=prompt.images[int(part["index"])]))
            elif message["role"] == "assistant":
                events.append(_Event("output", text=part.get("text", "")))
            else:
                events.append(_Event("text", text=part.get("text", "")))
    return ("\n\n".join(system) or None), events


def _decoded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _append(messages: list[dict[str, Any]], role: str, blocks: list[Any]) -> None:
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": role, "content": list(blocks)})


# -- Anthropic ---------------------------------------------------------------------------------


def anthropic_tool(
    size: tuple[int, int], *, version: str = "computer_20250124", display_number: int | None = None
) -> dict[str, Any]:
    """The ``computer`` tool definition for a model frame ``size`` (``adapter.model_size`` of the screen)."""
    width, height = check_size(size, "anthropic_tool size")
    tool: dict[str, Any] = {"type": version, "name": "computer", "display_width_px": width, "display_height_px": height}
    return tool if display_number is None else {**tool, "display_number": display_number}


def anthropic_request(prompt: Prompt, *, image_format: str = "PNG") -> dict[str, Any]:
    """``{"system": ..., "messages": [...]}`` for ``client.beta.messages.create(**request, ...)``."""
    system, events = _events(prompt)
    messages: list[dict[str, Any]] = []
    pending: list[str] = []
    used: set[str] = set()

    def answer(image_block: dict[str, Any] | None) -> None:
        results: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": call} for call in pending]
        results[-1]["content"] = [image_block] if image_block else [{"type": "text", "text": NO_SCREENSHOT}]
        _append(messages, "user", results)
        pending.clear()

    for event in events:
        if event.kind == "output":
            if pending:
                answer(None)
            blocks = _anthropic_blocks(event.text)
            for block in blocks:
                if block.get("type") == "tool_use":
                    # Ids must be unique in a conversation; formatted turns repeat content-derived ids.
                    call = str(block.get("id") or "toolu_")
                    while call in used:
                        call = f"{block.get('id')}_{len(used)}"
                    used.add(call)
                    block["id"] = call
                    pending.append(call)
            _append(messages, "assistant", blocks)
        elif event.kind == "image":
            assert event.image is not None
            media, _, data = data_url(event.image, image_format).partition(";base64,")
            block = {"type": "image", "source": {"type": "base64", "media_type": media[5:], "data": data}}
            if pending:
                answer(block)
            else:
                _append(messages, "user", [block])
        else:
            _append(messages, "user", [{"type": "text", "text": event.text}])
    if pending:
        answer(None)
    return {"messages": messages} if system is None else {"system": system, "messages": messages}


def _anthropic_blocks(text: str) -> list[dict[str, Any]]:
    data = _decoded(text)
    if data is None:
        return [{"type": "text", "text": text}]
    try:
        return [dict(block) for block in content_blocks(data, text)]
    except AdapterParseError:
        return [{"type": "text", "text": text}]


# -- OpenAI Responses --------------------------------------------------------------------------


def openai_tool(
    size: tuple[int, int] | None = None, *, preview: bool = False, environment: str = "linux"
) -> dict[str, Any]:
    """The GA ``{"type": "computer"}`` tool, or the preview tool with its display size and environment."""
    if not preview:
        return {"type": "computer"}
    width, height = check_size(size, "openai_tool size (required for the preview tool)")
    return {
        "type": "computer_use_preview",
        "display_width": width,
        "display_height": height,
        "environment": environment,
    }


def openai_request(prompt: Prompt, *, image_format: str = "PNG", keep_reasoning: bool = True) -> dict[str, Any]:
    """``{"instructions": ..., "input": [...]}`` for ``client.responses.create(**request, ...)``.

    ``keep_reasoning=False`` drops replayed ``reasoning`` items (ids the server never issued are
    refused when it stores responses; the model's real ones should be kept).
    """
    instructions, events = _events(prompt)
    items: list[dict[str, Any]] = []
    pending: list[Mapping[str, Any]] = []

    def user(part: dict[str, Any]) -> None:
        last = items[-1] if items else None
        if last is not None and last.get("role") == "user" and last.get("type", "message") == "message":
            last["content"].append(part)
        else:
            items.append({"role": "user", "content": [part]})

    for index, event in enumerate(events):
        if event.kind == "output":
            answered = index + 1 < len(events) and events[index + 1].kind == "image"
            turn = _openai_items(event.text)
            if turn is None or (not answered and any(item.get("type") == "computer_call" for item in turn)):
                items.append({"role": "assistant", "content": event.text})
                continue
            for item in turn:
                if item.get("type") == "reasoning" and not keep_reasoning:
                    continue
                if item.get("type") == "computer_call":
                    pending.append(item)
                items.append(dict(item))
        elif event.kind == "image":
            assert event.image is not None
            url = data_url(event.image, image_format)
            if not pending:
                user({"type": "input_image", "image_url": url})
            for call in pending:
                output = {"type": "computer_call_output", "call_id": call.get("call_id")}
                checks = call.get("pending_safety_checks") or []
                # The history shows the step was taken, so its safety checks were acknowledged.
                output |= {"acknowledged_safety_checks": list(checks)} if checks else {}
                items.append({**output, "output": {"type": "computer_screenshot", "image_url": url}})
            pending.clear()
        else:
            user({"type": "input_text", "text": event.text})
    return {"input": items} if instructions is None else {"instructions": instructions, "input": items}


def _openai_items(text: str) -> list[Mapping[str, Any]] | None:
    data = _decoded(text)
    if data is None:
        return None
    try:
        return output_items(data, text)
    except AdapterParseError:
        return None
