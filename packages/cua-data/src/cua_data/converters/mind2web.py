"""Multimodal-Mind2Web (HF osunlp/Multimodal-Mind2Web): web episodes as ``browser/use`` rows.

No real Mind2Web record was available when this was written: it follows the format doc CUA-Lite
ships (shared/fixtures/datasets/mind2web/NATIVE_FORMAT.from_cua-lite_doc.md), and its tests run on
parquet rows built from the documented fields.

The ``<split>-*.parquet`` shards hold one row per *step*. The doc groups steps by
``annotation_id`` and orders them by ``target_action_index``, so each episode becomes one ``use``
row the way CUA-Lite builds it: ``confirmed_task`` is the instruction, each step's screenshot is
the previous step's result, ``target_action_reprs`` is the action description, and the row ends on
an unanswered last call (the data has no termination signal). Shards are read in record batches of
only the needed columns (never the HTML); only the current episode's steps are held, so an
episode's rows must be adjacent, which a first pass over ``annotation_id`` alone checks.

``operation.original_op`` maps to unified actions at the centre of
``pos_candidates[0].attributes.bounding_box_rect`` (``"x,y,w,h"`` in page pixels):

======== ======================================================================
CLICK    click at the centre
HOVER    mouse_move to the centre
TYPE     click at the centre, then type ``value``
SELECT   click at the centre, then type ``value`` and press Enter: the unified space has no
         "choose option" action, and on a focused drop-down typing the option's label selects
         it (type-ahead) and Enter commits it
ENTER    key Enter (no target needed: the focused element receives it)
======== ======================================================================

The screenshots are full pages, so the centre is normalised by the screenshot's pixel size to
``[0, 1000]``; a centre outside the screenshot skips the episode with a named reason instead of
being clamped. One unusable step skips its whole episode (each screenshot is also the previous
step's result): that step is counted under its own reason, its siblings under
``another step of the episode was skipped``. Splits come from the shard name: ``train`` -> train,
``test_task`` / ``test_website`` / ``test_domain`` -> test (variant ``mind2web_<split>``); a file
named otherwise is read as train.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from cua_core import Action, Click, KeyPress, MouseMove, Point, Register, TypeText
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import EpisodeError, Step, episode, image_size
from cua_data.hookspecs import hookimpl

_SOURCE = "osunlp/Multimodal-Mind2Web"
_SPLITS = {"train": "train", "test_task": "test", "test_website": "test", "test_domain": "test"}
_REQUIRED = ("annotation_id", "target_action_index", "confirmed_task", "operation", "pos_candidates", "screenshot")
_OPTIONAL = ("target_action_reprs", "website", "domain", "subdomain")
_BATCH = 16  # rows per record batch: one full-page screenshot can be megabytes
_SIBLING = "another step of the episode was skipped"


def _placement(path: Path) -> tuple[str, str]:
    """Split and variant from the shard name, ``train-00000-of-00027.parquet`` -> train."""
    name = re.split(r"[-.]", path.name, maxsplit=1)[0]
    if name not in _SPLITS:
        return "train", "mind2web"
    return _SPLITS[name], "mind2web" if name == "train" else f"mind2web_{name}"


def _json(value: Any, what: str) -> Any:
    """A field the shards store as a JSON string (or already decoded, as a struct or list)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise EpisodeError(f"malformed {what}") from None
    return value


def _box(row: dict[str, Any]) -> list[float]:
    candidates = row.get("pos_candidates")
    if not isinstance(candidates, list) or not candidates:
        raise EpisodeError("no positive candidate (no target box)")
    candidate = _json(candidates[0], "pos_candidates")
    attributes = _json(candidate.get("attributes") if isinstance(candidate, dict) else None, "candidate attributes")
    rect = attributes.get("bounding_box_rect") if isinstance(attributes, dict) else None
    try:
        box = [float(v) for v in str(rect).split(",")]
    except ValueError:
        box = []
    if len(box) != 4 or not all(math.isfinite(v) for v in box):
        raise EpisodeError("malformed bounding_box_rect")
    return box


def _target(row: dict[str, Any], size: tuple[int, int]) -> Point:
    x, y, w, h = _box(row)
    if w <= 0 or h <= 0:
        raise EpisodeError("empty target box")
    width, height = size
    cx, cy = x + w / 2, y + h / 2
    if not (0 <= cx < width and 0 <= cy < height):
        raise EpisodeError("target box outside the screenshot")
    return Point(cx * 1000 / width, cy * 1000 / height)


def _actions(op: str, value: Any, row: dict[str, Any], size: tuple[int, int]) -> list[Action]:
    if op == "ENTER":
        return [KeyPress(("enter",))]
    if op in ("TYPE", "SELECT") and not (isinstance(value, str) and value):
        raise EpisodeError(f"{op} without a value")
    point = _target(row, size)
    if op == "CLICK":
        return [Click(point)]
    if op == "HOVER":
        return [MouseMove(point)]
    return [Click(point), TypeText(str(value), press_enter=op == "SELECT")]


