"""Names a package exports but imports on first use: its ``__init__`` stays as cheap to import as the
code that needs none of them (an env server never loads the training side, a CLI not the bus)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from ``table[name]`` (a module path)
    when it is first asked for; an entry ``name: f"{package}.{name}"`` is a public submodule, imported and
    returned itself (``cua_bench.registry``). Any other name is an AttributeError, as Python's own."""

    def __getattr__(name: str) -> Any:
        if name in table:
            module = importlib.import_module(table[name])
            return module if table[name] == f"{package}.{name}" else getattr(module, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
