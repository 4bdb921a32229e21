"""AITZ (Android in the Zoo, IMNearth/CoAT): AITW episodes re-annotated with Chain-of-Action-Thought.

An episode is a JSON list of step objects (``<split>/<subset>/<EPISODE>/<EPISODE>.json``, its
screenshots beside it; ``image_path`` is relative to ``<split>/``). Each step carries AITW's action
fields flattened to JSON: ``result_action_type`` (AITW's ``ActionType``), ``result_touch_yx`` and
``result_lift_yx`` (JSON strings ``"[y, x]"`` in ``[0, 1]``, **y first**), ``result_action_text``.
One episode becomes one ``mobile/use`` row (variant: the AITW subset, split ``test`` under a
``test/`` folder, else ``train``); records are counted per step.

Actions: TYPE (3) -> ``type``; BACK (5), HOME (6), ENTER (7) -> ``system_button``; COMPLETE (10)
and IMPOSSIBLE (11) end the row (``Done.``; a failure goes to ``others``). DUAL_POINT (4) is a tap
when touch and lift are within 0.04 normalised (Euclidean, on ``[y, x]``), otherwise a swipe from
touch to lift: the rule and threshold of AITW's ``action_matching.is_tap_action``
(``_SWIPE_DISTANCE_THRESHOLD = 0.04``, google-research ``android_in_the_wild``, copied into CoAT's
``coat/action_utils.py``). A tap is placed at the touch point, as AITW's tap matching compares
touch points. Points become ``[x * 1000, y * 1000]``.

CoAT annotations: ``coat_action_think`` -> inline reasoning, ``coat_action_desc`` -> action
description, ``coat_screen_desc`` and ``coat_action_result`` -> a ``metadata`` part
(``aitz_step``). As in the other trajectory converters, one missing screenshot skips the episode
(each screenshot is also the previous step's result); every step of it is counted.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cua_core import ActionError, Register
from cua_core import actions as ua
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import EpisodeError, Step, episode, find_image, read_image
from cua_data.hookspecs import hookimpl

_TAP_THRESHOLD = 0.04  # AITW action_matching._SWIPE_DISTANCE_THRESHOLD
_BUTTONS: dict[int, ua.SystemButtonName] = {5: "back", 6: "home", 7: "enter"}
_ENDS: dict[int, ua.Done | ua.Fail] = {10: ua.Done(), 11: ua.Fail()}
_SIDECARS = ("coat_screen_desc", "coat_action_result")
_SOURCE = "IMNearth/CoAT"


class _Unmapped(Exception):
    def __init__(self, form: str, detail: str) -> None:
        super().__init__(detail)
        self.form = form


def _yx(value: Any, label: str) -> tuple[float, float]:
    """AITW's ``[y, x]`` (a JSON string in AITZ, a list in other dumps), checked to lie on the screen."""
    try:
        pair = json.loads(value) if isinstance(value, str) else value
        y, x = (float(v) for v in pair)
    except (ValueError, TypeError) as exc:
        raise _Unmapped("aitz DUAL_POINT: malformed point", f"{label}={value!r}") from exc
    if not (0 <= y <= 1 and 0 <= x <= 1):
        raise _Unmapped("aitz DUAL_POINT: coordinate outside the screen", f"{label}={value!r}")
    return y, x


def _action(step: dict[str, Any]) -> tuple[list[ua.Action], ua.Done | ua.Fail | None]:
    kind = step.get("result_action_type")
    if kind == 4:
        touch = _yx(step.get("result_touch_yx"), "result_touch_yx")
        lift = _yx(step.get("result_lift_yx"), "result_lift_yx")
        start = ua.Point(touch[1] * 1000, touch[0] * 1000)
        if math.dist(touch, lift) <= _TAP_THRESHOLD:
            return [ua.Tap(start)], None
        return [ua.Swipe(start, ua.Point(lift[1] * 1000, lift[0] * 1000))], None
    if kind == 3:
        text = step.get("result_action_text")
        if not isinstance(text, str) or not text:
            raise _Unmapped("aitz TYPE: no text", repr(text))
        return [ua.TypeText(text)], None
    if isinstance(kind, int) and kind in _BUTTONS:
        return [ua.SystemButton(_BUTTONS[kind])], None
    if isinstance(kind, int) and kind in _ENDS:
        return [], _ENDS[kind]
    raise _Unmapped(f"aitz result_action_type {kind!r}", json.dumps(step)[:300])


def _text(step: dict[str, Any], key: str) -> str | None:
    value = step.get(key)
    return value.strip() or None if isinstance(value, str) else None


