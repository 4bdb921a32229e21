"""Registers the Qwen-VL adapters with cua-data (entry point group ``cua_data``)."""

from __future__ import annotations

from collections.abc import Callable

from cua_adapters_qwen.qwen3 import Qwen3VLAdapter
from cua_adapters_qwen.qwen25 import Qwen25VLAdapter
from cua_data import hookimpl


@hookimpl
def cua_data_register_adapters(register: Callable[..., None]) -> None:
    register(
        "qwen2.5-vl",
        Qwen25VLAdapter,
        description="Qwen2.5-VL computer_use/mobile_use tool calls, pixels of the smart-resized image (factor 28)",
    )
    register(
        "qwen3-vl",
        Qwen3VLAdapter,
        description="Qwen3-VL 'Action:' + computer_use/mobile_use tool calls, coordinates in [0, 1000] (factor 32)",
    )