def _step(row: dict[str, Any], report: ConversionReport) -> Step:
    operation = _json(row.get("operation"), "operation")
    if not isinstance(operation, dict) or not isinstance(operation.get("original_op"), str):
        raise EpisodeError("malformed operation")
    op = operation["original_op"]
    if op not in ("CLICK", "HOVER", "TYPE", "SELECT", "ENTER"):
        report.unmapped(f"mind2web.{op}", json.dumps(operation)[:300])
        raise EpisodeError("unmapped operation")
    shot = row.get("screenshot")
    image = shot.get("bytes") if isinstance(shot, dict) else shot  # an HF Image struct, or raw bytes
    if not isinstance(image, bytes) or not image:
        raise EpisodeError("missing screenshot")
    actions = _actions(op, operation.get("value"), row, image_size(image))  # every image checked, ENTER's too
    return Step(image, actions, description=str(row.get("target_action_reprs") or "") or None)


def _skip_all(rows: list[dict[str, Any]], reason: str, ident: str, report: ConversionReport) -> None:
    for _row in rows:
        report.skip(reason, ident)


def _episode(
    ident: str, rows: list[dict[str, Any]], expected: int, path: Path, report: ConversionReport
) -> Iterator[Converted]:
    report.records += len(rows)
    if len(rows) != expected:
        _skip_all(rows, "episode's steps are not adjacent in the shards", ident, report)
        return
    try:
        indices = [int(row["target_action_index"]) for row in rows]
    except (TypeError, ValueError):
        _skip_all(rows, "malformed target_action_index", ident, report)
        return
    if sorted(indices) != list(range(len(rows))):
        _skip_all(rows, "incomplete episode: step indices are not 0..n-1", ident, report)
        return
    ordered = [row for _, row in sorted(zip(indices, rows, strict=True), key=lambda pair: pair[0])]
    steps, failed = [], 0
    for index, row in enumerate(ordered):
        try:
            steps.append(_step(row, report))
        except EpisodeError as exc:  # every step is checked, so each problem is counted
            report.skip(str(exc), f"{ident} step {index}")
            failed += 1
    task = str(ordered[0].get("confirmed_task") or "").strip()
    if failed or not task:
        reason = _SIBLING if failed else "empty confirmed_task"
        _skip_all(ordered[: len(ordered) - failed], reason, ident, report)
        return
    others: dict[str, Any] = {"id": f"mind2web_{ident}", "os": None, "source": _SOURCE, "source_id": ident}
    others |= {key: ordered[0][key] for key in ("website", "domain", "subdomain") if ordered[0].get(key)}
    try:
        sample = episode("browser", task, steps, others)
    except EpisodeError as exc:
        _skip_all(rows, str(exc), ident, report)
        return
    split, variant = _placement(path)
    yield Converted(sample, split, variant)


def _batches(path: Path, columns: list[str]) -> Iterator[list[dict[str, Any]]]:
    file = pq.ParquetFile(path)
    wanted = [name for name in columns if name in file.schema_arrow.names]
    for batch in file.iter_batches(batch_size=_BATCH, columns=wanted):
        yield batch.to_pylist()


def _shape(path: Path, report: ConversionReport) -> bool:
    """Whether ``path`` is a readable shard with the documented columns; if not, its rows are counted."""
    try:
        file = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        report.records += 1
        report.skip("unreadable parquet", f"{path}: {exc}")
        return False
    missing = [name for name in _REQUIRED if name not in file.schema_arrow.names]
    for _row in range(file.metadata.num_rows if missing else 0):
        report.records += 1
        report.skip("not a Multimodal-Mind2Web shard (documented columns missing)", f"{path}: {missing}")
    return not missing


def convert_mind2web(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every ``*.parquet`` under ``src`` (or ``src`` itself), in name order."""
    files = sorted(p for p in src.rglob("*.parquet") if p.is_file()) if src.is_dir() else [src]
    files = [path for path in files if _shape(path, report)]
    # The first pass reads the annotation_id column alone: steps per episode, to find split episodes.
    expected: Counter[str] = Counter()
    for path in files:
        for rows in _batches(path, ["annotation_id"]):
            expected.update(str(row["annotation_id"]) for row in rows if row["annotation_id"])
    current: str | None = None
    held: list[dict[str, Any]] = []
    first = Path()
    for path in files:
        for rows in _batches(path, [*_REQUIRED, *_OPTIONAL]):
            for row in rows:
                ident = str(row.get("annotation_id") or "")
                if not ident:
                    report.records += 1
                    report.skip("row without annotation_id", str(row.get("target_action_reprs"))[:300])
                    continue
                if ident != current:
                    if current is not None:
                        yield from _episode(current, held, expected[current], first, report)
                    current, held, first = ident, [], path
                held.append(row)
    if current is not None:
        yield from _episode(current, held, expected[current], first, report)


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "mind2web",
        convert_mind2web,
        description="Multimodal-Mind2Web parquet shards: one browser use row per annotation_id (built from the doc)",
    )
