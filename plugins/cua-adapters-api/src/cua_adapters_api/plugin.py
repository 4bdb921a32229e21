"""Registers the API computer-use formats with cua-data (entry point group ``cua_data``)."""

from __future__ import annotations

from collections.abc import Callable

from cua_adapters_api.anthropic import AnthropicAdapter
from cua_adapters_api.openai_computer import OpenAIComputerAdapter
from cua_data import hookimpl


@hookimpl
def cua_data_register_adapters(register: Callable[..., None]) -> None:
    register(
        "anthropic",
        AnthropicAdapter,
        description="Claude computer use: tool_use blocks of the computer tool (computer_20250124 actions)",
    )
    register(
        "openai-computer",
        OpenAIComputerAdapter,
        description="OpenAI Responses computer use: computer_call items (GA actions[] or preview action)",
    )
