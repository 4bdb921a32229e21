"""Cua's own SDK (PyPI cua-computer) driving whatever listens on localhost:8000, as Cua's users run it.

Runs under ``.venv/cua-sdk/bin/python`` (Cua's packages need PyPI's cua-core, not ours). Reads a
JSON list of steps from argv[1] and prints one JSON list of results:

    ["screenshot"]                  -> {"png": true, "width": W, "height": H}
    ["left_click", 10, 20]          -> null (any method of computer.interface, with its arguments)
    ["time", 20, "left_click", 5, 5] -> [ms, ms, ...] (the method timed 20 times)
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("CUA_TELEMETRY_DISABLED", "1")
os.environ.pop("CONTAINER_NAME", None)  # it switches Cua's code to its cloud mode

from computer import Computer  # type: ignore[import-not-found]
from PIL import Image


def plain(result: Any) -> Any:
    if isinstance(result, bytes):
        image = Image.open(io.BytesIO(result))
        return {"png": result.startswith(b"\x89PNG"), "width": image.width, "height": image.height}
    if hasattr(result, "returncode"):
        return {"stdout": result.stdout, "stderr": result.stderr, "returncode": result.returncode}
    return result


async def main(steps: list[list[Any]]) -> list[Any]:
    computer = Computer(os_type="linux", use_host_computer_server=True, telemetry_enabled=False)
    await computer.run()
    out: list[Any] = []
    try:
        for name, *args in steps:
            if name == "time":
                count, method, *rest = args
                times = []
                for _ in range(count):
                    started = time.perf_counter()
                    await getattr(computer.interface, method)(*rest)
                    times.append((time.perf_counter() - started) * 1000)
                out.append(times)
            else:
                out.append(plain(await getattr(computer.interface, name)(*args)))
    finally:
        await computer.disconnect()
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))))
