"""OSWorld result folders: an agent's run on one task, as ``lib_run_single`` writes it.

A result folder ``<domain>/<example_id>/`` holds ``traj.jsonl`` (one line per executed action:
``action``, ``reward``, ``done``, ``screenshot_file`` = the screen *after* it), the screenshots and
``result.txt`` (the evaluator's score). Actions are pyautogui code with pixel coordinates (the
screen size is the screenshot's), computer_13 dicts, or ``WAIT``/``DONE``/``FAIL``. The task's
instruction is in its task JSON ``<domain>/<example_id>.json``, looked up in an
``evaluation_examples/examples`` or ``examples`` folder beside any folder above the result.

OSWorld saves no screenshot before the first action unless the run wrote one (``step_0*.png`` or
``initial_state*.png``). Without it the first action has nothing to be read from, so the row starts
at the screenshot after it: that action is counted in the report and the row says
``others['first_step'] = 2``. The score goes to ``others['reward']``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cua_core import ActionError, Done, Fail, Register, Wait, from_osworld
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import EpisodeError, Step, episode, find_image, image_size, read_image
from cua_data.converters.pyautogui import CodeContext, ParsedCode, Unmapped, parse_code
from cua_data.hookspecs import hookimpl

_SPECIAL: dict[str, Wait | Done | Fail] = {"WAIT": Wait(), "DONE": Done(), "FAIL": Fail()}


def _instruction(result: Path, src: Path, lines: list[dict[str, Any]]) -> str | None:
    logged = next((str(line["instruction"]) for line in lines if isinstance(line.get("instruction"), str)), "")
    if logged:
        return logged
    domain, example = result.parent.name, result.name
    top = src.resolve().parent
    for folder in [result.resolve(), *result.resolve().parents][:8]:  # up to src's parent at most
        for base in (folder / "evaluation_examples" / "examples", folder / "examples"):
            task = base / domain / f"{example}.json"
            if task.is_file():
                try:
                    data = json.loads(task.read_text(encoding="utf-8"))
                except ValueError:
                    return None
                return str(data.get("instruction") or "") or None if isinstance(data, dict) else None
        if folder == top:
            break
    return None


def _action(line: dict[str, Any], size: tuple[int, int]) -> ParsedCode:
    action = line.get("action")
    if isinstance(action, str) and action.strip() in _SPECIAL:
        special = _SPECIAL[action.strip()]
        return ParsedCode([special]) if isinstance(special, Wait) else ParsedCode(end=special)
    if isinstance(action, dict):
        try:
            unified = from_osworld(action, *size)
        except ActionError as exc:
            parsed = ParsedCode()
            parsed.unmapped.append(Unmapped(f"osworld {action.get('action_type')}", str(exc)))
            return parsed
        return ParsedCode(end=unified) if isinstance(unified, Done | Fail) else ParsedCode([unified])
    return parse_code(
        action if isinstance(action, str) else "", CodeContext("desktop", relative=False, size=size, lite=True)
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]
    if not all(isinstance(line, dict) for line in lines):
        raise ValueError("a traj.jsonl line is not an object")
    return lines


def _run(traj: Path, src: Path, report: ConversionReport) -> Iterator[Converted]:
    report.records += 1
    result = traj.parent
    try:
        lines = _lines(traj)
    except ValueError as exc:
        report.skip("invalid traj.jsonl", f"{traj}: {exc}")
        return
    try:
        instruction = _instruction(result, src, lines)
        if not lines:
            raise EpisodeError("empty trajectory")
        if not instruction:
            raise EpisodeError("missing task instruction (no <domain>/<example_id>.json found)")
        shots = []
        for line in lines:
            shot = find_image(str(line.get("screenshot_file", "")), [result])
            if shot is None:
                raise EpisodeError("missing image")
            shots.append(read_image(shot))
        initial = sorted([*result.glob("step_0*.png"), *result.glob("initial_state*.png")])
        images = [read_image(initial[0]), *shots] if initial else shots
        size = image_size(images[0])
        parsed = [_action(line, size) for line in lines]
        for item in parsed:
            for miss in item.unmapped:
                report.unmapped(miss.form, miss.detail)
        if any(item.unmapped for item in parsed):
            raise EpisodeError("unmapped action")
        if not initial:
            report.unmapped("first action without a screenshot before it", str(lines[0].get("action"))[:300])
            parsed = parsed[1:]
        # The model's response (its reasoning) is logged on every action of a step; keep it once.
        said = [
            line.get("response") if n == 0 or line.get("step_num") != lines[n - 1].get("step_num") else None
            for n, line in enumerate(lines)
        ]
        if not initial:
            said = said[1:]
        steps = [
            Step(image, item.actions, item.end, reasoning=text if isinstance(text, str) and text.strip() else None)
            for image, item, text in zip(images, parsed, said, strict=False)
        ]
        others = _others(result, src, lines, first_step=1 if initial else 2)
        sample = episode("desktop", instruction, steps, others)
    except EpisodeError as exc:
        report.skip(str(exc), str(result))
        return
    yield Converted(sample, "train", "default")


def _others(result: Path, src: Path, lines: list[dict[str, Any]], first_step: int) -> dict[str, Any]:
    try:
        reward: float | None = float((result / "result.txt").read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        reward = None
    try:
        where = result.resolve().relative_to(src.resolve().parent).as_posix()
    except ValueError:
        where = result.name
    others: dict[str, Any] = {
        "id": "osworld_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", where),
        "os": "ubuntu",  # the tasks run in OSWorld's Ubuntu VM
        "source": "xlangai/OSWorld",
        "source_id": f"{result.parent.name}/{result.name}",
        "reward": reward,
        "done": bool(lines[-1].get("done")) if lines else False,
    }
    if first_step != 1:
        others["first_step"] = first_step
    return others


def convert_osworld(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every result folder (a ``traj.jsonl``) under ``src``, or ``src`` if it is one."""
    trajs = sorted(src.rglob("traj.jsonl")) if src.is_dir() else ([src] if src.name == "traj.jsonl" else [])
    for traj in trajs:
        yield from _run(traj, src, report)


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "osworld",
        convert_osworld,
        description="OSWorld result folders (traj.jsonl + screenshots + result.txt): desktop use rows with the reward",
    )
