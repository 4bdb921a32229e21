"""WebLINX (McGill-NLP/WebLINX-full): candidate-element rows and demonstration replays.

**Candidate rows** (``candidates/<split>.jsonl``, one line per element a ranker scored for a turn:
``query``, ``demo_name``, ``turn_index``, ``uid``, ``elem_dict.bbox`` = ``"x=… y=… width=…
height=…"``, ``label`` 1 for the turn's target). A turn's adjacent rows are one record; its positive
candidate gives a ``grounding.bbox`` and a ``grounding.point`` row (like ScreenSpot's), the question
being the dialogue context of ``query`` (instructor utterances and previous turns). The box is in
the page's CSS pixels, relative to the viewport, so it is normalised by the viewport ``query``
names (``Viewport(height=…, width=…)``), not by the screenshot's pixels (which a zoom or device
pixel ratio scales). A candidate row carries no screenshot: the turn's image is the one its
demonstration's ``replay.json`` names (``data[turn].state.screenshot``, in ``screenshots/``),
looked up in SRC; without it the turn is skipped (``missing screenshot``), since a grounding row
without the screen its coordinates refer to teaches nothing. A turn with no positive, or with
more than one, is skipped by name; a centre outside the viewport skips the turn and a box that
leaves it skips the bbox row, never clamped.

**Demonstrations** (``demonstrations/<demo>/replay.json``: ``data`` = turns, ``type`` ``chat``
with ``speaker``/``utterance`` or ``browser`` with ``action.intent``, ``action.arguments``
{``metadata`` {``viewportWidth``, ``viewportHeight``, ``mouseX``, ``mouseY``}, ``element``
{``bbox``}, ``text``}, ``state`` {``screenshot``, ``screenshot_status``}), as the weblinx library
reads them (``weblinx.Turn``). The replays are not in the fixtures: this part follows the library's
documented fields and is tested on a replay built from them. Each browser turn becomes a
``grounding.action`` row (WebLINX scores turns one by one), asked with the dialogue so far:

========== ==============================================================================
click      click at ``mouseX``/``mouseY`` (viewport pixels), else the element's centre
hover      mouse_move to the same point
textInput  click at the element's centre, then type ``text``
say        no row: the utterance joins the dialogue of later turns (skipped by name)
load, scroll, submit, change, copy, paste, tabcreate, tabremove, tabswitch
           skipped by name: a URL load, an absolute scroll offset, form and clipboard events
           and tab events record no gesture the unified action space can replay
other      counted as an unmapped action form and skipped
========== ==============================================================================

Splits come from the dataset's ``splits.json`` (in SRC, or beside/above a single file), else from
a ``candidates/<split>.jsonl`` file name: ``train`` -> train, ``valid`` -> validation, the five
``test_*`` -> test (variant ``weblinx_<split>``); ``dev`` is ``valid`` + ``test_iid`` and is
ignored. A demonstration in no split is skipped, so no test turn lands in train by default.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_core import Action, Click, MouseMove, Point, Register, TypeText
from cua_data.convert import ConversionReport, Converted, Converter
from cua_data.converters.build import EpisodeError, call_id, grounding_call, image_size, user_turn
from cua_data.errors import StoreError
from cua_data.hookspecs import hookimpl
from cua_data.lite_actions import to_lite_tool_call
from cua_data.schema import LiteSample, Metadata

_SOURCE = "McGill-NLP/WebLINX-full"
_SPLITS = {"train": "train", "valid": "validation"} | {
    f"test_{name}": "test" for name in ("iid", "geo", "vis", "cat", "web")
}
_CONFLICT = ""  # a demonstration listed in two splits
_VIEWPORT = re.compile(r"Viewport\(height=(\d+(?:\.\d+)?), width=(\d+(?:\.\d+)?)\)")
_FIELD = re.compile(r"(\w+)=(\S+)")
_NO_GESTURE = {
    "load": "load: a URL navigation, no unified action",
    "scroll": "scroll: an absolute page offset, not a scroll amount",
    "submit": "submit: a form event that does not say whether Enter or a button sent it",
    "change": "change: a form value event with no recorded gesture",
    "copy": "copy: a clipboard event with no recorded gesture",
    "paste": "paste: a clipboard event with no recorded gesture",
    "tabcreate": "tabcreate: a browser tab event, no unified action",
    "tabremove": "tabremove: a browser tab event, no unified action",
    "tabswitch": "tabswitch: a browser tab event, no unified action",
}
_SAY = "say: a chat utterance (context for later turns, not a GUI action)"


def _splits_file(src: Path, files: list[Path]) -> Path | None:
    """The dataset's ``splits.json``: in a folder SRC, else beside or above the file SRC."""
    if src.is_dir():
        return next((p for p in files if p.name == "splits.json"), None)
    return next((p / "splits.json" for p in list(src.parents)[:3] if (p / "splits.json").is_file()), None)


