"""cua-data's hooks. Built-in converters implement them exactly as third-party plugins do."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from cua_core import Register

if TYPE_CHECKING:
    from cua_data.adapters.base import Adapter
    from cua_data.convert import Converter

hookspec = pluggy.HookspecMarker("cua_data")
hookimpl = pluggy.HookimplMarker("cua_data")


@hookspec
def cua_data_register_converters(register: Register[Converter]) -> None:
    """Add dataset converters.

    Call ``register(name, convert, description="...")`` once per native format, where
    ``convert(src: Path, report: ConversionReport) -> Iterator[Converted]`` reads the native
    records under ``src`` (a file or folder) and yields LiteSamples with their split and variant.
    Records or actions it cannot map go into ``report`` by reason or form — never dropped silently.
    """


@hookspec
def cua_data_register_adapters(register: Register[type[Adapter]]) -> None:
    """Add model adapters (one per model family).

    Call ``register(name, adapter_class, description="...")`` once per family, where
    ``adapter_class`` subclasses :class:`cua_data.adapters.Adapter` and is built as
    ``adapter_class(history=HistoryPolicy(...), **options)``.
    """
