"""OpenCUA: AgentNet trajectories (HF xlangai/AgentNet, the CoT generator's input) and AgentNetBench.

An AgentNet record is a whole trajectory: ``traj[i]`` holds the screenshot before step i and its
``value`` (``thought``, ``action``, pyautogui ``code`` with relative ``[0, 1]`` coordinates, and
sidecars). It becomes one ``desktop/use`` row the way CUA-Lite builds it: thought -> inline
reasoning, action -> action description, sidecars -> a ``metadata`` part, terminate -> the ending.
One missing image skips the whole trajectory, since each screenshot is also the previous step's
result. AgentNetBench scores every step on its own screenshot, so each step becomes a
``grounding.action`` row (split ``test``) with its low-level instruction as the question.
Inputs that carry no answer (the model's grounding examples) and raw AgentNetTool recordings
(events plus a screen video that is not in the record) are counted as skipped, with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
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
    image_size,
    read_image,
    user_turn,
)
from cua_data.converters.pyautogui import CodeContext, ParsedCode, parse_code
from cua_data.hookspecs import hookimpl
from cua_data.lite_actions import to_lite_tool_call
from cua_data.schema import LiteSample, Metadata

_VARIANTS = {"agentnet_ubuntu_5k": "ubuntu", "agentnet_win_mac_18k": "win_mac"}
_OS = {"windows": "windows", "darwin": "macos", "macos": "macos", "mac": "macos", "ubuntu": "ubuntu", "linux": "ubuntu"}
_QUALITY = ("domain", "task_completed", "alignment_score", "efficiency_score", "task_difficulty")
_SIDECARS = ("observation", "reflection", "last_step_correct", "last_step_redundant")
_RECORDING = "raw AgentNetTool recording: its screenshots are frames of a screen video the record does not hold"


def _records(path: Path, report: ConversionReport) -> Iterator[Any]:
    text = path.read_text(encoding="utf-8")
    chunks = [line for line in text.splitlines() if line.strip()] if path.suffix == ".jsonl" else [text]
    for chunk in chunks:
        try:
            data = json.loads(chunk)
        except ValueError as exc:
            report.records += 1
            report.skip("invalid JSON", f"{path}: {exc}")
            continue
        yield from data if isinstance(data, list) else [data]


def _folders(path: Path) -> list[Path]:
    # AgentNet ships ubuntu_images/ and win_mac_images/ beside its JSONL; the samples use images/.
    beside = sorted(d for d in path.parent.iterdir() if d.is_dir() and d.name.endswith("_images"))
    return [path.parent, path.parent / "images", *beside]


def _parse(code: Any, report: ConversionReport) -> ParsedCode | None:
    parsed = parse_code(code, CodeContext("desktop", lite=True))
    for miss in parsed.unmapped:
        report.unmapped(miss.form, miss.detail)
    return None if parsed.unmapped else parsed


def _variant(path: Path) -> str:
    return _VARIANTS.get(path.stem) or re.sub(r"[^A-Za-z0-9_.-]", "_", path.stem).lstrip("_.-") or "default"


def _trajectory(record: dict[str, Any], path: Path, seen: set[str], report: ConversionReport) -> Iterator[Converted]:
    report.records += 1
    variant, folders = _variant(path), _folders(path)
    try:
        items = record["traj"]
        if not all(isinstance(item, dict) and isinstance(item.get("value"), dict) for item in items):
            raise EpisodeError("malformed step")
        # Every step's code first, so each unmapped form is counted even when an image is missing too.
        parsed = [_parse(item["value"].get("code"), report) for item in items]
        if any(p is None for p in parsed):
            raise EpisodeError("unmapped action")
        steps = []
        for item, code in zip(items, parsed, strict=True):
            assert code is not None
            value, image = item["value"], find_image(str(item.get("image", "")), folders)
            if image is None:
                raise EpisodeError("missing image")
            sidecar = {key: value[key] for key in _SIDECARS if key in value}
            description, reasoning = value.get("action") or None, value.get("thought") or None
            opencua_step = {"opencua_step": sidecar} if sidecar else None
            steps.append(Step(read_image(image), code.actions, code.end, description, reasoning, opencua_step))
        task = str(record.get("task_id", ""))
        ident = f"agentnet_{variant}_{task}"
        if ident in seen:  # the first occurrence keeps the id, as CUA-Lite's adapter does
            ident = f"{ident}_record_{report.records}"
        seen.add(ident)
        others: dict[str, Any] = {
            "id": ident,
            "os": "ubuntu" if variant == "ubuntu" else None,
            "source": "xlangai/AgentNet",
            "source_id": task,
        }
        others |= {key: record[key] for key in _QUALITY if record.get(key) is not None}
        if not str(record.get("instruction") or "").strip():
            raise EpisodeError("empty instruction")
        sample = episode("desktop", str(record["instruction"]), steps, others)
    except EpisodeError as exc:
        report.skip(str(exc), json.dumps(record)[:300])
        return
    yield Converted(sample, "train", variant)


def _bench(record: dict[str, Any], path: Path, report: ConversionReport) -> Iterator[Converted]:
    task = str(record.get("task_id", ""))
    meta = record.get("meta_info") or {}
    os_name = _OS.get(str(meta.get("system", "")).lower())
    for step in record["steps"]:
        report.records += 1
        number = step.get("step_num")
        parsed = _parse(step.get("action"), report)
        if parsed is None:
            report.skip("unmapped action", str(step.get("action")))
            continue
        if not parsed.actions or parsed.end is not None:
            report.skip("terminate step: not a tool call in a grounding row", str(step.get("action")))
            continue
        found = find_image(str(step.get("image", "")), _folders(path))
        if found is None:
            report.skip("missing image", str(step.get("image")))
            continue
        image = read_image(found)
        monologue = step.get("inner_monologue") or {}
        question = str(monologue.get("low_level_instruction") or record.get("user_task_description") or "")
        others = {
            "id": f"agentnetbench_{task}_{number}",
            "resolution": list(image_size(image)),
            "os": os_name,
            "source": "xlangai/AgentNetBench",
            "source_id": f"{task}/{number}",
            "task": record.get("user_task_description"),
            "milestone": step.get("milestone"),
        }
        messages = [
            user_turn(question, 0),
            {"role": "assistant", "tool_calls": [to_lite_tool_call(parsed.actions, "desktop", call_id(0))]},
        ]
        sample = LiteSample(Metadata("desktop", "grounding.action", others=others), messages, [image])
        yield Converted(sample, "test", "agentnetbench")


def _recordings(src: Path) -> list[Path]:
    """AgentNetTool session folders: metadata.json beside the recorder's event logs."""
    return [
        meta.parent
        for meta in sorted(src.rglob("metadata.json"))
        if any(meta.parent.glob("*events*.jsonl")) or any(meta.parent.glob("event_buffer*.jsonl"))
    ]


def convert_opencua(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every ``*.json``/``*.jsonl`` under ``src`` (or ``src`` itself), by the shape of its records."""
    recordings = _recordings(src) if src.is_dir() else []
    for folder in recordings:
        report.records += 1
        report.skip(_RECORDING, str(folder))
    if src.is_dir():
        files = sorted(p for p in src.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())
        files = [p for p in files if not any(folder in p.parents for folder in recordings)]
    else:
        files = [src]
    seen: set[str] = set()
    for path in files:
        for record in _records(path, report):
            if isinstance(record, dict) and isinstance(record.get("traj"), list):
                yield from _trajectory(record, path, seen, report)
            elif isinstance(record, dict) and isinstance(record.get("steps"), list):
                yield from _bench(record, path, report)
            else:
                report.records += 1
                if isinstance(record, dict) and {"image", "instruction"} <= record.keys():
                    report.skip("grounding inference input: no target to learn", str(record.get("image")))
                else:
                    report.skip("not an OpenCUA record", json.dumps(record)[:300])


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "opencua",
        convert_opencua,
        description="OpenCUA AgentNet trajectories (desktop use rows) and AgentNetBench steps (grounding.action, test)",
    )