def _read_splits(path: Path | None) -> dict[str, str]:
    """Demonstration -> WebLINX split name; "dev" (valid + test_iid) and unofficial names are ignored."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        data = None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise StoreError(f"{path}: not WebLINX's splits.json (a split name -> list of demonstration names)")
    found: dict[str, str] = {}
    for name, demos in data.items():
        for demo in demos if name in _SPLITS else []:
            found[str(demo)] = name if found.get(str(demo), name) == name else _CONFLICT
    return found


def _placement(demo: str, path: Path, splits: dict[str, str]) -> tuple[str, str, str]:
    """LiteSample split, variant and WebLINX split of a demonstration's rows."""
    name = splits.get(demo)
    if name is None and path.stem in _SPLITS:
        name = path.stem  # candidates/<split>.jsonl
    if name == _CONFLICT:
        raise EpisodeError("demonstration in more than one WebLINX split")
    if name is None:
        raise EpisodeError("demonstration in no WebLINX split (splits.json missing or silent)")
    return _SPLITS[name], "weblinx" if name in ("train", "valid") else f"weblinx_{name}", name


def _box(value: Any) -> tuple[float, float, float, float]:
    """``x, y, width, height`` from a bbox string ``"x=… y=… width=… height=…"`` or a DOMRect dict."""
    if isinstance(value, str):
        value = dict(_FIELD.findall(value))
    if not isinstance(value, dict):
        raise EpisodeError("malformed element bbox")
    try:
        box = tuple(float(value[key]) for key in ("x", "y", "width", "height"))
    except (KeyError, TypeError, ValueError):
        raise EpisodeError("malformed element bbox") from None
    if not all(math.isfinite(v) for v in box):
        raise EpisodeError("malformed element bbox")
    if box[2] <= 0 or box[3] <= 0:
        raise EpisodeError("empty target box")
    return box[0], box[1], box[2], box[3]


def _point(x: float, y: float, viewport: tuple[float, float]) -> Point:
    width, height = viewport
    if not (0 <= x < width and 0 <= y < height):
        raise EpisodeError("target outside the viewport")
    return Point(x * 1000 / width, y * 1000 / height)


class _Demos:
    """Demonstration folders by name; one replay is kept loaded (candidate rows come demo by demo)."""

    def __init__(self, found: dict[str, Path], bases: list[Path]) -> None:
        self.found, self.bases = found, bases
        self.loaded: tuple[str, Path | None, list[Any] | None] = ("", None, None)

    def _folder(self, demo: str) -> Path | None:
        if demo in self.found:
            return self.found[demo]
        places = (base / sub / demo for base in self.bases for sub in ("demonstrations", "."))
        return next((place for place in places if (place / "replay.json").is_file()), None)

    def replay(self, demo: str) -> tuple[Path, list[Any]]:
        if self.loaded[0] != demo:
            folder = self._folder(demo)
            self.loaded = (demo, folder, _load_replay(folder / "replay.json") if folder is not None else None)
        _, folder, data = self.loaded
        if folder is None:
            raise EpisodeError("missing screenshot (the turn's demonstration folder is not in SRC)")
        if data is None:
            raise EpisodeError("unreadable replay.json")
        return folder, data


@dataclass
class _Context:
    splits: dict[str, str]  # demonstration -> WebLINX split
    demos: _Demos
    report: ConversionReport


