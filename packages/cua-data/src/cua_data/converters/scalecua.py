"""ScaleCUA (OpenGVLab/ScaleCUA-Data, zyliu/ScaleCUA-Data-Understanding): InternVL SFT JSONL.

Every record is one ``human -> gpt`` turn with ``width``/``height``; the gpt answer's tags say the
task: ``<operation>`` + ``<action>`` is a navigation step (history as "Previous operations" text),
``<action>`` alone a grounding action, ``<ref>``/``<box>`` and ``<ref>``/``<point>`` bbox and point
grounding (already ``[0, 1000]``, copied as given), anything else understanding. Navigation steps
of one task are re-joined into a ``use`` row (a step whose history count does not continue an open
trajectory is skipped as a gap). Actions use ScaleCUA's grammar: bare pyautogui-like calls with
relative coordinates, ``scroll(clicks<0)`` scrolling *up* (its documented sign), ``swipe`` on the
web. Platform and OS come from the meta key (file name) keywords, else from the screen's aspect.
A ``meta.json`` (entry -> ``root``, ``annotation``) may be given; its images resolve under ``root``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_core import Register
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import (
    EpisodeError,
    Step,
    call_id,
    episode,
    find_image,
    grounding_call,
    read_image,
    user_turn,
)
from cua_data.converters.pyautogui import CodeContext, parse_code
from cua_data.hookspecs import hookimpl
from cua_data.lite_actions import to_lite_tool_call
from cua_data.schema import LiteSample, Metadata

_KEYWORDS: tuple[tuple[str, str, str | None], ...] = (
    ("iphone", "mobile", "ios"), ("ios", "mobile", "ios"), ("android", "mobile", "android"),
    ("windows", "desktop", "windows"), ("mac", "desktop", "macos"), ("macos", "desktop", "macos"),
    ("ubuntu", "desktop", "ubuntu"), ("web", "browser", None),
)  # fmt: skip
_TAG = re.compile(r"<(think|operation|action)>\s*(.*?)\s*</\1>", re.S)
_GROUND = re.compile(r"<ref>(.*?)</ref>\s*<(box|point)>\s*\[\[([^\]]*)\]\]\s*</\2>", re.S)
_TASK = re.compile(r"Task:\s*(.*?)\s*\n\s*\n\s*Previous operations:", re.S)


@dataclass
class _Entry:
    """One annotation file: its key (meta entry or file name), image root, platform and OS."""

    key: str
    path: Path
    folders: list[Path]
    open: dict[str, list[tuple[int, Any, Step, bool]]] = field(default_factory=dict)  # task -> steps


def _platform(key: str, record: dict[str, Any]) -> tuple[str, str | None]:
    tokens = re.split(r"[^a-z]+", key.lower())
    for word, platform, os_name in _KEYWORDS:
        if word in tokens:
            return platform, os_name
    width, height = record.get("width"), record.get("height")
    portrait = isinstance(width, int) and isinstance(height, int) and height > width
    return ("mobile" if portrait else "desktop"), None


def _variant(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", key).lstrip("_.-") or "default"


def _load(entry: _Entry, line: int, record: Any, report: ConversionReport) -> bytes | list[bytes] | None:
    names = record.get("image")
    found = [find_image(n, entry.folders) for n in (names if isinstance(names, list) else [names])]
    if not found or any(p is None for p in found):
        report.skip("missing image", f"{entry.key}:{line}: {names}")
        return None
    images = [read_image(p) for p in found if p is not None]
    return images if isinstance(names, list) else images[0]


def _others(entry: _Entry, ident: str, record: dict[str, Any], os_name: str | None, source: str) -> dict[str, Any]:
    width, height = record.get("width"), record.get("height")
    size = [width, height] if isinstance(width, int) and isinstance(height, int) else None
    return {"id": f"{entry.key}_{ident}", "resolution": size, "os": os_name, "source": source, "source_id": entry.key}


def _single(entry: _Entry, line: int, record: dict[str, Any], report: ConversionReport) -> Iterator[Converted]:
    """A grounding or understanding record: one row, or one skip."""
    human, answer = _turns(record)
    platform, os_name = _platform(entry.key, record)
    question = human.replace("<image>", "").strip()
    source = "OpenGVLab/ScaleCUA-Data"
    grounds = _GROUND.findall(answer)
    tags = dict(_TAG.findall(answer))
    if len(grounds) > 1:
        report.skip("several targets in one answer (detect-all)", answer[:300])
        return
    if grounds:
        description, tool, values = grounds[0]
        task_type = f"grounding.{'bbox' if tool == 'box' else 'point'}"
        try:
            coordinate = [float(v) for v in values.split(",")]
        except ValueError:
            report.skip("malformed grounding answer", answer[:300])
            return
        tool = "bbox" if tool == "box" else "point"
        messages = [user_turn(f"Locate the element: {description.strip()}", 0), grounding_call(tool, coordinate)]
    elif "action" in tags:
        parsed = parse_code(tags["action"], CodeContext(platform, scroll_up_positive=False, lite=True))
        for miss in parsed.unmapped:
            report.unmapped(miss.form, miss.detail)
        if parsed.unmapped or not parsed.actions or parsed.end is not None:
            report.skip("unmapped action" if parsed.unmapped else "not a single grounding action", tags["action"])
            return
        task_type = "grounding.action"
        call = to_lite_tool_call(parsed.actions, platform, call_id(0))
        messages = [user_turn(question, 0), {"role": "assistant", "tool_calls": [call]}]
    elif answer.strip():
        task_type, source = "understanding", "zyliu/ScaleCUA-Data-Understanding"
        messages = [user_turn(question, 0), {"role": "assistant", "content": [{"type": "text", "text": answer}]}]
    else:
        report.skip("empty assistant response", question[:300])
        return
    images = _load(entry, line, record, report)
    if images is None:
        return
    images = images if isinstance(images, list) else [images]
    messages[0]["content"][1:1] = [{"type": "image", "index": i} for i in range(1, len(images))]
    others = _others(entry, str(line), record, os_name, source)
    sample = LiteSample(Metadata(platform, task_type, others=others), messages, list(images))
    yield Converted(sample, "train", _variant(entry.key))


def _turns(record: dict[str, Any]) -> tuple[str, str]:
    turns = [t for t in record.get("conversations") or [] if isinstance(t, dict)]
    human = next((str(t.get("value", "")) for t in turns if t.get("from") == "human"), "")
    answer = next((str(t.get("value", "")) for t in turns if t.get("from") == "gpt"), "")
    return human, answer


def _navigation(entry: _Entry, line: int, record: dict[str, Any], report: ConversionReport) -> Iterator[Converted]:
    """Add a step to its task's open trajectory; a step with no history starts a new one."""
    human, answer = _turns(record)
    task = _TASK.search(human)
    done = len(re.findall(r"^Step \d+:", human.split("Previous operations:")[-1], re.M))
    key = task.group(1) if task else ""
    if done == 0 and key in entry.open:
        yield from _close(entry, key, report)
    lane = entry.open.setdefault(key, []) if done == 0 else entry.open.get(key)
    if lane is None or done != len(lane) or not task:
        report.skip("history gap: no open trajectory continues here", f"{entry.key}:{line}")
        return
    tags = dict(_TAG.findall(answer))
    platform, _os = _platform(entry.key, record)
    parsed = parse_code(tags.get("action", ""), CodeContext(platform, scroll_up_positive=False, lite=True))
    step = Step(b"", parsed.actions, parsed.end, tags.get("operation"), tags.get("think"))
    lane.append((line, record, step, not parsed.unmapped))  # an unmapped step skips the trajectory
    for miss in parsed.unmapped:
        report.unmapped(miss.form, miss.detail)


