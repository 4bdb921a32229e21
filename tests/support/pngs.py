"""Plain PNGs for tests that need a real screenshot file: a size and a colour, nothing else."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from PIL import Image


def png(path: Path, size: tuple[int, int], color: tuple[int, int, int]) -> bytes:
    """A ``size`` PNG of one ``color`` written at ``path`` (its folders made); its bytes."""
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())
    return out.getvalue()


def jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file, blank lines left out."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
