"""ScreenSpot and ScreenSpot-Pro: a benchmark of (screenshot, instruction, target box) triples.

Each annotation file is a JSON array of entries (``img_filename``, ``bbox`` in pixels,
``instruction``, ``platform``/``application``/``ui_type`` for Pro, ``data_type``/``data_source`` for
the original). Every entry gives two ``test`` rows, one per documented variant of the question:
``grounding.bbox`` (answer: the box) and ``grounding.point`` (answer: the box centre, which the
benchmark scores as a hit). ScreenSpot-Pro boxes are ``[x1, y1, x2, y2]``; the original
ScreenSpot (entries with ``data_source`` and no ``img_size``, as SeeClick ships them) writes
``[x, y, w, h]``. Box corners are pixel *edges*, so they scale by ``v * 1000 / size`` over the
annotated image size (``img_size`` when given): a box that leaves the image gives coordinates past
1000, and the writer drops the row and counts it, rather than clamping it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cua_core import Register
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import EpisodeError, find_image, grounding_call, image_size, read_image, user_turn
from cua_data.hookspecs import hookimpl
from cua_data.schema import LiteSample, Metadata

_PLATFORMS = {"windows": "desktop", "macos": "desktop", "mac": "desktop", "linux": "desktop", "ubuntu": "desktop"}
_PLATFORMS |= {"android": "mobile", "ios": "mobile", "web": "browser"}
_OS = {"mac": "macos", "macos": "macos", "windows": "windows", "linux": "linux", "ubuntu": "ubuntu"}
_OS |= {"android": "android", "ios": "ios"}
_SOURCES = {"screenspot_pro": "likaixin/ScreenSpot-Pro", "screenspot": "njucckevin/SeeClick"}  # where each is published
_EXTRAS = ("application", "group", "ui_type", "data_type", "data_source", "language", "gt_type")


def _platform(entry: dict[str, Any], path: Path) -> tuple[str, str | None]:
    name = str(entry.get("platform") or entry.get("data_source") or "").lower()
    if name in _PLATFORMS:
        return _PLATFORMS[name], _OS.get(name)
    for word in ("mobile", "desktop", "web"):  # SeeClick's screenspot_{mobile,desktop,web}.json
        if word in path.stem.lower():
            return {"web": "browser"}.get(word, word), None
    return "desktop", None


def _box(entry: dict[str, Any]) -> list[float] | None:
    box = entry.get("bbox")
    if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, int | float) for v in box)):
        return None
    if "img_size" not in entry and "data_source" in entry:
        box = [box[0], box[1], box[0] + box[2], box[1] + box[3]]  # the original ScreenSpot: x, y, w, h
    return [float(v) for v in box] if box[2] > box[0] and box[3] > box[1] else None


def _rows(entry: dict[str, Any], index: int, path: Path, report: ConversionReport) -> Iterator[Converted]:
    report.records += 1
    box, instruction = _box(entry), entry.get("instruction")
    if box is None or not isinstance(instruction, str) or not instruction.strip():
        report.skip("malformed annotation (bbox or instruction)", json.dumps(entry)[:300])
        return
    folders = [path.parent.parent / "images", path.parent / "images", path.parent]
    found = find_image(str(entry.get("img_filename", "")), folders)
    if found is None:
        report.skip("missing image", str(entry.get("img_filename")))
        return
    image = read_image(found)
    try:
        actual = image_size(image)
    except EpisodeError:
        report.skip("corrupt image", str(found))
        return
    size: Any = entry.get("img_size")
    given = isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)
    width, height = (size[0], size[1]) if given else actual
    scaled = [v * 1000 / s for v, s in zip(box, (width, height) * 2, strict=True)]
    centre = [(scaled[0] + scaled[2]) / 2, (scaled[1] + scaled[3]) / 2]
    platform, os_name = _platform(entry, path)
    variant = "screenspot" if "img_size" not in entry and "data_source" in entry else "screenspot_pro"
    ident = f"{variant}_{path.stem}_{index}"
    for tool, coordinate in (("bbox", scaled), ("point", centre)):
        others: dict[str, Any] = {"id": f"{ident}_{tool}", "resolution": list(actual), "os": os_name}
        others |= {"source": _SOURCES[variant], "source_id": str(entry.get("id") or f"{path.stem}_{index}")}
        others |= {key: entry[key] for key in _EXTRAS if entry.get(key) is not None}
        messages = [user_turn(instruction.strip(), 0), grounding_call(tool, coordinate)]
        sample = LiteSample(Metadata(platform, f"grounding.{tool}", others=others), messages, [image])
        yield Converted(sample, "test", variant)


def convert_screenspot(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """``src``: an annotation file, or a folder with ``annotations/*.json`` and ``images/``."""
    if src.is_dir():
        root = src / "annotations" if (src / "annotations").is_dir() else src
        files = sorted(root.rglob("*.json"))
    else:
        files = [src]
    for path in files:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            report.records += 1
            report.skip("invalid JSON", f"{path}: {exc}")
            continue
        for index, entry in enumerate(entries if isinstance(entries, list) else [entries]):
            if isinstance(entry, dict):
                yield from _rows(entry, index, path, report)
            else:
                report.records += 1
                report.skip("malformed annotation (bbox or instruction)", json.dumps(entry)[:300])


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "screenspot",
        convert_screenspot,
        description="ScreenSpot / ScreenSpot-Pro annotations: grounding.bbox and grounding.point rows (split test)",
    )
