"""Positive controls for OSWorld's metric families: real published tasks, with the work done for them.

A control is one task from ``../shared/fixtures/osworld*``, copied (never edited in place) into a
variant whose evaluator is the task's own (its metric functions, options, ``conj`` and getters,
result paths under ``/home/user`` included) with two changes: its ``cloud_file`` gold files are
files we generate (OSWorld's cache is on the network, which environments never reach), and its
postconfig steps, which drive the app (focus LibreOffice, press ctrl+s), are dropped. Its setup is
one ``download`` step that leaves the state the agent was asked to leave (``worked``) or the state
before the work; the episode then ends with ``done`` (``fail`` for infeasible tasks).

The app's part is thus done by the control, not by the app: a control checks that the path from
the computer's state to the score (steps, getters, OSWorld's metric functions, the combination) gives
1.0 for the work and 0 without it, on a real task's evaluator. So the copy is filed under the
domain folder ``control``: under its own domain it would need the app (``apps.needed_apps``).

``FAMILIES`` maps each metric function to its family (OSWorld's metric module); the test holds
every family the supported published tasks use to a control here.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_bench_osworld.loader import OSWorldTask
from cua_bench_osworld.sources import classify, mirror_path
from cua_bench_osworld.support import _urls

__all__ = ["CONTROLS", "Control", "build_variant", "complete_mirror", "family_of"]

Files = dict[str, bytes]  # a path on the computer (or a cloud URL for gold files) -> content


def complete_mirror(tasks: Iterable[OSWorldTask], folder: Path) -> Path:
    """A mirror holding every remote file ``tasks`` use, as an empty file at its mirror path: support
    is judged on the task file (a file is there or not), so this is what a complete mirror gives."""
    for task in tasks:
        for url in _urls(task):
            if classify(url, base=task.path.parent).kind == "network":
                local = mirror_path(url, folder)
                local.parent.mkdir(parents=True, exist_ok=True)
                local.touch()
    return folder


def family_of(function: str, official: dict[str, Any]) -> str:
    """A metric function's family: the OSWorld metric module that defines it (``infeasible`` and
    other built-ins we implement ourselves are ``builtin``)."""
    fn = official.get(function)
    return str(getattr(fn, "__module__", "builtin")).rsplit(".", 1)[-1] if fn is not None else "builtin"


# --- files the controls write ------------------------------------------------------------------


def _xlsx(rows: list[list[Any]]) -> bytes:
    from openpyxl import Workbook  # type: ignore[import-untyped]

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _pptx(title: str, body: str) -> bytes:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = title
    slide.placeholders[1].text = body
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _docx(paragraphs: list[str]) -> bytes:
    from docx import Document

    document = Document()
    for text in paragraphs:
        document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _pdf(lines: list[str]) -> bytes:
    import fitz  # type: ignore[import-untyped]

    document = fitz.open()
    for line in lines:
        page = document.new_page()
        page.insert_text((72, 72), line, fontsize=14)
    data: bytes = document.tobytes()
    return data


def _image(kind: str, fmt: str = "PNG") -> bytes:
    """``stripes`` or ``checks``: two 128x96 pictures that share no structure."""
    import numpy as np
    from PIL import Image

    y, x = np.mgrid[0:96, 0:128]
    pattern = (x // 16) % 2 if kind == "stripes" else ((x // 8 + y // 8) % 2)
    pixels = (pattern * 200 + 30).astype("uint8")
    out = io.BytesIO()
    Image.fromarray(np.stack([pixels, pixels // 2, 255 - pixels], axis=-1)).save(out, format=fmt)
    return out.getvalue()


def _mimeapps(app: str) -> bytes:
    """Default apps (as ``xdg-mime query default`` reads them) opening every video type OSWorld's getter
    asks about with ``app``: a desktop with VLC installed answers vlc.desktop for any type left out."""
    from cua_bench_osworld.getters import VIDEO_TYPES

    return ("[Default Applications]\n" + "".join(f"video/{t}={app}\n" for t in VIDEO_TYPES)).encode()


def _bookmarks(folders: list[str]) -> bytes:
    """Chrome's Bookmarks file with these folders on the bookmark bar (and one link)."""
    children = [{"type": "folder", "name": name, "children": []} for name in folders]
    children.append({"type": "url", "name": "Example", "url": "https://example.org/"})
    return _json({"roots": {"bookmark_bar": {"children": children}, "other": {"children": []}}, "version": 1})


