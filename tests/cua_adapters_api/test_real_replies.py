"""What the APIs and their Python SDKs really hand back: whole replies, SDK objects, safety checks.

The fixtures are written here to the shapes of the Messages API reply (``{"id", "type": "message",
"role", "content", "model", "stop_reason", "usage"}``) and the Responses API response (``{"id",
"object": "response", "output", "usage", ...}``); an SDK object is a pydantic model whose
``model_dump(mode="json")`` gives that JSON, so a small stand-in with ``model_dump`` plays it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from cua_adapters_api import AnthropicAdapter, OpenAIComputerAdapter
from cua_core.actions import Click, Done, TypeText, from_pixels
from cua_data.adapters import AdapterParseError

SCREEN = (1280, 800)  # WXGA for Claude (its frame is the screen); no display_size for OpenAI

CLAUDE_REPLY: dict[str, Any] = {
    "id": "msg_01QnVq7hX9",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "The File menu is at the top left.", "citations": None},
        {
            "type": "tool_use",
            "id": "toolu_01Bz",
            "name": "computer",
            "input": {"action": "left_click", "coordinate": [40, 12]},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 1520, "output_tokens": 61, "cache_read_input_tokens": 0},
}
CLAUDE_ANSWER: dict[str, Any] = {
    **CLAUDE_REPLY,
    "content": [{"type": "text", "text": "The file is saved.", "citations": None}],
    "stop_reason": "end_turn",
}
OPENAI_RESPONSE: dict[str, Any] = {
    "id": "resp_67cb",
    "object": "response",
    "created_at": 1741200000,
    "status": "completed",
    "model": "computer-use-preview",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_67cb",
            "summary": [{"type": "summary_text", "text": "Type the query."}],
            "content": None,
            "encrypted_content": None,
            "status": None,
        },
        {
            "type": "computer_call",
            "id": "cu_67cb",
            "call_id": "call_67cb",
            "action": {"type": "type", "text": "quarterly report"},
            "actions": None,
            "pending_safety_checks": [],
            "status": "completed",
        },
    ],
    "usage": {"input_tokens": 900, "output_tokens": 40, "total_tokens": 940},
}
SAFETY_CHECK = {"id": "cu_sc_67cb", "code": "malicious_instructions", "message": "The page asks for something odd."}


class SDKObject:
    """A stand-in for a vendor SDK's pydantic model: only ``model_dump``, which records its ``mode``."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.modes: list[str] = []

    def model_dump(self, *, mode: str = "python", exclude_none: bool = False) -> dict[str, Any]:
        self.modes.append(mode)
        return copy.deepcopy(self.data)


class PlainDump:
    """An object whose ``model_dump`` takes no ``mode``."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def model_dump(self) -> dict[str, Any]:
        return copy.deepcopy(self.data)


# -- Anthropic ------------------------------------------------------------------------------------


@pytest.mark.parametrize("as_text", [False, True])
def test_a_whole_messages_api_reply_parses(as_text: bool) -> None:
    reply = json.dumps(CLAUDE_REPLY) if as_text else CLAUDE_REPLY
    parsed = AnthropicAdapter().parse(reply, SCREEN)
    assert parsed.actions == [Click(from_pixels(40, 12, *SCREEN))]
    assert parsed.thought == "The File menu is at the top left."
    assert parsed.raw == reply  # usage, model and stop_reason travel with the raw reply


def test_a_whole_reply_without_tool_use_is_the_answer() -> None:
    assert AnthropicAdapter().parse(CLAUDE_ANSWER, SCREEN).actions == [Done("The file is saved.")]


def test_the_other_anthropic_shapes_still_parse() -> None:
    adapter = AnthropicAdapter()
    click = [Click(from_pixels(40, 12, *SCREEN))]
    assert adapter.parse({"role": "assistant", "content": CLAUDE_REPLY["content"]}, SCREEN).actions == click
    assert adapter.parse(CLAUDE_REPLY["content"], SCREEN).actions == click
    assert adapter.parse(CLAUDE_REPLY["content"][1], SCREEN).actions == click


def test_a_tool_result_block_is_not_taken_for_a_message() -> None:
    block = {"type": "tool_result", "tool_use_id": "toolu_01Bz", "content": [{"type": "text", "text": "ok"}]}
    with pytest.raises(AdapterParseError, match="unexpected content block type 'tool_result'"):
        AnthropicAdapter().parse(block, SCREEN)


def test_an_anthropic_sdk_message_is_dumped_as_json() -> None:
    message = SDKObject(CLAUDE_REPLY)
    parsed = AnthropicAdapter().parse(message, SCREEN)
    assert parsed.actions == [Click(from_pixels(40, 12, *SCREEN))]
    assert message.modes == ["json"]
    assert parsed.raw == CLAUDE_REPLY  # plain JSON data, so the agent can keep the turn as text


def test_a_model_dump_without_mode_is_called_plainly() -> None:
    parsed = AnthropicAdapter().parse(PlainDump(CLAUDE_ANSWER), SCREEN)
    assert parsed.actions == [Done("The file is saved.")]


# -- OpenAI ---------------------------------------------------------------------------------------


def test_an_openai_sdk_response_is_dumped_as_json() -> None:
    response = SDKObject(OPENAI_RESPONSE)
    parsed = OpenAIComputerAdapter().parse(response, SCREEN)
    assert parsed.actions == [TypeText("quarterly report")]
    assert parsed.thought == "Type the query."
    assert response.modes == ["json"] and parsed.raw == OPENAI_RESPONSE
    assert parsed.safety_checks == []


def test_pending_safety_checks_reach_the_caller() -> None:
    response = copy.deepcopy(OPENAI_RESPONSE)
    response["output"][1]["pending_safety_checks"] = [SAFETY_CHECK]
    parsed = OpenAIComputerAdapter().parse(response, SCREEN)
    assert parsed.actions == [TypeText("quarterly report")]  # the adapter reads; the agent's policy decides
    assert parsed.safety_checks == [SAFETY_CHECK]


def test_a_malformed_safety_check_is_a_parse_error() -> None:
    response = copy.deepcopy(OPENAI_RESPONSE)
    response["output"][1]["pending_safety_checks"] = ["careful"]
    with pytest.raises(AdapterParseError, match="pending safety check 'careful' is not an object"):
        OpenAIComputerAdapter().parse(response, SCREEN)
