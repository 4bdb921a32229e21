"""Aguvis (xlangai/aguvis-stage1, -stage2): pyautogui grounding pairs and per-step trajectories.

Stage 1 records pack one or more ``human -> gpt`` pairs on a screenshot; each pair becomes a
``grounding.action`` row (id ``aguvis_<subset>_<record>_<pair>``, as CUA-Lite's). Stage 2 stores
one record per step, the action split over two gpt turns (``Action: <desc>`` then the code);
consecutive steps of one goal are joined into a ``use`` row. The sub-dataset (the JSON file's name)
gives the platform and the variant; coordinates are relative ``[0, 1]``. Images are looked up where
the stage YAML's ``images_folder`` says, else in ``<name>/images``, ``images`` or beside the JSON.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

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

# File stem -> (stage, platform, variant), from aguvis data/stage{1,2}.yaml and CUA-Lite's table.
_SUBSETS: dict[str, tuple[int, str, str]] = {
    "seeclick": (1, "browser", "seeclick"),
    "seeclick_mi": (1, "browser", "seeclick_mi"),
    "guienv": (1, "browser", "guienv"),
    "webui350k": (1, "browser", "webui"),
    "omniact": (1, "desktop", "omniact"),
    "omniact_fix": (1, "desktop", "omniact"),
    "widget_captioning": (1, "mobile", "widget_captioning"),
    "ricosca": (1, "mobile", "ricosca"),
    "ui_refexp": (1, "mobile", "ui_refexp"),
    "ricoig16k": (1, "mobile", "rico_icon"),
}
for _stem in ("mind2web-l1", "mind2web-l2", "guiact-web-single", "guiact-web-multi-l1", "guiact-web-multi-l2"):
    _SUBSETS[_stem] = (2, "browser", _stem)
for _stem in ("miniwob-l1", "miniwob-l2", "guide"):
    _SUBSETS[_stem] = (2, "browser", _stem)
for _stem in (
    "coat",
    "android_control",
    "gui-odyssey-l1",
    "gui-odyssey-l2",
    "amex-l1",
    "amex-l2",
    "aitw-l1",
    "aitw-l2",
):
    _SUBSETS[_stem] = (2, "mobile", _stem)
_SOURCE = {1: "xlangai/aguvis-stage1", 2: "xlangai/aguvis-stage2"}
_INSTRUCTION = re.compile(r"Instruction:\s*(.*?)\s*(?:\n\s*\n|Previous actions:|$)", re.S)
_HISTORY = re.compile(r"Previous actions:\s*(.*)$", re.S)


def _records(path: Path) -> list[Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and "conversations" not in data:
        # A documentation transcription: named example records beside notes.
        return [value for value in data.values() if isinstance(value, dict) and "conversations" in value]
    return [data]


def _image_folders(path: Path) -> list[Path]:
    folders = []
    for stage_yaml in sorted(path.parent.glob("stage*.yaml")):
        config = yaml.safe_load(stage_yaml.read_text(encoding="utf-8")) or {}
        for entry in config.get("datasets") or []:
            if isinstance(entry, dict) and Path(str(entry.get("json_path", ""))).stem == path.stem:
                folders.append(path.parent / str(entry.get("images_folder", "")))
    return [*folders, path.parent / path.stem / "images", path.parent / path.stem, path.parent / "images", path.parent]


def _turns(record: Any) -> list[tuple[str, str]]:
    turns = record.get("conversations") if isinstance(record, dict) else None
    if not isinstance(turns, list):
        return []
    return [(str(t.get("from")), str(t.get("value", ""))) for t in turns if isinstance(t, dict)]


def _stage_of(turns: list[tuple[str, str]]) -> int:
    roles = [role for role, _ in turns]
    two_gpt = any(a == b == "gpt" for a, b in itertools.pairwise(roles))
    return 2 if "system" in roles or two_gpt or any("Previous actions" in v for _, v in turns) else 1


@dataclass
class _Subset:
    """One sub-dataset file: where its images are, what platform and variant its rows get."""

    platform: str
    variant: str
    folders: list[Path]
    report: ConversionReport

    def parse(self, code: str) -> ParsedCode | None:
        parsed = parse_code(code, CodeContext(self.platform, lite=True))
        for miss in parsed.unmapped:
            self.report.unmapped(miss.form, miss.detail)
        return None if parsed.unmapped else parsed

    def others(self, ident: str, stage: int, source_id: str) -> dict[str, Any]:
        os_name = "android" if self.platform == "mobile" else None
        return {"id": f"aguvis_{self.variant}_{ident}", "os": os_name, "source": _SOURCE[stage], "source_id": source_id}


def _grounding(record: Any, turns: list[tuple[str, str]], index: int, sub: _Subset) -> Iterator[Converted]:
    names = record.get("image")
    pairs = [(h, g) for (role, h), (role2, g) in itertools.pairwise(turns) if (role, role2) == ("human", "gpt")]
    for pair, (human, code) in enumerate(pairs):
        sub.report.records += 1
        parsed = sub.parse(code)
        if parsed is None:
            sub.report.skip("unmapped action", code)
            continue
        if not parsed.actions or parsed.end is not None:
            sub.report.skip("not a single grounding action", code)
            continue
        name = names[pair] if isinstance(names, list) and pair < len(names) else names
        path = find_image(name, sub.folders) if isinstance(name, str) else None
        if path is None:
            sub.report.skip("missing image", str(name))
            continue
        image = read_image(path)
        others = sub.others(f"{index}_{pair}", 1, str(record.get("id", index)))
        others["resolution"] = list(image_size(image))
        messages = [
            user_turn(human.replace("<image>", "").strip(), 0),
            {"role": "assistant", "tool_calls": [to_lite_tool_call(parsed.actions, sub.platform, call_id(0))]},
        ]
        sample = LiteSample(Metadata(sub.platform, "grounding.action", others=others), messages, [image])
        yield Converted(sample, "train", sub.variant)


def _monologue(texts: list[str]) -> tuple[str | None, str | None]:
    """(reasoning, description) from the gpt turns before the code (COAT adds a Thought)."""
    text = "\n".join(texts).strip()
    thought = re.search(r"Thought:\s*(.*?)\s*(?:Action:|$)", text, re.S)
    action = re.search(r"Action:\s*(.*)$", text, re.S)
    return (thought.group(1) or None) if thought else None, (action.group(1).strip() or None) if action else None


_Record = tuple[Any, list[tuple[str, str]]]


def _episodes(records: list[_Record]) -> Iterator[list[_Record]]:
    """Consecutive step records of one goal and one image-name prefix form an episode."""
    current: list[_Record] = []
    key: tuple[str, str] | None = None
    for record, turns in records:
        human = next((v for role, v in turns if role == "human"), "")
        goal, history = _INSTRUCTION.search(human), _HISTORY.search(human)
        fresh = history is None or history.group(1).strip() in ("", "None")
        this = ((goal.group(1) if goal else ""), re.sub(r"_\d+(\.\w+)?$", "", str(record.get("image", ""))))
        if current and (this != key or fresh):
            yield current
            current = []
        key = this
        current.append((record, turns))
    if current:
        yield current


def _use(group: list[_Record], number: int, sub: _Subset) -> Iterator[Converted]:
    sub.report.records += len(group)
    goal = _INSTRUCTION.search(next((v for role, v in group[0][1] if role == "human"), ""))
    steps: list[Step] = []
    try:
        # Every step's code first, so each unmapped form is counted even when an image is missing too.
        codes = [[value for role, value in turns if role == "gpt"] for _record, turns in group]
        parsed = [sub.parse(gpt[-1]) if gpt else None for gpt in codes]
        if any(p is None for p in parsed):
            raise EpisodeError("unmapped action" if all(codes) else "no action turn")
        for (record, _turns), gpt, code in zip(group, codes, parsed, strict=True):
            assert code is not None
            path = find_image(str(record.get("image", "")), sub.folders)
            if path is None:
                raise EpisodeError("missing image")
            reasoning, description = _monologue(gpt[:-1])
            steps.append(Step(read_image(path), code.actions, code.end, description, reasoning))
        if goal is None or not goal.group(1):
            raise EpisodeError("empty goal")
        sample = episode(sub.platform, goal.group(1), steps, sub.others(str(number), 2, str(number)))
    except EpisodeError as exc:
        for record, _turns in group:
            sub.report.skip(str(exc), json.dumps(record)[:300])
        return
    yield Converted(sample, "train", sub.variant)


def convert_aguvis(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every ``*.json`` under ``src`` (or ``src`` itself): stage-1 pairs and stage-2 episodes."""
    for path in sorted(src.rglob("*.json")) if src.is_dir() else [src]:
        try:
            records = _records(path)
        except (ValueError, UnicodeDecodeError) as exc:
            report.records += 1
            report.skip("invalid JSON", f"{path}: {exc}")
            continue
        known = _SUBSETS.get(path.stem)
        variant = known[2] if known else (re.sub(r"[^A-Za-z0-9_.-]", "_", path.stem).lstrip("_.-") or "default")
        stages: dict[int, list[_Record]] = {1: [], 2: []}
        for record in records:
            turns = _turns(record)
            if not turns:
                report.records += 1
                report.skip("not an Aguvis record", json.dumps(record)[:300])
                continue
            stages[known[0] if known else _stage_of(turns)].append((record, turns))
        folders = _image_folders(path)
        for index, (record, turns) in enumerate(stages[1]):
            guess = "mobile" if "mobile." in json.dumps(record) else "desktop"
            yield from _grounding(record, turns, index, _Subset(known[1] if known else guess, variant, folders, report))
        guess = "mobile" if "mobile." in json.dumps([r for r, _ in stages[2]]) else "desktop"
        sub = _Subset(known[1] if known else guess, variant, folders, report)
        for number, group in enumerate(_episodes(stages[2])):
            yield from _use(group, number, sub)


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "aguvis",
        convert_aguvis,
        description="Aguvis stage-1 grounding pairs (grounding.action rows) and stage-2 steps joined into use rows",
    )
