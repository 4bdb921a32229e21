"""A run's curves: one CSV row per optimiser step (appended and flushed, so a kill -9 loses at most
the row being written), and a PNG drawn from it with PIL (no plotting library needed)."""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

__all__ = ["COLUMNS", "CurveLog", "draw_curves", "read_curve"]

COLUMNS = (
    "step", "minutes", "reward_mean", "reward_std", "success", "loss", "kl", "clip_fraction", "policy_version",
    "steps_per_s", "episodes", "buffer_size", "groups_dropped", "stale_dropped", "eval_success", "eval_reward",
)  # fmt: skip


def read_curve(path: Path) -> list[dict[str, Any]]:
    """The rows of a curve CSV as numbers (empty cells as None); a torn last line is left out."""
    if not path.exists():
        return []
    rows = []
    with path.open(newline="") as handle:
        for raw in csv.DictReader(handle):
            if None in raw.values() or len(raw) != len(COLUMNS):  # a line cut short by a kill
                continue
            rows.append({k: (float(v) if v not in ("", None) else None) for k, v in raw.items()})
    return rows


class CurveLog:
    """Appends rows to ``curve.csv``. On resume, rows after the checkpoint's step are dropped: they
    belong to steps that will be trained again."""

    def __init__(self, path: Path, *, keep_until: int | None = None) -> None:
        self.path = path
        rows = read_curve(path)
        if keep_until is not None:
            rows = [r for r in rows if r["step"] is not None and r["step"] <= keep_until]
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS)
            writer.writeheader()
            writer.writerows({k: _cell(r.get(k)) for k in COLUMNS} for r in rows)
        os.replace(tmp, path)
        self.rows = rows

    def add(self, row: dict[str, Any]) -> None:
        unknown = set(row) - set(COLUMNS)
        if unknown:
            raise ValueError(f"curve columns {sorted(unknown)} are not in {COLUMNS}")
        with self.path.open("a", newline="") as handle:
            csv.DictWriter(handle, COLUMNS).writerow({k: _cell(row.get(k)) for k in COLUMNS})
            handle.flush()
            os.fsync(handle.fileno())
        self.rows.append(row)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


_COLOURS = {"reward_mean": (31, 119, 180), "success": (44, 160, 44), "eval_success": (214, 39, 40)}


def draw_curves(
    rows: Sequence[dict[str, Any]], path: Path, *, title: str = "", series: Sequence[str] = tuple(_COLOURS)
) -> None:
    """Reward, train success and held-out success against minutes, on [0, 1], as a PNG."""
    width, height, margin = 800, 450, 50
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    x_max = max((r["minutes"] or 0.0 for r in rows), default=0.0) or 1.0

    def at(x: float, y: float) -> tuple[float, float]:
        return margin + x / x_max * (width - 2 * margin), height - margin - y * (height - 2 * margin)

    draw.rectangle([margin, margin, width - margin, height - margin], outline=(0, 0, 0))
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        _, y = at(0, tick)
        draw.line([margin - 4, y, margin, y], fill=(0, 0, 0))
        draw.text((8, y - 6), f"{tick:.2f}", fill=(0, 0, 0))
    for tick in range(math.floor(x_max) + 1):
        x, _ = at(tick, 0)
        draw.line([x, height - margin, x, height - margin + 4], fill=(0, 0, 0))
        if x_max <= 20 or tick % 5 == 0:
            draw.text((x - 4, height - margin + 8), str(tick), fill=(0, 0, 0))
    draw.text((width / 2 - 20, height - 20), "minutes", fill=(0, 0, 0))
    draw.text((margin, 15), title, fill=(0, 0, 0))
    for index, name in enumerate(series):
        colour = _COLOURS.get(name, (0, 0, 0))
        points = [at(r["minutes"] or 0.0, r[name]) for r in rows if r.get(name) is not None]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        for x, y in points if name == "eval_success" else []:
            draw.ellipse([x - 3, y - 3, x + 3, y + 3], outline=colour, width=2)
        draw.text((width - margin - 150, margin + 8 + 14 * index), name, fill=colour)
    tmp = path.with_suffix(".tmp.png")
    image.save(tmp)
    os.replace(tmp, path)
