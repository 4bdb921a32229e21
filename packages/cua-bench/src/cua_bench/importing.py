"""Importing a Python file by path (task modules, agent files), once per process."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["FileImportError", "import_file"]


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