def _close(entry: _Entry, key: str, report: ConversionReport) -> Iterator[Converted]:
    lane = entry.open.pop(key)
    line, first, _step, _ok = lane[0]
    platform, os_name = _platform(entry.key, first)
    try:
        if not all(ok for *_rest, ok in lane):
            raise EpisodeError("unmapped action")
        for _line, record, step, _ok in lane:
            names = record.get("image")
            path = find_image(names, entry.folders) if isinstance(names, str) else None
            if path is None:
                raise EpisodeError("missing image")
            step.image = read_image(path)
        others = _others(entry, f"traj_{line}", first, os_name, "OpenGVLab/ScaleCUA-Data")
        sample = episode(platform, key, [step for _l, _r, step, _ok in lane], others)
    except EpisodeError as exc:
        for line_number, *_rest in lane:
            report.skip(str(exc), f"{entry.key}:{line_number}")
        return
    yield Converted(sample, "train", _variant(entry.key))


def _entries(src: Path, report: ConversionReport) -> list[_Entry]:
    files = sorted(src.rglob("*.json*")) if src.is_dir() else [src]
    entries, claimed = [], set()
    for path in (p for p in files if p.suffix == ".json"):
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            meta = None
        if not (isinstance(meta, dict) and all(isinstance(v, dict) and "annotation" in v for v in meta.values())):
            report.records += 1
            report.skip("not a ScaleCUA meta.json (annotations are JSONL)", str(path))
            continue
        for key, value in meta.items():
            annotation = path.parent / str(value["annotation"])
            if not annotation.is_file():
                report.records += 1
                report.skip("meta entry: annotation file missing", f"{key}: {annotation}")
                continue
            claimed.add(annotation.resolve())
            entries.append(_Entry(key, annotation, [path.parent / str(value.get("root", ""))]))
    for path in (p for p in files if p.suffix == ".jsonl" and p.resolve() not in claimed):
        entries.append(_Entry(path.stem, path, [path.parent, path.parent / "images"]))
    return entries


def convert_scalecua(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Each annotation JSONL under ``src`` (directly, or through a meta.json)."""
    for entry in _entries(src, report):
        for line, text in enumerate(entry.path.read_text(encoding="utf-8").splitlines()):
            if not text.strip():
                continue
            report.records += 1
            try:
                record = json.loads(text)
            except ValueError as exc:
                report.skip("invalid JSON", f"{entry.key}:{line}: {exc}")
                continue
            if not isinstance(record, dict):
                report.skip("not a ScaleCUA record", text[:300])
            elif "<operation>" in _turns(record)[1]:
                yield from _navigation(entry, line, record, report)
            else:
                yield from _single(entry, line, record, report)
        for key in list(entry.open):
            yield from _close(entry, key, report)


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "scalecua",
        convert_scalecua,
        description="ScaleCUA SFT JSONL: grounding (action/bbox/point), understanding, navigation re-joined into use",
    )
