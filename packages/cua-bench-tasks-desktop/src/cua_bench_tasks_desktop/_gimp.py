"""GIMP 2.10 (GTK 2) in the desktop tasks: seeded pictures, the app started on one, the oracle's
moves in its menus and dialogs, and exported images read back whole (not a task: no ``main.py``).

**The pictures.** ``picture`` draws a seed: a background and a few flat rectangles of distinct
colours placed off-centre, so a mirror, a rotation or a crop of it differs from it almost
everywhere, and a resampled copy differs only along the rectangles' edges. A seed is kept in the
task's metadata as numbers (``Picture``) and drawn again with numpy by setup and by the evaluator;
setup writes it as a PNG with Pillow.

**Read back whole.** ``read_image`` reads an exported file with Pillow: its real format (by its
content, not its name), mode, size and pixels; anything that is not an image of that format is the
reason why, a string, never an exception. ``exported`` adds the end state's own checks: a plain
file with one link. The comparisons (``same_pixels``, ``close_to``) are in numpy, with the
tolerance each operation needs: none beyond rounding for lossless edits (flip, rotate, invert),
an edge allowance for resampling (scale) and a mean for JPEG.

**GIMP on the desktop.** GTK 2 exports its widgets to AT-SPI only with the gail and atk-bridge
modules (``ACCESSIBLE``), which setup asks for. Debian's GIMP opens in single-window mode, its
title ``[NAME] (imported)-1.0 (RGB color 8-bit gamma integer, GIMP built-in sRGB, 1 layer) WxH –
GIMP`` (a ``*`` in front once the image has changes; the export's name once exported), which the
oracle watches for an edit to show. GTK 2's accessibility bridge never reports a popped-up menu's
items as showing, so the tree has no place to click them; the oracle runs menu commands from GIMP's
own command search (``/``, Help > Search and Run a Command), whose results the tree does list with
each item's label and description (``run_action``). Dialogs are waited on by their titles, their
fields set and read back in the tree (``set_spin``, ``choose_in_list``), their buttons clicked.

**What GIMP writes.** GIMP makes its profile (``PROFILE``) at its first start and writes it as a
person works (a filter's last settings, an Export dialog's Save Defaults), and GTK 2 rewrites its
file chooser's settings (``CHOOSER``) whenever a file dialog closes; the evaluators let both change.
Setup writes the profile's ``gimprc`` first (no look for updates: nothing outside can be reached).
"""

from __future__ import annotations

import io
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, UnidentifiedImageError

from cua_bench import Session, Task, TaskError
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    PATIENCE,
    act,
    env_var,
    files_since_setup,
    key,
    no_window,
    nothing_else_changed,
    open_dialog,
    output_bytes,
    remember_files,
    shell,
    start,
    wait_for,
    window,
    write_files,
)
from cua_bench_tasks_desktop._office import still
from cua_core import Click, CuaError, TypeText, Wait

__all__ = [
    "ACCESSIBLE",
    "ACTIONS",
    "APP",
    "CANVAS_DIALOG",
    "CHOOSER",
    "GIMPRC",
    "PALETTE",
    "PNG_DIALOG",
    "PROFILE",
    "SCALE_DIALOG",
    "SEARCH",
    "WAIVERS",
    "Picture",
    "as_picture",
    "canvas_to",
    "choose_in_list",
    "click_button",
    "close_to",
    "draw",
    "edited",
    "edited_png",
    "export_as",
    "exported",
    "gray_of",
    "image_title",
    "jpeg_tables",
    "open_in_gimp",
    "picture",
    "png_bytes",
    "png_holds",
    "read_image",
    "rgb",
    "run_action",
    "same_pixels",
    "scale_to",
    "scaled",
    "scaled_problem",
    "scored",
    "seed",
    "set_spin",
    "setup_edit",
    "sizes_of",
    "spin_buttons",
]