def _json(data: Any) -> bytes:
    return json.dumps(data, indent=2).encode()


# --- the controls -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Control:
    family: str  # the metric family (module) it checks
    task: str  # the published task, relative to the shared fixtures
    worked: Callable[[], Files]  # the state the agent was asked to leave, by path on the computer
    before: Callable[[], Files]  # the state without the work (also written: a metric must score it 0)
    gold: Callable[[], list[bytes]] = list  # the task's cloud_file gold files, in the order it lists them
    finish: str = "done"  # the agent's last action: "done", or "fail" for an infeasible task
    backend: str = "local"  # where it runs: "local" in CI, "docker-osworld" only in bench/osworld.py
    why_there: str = ""  # why a control runs only on docker-osworld
    commands: tuple[str, str] = ("", "")  # a shell step after the download: (worked, before); "" for none
    # A metric that grades similarity (SSIM, text ratio) rather than passing or failing: the state
    # before the work must score at most this (0.0: exactly 0).
    before_at_most: float = 0.0


def _same(path: str, good: Callable[[], bytes], bad: Callable[[], bytes]) -> dict[str, Any]:
    """A result file compared with a gold file: the work leaves the gold, no work leaves ``bad``."""
    return {"worked": lambda: {path: good()}, "before": lambda: {path: bad()}, "gold": lambda: [good()]}


_SCORES: list[list[Any]] = [["Name", "Score", "Level"], ["Ann", 91, "A"], ["Bob", 78, "B"], ["Cy", 64, "C"]]
_SCORES_UNFILLED: list[list[Any]] = [["Name", "Score", "Level"], ["Ann", 91, None], ["Bob", 78, None], ["Cy", 64, None]]
# Where a user's default apps live: gio (xdg-mime under GNOME, as on OSWorld's VM) reads mimeapps.list,
# xdg-mime's generic lookup (openbox) defaults.list; a choice made in either desktop's settings lands there.
_DEFAULTS = ("/home/user/.config/mimeapps.list", "/home/user/.local/share/applications/defaults.list")
_CHROMIUM = "/home/user/.config/chromium/Default"
_TB_PREFS = "/home/user/.thunderbird/t5q2a5hp.default-release/prefs.js"

