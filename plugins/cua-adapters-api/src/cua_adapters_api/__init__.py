"""Model adapters for the API computer-use formats: Claude's ``computer`` tool calls and OpenAI's
``computer_call`` items, with helpers that turn a rendered prompt into each API's own request."""

from __future__ import annotations

from cua_adapters_api.anthropic import AnthropicAdapter
from cua_adapters_api.anthropic_scaling import scaled_size
from cua_adapters_api.messages import anthropic_request, anthropic_tool, openai_request, openai_tool
from cua_adapters_api.openai_computer import OpenAIComputerAdapter

__all__ = [
    "AnthropicAdapter",
    "OpenAIComputerAdapter",
    "anthropic_request",
    "anthropic_tool",
    "openai_request",
    "openai_tool",
    "scaled_size",
]