APP = "gimp"
ACCESSIBLE = {"GTK_MODULES": "gail:atk-bridge"}
"""GTK 2 loads its accessibility bridge only when asked: without it GIMP's widgets never reach AT-SPI."""
PROFILE = ".config/GIMP/2.10"
"""GIMP's profile: made at its first start, and written as a person works (a filter's last settings,
the Export dialogs' Save Defaults), so the evaluators let it change."""
CHOOSER = ".config/gtk-2.0/gtkfilechooser.ini"
"""GTK 2's file chooser settings, rewritten whenever a file dialog closes (Export As among them)."""
WAIVERS = {
    **OUTPUT_IS_THE_WORK,
    "trailing-blank-lines": "the work is a binary image (PNG or JPEG), which the mutation leaves alone; the only "
    "text file an export changes is GTK 2's file chooser settings (gtkfilechooser.ini), rewritten by GTK whenever "
    "a file dialog closes, which the evaluator lets change",
}
"""What every GIMP task waives, and why (its ``WAIVED``)."""
GIMPRC = "(check-updates no)\n(check-update-timestamp 0)\n"
"""Setup's gimprc: no look for a newer release (nothing outside can be reached, and the answer's
timestamp would be written back)."""
MAX_IMAGE = 32 << 20
"""The largest file the evaluator decodes (the tasks' images are a few KiB)."""
MAX_PIXELS = 4_000_000

PALETTE = (
    (200, 60, 40), (40, 120, 200), (240, 200, 40), (60, 170, 90), (150, 70, 170),
    (30, 30, 30), (235, 235, 225), (250, 140, 30), (120, 200, 220), (110, 80, 50),
)  # fmt: skip
"""Flat colours far apart in every channel pair, and none grey at 128 (an invert moves each)."""

Pixels = np.ndarray[Any, np.dtype[np.uint8]]
Node = dict[str, Any]


@dataclass(frozen=True)
class Picture:
    """A seed: ``width`` x ``height`` pixels of ``background`` with ``boxes`` painted in order, each
    ``(left, top, right, bottom, (r, g, b))`` in pixels (right and bottom exclusive)."""

    width: int
    height: int
    background: tuple[int, int, int]
    boxes: tuple[tuple[int, int, int, int, tuple[int, int, int]], ...]

    def as_meta(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "background": list(self.background),
            "boxes": [[*box[:4], list(box[4])] for box in self.boxes],
        }


def _colour(value: Any) -> tuple[int, int, int]:
    return int(value[0]), int(value[1]), int(value[2])


def as_picture(value: dict[str, Any]) -> Picture:
    """A picture as the task's metadata keeps it (JSON lists), typed back."""
    colour = _colour
    return Picture(
        int(value["width"]),
        int(value["height"]),
        colour(value["background"]),
        tuple((int(b[0]), int(b[1]), int(b[2]), int(b[3]), colour(b[4])) for b in value["boxes"]),
    )


