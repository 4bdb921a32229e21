"""Model adapters for the Qwen-VL family: Qwen2.5-VL and Qwen3-VL computer/mobile use."""

from __future__ import annotations

from cua_adapters_qwen.qwen3 import Qwen3VLAdapter
from cua_adapters_qwen.qwen25 import Qwen25VLAdapter
from cua_adapters_qwen.toolcall import QwenToolCallAdapter

__all__ = ["Qwen3VLAdapter", "Qwen25VLAdapter", "QwenToolCallAdapter"]
