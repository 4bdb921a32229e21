"""AndroidControl (google-research ``android_control``): GZIP TFRecord episodes of ``tf.train.Example``.

UNVERIFIED against real files: no AndroidControl record was available where this was written. It
follows the dataset's README (features ``episode_id``, ``goal``, ``screenshots`` (PNG),
``screenshot_widths``/``screenshot_heights``, ``accessibility_trees``, ``actions`` (JSON),
``step_instructions``) and its tests use records built from those documented fields.

Files: every file under ``SRC`` that is gzip (AndroidControl's shards, ``android_control-*-of-*``)
or has ``tfrecord`` in its name, read one record at a time (``_tfrecord``: length checksums
verified, data checksums not). One episode becomes one ``mobile/use`` row (split ``train``): the
``goal`` is the instruction (the high-level task), each ``step_instructions`` entry the step's
action description (the low-level one), screenshot ``i`` the screen action ``i`` acts on.
Accessibility trees are not kept.

Actions (pixels of screenshot ``i``, normalised with ``cua_core.from_pixels`` by that screenshot's
``screenshot_widths``/``screenshot_heights``, which must match the PNG's own size):

- ``click`` -> ``tap``; ``long_press`` -> ``long_press`` (the record has no duration: 1 s);
- ``scroll`` + ``direction`` -> ``swipe`` from the screen centre to the edge, the finger moving
  against the direction (``down``: centre to top), as AndroidWorld (same authors, same JSON
  actions) replays it in ``android_world/env/actuation.py``; the README does not say;
- ``type`` -> ``tap`` at ``x, y``, then ``type`` with enter (the README: click, input, enter);
  ``input_text`` -> ``type`` alone;
- ``navigate_home``/``navigate_back`` -> ``system_button``; ``wait`` -> ``wait`` 1 s (no duration
  is recorded; AndroidWorld sleeps 1 s);
- ``open_app`` has no unified action: leading ``open_app`` steps are dropped, each counted as an
  unmapped action, and the row starts after them (``others.first_step``, ``others.opened_app``),
  as OSWorld rows start after an action without a screenshot; a later one skips the episode.

Anything else, a malformed action, or a coordinate off the screen skips the episode (``unmapped
action``, the form counted). AndroidControl records no terminate, so a row ends on its last call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cua_core import ActionError, Register
from cua_core import actions as ua
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters._tfrecord import Example, ExampleError, RecordError, parse_example, read_records
from cua_data.converters.build import EpisodeError, Step, episode, image_size
from cua_data.hookspecs import hookimpl

_SOURCE = "google-research/android_control"
_BUTTONS: dict[str, ua.SystemButtonName] = {"navigate_home": "home", "navigate_back": "back"}
# Where AndroidWorld's scroll ends, from the centre (500, 500): the finger moves against the direction.
_SCROLL_END = {"down": (500.0, 0.0), "up": (500.0, 1000.0), "right": (0.0, 500.0), "left": (1000.0, 500.0)}
_MALFORMED = "malformed episode (missing or mistyped feature)"
_OPEN_APP = "android_control open_app"


class _Unmapped(Exception):
    def __init__(self, form: str, detail: str) -> None:
        super().__init__(detail)
        self.form = form


def _point(action: dict[str, Any], size: tuple[int, int], form: str) -> ua.Point:
    x, y = action.get("x"), action.get("y")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (x, y)):
        raise _Unmapped(f"{form}: no x, y", json.dumps(action))
    try:
        return ua.from_pixels(x, y, *size)  # type: ignore[arg-type]  # checked just above
    except ActionError as exc:
        raise _Unmapped(f"{form}: coordinate outside the screen", f"{json.dumps(action)} on {size}: {exc}") from None


def _text(action: dict[str, Any], form: str) -> str:
    text = action.get("text")
    if not isinstance(text, str):
        raise _Unmapped(f"{form}: no text", json.dumps(action))
    return text


def _action(raw: bytes, size: tuple[int, int]) -> list[ua.Action]:
    """The unified actions of one AndroidControl action; ``_Unmapped`` names why there are none."""
    try:
        action = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise _Unmapped("android_control: action is not JSON", raw[:200].decode("utf-8", "replace")) from None
    if not isinstance(action, dict):
        raise _Unmapped("android_control: action is not a JSON object", json.dumps(action)[:200])
    kind = action.get("action_type")
    form = f"android_control {kind}"
    if kind == "click":
        return [ua.Tap(_point(action, size, form))]
    if kind == "long_press":
        return [ua.LongPress(_point(action, size, form))]
    if kind == "type":
        return [ua.Tap(_point(action, size, form)), ua.TypeText(_text(action, form), press_enter=True)]
    if kind == "input_text":
        return [ua.TypeText(_text(action, form))]
    if kind == "scroll":
        end = _SCROLL_END.get(str(action.get("direction")))
        if end is None:
            raise _Unmapped(f"{form}: direction not up, down, left or right", json.dumps(action))
        return [ua.Swipe(ua.Point(500, 500), ua.Point(*end))]
    if isinstance(kind, str) and kind in _BUTTONS:
        return [ua.SystemButton(_BUTTONS[kind])]
    if kind == "wait":
        return [ua.Wait(1.0)]
    if kind == "open_app":
        raise _Unmapped(f"{form}: no unified action launches an app", json.dumps(action))
    raise _Unmapped(str(form if isinstance(kind, str) else "android_control: no action_type"), json.dumps(action))


def _bytes(example: Example, name: str) -> list[bytes]:
    values = example.get(name)
    if values is None or not all(isinstance(v, bytes) for v in values):
        raise EpisodeError(_MALFORMED)
    return values  # type: ignore[return-value]  # every item checked to be bytes


def _ints(example: Example, name: str) -> list[int]:
    values = example.get(name)
    if values is None or not all(isinstance(v, int) for v in values):
        raise EpisodeError(_MALFORMED)
    return values  # type: ignore[return-value]  # every item checked to be an int


def _utf8(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise EpisodeError(_MALFORMED) from None


def _episode_id(example: Example) -> str:
    values = example.get("episode_id") or []
    if len(values) != 1:
        raise EpisodeError(_MALFORMED)
    (value,) = values
    return _utf8(value) if isinstance(value, bytes) else str(value)  # the README: an integer


def _steps(example: Example, report: ConversionReport, others: dict[str, Any]) -> list[Step]:
    shots, actions = _bytes(example, "screenshots"), _bytes(example, "actions")
    widths, heights = _ints(example, "screenshot_widths"), _ints(example, "screenshot_heights")
    instructions = [_utf8(v) for v in _bytes(example, "step_instructions")] if "step_instructions" in example else None
    if not (len(shots) == len(widths) == len(heights) == len(actions) + 1) or (
        instructions is not None and len(instructions) != len(actions)
    ):
        raise EpisodeError("malformed episode (list lengths disagree)")
    sizes = list(zip(widths, heights, strict=True))
    if any(image_size(shot) != size for shot, size in zip(shots, sizes, strict=True)):
        raise EpisodeError("screenshot size disagrees with screenshot_widths/heights")
    mapped: list[list[ua.Action] | None] = []
    apps: list[str | None] = []  # the app each open_app launches (None for any other action)
    for raw, size in zip(actions, sizes[:-1], strict=True):  # every action, so each unmapped form is counted
        try:
            mapped.append(_action(raw, size))
            apps.append(None)
        except (_Unmapped, ActionError) as exc:
            form = exc.form if isinstance(exc, _Unmapped) else "android_control: invalid action"
            report.unmapped(form, str(exc))
            mapped.append(None)
            apps.append(str(json.loads(raw).get("app_name") or "") if form.startswith(_OPEN_APP) else None)
    lead = next((n for n, app in enumerate(apps) if app is None), len(apps))  # leading open_app steps
    if any(m is None for m in mapped[lead:]):
        raise EpisodeError("unmapped action")
    if lead:
        others |= {"first_step": lead + 1, "opened_app": apps[lead - 1]}
    texts: list[str | None] = list(instructions) if instructions is not None else [None] * len(actions)
    return [Step(shots[n], mapped[n] or [], description=texts[n]) for n in range(lead, len(actions))]


def _record(data: bytes, report: ConversionReport, where: str) -> Iterator[Converted]:
    report.records += 1
    try:
        example = parse_example(data)
    except ExampleError as exc:
        report.skip("not a tf.train.Example", f"{where}: {exc}")
        return
    try:
        episode_id = _episode_id(example)
        goal = " ".join(_utf8(v) for v in _bytes(example, "goal")).strip()
        others: dict[str, Any] = {"id": f"android_control_{episode_id}", "os": "android", "source": _SOURCE}
        others["source_id"] = episode_id
        steps = _steps(example, report, others)
        if not goal:
            raise EpisodeError("empty goal")
        sample = episode("mobile", goal, steps, others)
    except EpisodeError as exc:
        report.skip(str(exc), f"{where}: episode {example.get('episode_id')}")
        return
    yield Converted(sample, "train", "default")


def _files(src: Path) -> list[Path]:
    if not src.is_dir():
        return [src]
    found = []
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        with path.open("rb") as probe:
            gzipped = probe.read(2) == b"\x1f\x8b"
        if gzipped or "tfrecord" in path.name.lower():  # splits.json and READMEs beside the shards are not data
            found.append(path)
    return found


def convert_android_control(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Every TFRecord file under ``src`` (or ``src`` itself), one episode record at a time."""
    for path in _files(src):
        count = 0
        try:
            for count, data in enumerate(read_records(path), 1):  # count names where a file broke
                yield from _record(data, report, f"{path.name} record {count}")
        except RecordError as exc:
            report.records += 1  # the record that could not be framed; the rest of the file is unreadable
            report.skip(str(exc), f"{path.name} after record {count}")


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "android_control",
        convert_android_control,
        description="AndroidControl GZIP TFRecord episodes: mobile use rows (goal, step instructions as descriptions)",
    )
