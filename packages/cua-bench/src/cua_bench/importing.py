"""Importing a Python file by path (task modules, agent files), once per process, and the objects
users name as ``FILE.py:Name`` or ``module:Name`` (agents, policies)."""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from cua_core import CuaError

__all__ = ["FileImportError", "import_file", "load_named"]


class FileImportError(Exception):
    """The file could not be imported; the message names the file and the cause."""


def import_file(path: Path, prefix: str) -> ModuleType:
    """``path`` as a module named after it and a digest of its full path: two files both called
    ``main.py`` never shadow each other, and importing the same file again reuses the module."""
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    name = f"{prefix}_{path.parent.name if path.stem == 'main' else path.stem}_{digest}".replace("-", "_")
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileImportError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise FileImportError(f"{path}: import failed: {type(exc).__name__}: {exc}") from exc
    return module


def load_named(spec: str, *, flag: str, base: type) -> Callable[..., Any]:
    """``path/to/file.py:Class`` or ``package.module:Class``: the class or factory named after the colon.

    ``flag`` (``--agent``) labels the errors; a class must subclass ``base``, and a name that is not
    there gets the closest ``base`` subclass the module holds as a hint.
    """
    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise CuaError(f"{flag} {spec!r}: expected FILE.py:Class or module:Class")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise CuaError(f"{flag} {spec!r}: no file {where}")
        try:
            module = import_file(path, f"cua_{flag.strip('-').replace('-', '_')}")
        except FileImportError as exc:
            raise CuaError(f"{flag} {spec!r}: {exc}") from exc.__cause__
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise CuaError(f"{flag} {spec!r}: cannot import module {where!r}: {exc}") from exc
    found = getattr(module, attr, None)
    if found is None:
        names = [n for n, v in vars(module).items() if isinstance(v, type) and issubclass(v, base) and v is not base]
        close = difflib.get_close_matches(attr, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else (f" (there: {', '.join(names)})" if names else "")
        raise CuaError(f"{flag} {spec!r}: {where} has no {attr!r}{hint}")
    if isinstance(found, type) and not issubclass(found, base):
        raise CuaError(f"{flag} {spec!r}: {attr} is not a {base.__module__.split('.')[0]}.{base.__name__} subclass")
    if not callable(found):
        raise CuaError(f"{flag} {spec!r}: {attr} is not a class or factory")
    return found  # type: ignore[no-any-return]