def _image(step: dict[str, Any], path: Path) -> Path | None:
    name = str(step.get("image_path") or "").replace("\\", "/")
    if not name:
        return None
    # Beside the JSON (as published), else ``image_path`` under the split folder (three levels up).
    return find_image(name.rsplit("/", 1)[-1], [path.parent]) or find_image(name, list(path.parents)[:3])


def _episode(steps: list[dict[str, Any]], path: Path, report: ConversionReport) -> Iterator[Converted]:
    report.records += len(steps)
    steps = sorted(steps, key=lambda s: s["step_id"] if isinstance(s.get("step_id"), int) else -1)
    first, detail = steps[0], f"{path}: episode {steps[0].get('episode_id')}"
    try:
        numbered = [s.get("step_id") for s in steps] == list(range(len(steps)))
        if not numbered or first.get("episode_length") not in (None, len(steps)):
            raise EpisodeError("incomplete episode (step ids not 0..n-1, or fewer steps than episode_length)")
        # Every step's action first, so each unmapped form is counted even when an image is missing too.
        mapped, failed = [], False
        for step in steps:
            try:
                mapped.append(_action(step))
            except (_Unmapped, ActionError) as exc:
                report.unmapped(exc.form if isinstance(exc, _Unmapped) else "aitz: invalid action", str(exc))
                failed = True
        if failed:
            raise EpisodeError("unmapped action")
        built = []
        for step, (actions, end) in zip(steps, mapped, strict=True):
            image = _image(step, path)
            if image is None:
                detail = f"{path}: step {step.get('step_id')}: {step.get('image_path')} not found"
                raise EpisodeError("missing image")
            sidecar = {key: step[key] for key in _SIDECARS if isinstance(step.get(key), str)}
            description, reasoning = _text(step, "coat_action_desc"), _text(step, "coat_action_think")
            extra = {"aitz_step": sidecar} if sidecar else None
            built.append(Step(read_image(image), actions, end, description, reasoning, extra))
        instruction = _text(first, "instruction")
        if instruction is None:
            raise EpisodeError("empty instruction")
        sample = episode("mobile", instruction, built, _others(first))
    except EpisodeError as exc:
        for _step in steps:
            report.skip(str(exc), detail)
        return
    yield Converted(sample, _split(first, path), _variant(first))


def _parts(first: dict[str, Any]) -> list[str]:
    """``image_path`` split into ``[subset, episode folder, file]`` (or fewer, if it is not so)."""
    return [p for p in str(first.get("image_path") or "").replace("\\", "/").split("/") if p]


def _others(first: dict[str, Any]) -> dict[str, Any]:
    episode_id, parts = str(first.get("episode_id")), _parts(first)
    return {
        "id": f"aitz_{episode_id}",
        "os": "android",
        "source": _SOURCE,
        "source_id": parts[-2] if len(parts) >= 2 else episode_id,  # the episode folder, e.g. GOOGLE_APPS-<id>
    }


def _variant(first: dict[str, Any]) -> str:
    parts = _parts(first)  # the AITW subset: general, install, google_apps, single, web_shopping
    return (re.sub(r"[^A-Za-z0-9_.-]", "_", parts[0]).lstrip("_.-") if len(parts) == 3 else "") or "default"


def _split(first: dict[str, Any], path: Path) -> str:
    # As published: <split>/<subset>/<episode>/<episode>.json, so the split is the subset's parent.
    parts, folders = _parts(first), path.parents
    in_layout = len(parts) == 3 and len(folders) > 2 and folders[1].name == parts[0]
    return "test" if in_layout and folders[2].name == "test" else "train"


def _load(path: Path, report: ConversionReport) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        report.records += 1
        report.skip("invalid JSON", f"{path}: {exc}")
        return []
    steps = []
    for item in data if isinstance(data, list) else [data]:
        if isinstance(item, dict) and "result_action_type" in item and "episode_id" in item:
            steps.append(item)
        else:
            report.records += 1
            report.skip("not an AITZ step", f"{path}: {json.dumps(item)[:280]}")
    return steps


def convert_aitz(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every ``*.json`` under ``src`` (or ``src`` itself): each episode's steps, grouped by ``episode_id``."""
    for path in sorted(src.rglob("*.json")) if src.is_dir() else [src]:
        steps = _load(path, report)
        episodes: dict[str, list[dict[str, Any]]] = {}
        for step in steps:
            episodes.setdefault(str(step["episode_id"]), []).append(step)
        for group in episodes.values():
            yield from _episode(group, path, report)


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "aitz",
        convert_aitz,
        description="Android in the Zoo (AITW + CoAT annotations) episode JSON: mobile use rows with reasoning",
    )