CONTROLS: tuple[Control, ...] = (
    Control(
        "table",
        "osworld/libreoffice_calc/01b269ae-2111-4a07-81fd-3fcd711993b0.json",
        **_same(
            "/home/user/Student_Level_Fill_Blank.xlsx",
            lambda: _xlsx(_SCORES),
            lambda: _xlsx(_SCORES_UNFILLED),
        ),
    ),
    Control(
        "slides",
        "osworld_more/libreoffice_impress/0a211154-fda0-48d0-9274-eaac4ce5486d.json",
        **_same(
            "/home/user/Desktop/13_0.pptx",
            lambda: _pptx("Quarterly review", "Revenue grew 12%"),
            lambda: _pptx("Quarterly review", "Revenue grew"),
        ),
    ),
    Control(
        "general",
        "osworld_more/multi_apps/48d05431-6cd5-4e76-82eb-12b60d823f7d.json",
        worked=lambda: {"/home/user/.bashrc": b"# >>> conda initialize >>>\n"},
        before=lambda: {"/home/user/.bashrc": b"# ~/.bashrc\n"},
    ),
    Control(
        "docs",
        "osworld_more/libreoffice_writer/adf5e2c3-64c7-4644-b7b6-d2f0167927e7.json",
        **_same(
            "/home/user/Desktop/Essay_Writing_English_for_uni.docx",
            lambda: _docx(["Essay writing", "Plan, draft, revise."]),
            lambda: _docx(["Essay writing", "plan draft revise"]),
        ),
    ),
    Control(
        "builtin",
        "osworld_more/chrome/480bcfea-d68f-4aaa-a0a9-2589ef319381.json",
        worked=dict,
        before=dict,
        finish="fail",
    ),
    Control(
        "vscode",
        "osworld/vs_code/276cc624-87ea-4f08-ab93-f770e3790175.json",
        worked=lambda: {"/home/user/.config/Code/User/settings.json": _json({"editor.wordWrapColumn": 50})},
        before=lambda: {"/home/user/.config/Code/User/settings.json": _json({"editor.wordWrapColumn": 80})},
    ),
    Control(
        "gimp",
        "osworld_more/multi_apps/91190194-f406-4cd6-b3f9-c43fac942b22.json",
        **_same(
            "/home/user/Desktop/cropped.png",
            lambda: _image("stripes"),
            lambda: _image("checks"),
        ),
    ),
    Control(
        "chrome",
        "osworld_more/multi_apps/337d318b-aa07-4f4f-b763-89d9a2dd013f.json",
        **_same(
            "/home/user/Desktop/problematic/Invoice # 243729.pdf",
            lambda: _pdf(["Invoice 243729", "Total: 120.00"]),
            lambda: _pdf([""]),  # a blank page: compare_pdfs grades text similarity
        ),
    ),
    Control(
        "vlc",
        "osworld_more/multi_apps/09a37c51-e625-49f4-a514-20a773797a8a.json",
        **_same(
            "/home/user/Desktop/pic.jpg",
            lambda: _image("stripes", "JPEG"),
            lambda: _image("checks", "JPEG"),
        ),
        before_at_most=0.1,  # compare_images returns the SSIM itself
    ),
    Control(
        "thunderbird",
        "osworld_more/thunderbird/10a730d5-d414-4b40-b479-684bed1ae522.json",
        worked=lambda: {_TB_PREFS: b'user_pref("extensions.activeThemeID", "thunderbird-compact-dark@mozilla.org");\n'},
        before=lambda: {_TB_PREFS: b'user_pref("extensions.activeThemeID", "default-theme@mozilla.org");\n'},
    ),
    Control(
        "pdf",
        "osworld_more/libreoffice_calc/aa3a8974-2e85-438b-b29e-a64df44deb4b.json",
        worked=lambda: {"/home/user/Resize_Cells_Fit_Page.pdf": _pdf(["Name Score Level Ann 91 A"])},
        before=lambda: {"/home/user/Resize_Cells_Fit_Page.pdf": _pdf(["Name Score", "Level Ann 91 A"])},
        gold=lambda: [_pdf(["Name Score Level Ann 91 A"])],
    ),
    # The settings getters (vlc_config, gimp_config_file, default_video_player), through real tasks.
    Control(
        "vlc",
        "osworld_more/vlc/9195653c-f4aa-453d-aa95-787f6ccfaae9.json",
        worked=lambda: {"/home/user/.config/vlc/vlcrc": b"[qt] # Qt interface\nqt-max-volume=200\n"},
        before=lambda: {"/home/user/.config/vlc/vlcrc": b"[qt] # Qt interface\n#qt-max-volume=125\n"},
    ),
    Control(
        "gimp",
        "osworld_more/gimp/7b7617bd-57cc-468e-9c91-40c4ec2bcb3d.json",
        worked=lambda: {"/home/user/.config/GIMP/2.10/gimprc": b"# GIMP gimprc\n(undo-levels 100)\n"},
        before=lambda: {"/home/user/.config/GIMP/2.10/gimprc": b"# GIMP gimprc\n(undo-levels 5)\n"},
    ),
    Control(
        "general",
        "osworld_more/multi_apps/937087b6-f668-4ba6-9110-60682ee33441.json",
        worked=lambda: dict.fromkeys(_DEFAULTS, _mimeapps("vlc.desktop")),
        before=lambda: dict.fromkeys(_DEFAULTS, _mimeapps("org.gnome.Totem.desktop")),
    ),
    # Chrome's settings getters, from Chromium's profile (the osworld image's google-chrome is Chromium).
    Control(
        "general",
        "osworld/chrome/030eeff7-b492-4218-b312-701ec99ee0cc.json",
        worked=lambda: {f"{_CHROMIUM}/Preferences": _json({"enable_do_not_track": True})},
        before=lambda: {f"{_CHROMIUM}/Preferences": _json({"enable_do_not_track": False})},
    ),
    Control(
        "chrome",
        "osworld_more/chrome/2ad9387a-65d8-4e33-ad5b-7580065a27ca.json",
        worked=lambda: {f"{_CHROMIUM}/Bookmarks": _bookmarks(["Favorites"])},
        before=lambda: {f"{_CHROMIUM}/Bookmarks": _bookmarks([])},
    ),
    Control(
        "basic_os",
        "osworld_more/multi_apps/716a6079-22da-47f1-ba73-c9d58f986a38.json",
        worked=dict,
        before=dict,
        commands=(
            "printf %s /home/user/Data3/List3/secret.docx | xsel --clipboard --input",
            "printf %s /home/user/Data3/List3/other.docx | xsel --clipboard --input",
        ),
        backend="docker-osworld",
        why_there="its getter reads the X clipboard with xsel, which OSWorld's image has and the local desktop lacks",
    ),
)


