"""Whatever a model sends back, parse answers with actions or AdapterParseError, nothing else."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cua_adapters_api import AnthropicAdapter, OpenAIComputerAdapter
from cua_adapters_api.anthropic import ACTIONS as CLAUDE_ACTIONS
from cua_adapters_api.openai_computer import ACTIONS as OPENAI_ACTIONS
from cua_data.adapters import Adapter, AdapterParseError, ParsedOutput

ADAPTERS = [AnthropicAdapter(), AnthropicAdapter(tool_shape="toolset"), OpenAIComputerAdapter()]
FIELDS = [
    "type", "role", "content", "text", "name", "input", "id", "toolset_name", "action", "coordinate",
    "start_coordinate", "scroll_direction", "scroll_amount", "duration", "key", "output", "actions", "x", "y",
    "button", "keys", "path", "scroll_x", "scroll_y", "summary", "thinking", "call_id",
]  # fmt: skip
WORDS = [
    "tool_use", "text", "thinking", "computer", "message", "computer_call", "reasoning", "summary_text",
    "output_text", "assistant", "left", "wheel", "back", "up", "down", "ctrl+c", "Return", "CTRL", "zoom",
    *CLAUDE_ACTIONS, *OPENAI_ACTIONS,
]  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.integers(-5, 2000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=12),
)
json_like = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=6),
    max_leaves=30,
)


def check(adapter: Adapter, output: Any) -> None:
    try:
        result = adapter.parse(output, (1280, 800))
    except AdapterParseError as error:
        message = str(error)
    else:
        assert isinstance(result, ParsedOutput)
        assert result.actions
        return
    assert message.startswith(adapter.name)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: f"{a.name}")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text())
def test_arbitrary_text(adapter: Adapter, text: str) -> None:
    check(adapter, text)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: f"{a.name}")
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=json_like)
def test_arbitrary_json(adapter: Adapter, data: Any) -> None:
    check(adapter, data)
    check(adapter, json.dumps(data))


claude_calls = st.builds(
    lambda name, params: {"type": "tool_use", "id": "t", "name": "computer", "input": {"action": name, **params}},
    st.sampled_from(CLAUDE_ACTIONS),
    st.dictionaries(st.sampled_from(FIELDS), json_like, max_size=4),
)
openai_calls = st.builds(
    lambda name, params: {"type": "computer_call", "call_id": "c", "action": {**params, "type": name}},
    st.sampled_from(OPENAI_ACTIONS),
    st.dictionaries(st.sampled_from(FIELDS), json_like, max_size=5),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(claude_calls, min_size=1, max_size=3))
def test_near_valid_claude_calls(blocks: list[dict[str, Any]]) -> None:
    check(AnthropicAdapter(), blocks)


@settings(max_examples=500, deadline=None)
@given(st.lists(openai_calls, min_size=1, max_size=3))
def test_near_valid_openai_calls(items: list[dict[str, Any]]) -> None:
    check(OpenAIComputerAdapter(), {"output": items})


def test_the_check_can_fail() -> None:
    # A parser that crashed with another error would fail check(): make sure it does.
    class Broken(AnthropicAdapter):
        def parse(self, output: Any, size: tuple[int, int]) -> ParsedOutput:
            raise KeyError("boom")

    with pytest.raises(KeyError):
        check(Broken(), "{}")
