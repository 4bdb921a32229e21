"""The ``cua_data`` entry point: registers the UI-TARS families."""

from __future__ import annotations

from collections.abc import Callable

from cua_adapters_uitars.uitars import UITars15Adapter, UITarsAdapter
from cua_data import hookimpl


@hookimpl
def cua_data_register_adapters(register: Callable[..., None]) -> None:
    register(
        "ui-tars",
        UITarsAdapter,
        description="UI-TARS v1 / Doubao-UI-TARS: Thought/Action text, coordinates relative in [0, 1000]",
    )
    register(
        "ui-tars-1.5",
        UITars15Adapter,
        description="UI-TARS-1.5: Thought/Action text, pixel coordinates on the smart-resized screenshot",
    )
