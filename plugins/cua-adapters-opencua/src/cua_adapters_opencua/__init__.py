"""Model adapters for the pyautogui-code families: ``opencua`` (OpenCUA-7B/32B) and ``aguvis``."""

from __future__ import annotations

from cua_adapters_opencua.aguvis import AguvisAdapter
from cua_adapters_opencua.opencua import OpenCUAAdapter

__all__ = ["AguvisAdapter", "OpenCUAAdapter"]
