"""GUI-360 (vyokky/GUI-360): Windows Office trajectories, and their grounding / screen-parsing views.

* ``processed_data/grounding_resize`` records (``<coordinate> [x, y] </coordinate>``, pixels) become
  ``grounding.point`` rows; the question is the step thought the prompt quotes.
* ``processed_data/screen_parsing_*`` records become ``understanding`` rows (variant
  ``screen_parsing``): the controls' pixel rects are normalised to ``[0, 1000]`` and the prompt says
  so. Rects recorded on the pre-resize screenshot overflow it; they are clipped, and a control with
  no area left on screen is dropped — both counted in the report, never silently.
* raw ``train/data/<app>/<category>/success/*.jsonl`` steps (one line per step) are grouped by
  ``execution_id`` into ``use`` rows; a trajectory needs all its steps, ``evaluation.complete ==
  "yes"`` and a final ``OVERALL_FINISH``. GUI actions map to unified ones; an Office-API action
  (``select_text``, ``set_font``, ...) has no GUI equivalent and skips the trajectory.
The action-prediction views repeat the raw steps and are skipped by name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cua_core import (
    Action,
    ActionError,
    Click,
    Done,
    Drag,
    KeyDown,
    KeyPress,
    KeyUp,
    Register,
    Scroll,
    TypeText,
    from_pixels,
    normalize_key,
)
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import (
    EpisodeError,
    Step,
    episode,
    find_image,
    grounding_call,
    image_size,
    read_image,
    user_turn,
)
from cua_data.hookspecs import hookimpl
from cua_data.schema import LiteSample, Metadata

_SOURCE = "vyokky/GUI-360"
_COORD = re.compile(r"<coordinate>\s*\[\s*([-\d.]+)\s*,\s*([-\d.]+)\s*\]\s*</coordinate>")
_QUESTION = re.compile(r"The instruction is:\s*(.*?)\s*Output the coordinate", re.S)
_PARSING_PROMPT = (
    "Find every interactive control on this screen (anything that can be clicked or typed into). "
    'For each give "control_text" (its visible text, or "") and "control_rect" [left, top, right, bottom] '
    "normalized to [0, 1000] on each axis. Answer with the JSON array only."
)
# pywinauto SendKeys names GUI-360 uses that are not our key names.
_VK = {"CONTROL": "ctrl", "MENU": "alt", "BACK": "backspace", "RETURN": "enter", "PRIOR": "pageup", "NEXT": "pagedown"}
_MODIFIERS = {"^": "ctrl", "+": "shift", "%": "alt"}


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


def _conversation(record: dict[str, Any]) -> tuple[str, str]:
    turns = [t for t in record.get("conversation") or [] if isinstance(t, dict)]
    human = next((str(t.get("value", "")) for t in turns if t.get("from") == "human"), "")
    return human, next((str(t.get("value", "")) for t in turns if t.get("from") == "gpt"), "")


def _image(record: dict[str, Any], path: Path, report: ConversionReport) -> bytes | None:
    names = record.get("images") or []
    found = find_image(str(names[0]), [path.parent]) if names else None
    if found is None:
        report.skip("missing image", str(names))
        return None
    return read_image(found)


def _row(record: dict[str, Any], task_type: str, messages: list[dict[str, Any]], image: bytes) -> LiteSample:
    ident = str(record.get("id", ""))
    others = {"id": f"gui360_{ident}", "resolution": list(image_size(image)), "os": "windows"}
    others |= {"source": _SOURCE, "source_id": ident}
    return LiteSample(Metadata("desktop", task_type, others=others), messages, [image])


def _processed(record: dict[str, Any], path: Path, report: ConversionReport) -> Iterator[Converted]:
    report.records += 1
    human, answer = _conversation(record)
    point = _COORD.search(answer)
    try:
        controls = json.loads(answer) if answer.lstrip().startswith("[") else None
    except ValueError:
        controls = None
    if point is None and not (isinstance(controls, list) and all(isinstance(c, dict) for c in controls)):
        report.skip("action prediction view: the raw trajectories hold these steps", answer[:300])
        return
    image = _image(record, path, report)
    if image is None:
        return
    width, height = image_size(image)
    if point is not None:
        question = _QUESTION.search(human)
        try:
            target = from_pixels(float(point.group(1)), float(point.group(2)), width, height)
        except ActionError as exc:
            report.skip("coordinate outside the image", str(exc))
            return
        text = question.group(1) if question else human.replace("<image>", "").strip()
        messages = [user_turn(text, 0), grounding_call("point", [target.x, target.y])]
        yield Converted(_row(record, "grounding.point", messages, image), "train", "grounding")
        return
    kept = []
    for control in controls or []:
        rect = control.get("control_rect")
        if not (isinstance(rect, list) and len(rect) == 4 and all(isinstance(v, int | float) for v in rect)):
            report.unmapped("screen_parsing control without a rect", json.dumps(control)[:300])
            continue
        left, top, right, bottom = max(rect[0], 0), max(rect[1], 0), min(rect[2], width), min(rect[3], height)
        if left >= right or top >= bottom:
            report.unmapped("screen_parsing control off screen (dropped)", json.dumps(control)[:300])
            continue
        if [left, top, right, bottom] != rect:
            report.unmapped("screen_parsing control_rect clipped to the image", json.dumps(control)[:300])
        scaled = [
            round(v * 1000 / size) for v, size in zip((left, top, right, bottom), (width, height) * 2, strict=True)
        ]
        kept.append({"control_text": str(control.get("control_text", "")), "control_rect": scaled})
    answer_text = json.dumps(kept, ensure_ascii=False)
    messages = [
        user_turn(_PARSING_PROMPT, 0),
        {"role": "assistant", "content": [{"type": "text", "text": answer_text}]},
    ]
    yield Converted(_row(record, "understanding", messages, image), "train", "screen_parsing")


def _send_keys(keys: str) -> list[Action]:
    """pywinauto SendKeys (``^a``, ``{ENTER}``, ``{VK_CONTROL}c``, ``{VK_SHIFT down}``) as key actions."""
    out: list[Action] = []
    text, held, i = "", [], 0
    while i < len(keys):
        char = keys[i]
        if char in _MODIFIERS:
            held.append(_MODIFIERS[char])
            i += 1
            continue
        if char == "{":
            end = keys.index("}", i + 2)  # "{}}" is a literal brace
            name, _, edge = keys[i + 1 : end].partition(" ")
            i = end + 1
            bare = name.upper().removeprefix("VK_")
            key = _VK.get(bare) or normalize_key(bare, "SendKeys")
            if edge in ("down", "up"):
                out += [TypeText(text)] if text else []
                text = ""
                out.append(KeyDown(key) if edge == "down" else KeyUp(key))
                continue
            if key in ("ctrl", "shift", "alt") and i < len(keys) and keys[i] not in "{^+%":
                held.append(key)  # {VK_CONTROL}c is the chord ctrl+c
                continue
        else:
            key, i = char, i + 1
            if not held:
                text += char
                continue
        out += [TypeText(text)] if text else []
        text = ""
        out.append(KeyPress((*held, key)))
        held = []
    return out + ([TypeText(text)] if text else [])


def _gui_action(action: dict[str, Any], size: tuple[int, int]) -> list[Action]:
    """Unified actions for one GUI-360 GUI action; ActionError/KeyError when it has none."""
    function, args = str(action.get("function") or ""), action.get("args") or {}
    x, y = action.get("coordinate_x", args.get("x")), action.get("coordinate_y", args.get("y"))
    point = from_pixels(x, y, *size) if x is not None and y is not None else None
    if function == "click":
        return [Click(point, args.get("button", "left"), 2 if args.get("double") else 1)]
    if function in ("double_click_input", "double_click_on_coordinates"):
        return [Click(point, "left", 2)]
    if function == "set_focus":
        return [Click(point)]
    if function == "wheel_mouse_input":
        distance = int(args["wheel_dist"])
        return [Scroll("up" if distance > 0 else "down", abs(distance), point)]
    if function == "drag":
        start = from_pixels(args["start_x"], args["start_y"], *size)
        drag: list[Action] = [Drag(start, from_pixels(args["end_x"], args["end_y"], *size), args.get("button", "left"))]
        hold = args.get("key_hold")
        return [KeyDown(hold), *drag, KeyUp(hold)] if hold else drag
    if function == "type":
        focus: list[Action] = [Click(point)] if point is not None else []
        clear: list[Action] = [KeyPress(("ctrl", "a"))] if args.get("clear_current_text") else []
        if "keys" in args:
            return focus + clear + _send_keys(str(args["keys"]))
        return [*focus, *clear, TypeText(str(args["text"]))]
    raise ActionError(f"gui360.{function or 'empty'}")


def _folders(path: Path) -> list[Path]:
    """Raw screenshots live in train/image/<app>/<category>/ beside train/data/<app>/<category>/."""
    category = path.parent.parent
    parts = list(category.parts)
    swapped = [Path(*parts[:i], "image", *parts[i + 1 :]) for i in range(len(parts)) if parts[i] == "data"]
    return [path.parent, category, *swapped[-1:]]


def _trajectory(lines: list[dict[str, Any]], path: Path, report: ConversionReport) -> Iterator[Converted]:
    report.records += len(lines)
    lines = sorted(lines, key=lambda line: line["step_id"] if isinstance(line.get("step_id"), int) else -1)
    first, last = lines[0], lines[-1]
    execution = str(first.get("execution_id"))
    try:
        numbers: list[Any] = [line.get("step_id") for line in lines]
        total = first.get("total_steps")
        if not all(isinstance(n, int) for n in [*numbers, total]) or numbers != list(
            range(numbers[0], numbers[0] + total)
        ):
            raise EpisodeError("incomplete trajectory: steps missing")
        if (first.get("evaluation") or {}).get("complete") != "yes":
            raise EpisodeError("trajectory not evaluated complete")
        if last["step"].get("status") != "OVERALL_FINISH":
            raise EpisodeError("trajectory does not end in OVERALL_FINISH")
        steps = []
        for line in lines:
            step, action = line["step"], line["step"].get("action") or {}
            found = find_image(str(step.get("screenshot_clean", "")), _folders(path))
            if found is None:
                raise EpisodeError("missing image")
            image = read_image(found)
            function = str(action.get("function") or "")
            end = Done() if line is last else None
            if function in ("", "summary") and end is None:
                continue  # a sub-task-complete no-op or a textual summary: the screen does not change
            try:
                actions = _gui_action(action, image_size(image)) if function else []
            except (ActionError, KeyError, ValueError, TypeError) as exc:
                report.unmapped(f"gui360.{function}", f"{json.dumps(action)[:200]}: {exc}")
                raise EpisodeError("unmapped action") from None
            steps.append(Step(image, actions, end, step.get("subtask") or None, step.get("thought") or None))
        others: dict[str, Any] = {"id": f"gui360_{execution}", "os": "windows", "source": _SOURCE}
        others["source_id"] = execution
        sample = episode("desktop", str(first.get("request") or ""), steps, others)
    except EpisodeError as exc:
        for _line in lines:
            report.skip(str(exc), execution)
        return
    variant = re.sub(r"[^A-Za-z0-9_.-]", "_", str(first.get("app_domain") or "default"))
    yield Converted(sample, "train", variant)


def convert_gui360(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every ``*.json``/``*.jsonl`` under ``src`` (or ``src`` itself), by the shape of its records."""
    files = sorted(p for p in src.rglob("*") if p.suffix in (".json", ".jsonl")) if src.is_dir() else [src]
    for path in files:
        raw: dict[str, list[dict[str, Any]]] = {}
        for record in _records(path, report):
            if isinstance(record, dict) and "execution_id" in record and isinstance(record.get("step"), dict):
                raw.setdefault(str(record["execution_id"]), []).append(record)
            elif isinstance(record, dict) and "conversation" in record:
                yield from _processed(record, path, report)
            else:
                report.records += 1
                report.skip("not a GUI-360 record", json.dumps(record)[:300])
        for lines in raw.values():
            yield from _trajectory(lines, path, report)


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "gui360",
        convert_gui360,
        description="GUI-360 raw trajectories (desktop use), grounding_resize (grounding.point), screen parsing",
    )