def picture(rng: random.Random, width: int, height: int, count: int = 4) -> Picture:
    """A background and ``count`` rectangles of other colours, each at least a sixth of the picture's
    side, placed so that no mirror or half-turn of the picture is the picture (see ``_symmetric``)."""
    while True:
        colours = rng.sample(PALETTE, count + 1)
        boxes = []
        for colour in colours[1:]:
            w = rng.randint(width // 6, width // 3)
            h = rng.randint(height // 6, height // 3)
            x, y = rng.randint(0, width - w), rng.randint(0, height - h)
            boxes.append((x, y, x + w, y + h, colour))
        found = Picture(width, height, colours[0], tuple(boxes))
        if not _symmetric(draw(found)):
            return found


def _symmetric(pixels: Pixels) -> bool:
    """Whether a mirror or half-turn of ``pixels`` is close to it (over 3% of pixels would differ otherwise)."""
    for other in (pixels[:, ::-1], pixels[::-1], pixels[::-1, ::-1]):
        if np.mean(np.any(other != pixels, axis=2)) < 0.03:
            return True
    return False


def draw(pic: Picture) -> Pixels:
    """The picture's pixels: ``height`` x ``width`` x 3, 8-bit RGB."""
    pixels = np.empty((pic.height, pic.width, 3), dtype=np.uint8)
    pixels[:, :] = pic.background
    for left, top, right, bottom, colour in pic.boxes:
        pixels[top:bottom, left:right] = colour
    return pixels


def png_bytes(pixels: Pixels) -> bytes:
    """``pixels`` as a PNG (RGB, or greyscale for a 2-D array), as setup writes a seed."""
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def gray_of(pixels: Pixels) -> Pixels:
    """What GIMP's Image > Mode > Grayscale makes of 8-bit sRGB pixels: the luminance of the linear
    light (the sRGB primaries' Y weights), encoded back with the sRGB curve, rounded."""
    c = pixels.astype(np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = linear @ np.array([0.2126729, 0.7151522, 0.0721750])
    encoded = np.where(y <= 0.0031308, y * 12.92, 1.055 * np.power(y, 1 / 2.4) - 0.055)
    gray: Pixels = np.clip(np.round(encoded * 255.0), 0, 255).astype(np.uint8)
    return gray


# --- reading an exported image -------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """An image file read whole: its real format (Pillow's name), mode, pixels and, for a JPEG, its
    quantization tables."""

    format: str
    mode: str
    pixels: Pixels
    quantization: dict[int, list[int]]


def read_image(data: bytes | None, fmt: str) -> Read | str:
    """The image of format ``fmt`` ("PNG", "JPEG") in ``data``, or why it is not one. An image with
    an alpha channel that is opaque everywhere reads as without it (GIMP may keep one it added);
    one with any transparent pixel keeps its alpha mode, which no task asks for."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_IMAGE:
        return f"too large to read ({len(data)} bytes)"
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != fmt:
                return f"a {image.format} file, not {fmt}"
            if image.width * image.height > MAX_PIXELS:
                return f"too many pixels ({image.width}x{image.height})"
            image.load()
            quantization = {
                int(k): [int(v) for v in t] for k, t in (getattr(image, "quantization", None) or {}).items()
            }
            mode, plain = image.mode, image.copy()
            if mode in ("RGBA", "LA") and image.getchannel("A").getextrema() == (255, 255):
                plain, mode = image.convert(mode[:-1]), mode[:-1]
            return Read(fmt, mode, np.asarray(plain, dtype=np.uint8).copy(), quantization)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        return f"not a readable {fmt} ({type(exc).__name__}: {str(exc)[:120]})"


def jpeg_tables(quality: int) -> dict[int, list[int]]:
    """The quantization tables libjpeg writes for ``quality`` (as Pillow reads them back): the standard
    tables scaled by ``jpeg_set_quality``, as GIMP's JPEG export and Pillow both call it."""
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, format="JPEG", quality=quality)
    with Image.open(out) as image:
        tables = getattr(image, "quantization", None) or {}
        return {int(k): [int(v) for v in t] for k, t in tables.items()}


def same_pixels(got: Pixels, want: Pixels, slack: int = 1) -> str | None:
    """None when ``got`` is ``want`` within ``slack`` per channel value; else what differs."""
    if got.shape != want.shape:
        return f"{_shape(got)}, not {_shape(want)}"
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
    if diff.size and int(diff.max()) > slack:
        off = np.mean(diff.reshape(diff.shape[0], diff.shape[1], -1).max(axis=2) > slack)
        return f"{off:.1%} of the pixels differ from what was asked (by up to {int(diff.max())})"
    return None


def close_to(got: Pixels, want: Pixels, *, mean: float, far: int = 40, share: float = 0.06) -> str | None:
    """None when ``got`` is ``want`` but for resampling or compression: a mean difference per channel
    value under ``mean`` and under ``share`` of the pixels off by more than ``far``; else what differs."""
    if got.shape != want.shape:
        return f"{_shape(got)}, not {_shape(want)}"
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
    average = float(diff.mean())
    off = float(np.mean(diff.reshape(diff.shape[0], diff.shape[1], -1).max(axis=2) > far))
    if average > mean or off > share:
        return f"the pixels are not what was asked (mean difference {average:.1f}, {off:.1%} far off)"
    return None


def _shape(pixels: Pixels) -> str:
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    return f"{pixels.shape[1]}x{pixels.shape[0]} with {channels} channel(s)"


async def exported(task: Task, session: Session, path: str, fmt: str) -> Read | None:
    """The image at ``~/path`` (a plain file with one link, as the end state's snapshot has it), read
    as ``fmt``; None (explained) when it is not one."""
    _, after = await files_since_setup(task, session)
    found = read_image(await output_bytes(session, after, path), fmt)
    if isinstance(found, str):
        task.explain(f"{path}: {found}")
        return None
    return found


# --- setup and the oracle's hands ---------------------------------------------------------------


def image_title(name: str, *, dirty: bool | None = None, size: tuple[int, int] | None = None) -> Callable[[str], bool]:
    """GIMP's title while it shows the image ``name`` (with unsaved changes or not, of ``size``)."""

    def accepts(title: str) -> bool:
        if f"[{name.rsplit('.', 1)[0]}]" not in title or not title.endswith("GIMP"):
            return False
        if dirty is not None and title.startswith("*") != dirty:
            return False
        return size is None or f") {size[0]}x{size[1]} " in title

    return accepts


async def open_in_gimp(
    task: Task, session: Session, files: dict[str, bytes], path: str, *, remember: bool = True
) -> None:
    """Setup: ``files`` written, GIMP started on ``~/path`` (its gimprc first), its window showing the
    image with its menu bar in the accessibility tree, and (with ``remember``) the files under home
    remembered."""
    for name, data in files.items():
        if "/" in name:
            await session.run_command(f"mkdir -p {shell(name.rsplit('/', 1)[0])}", timeout=20, check=True)
        await session.write_bytes(name, data)
    await write_files(session, {f"{PROFILE}/gimprc": GIMPRC})
    name = path.rsplit("/", 1)[-1]
    await start(session, APP, "--no-splash", path, title=image_title(name), env=ACCESSIBLE, timeout=180)
    await wait_for(lambda: _node(session, "menu bar"), "GIMP's menu bar", timeout=PATIENCE)
    await still(session)
    if remember:
        await remember_files(task, session)


async def _node(session: Session, role: str, name: str | None = None, window: str | None = None) -> Node | None:
    """The first showing widget of ``role`` (named ``name``; in the window titled ``window``), front window first."""
    tree = await session.accessibility_tree()
    tops = [top for top in tree if window is None or top.get("name") == window]
    for node in walk(tops):
        if node.get("role") == role and (name is None or node.get("name") == name) and node.get("bounds"):
            return node
    return None


async def click_button(session: Session, name: str, window: str | None = None) -> None:
    """Oracle move: the push button ``name`` (of the window titled ``window``) clicked once it shows."""
    button = await wait_for(lambda: _node(session, "push button", name, window), f"the button {name!r}")
    await act(session, Click(center(button)))


SEARCH = "Search Actions"
"""The title of Help > Search and Run a Command (the ``/`` key)."""
ACTIONS = {
    "flip-horizontal": ("flip horizontally", "Flip Horizontally", "Flip image horizontally"),
    "flip-vertical": ("flip vertically", "Flip Vertically", "Flip image vertically"),
    "rotate-90": ("rotate 90", "Rotate 90° clockwise", "Rotate the image 90 degrees to the right"),
    "rotate-270": ("rotate 90", "Rotate 90° counter-clockwise", "Rotate the image 90 degrees to the left"),
    "rotate-180": ("rotate 180", "Rotate 180°", "Turn the image upside-down"),
    "scale": ("scale image", "Scale Image...", "Change the size of the image content"),
    "canvas": ("canvas size", "Canvas Size...", "Adjust the image dimensions"),
    "grayscale": ("grayscale", "Grayscale", "Convert the image to grayscale"),
    "desaturate": ("desaturate", "Desaturate...", "Turn colors into shades of gray"),
    "invert": ("invert", "Invert", "Invert the components (except alpha) perceptually"),
    "linear-invert": ("linear invert", "Linear Invert", "Invert the components (except alpha) in linear light"),
    "value-invert": ("value invert", "Value Invert", "Invert the value component"),
}
"""GIMP's actions the oracles run: (what is typed into the search, the menu item's label, how its
description starts). The image's menu items share labels with the view's and the layer's (Flip
Horizontally flips the view, the image or the layer), so the description tells them apart."""


def _is_action(node: Node, label: str, about: str) -> bool:
    lines = str(node.get("name") or "").split("\n", 1)
    return len(lines) == 2 and lines[0].split(" | ")[0] == label and lines[1].startswith(about)


async def _action_cell(session: Session, label: str, about: str, selected: bool = False) -> Node | None:
    for node in walk(await session.accessibility_tree()):
        found = node.get("role") == "table cell" and node.get("bounds") and _is_action(node, label, about)
        if found and (not selected or "selected" in (node.get("states") or [])):
            return node
    return None


async def run_action(session: Session, action: str) -> None:
    """Oracle move: one of GIMP's menu commands (``ACTIONS``) run from its command search, as a person
    finds a menu item by name: ``/``, the words typed, the result with the item's label and
    description clicked (checked selected in the tree) and Enter; waits for the search to close.

    GIMP 2.10's menus are GTK 2 menus, whose items its accessibility bridge never reports as showing,
    so the tree has no place to click them; the search's results are a list the tree does show."""
    query, label, about = ACTIONS[action]
    for _attempt in range(3):
        await open_dialog(session, "/", SEARCH)
        await act(session, key("ctrl+a"), TypeText(query))
        try:
            cell = await wait_for(lambda: _action_cell(session, label, about), f"{label!r} in the search", 10)
            await act(session, Click(center(cell)))
            await wait_for(lambda: _action_cell(session, label, about, selected=True), f"{label!r} selected", 5)
        except TaskError:
            await act(session, key("escape"))
            continue
        await act(session, key("enter"))
        await no_window(session, SEARCH)
        return
    raise TaskError(f"GIMP's search would not run {label!r}")


async def spin_buttons(session: Session, title: str) -> list[Node]:
    """The showing spin buttons of the window titled ``title``, top to bottom, left to right."""
    for top in await session.accessibility_tree():
        if top.get("name") == title:
            found = [n for n in walk([top]) if n.get("role") == "spin button" and n.get("bounds")]
            return sorted(found, key=lambda n: (round(n["bounds"][1]), n["bounds"][0]))
    return []


def _number(value: Any) -> float | None:
    try:
        return float(str(value).strip())
    except ValueError:
        return None


async def set_spin(session: Session, title: str, index: int, value: int) -> None:
    """Oracle move: the ``index``-th spin button of the dialog ``title`` set to ``value`` as a person
    does (a click into it, select all, the number typed, Tab to commit), typed again until the tree
    reads it so (keys that come while the dialog takes the focus can go nowhere)."""

    async def node() -> Node | None:
        found = await spin_buttons(session, title)
        return found[index] if len(found) > index else None

    async def reads() -> bool:
        spin = await node()
        return spin is not None and _number(spin.get("value")) == value

    for _attempt in range(4):
        spin = await wait_for(node, f"spin button {index} of {title!r}")
        if _number(spin.get("value")) == value:
            return
        await act(session, Click(center(spin)), Wait(0.2), key("ctrl+a"), TypeText(str(value)), key("tab"))
        try:
            await wait_for(reads, f"{title!r} to read {value}", timeout=5)
            return
        except TaskError:
            continue
    raise TaskError(f"spin button {index} of {title!r} would not take {value}")


async def choose_in_list(session: Session, title: str, choices: tuple[str, ...], choice: str) -> None:
    """Oracle move: ``choice`` picked in the drop-down list of the dialog ``title`` that offers
    ``choices`` (in their order): the list opened with a click, the arrow keys from the current
    choice to it, Enter; checked in the tree and tried again when the list shows another."""

    async def box() -> Node | None:
        for top in await session.accessibility_tree():
            if top.get("name") == title:
                found = (n for n in walk([top]) if n.get("role") == "combo box" and n.get("name") in choices)
                return next(found, None)
        return None

    for _attempt in range(3):
        found = await wait_for(box, f"the list of {title!r}")
        current = str(found["name"])
        if current == choice:
            return
        steps = choices.index(choice) - choices.index(current)
        await act(session, Click(center(found)), Wait(0.5))
        await act(session, *[key("down" if steps > 0 else "up")] * abs(steps), key("enter"))
        await still(session)
    raise TaskError(f"the list of {title!r} would not show {choice!r}")


EXPORT_DIALOG = "Export Image"


async def export_as(
    session: Session, path: str, fmt_dialog: str, before_export: Callable[[Session], Awaitable[None]] | None = None
) -> None:
    """Oracle move: File > Export As (shift+ctrl+e) to ``~/path`` (typed as an absolute path), then
    the format's own dialog (``fmt_dialog``, "Export Image as PNG": ``before_export`` sets its fields)
    confirmed with its Export button; waits until the file is there whole."""
    home = await env_var(session, "HOME")
    await open_dialog(session, "shift+ctrl+e", EXPORT_DIALOG)
    await window(session, EXPORT_DIALOG)
    # The Export Image dialog stays open under the format's dialog, so it is the format's dialog that
    # shows the name was taken; Enter again only when it has not come (an Enter the chooser dropped).
    await act(session, key("ctrl+a"), TypeText(f"{home}/{path}"), key("delete"), Wait(0.3))
    for _ in range(4):
        await act(session, key("enter"))
        try:
            await window(session, fmt_dialog, timeout=8)
            break
        except TaskError:
            continue
    await window(session, fmt_dialog)
    if before_export is not None:
        await before_export(session)
    await click_button(session, "Export", fmt_dialog)

    async def written() -> bool:
        try:
            data = await session.read_bytes(path)
        except (OSError, CuaError, ValueError):
            return False
        return data.endswith((b"IEND\xaeB`\x82", b"\xff\xd9"))

    await wait_for(written, f"{path} to be exported", PATIENCE)
    await no_window(session, fmt_dialog)


# --- what the edit-and-export tasks share ---------------------------------------------------------

FOLDERS = ("Pictures", "photos", "artwork", "scans", "design")
STEMS = ("logo", "banner", "poster", "sketch", "photo", "icon", "cover", "badge", "chart", "flyer")
RATIOS = ((4, 3), (3, 2), (1, 1), (3, 4), (16, 9), (2, 3), (5, 4))


def seed(rng: random.Random, suffix: str, ext: str = ".png", *, square: bool = True) -> dict[str, Any]:
    """An edit task's metadata: ``path`` (the seed, a PNG under a folder of home), ``out`` (the
    export's path beside it: the name with ``suffix``, ``ext``) and ``picture`` (whose sides are a
    whole multiple of a ratio in ``RATIOS``, 240 to 480 pixels wide; not square unless ``square``)."""
    folder = rng.choice(FOLDERS)
    stem = f"{rng.choice(STEMS)}{rng.choice('_-')}{rng.randint(1, 99)}"
    ratios = [r for r in RATIOS if square or r[0] != r[1]]
    a, b = rng.choice(ratios)
    k = rng.randint(-(-240 // a), 480 // a)
    pic = picture(rng, a * k, b * k, rng.randint(3, 5))
    return {"path": f"{folder}/{stem}.png", "out": f"{folder}/{stem}{suffix}{ext}", "picture": pic.as_meta()}


async def setup_edit(task: Task, session: Session) -> None:
    """An edit task's setup: the seed written as a PNG at ``~/path`` and open in GIMP."""
    meta = task.metadata
    await open_in_gimp(task, session, {meta["path"]: png_bytes(draw(as_picture(meta["picture"])))}, meta["path"])


async def scored(task: Task, session: Session, fmt: str, problem: Callable[[Read], str | None]) -> list[float]:
    """An edit task's reward: 1.0 when ``~/out`` is a plain file with one link, an image of format
    ``fmt`` in which ``problem`` finds nothing wrong, and no other file under home changed (the seed
    among them)."""
    meta = task.metadata
    found = await exported(task, session, meta["out"], fmt)
    if found is None:
        return [0.0]
    wrong = problem(found)
    if wrong:
        task.explain(f"{meta['out']}: {wrong}")
        return [0.0]
    before, after = await files_since_setup(task, session)
    return [1.0 if nothing_else_changed(task, before, after, expect=[meta["out"], PROFILE, CHOOSER]) else 0.0]


def rgb(found: Read) -> Pixels | str:
    """The pixels of an RGB image, or why it is not one."""
    return found.pixels if found.mode == "RGB" else f"mode {found.mode}, not RGB"


async def edited(
    session: Session,
    meta: dict[str, Any],
    action: str,
    *,
    dirty: bool | None = True,
    size: tuple[int, int] | None = None,
) -> None:
    """Oracle move: GIMP's ``action`` run (``run_action``) and the wait for its title to show the
    change (the ``*`` of an edited image, or its new ``size``)."""
    name = meta["path"].rsplit("/", 1)[-1]
    await run_action(session, action)
    await window(session, image_title(name, dirty=dirty, size=size))


PNG_DIALOG = "Export Image as PNG"
"""The PNG export's options dialog, which ``export_as`` waits for."""


async def edited_png(session: Session, meta: dict[str, Any], action: str | None, **wait: Any) -> None:
    """Oracle move: GIMP's ``action`` (``edited``, with its ``wait`` options; None: no edit), then the image
    exported as a PNG to ``~/out``."""
    if action is not None:
        await edited(session, meta, action, **wait)
    await export_as(session, meta["out"], PNG_DIALOG)


async def png_holds(task: Task, session: Session, want: Pixels) -> list[float]:
    """An edit task's reward (``scored``) when ``~/out`` must be a PNG of exactly ``want`` (RGB, within 1)."""

    def problem(found: Read) -> str | None:
        pixels = rgb(found)
        return pixels if isinstance(pixels, str) else same_pixels(pixels, want)

    return await scored(task, session, "PNG", problem)


# --- scaling (gimp-scale-image, multi-mousepad-to-gimp) -------------------------------------------

SCALE_DIALOG = "Scale Image"
CANVAS_DIALOG = "Set Image Canvas Size"
FACTORS = ((1, 2), (2, 3), (3, 4), (3, 5), (2, 5), (4, 5), (5, 4), (3, 2))
"""New size over old: mostly smaller, some larger."""


def sizes_of(meta: dict[str, Any]) -> list[tuple[int, int]]:
    """The sizes the seed scales to by ``FACTORS`` in whole pixels, 60 pixels a side at least."""
    width, height = meta["picture"]["width"], meta["picture"]["height"]
    return [
        (width * num // den, height * num // den)
        for num, den in FACTORS
        if not width * num % den and not height * num % den and min(width, height) * num // den >= 60
    ]


def scaled(meta: dict[str, Any]) -> Pixels:
    """The seed resampled to ``meta["size"]`` (Pillow's bicubic: GIMP's default is cubic too)."""
    width, height = meta["size"]
    image = Image.fromarray(draw(as_picture(meta["picture"]))).resize((width, height), Image.Resampling.BICUBIC)
    return np.asarray(image, dtype=np.uint8)


def scaled_problem(meta: dict[str, Any], found: Read) -> str | None:
    """What is wrong with ``found`` as the seed scaled to ``meta["size"]`` (None: nothing)."""
    pixels = rgb(found)
    return pixels if isinstance(pixels, str) else close_to(pixels, scaled(meta), mean=8.0)


async def scale_to(session: Session, meta: dict[str, Any], width: int, height: int | None) -> None:
    """Oracle move: Image > Scale Image..., the width typed (the chain keeps the proportions), the
    height read back (None: whatever the chain made it), Scale clicked, and the wait for GIMP's
    title to show the new width."""
    await run_action(session, "scale")
    await _sized(session, meta, SCALE_DIALOG, "Scale", width, height)


async def canvas_to(session: Session, meta: dict[str, Any], width: int, height: int) -> None:
    """Wrong ways' move: Image > Canvas Size... set to ``width`` x ``height`` (a crop, not a scale)."""
    await run_action(session, "canvas")
    await _sized(session, meta, CANVAS_DIALOG, "Resize", width, height)


async def _sized(
    session: Session, meta: dict[str, Any], dialog: str, button: str, width: int, height: int | None
) -> None:
    await window(session, dialog)
    await set_spin(session, dialog, 0, width)
    if height is not None:
        await set_spin(session, dialog, 1, height)
    await click_button(session, button, dialog)
    await no_window(session, dialog)
    name = meta["path"].rsplit("/", 1)[-1]
    await window(session, lambda title: image_title(name)(title) and f") {width}x" in title)