def _load_replay(path: Path) -> list[Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    turns = data.get("data") if isinstance(data, dict) else None
    return turns if isinstance(turns, list) else None


def _screenshot(folder: Path, turn: dict[str, Any]) -> tuple[bytes, list[int]]:
    """The turn's screenshot and its pixel size (checked here, so a corrupt file skips by name)."""
    state = turn.get("state")
    name = state.get("screenshot") if isinstance(state, dict) else None
    if not isinstance(state, dict) or not isinstance(name, str) or not name:
        raise EpisodeError("turn without a screenshot")
    if state.get("screenshot_status") == "broken":
        raise EpisodeError("screenshot marked broken")
    path = folder / "screenshots" / name
    if ".." in Path(name).parts or not path.is_file():
        raise EpisodeError("missing screenshot")
    image = path.read_bytes()
    return image, list(image_size(image))


def _row(
    task_type: str, question: str, answer: dict[str, Any], shot: tuple[bytes, list[int]], others: dict[str, Any]
) -> LiteSample:
    others = others | {"os": None, "source": _SOURCE, "resolution": shot[1]}
    return LiteSample(Metadata("browser", task_type, others=others), [user_turn(question, 0), answer], [shot[0]])


def _question(query: str) -> tuple[str, tuple[float, float]]:
    """The dialogue context of a candidate ``query`` and the viewport (width, height) it names."""
    match = _VIEWPORT.match(query)
    parts = query.split(" ---- ")
    if match is None or len(parts) != 3 or not float(match.group(1)) > 0 or not float(match.group(2)) > 0:
        raise EpisodeError("malformed query")
    utterances = parts[1].removeprefix("Instructor Utterances:").strip()
    previous = parts[2].removeprefix("Previous Turns:").strip()
    text = f"Instructor utterances: {utterances}\nPrevious turns: {previous}\n"
    return text + "Locate the element the navigator acts on next.", (float(match.group(2)), float(match.group(1)))


def _turn(positives: list[dict[str, Any]], key: tuple[str, int], path: Path, context: _Context) -> Iterator[Converted]:
    """One turn's candidate rows (only its positives are kept) -> its point and bbox rows."""
    demo, index = key
    ident = f"{demo}/{index}"
    context.report.records += 1
    try:
        if not positives:
            raise EpisodeError("no positive candidate")
        if len(positives) > 1:
            raise EpisodeError("more than one positive candidate")
        row = positives[0]
        split, variant, native = _placement(demo, path, context.splits)
        question, viewport = _question(str(row.get("query") or ""))
        x, y, w, h = _box(_dict(row.get("elem_dict")).get("bbox"))
        centre = _point(x + w / 2, y + h / 2, viewport)
        folder, turns = context.demos.replay(demo)
        if not 0 <= index < len(turns) or not isinstance(turns[index], dict):
            raise EpisodeError("turn_index not a turn of the replay")
        shot = _screenshot(folder, turns[index])
    except EpisodeError as exc:
        context.report.skip(str(exc), ident)
        return
    others = {"source_id": ident, "weblinx_split": native, "viewport": list(viewport), "uid": row.get("uid")}
    point = grounding_call("point", [centre.x, centre.y])
    yield Converted(
        _row("grounding.point", question, point, shot, others | {"id": f"weblinx_{demo}_{index}_point"}),
        split,
        variant,
    )
    scaled = [v * 1000 / s for v, s in zip((x, y, x + w, y + h), viewport * 2, strict=True)]
    if not all(0 <= v <= 1000 for v in scaled):
        context.report.skip("target box leaves the viewport (bbox row only)", ident)
        return
    box = grounding_call("bbox", scaled)
    yield Converted(
        _row("grounding.bbox", question, box, shot, others | {"id": f"weblinx_{demo}_{index}_bbox"}), split, variant
    )


def _candidates(path: Path, context: _Context) -> Iterator[Converted]:
    """A turn's rows are adjacent: group them while reading line by line, keeping only positives."""
    report = context.report
    key: tuple[str, int] | None = None
    positives: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                report.records += 1
                report.skip("invalid JSON", f"{path}:{number}: {exc}")
                continue
            if not (
                isinstance(row, dict)
                and isinstance(row.get("demo_name"), str)
                and type(row.get("turn_index")) is int
                and row.get("label") in (0, 1)
            ):
                report.records += 1
                report.skip("malformed candidate row", f"{path}:{number}: {line[:200]}")
                continue
            if (row["demo_name"], row["turn_index"]) != key:
                if key is not None:
                    yield from _turn(positives, key, path, context)
                key, positives = (row["demo_name"], row["turn_index"]), []
            if row["label"] == 1:
                positives.append(row)
    if key is not None:
        yield from _turn(positives, key, path, context)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _centre(element: dict[str, Any], viewport: tuple[float, float]) -> Point:
    x, y, w, h = _box(element.get("bbox"))
    return _point(x + w / 2, y + h / 2, viewport)


def _browser_actions(turn: dict[str, Any], report: ConversionReport) -> tuple[list[Action], tuple[float, float]]:
    action = turn.get("action")
    intent = action.get("intent") if isinstance(action, dict) else None
    if intent in _NO_GESTURE:
        raise EpisodeError(_NO_GESTURE[str(intent)])
    if not isinstance(action, dict) or intent not in ("click", "hover", "textInput"):
        report.unmapped(f"weblinx.{intent}", json.dumps(action)[:300])
        raise EpisodeError("unmapped intent")
    args = _dict(action.get("arguments"))
    meta = _dict(args.get("metadata"))
    width, height = _number(meta.get("viewportWidth")), _number(meta.get("viewportHeight"))
    if width is None or height is None or not (width > 0 and height > 0):
        raise EpisodeError("turn without a viewport size")
    viewport = (width, height)
    element = _dict(args.get("element"))
    if intent == "textInput":
        if not isinstance(args.get("text"), str):
            raise EpisodeError("textInput without text")
        return [Click(_centre(element, viewport)), TypeText(args["text"])], viewport
    mouse_x, mouse_y = _number(meta.get("mouseX")), _number(meta.get("mouseY"))
    # The recorded pointer is where the click happened; the element's centre only stands in for it.
    where = _centre(element, viewport) if mouse_x is None or mouse_y is None else _point(mouse_x, mouse_y, viewport)
    return [Click(where) if intent == "click" else MouseMove(where)], viewport


def _replay(path: Path, context: _Context) -> Iterator[Converted]:
    report, demo, turns = context.report, path.parent.name, _load_replay(path)
    if turns is None:
        report.records += 1
        report.skip("unreadable replay.json", str(path))
        return
    try:
        placement: tuple[str, str, str] | str = _placement(demo, path, context.splits)
    except EpisodeError as exc:
        placement = str(exc)
    dialogue: list[str] = []
    for index, turn in enumerate(turns):
        report.records += 1
        ident = f"{demo}/{index}"
        if isinstance(turn, dict) and turn.get("type") == "chat":
            speaker, utterance = turn.get("speaker"), turn.get("utterance")
            well_formed = isinstance(speaker, str) and isinstance(utterance, str)
            if well_formed:
                dialogue.append(f"{speaker}: {str(utterance).strip()}")  # the context of every later turn
            report.skip(_SAY if well_formed else "malformed turn", ident)
            continue
        try:
            if not isinstance(turn, dict) or turn.get("type") != "browser":
                raise EpisodeError("malformed turn")
            if isinstance(placement, str):
                raise EpisodeError(placement)
            actions, viewport = _browser_actions(turn, report)
            if not dialogue:
                raise EpisodeError("action before any utterance")
            shot = _screenshot(path.parent, turn)
        except EpisodeError as exc:
            report.skip(str(exc), ident)
            continue
        split, variant, native = placement
        question = "Dialogue so far:\n" + "\n".join(dialogue) + "\nWhat does the navigator do next on this page?"
        answer = {"role": "assistant", "tool_calls": [to_lite_tool_call(actions, "browser", call_id(0))]}
        others: dict[str, Any] = {"id": f"weblinx_{demo}_{index}", "source_id": ident, "weblinx_split": native}
        others |= {"viewport": list(viewport), "intent": turn["action"]["intent"]}
        yield Converted(_row("grounding.action", question, answer, shot, others), split, variant)


def convert_weblinx(src: Path, report: ConversionReport) -> Iterator[Converted]:
    """Candidate ``*.jsonl`` files and ``replay.json`` demonstrations under ``src`` (or ``src`` itself)."""
    # One walk keeps only the files read (a WebLINX-full tree holds ~100k screenshots and pages).
    names = ("replay.json", "splits.json")
    walked = (
        sorted(p for p in src.rglob("*") if (p.suffix == ".jsonl" or p.name in names) and p.is_file())
        if src.is_dir()
        else []
    )
    files = [p for p in walked if p.name != "splits.json"] if src.is_dir() else [src]
    found = {p.parent.name: p.parent for p in files if p.name == "replay.json"}
    bases = [src] if src.is_dir() else list(src.parents)[:3]
    context = _Context(_read_splits(_splits_file(src, walked)), _Demos(found, bases), report)
    for path in files:
        yield from _replay(path, context) if path.name == "replay.json" else _candidates(path, context)


@hookimpl
def cua_data_register_converters(register: Register[Converter]) -> None:
    register(
        "weblinx",
        convert_weblinx,
        description="WebLINX candidates (browser grounding.bbox/point) and replay.json turns (grounding.action)",
    )