def _gold_urls(evaluator: dict[str, Any]) -> list[str]:
    configs = evaluator.get("expected", [])
    configs = configs if isinstance(configs, list) else [configs]
    urls: list[str] = []
    for config in configs:
        if isinstance(config, dict) and config.get("type") == "cloud_file":
            paths = config["path"]
            urls += paths if isinstance(paths, list) else [paths]
    return urls


def build_variant(control: Control, fixtures: Path, folder: Path, *, worked: bool) -> Path:
    """The control's copy of its task under ``folder/control/`` (see the module's docstring)."""
    data = json.loads((fixtures / control.task).read_text())
    files_dir = folder / "files" / ("worked" if worked else "before")
    files_dir.mkdir(parents=True, exist_ok=True)
    gold = control.gold()
    state = control.worked() if worked else control.before()
    urls = _gold_urls(data["evaluator"])
    if len(urls) != len(gold):
        raise ValueError(
            f"control {control.family}: {control.task} has {len(urls)} gold files, the control {len(gold)}"
        )
    local_gold: dict[str, str] = {}
    for i, (url, content) in enumerate(zip(urls, gold, strict=True)):
        path = files_dir / f"gold-{i}"
        path.write_bytes(content)
        local_gold[url] = str(path)
    downloads = []
    for i, (target, content) in enumerate(state.items()):
        path = files_dir / f"state-{i}"
        path.write_bytes(content)
        downloads.append({"url": str(path), "path": target})
    evaluator = {key: value for key, value in data["evaluator"].items() if key != "postconfig"}
    for config in evaluator.get("expected", []) if isinstance(evaluator.get("expected"), list) else []:
        _relink(config, local_gold)
    if isinstance(evaluator.get("expected"), dict):
        _relink(evaluator["expected"], local_gold)
    steps: list[dict[str, Any]] = [{"type": "download", "parameters": {"files": downloads}}] if downloads else []
    command = control.commands[0 if worked else 1]
    if command:
        steps.append({"type": "execute", "parameters": {"command": command, "shell": True}})
    variant = {
        **data,
        "id": f"{data['id']}-{'worked' if worked else 'before'}",
        "config": steps,
        "evaluator": evaluator,
    }
    out = folder / "control" / f"{variant['id']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(variant, indent=1))
    return out


def _relink(config: dict[str, Any], local: dict[str, str]) -> None:
    if config.get("type") != "cloud_file":
        return
    paths = config["path"]
    config["path"] = [local[p] for p in paths] if isinstance(paths, list) else local[paths]
