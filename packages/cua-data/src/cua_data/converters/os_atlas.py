"""OS-Atlas agent-task steps (OS-Copilot/OS-Atlas ``eval/data/*.jsonl``), one InternVL record a line.

A record is ``{"id", "image", "conversations"}``: the human turn is OS-Atlas's fixed prompt (its
action grammar), then ``Task: ...`` and ``History: ...``; the gpt turn is ``thoughts:\\n<text>\\n
actions:\\n<ACTION>`` (some files have no thoughts). OS-Atlas made these from AndroidControl
(``ac_*``), GUIAct (``gui_act_{web,mobile}_*``), GUI-Odyssey and OmniACT, and scores every step on
its own screenshot, so each record becomes one ``grounding.action`` row: the task (with the history,
when there is one) as the question, the thoughts as inline reasoning, the action as one tool call.
Split ``test`` when the file's name says so, else ``train``; variant: the file's stem less
``_test``; id ``os_atlas_<stem>_<line>``. Platform: mobile (Android) when the file or image path
names an Android dataset, browser when the path says ``web``, else desktop.

Coordinates: ``<point>[[x, y]]</point>`` holds integers in ``[0, 1000]`` of the screenshot's width
and height, the unified space's own normalisation, so they are copied unchanged; a value outside
``[0, 1000]`` is reported (``CLICK: coordinate outside [0, 1000]``) and the record skipped, never
clamped.

Actions (mobile | desktop and browser): CLICK -> tap | click; DOUBLECLICK -> double tap | double
click; RIGHTCLICK -> - | right click; MOVETO -> - | mouse_move; LONG_PRESS -> long_press | -;
TYPE [text] -> type; SCROLL [dir] -> a half-screen swipe through the centre, the finger moving
against ``dir`` | scroll ``dir`` 3 clicks; PRESS_BACK / PRESS_HOME / PRESS_RECENT -> system_button
| -; ENTER, PRESS_ENTER -> system_button enter | key enter; PRESS_<KEY> -> - | key; HOTKEY [CTRL_A]
-> - | key chord; WAIT -> wait 1 s; COMPLETE / IMPOSSIBLE -> done / fail, which a grounding row
cannot hold (skipped, as AgentNetBench's terminate steps). ``-``, OPEN_APP (no unified action),
unknown verbs and malformed arguments are counted under ``unmapped_actions`` and skip the record.

Images: each record names an absolute path on the authors' cluster. It is looked up by its path
suffixes, longest first, beside the JSONL, in ``images/`` beside it and in ``../images``; a record
whose image is not found is skipped as ``missing image``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any, cast

from cua_core import ActionError, Register
from cua_core import actions as ua
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import EpisodeError, call_id, find_image, image_size, read_image, user_turn
from cua_data.hookspecs import hookimpl
from cua_data.lite_actions import to_lite_action, to_lite_tool_call
from cua_data.schema import LiteSample, Metadata

_SOURCE = "OS-Copilot/OS-Atlas"
_TERMINATE = "terminate step: not a tool call in a grounding row"
# Words of a file name or image path that mark a phone dataset (AndroidControl, GUIAct smartphone, GUI-Odyssey).
_PHONE_WORDS = frozenset({"android", "mobile", "smartphone", "phone", "odyssey"})
_PHONE_ONLY = frozenset({"back", "home", "recent"})  # OS-Atlas's PRESS_HOME is the phone's, not the Home key
_PHONE_BUTTONS = _PHONE_ONLY | {"enter", "menu"}  # the system buttons CUA-Lite's mobile tool can write
_SCROLL_AMOUNT = 3  # OS-Atlas's SCROLL carries no distance; pyautogui.py gives a distance-less web scroll 3
_SWIPE_TRAVEL = 500.0  # half a screen, through the centre, as pyautogui.py swipes for a phone scroll
_NUMBER = r"\s*(-?\d+(?:\.\d+)?)\s*"
_POINT = re.compile(rf"<point>\s*\[\[{_NUMBER},{_NUMBER}\]\]\s*</point>")
_ARGUMENT = re.compile(r"\[(.*)\]", re.S)
_VERB = re.compile(r"([A-Z][A-Z_]*)\b\s*(.*)", re.S)
_HEADER = re.compile(r"^\s*(thoughts|actions):[ \t]*\n?", re.I | re.M)
_TASK = re.compile(r"^Task:[ \t]*(?P<task>.*?)\s*(?:^History:\s*(?P<history>.*?))?\s*\Z", re.S | re.M)

_Result = ua.Action | ua.Done | ua.Fail
# Pointing verbs: (on a phone, on a computer); None where the gesture has no equivalent there.
_POINTING: dict[str, tuple[Callable[[ua.Point], ua.Action] | None, Callable[[ua.Point], ua.Action] | None]] = {
    "CLICK": (ua.Tap, ua.Click),
    "DOUBLECLICK": (lambda p: ua.Tap(p, 2), lambda p: ua.Click(p, clicks=2)),
    "RIGHTCLICK": (None, lambda p: ua.Click(p, "right")),
    "MOVETO": (None, ua.MouseMove),
    "LONG_PRESS": (ua.LongPress, None),
}


class _Unmapped(Exception):
    def __init__(self, form: str, detail: str) -> None:
        super().__init__(detail)
        self.form, self.detail = form, detail


def _point(verb: str, args: str) -> ua.Point:
    match = _POINT.fullmatch(args)
    if match is None:
        raise _Unmapped(f"{verb}: malformed arguments", args)
    x, y = float(match[1]), float(match[2])
    if not (0 <= x <= 1000 and 0 <= y <= 1000):
        raise _Unmapped(f"{verb}: coordinate outside [0, 1000]", args)
    return ua.Point(x, y)


def _swipe(direction: str) -> ua.Swipe:
    # The finger moves against the content: to scroll down (show what is below) it slides up.
    dx, dy = {"down": (0, -1), "up": (0, 1), "right": (-1, 0), "left": (1, 0)}[direction]
    half = _SWIPE_TRAVEL / 2
    return ua.Swipe(ua.Point(500 - dx * half, 500 - dy * half), ua.Point(500 + dx * half, 500 + dy * half))


def _meaning(verb: str, args: str, platform: str) -> _Result:
    mobile = platform == "mobile"
    if verb in _POINTING:
        make = _POINTING[verb][0 if mobile else 1]
        if make is None:
            raise _Unmapped(f"{verb}: not on {platform}", args)
        return make(_point(verb, args))
    if verb in ("TYPE", "SCROLL", "HOTKEY"):
        found = _ARGUMENT.fullmatch(args)
        if found is None:
            raise _Unmapped(f"{verb}: malformed arguments", args)
        value = found[1]
        if verb == "TYPE":
            return ua.TypeText(value)
        if verb == "SCROLL":
            direction = value.strip().lower()
            if direction not in ua.SCROLL_DIRECTIONS:
                raise _Unmapped("SCROLL: malformed arguments", args)
            return _swipe(direction) if mobile else ua.Scroll(cast(Any, direction), _SCROLL_AMOUNT)
        if mobile:
            raise _Unmapped("HOTKEY: not on mobile", args)
        try:  # the documented form is HOTKEY [CTRL_A]
            return ua.KeyPress(tuple(k for k in re.split(r"[+_\s]+", value) if k))
        except ActionError as exc:
            raise _Unmapped("HOTKEY: unknown key", f"{value}: {exc}") from None
    if verb == "OPEN_APP":
        raise _Unmapped(verb, f"{args}: launching an app has no unified action")
    if verb not in ("COMPLETE", "IMPOSSIBLE", "WAIT", "ENTER") and not verb.startswith("PRESS_"):
        raise _Unmapped(verb, "not an OS-Atlas action")
    if args:
        raise _Unmapped(f"{verb}: unexpected arguments", args)
    if verb in ("COMPLETE", "IMPOSSIBLE"):
        return ua.Done() if verb == "COMPLETE" else ua.Fail()
    if verb == "WAIT":
        return ua.Wait()
    key = verb.removeprefix("PRESS_").lower()
    if mobile:
        if key not in _PHONE_BUTTONS:
            raise _Unmapped(f"{verb}: not on mobile", "not a phone button")
        return ua.SystemButton(cast(Any, key))
    if key in _PHONE_ONLY:
        raise _Unmapped(f"{verb}: not on {platform}", "a phone button")
    try:
        return ua.KeyPress((key,))
    except ActionError as exc:
        raise _Unmapped(verb, str(exc)) from None


def _action(text: str, platform: str) -> _Result:
    """One action line's meaning on ``platform``; _Unmapped names the form when it has none."""
    match = _VERB.fullmatch(text.strip())
    if match is None:
        raise _Unmapped(text.split(maxsplit=1)[0][:40], text)  # its first word names an unknown form
    verb, args = match[1], match[2].strip()
    try:
        result = _meaning(verb, args, platform)
        if not isinstance(result, ua.Done | ua.Fail):
            to_lite_action(result, platform)  # refuse here what the row could not store
    except ActionError as exc:
        raise _Unmapped(f"{verb}: invalid arguments", f"{text}: {exc}") from None
    return result


