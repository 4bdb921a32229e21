"""The first thing a space runs: import the job's file, call its function, keep the return value.

Started as ``python -m cua_pool.runner`` in the space's working folder. The return value goes to
``$CUA_POOL_RESULT`` as JSON when it can (any client can read it), else as a pickle.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import os
import pickle
import sys
import traceback
from pathlib import Path
from typing import Any


def _load(file: str, fn: str) -> Any:
    path = Path(file).resolve()
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    target: Any = module
    for part in fn.split("."):
        target = getattr(target, part)
    return target


def _save(result: Any, where: Path) -> None:
    try:
        data, fmt = json.dumps(result).encode(), "json"
    except (TypeError, ValueError):
        data, fmt = pickle.dumps(result), "pickle"
    tmp = where.with_suffix(".tmp")
    tmp.write_bytes(fmt.encode() + b"\n" + data)
    tmp.replace(where)


def main() -> int:
    file, fn = os.environ["CUA_POOL_FILE"], os.environ["CUA_POOL_FN"]
    args = json.loads(os.environ.get("CUA_POOL_ARGS", "[]"))
    try:
        target = _load(file, fn)
        result = target(*args)
        if inspect.isawaitable(result):
            result = asyncio.run(result)  # type: ignore[arg-type]
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        return 1
    if os.environ.get("CUA_POOL_RESULT"):
        _save(result, Path(os.environ["CUA_POOL_RESULT"]))
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
