"""cua-data's hooks. Built-in converters implement them exactly as third-party plugins do."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("cua_data")
hookimpl = pluggy.HookimplMarker("cua_data")


@hookspec
def cua_data_register_converters(register: Callable[..., None]) -> None:
    """Add dataset converters.

    Call ``register(name, convert, description="...")`` once per native format, where
    ``convert(src: Path, report: ConversionReport) -> Iterator[Converted]`` reads the native
    records under ``src`` (a file or folder) and yields LiteSamples with their split and variant.
    Records or actions it cannot map go into ``report`` by reason or form — never dropped silently.
    """


@hookspec
def cua_data_register_adapters(register: Callable[..., None]) -> None:
    """Add model adapters (one per model family).

    Call ``register(name, adapter_class, description="...")`` once per family, where
    ``adapter_class`` subclasses :class:`cua_data.adapters.Adapter` and is built as
    ``adapter_class(history=HistoryPolicy(...), **options)``.
    """