def _platform(stem: str, image: str) -> str:
    words = set(re.split(r"[^a-z]+", f"{stem}/{image}".lower()))
    if words & _PHONE_WORDS or stem.startswith("ac_"):  # ac_* is AndroidControl upstream
        return "mobile"
    return "browser" if "web" in words else "desktop"


def _find(name: str, folders: list[Path]) -> Path | None:
    # Longest suffix first: a mirror of the authors' tree at any depth resolves, and one GUIAct
    # episode's step_00.png (or one OmniACT site's screen1.png) is never taken for another's.
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p != "/"]
    for start in range(len(parts)):
        found = find_image("/".join(parts[start:]), folders)
        if found is not None:
            return found
    return None


def _row(path: Path, line: int, record: dict[str, Any], report: ConversionReport) -> Iterator[Converted]:
    turns = [t for t in record.get("conversations") or [] if isinstance(t, dict)]
    human = next((t.get("value") for t in turns if t.get("from") == "human"), None)
    answer = next((t.get("value") for t in turns if t.get("from") == "gpt"), None)
    name = record.get("image")
    if not (isinstance(human, str) and isinstance(answer, str) and isinstance(name, str)):
        report.skip("not an OS-Atlas record", json.dumps(record)[:300])
        return
    task = _TASK.search(human.split("<image>", 1)[-1])
    if task is None or not task["task"]:
        report.skip("no task in the prompt", f"{path.name}:{line}")
        return
    pieces = _HEADER.split(answer)
    sections = {head.lower(): body.strip() for head, body in zip(pieces[1::2], pieces[2::2], strict=True)}
    if not sections.get("actions"):
        report.skip("no actions in the answer", answer)
        return
    platform = _platform(path.stem, name)
    results, unmapped = [], False
    for text in (t for t in sections["actions"].splitlines() if t.strip()):
        try:
            results.append(_action(text, platform))
        except _Unmapped as miss:
            report.unmapped(miss.form, miss.detail)
            unmapped = True
    if unmapped:
        report.skip("unmapped action", sections["actions"])
        return
    actions = [r for r in results if not isinstance(r, ua.Done | ua.Fail)]
    if len(actions) < len(results):
        report.skip(_TERMINATE, sections["actions"])
        return
    found = _find(name, [path.parent, path.parent / "images", path.parent.parent / "images"])
    if found is None:
        report.skip("missing image", name)
        return
    image = read_image(found)
    try:
        width, height = image_size(image)
    except EpisodeError:
        report.skip("corrupt image", str(found))
        return
    history = (task["history"] or "").strip()
    question = task["task"] + (f"\n\nHistory:\n{history}" if history and history != "None" else "")
    turn: dict[str, Any] = {"role": "assistant", "tool_calls": [to_lite_tool_call(actions, platform, call_id(0))]}
    if sections.get("thoughts"):
        turn["content"] = [{"type": "inline_reasoning", "text": sections["thoughts"]}]
    others = {
        "id": f"os_atlas_{path.stem}_{line}",
        "resolution": [width, height],
        "os": "android" if platform == "mobile" else None,  # all four phone sources are Android
        "source": _SOURCE,
        "source_id": f"{path.stem}/{record.get('id', line)}",
    }
    sample = LiteSample(Metadata(platform, "grounding.action", others=others), [user_turn(question, 0), turn], [image])
    split = "test" if "test" in re.split(r"[^a-z]+", path.stem.lower()) else "train"
    variant = re.sub(r"[^A-Za-z0-9_.-]", "_", re.sub(r"_?test$", "", path.stem)).strip("_.-") or "default"
    yield Converted(sample, split, variant)


def convert_os_atlas(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every ``*.jsonl`` under ``src`` (or ``src`` itself), read a line at a time."""
    for path in sorted(src.rglob("*.jsonl")) if src.is_dir() else [src]:
        with path.open("rb") as lines:  # bytes: json.loads decodes, and a bad line is one skip
            for line, raw in enumerate(lines):
                if not raw.strip():
                    continue
                report.records += 1
                try:
                    record = json.loads(raw)
                except ValueError as exc:
                    report.skip("invalid JSON", f"{path.name}:{line}: {exc}")
                    continue
                if isinstance(record, dict):
                    yield from _row(path, line, record, report)
                else:
                    report.skip("not an OS-Atlas record", raw[:300].decode("utf-8", "replace"))


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "os_atlas",
        convert_os_atlas,
        description="OS-Atlas agent-task JSONL (AndroidControl, GUIAct, GUI-Odyssey, OmniACT steps): grounding.action",
    )
