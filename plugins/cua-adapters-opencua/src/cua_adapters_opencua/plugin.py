"""The ``cua_data`` entry point: registers the OpenCUA and Aguvis families."""

from __future__ import annotations

from collections.abc import Callable

from cua_adapters_opencua.aguvis import AguvisAdapter
from cua_adapters_opencua.opencua import OpenCUAAdapter
from cua_data import hookimpl


@hookimpl
def cua_data_register_adapters(register: Callable[..., None]) -> None:
    register(
        "opencua",
        OpenCUAAdapter,
        description="OpenCUA-7B/32B: ## Thought/## Action/## Code answers, pyautogui in smart-resized pixels",
    )
    register(
        "aguvis",
        AguvisAdapter,
        description="Aguvis: 'Action: <instruction>' then pyautogui or mobile.* code in [0, 1] fractions",
    )
