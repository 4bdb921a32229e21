"""VLC 3.0 (Qt 5) in the desktop tasks: media made by setup, VLC's menus and dialogs played by the
oracles, and what VLC writes (playlists, snapshots, converted media, tags, its settings) read back whole
by the evaluators (not a task: no ``main.py``).

**The media.** Setup makes every file it seeds: WAVs with the stdlib ``wave`` module (``tone_wav``: one
steady tone a second, each second its own pitch, so a cut or a conversion shows which seconds it kept),
and with ``ffmpeg`` in the environment (``make_media``) videos of flat colours, one a second
(``colour_video``: a snapshot's colour says which second it shows), and FLAC files with tags.

**VLC on the desktop.** Qt 5 puts VLC's widgets on the accessibility bus (the local backend sets
``QT_LINUX_ACCESSIBILITY_ALWAYS_ON``): its menu bar and open menus, its playlist (a row of cells per item),
and its dialogs (Qt's own file dialog with its File name field and Files of type list, Open Media,
Convert, Current Media Information, Preferences) with their labels, though few fields are named: ``after``
finds a field by the label before it. The toolbar's buttons have no names. Setup starts VLC with ``ARGS``
(no sound card: the dummy audio output; no first-run privacy question) and waits for its menu bar in the
tree (``open_vlc``); VLC starts in about a second. The oracles open dialogs by their shortcuts
(``open_window``: pressed again only after a long wait, as VLC opens a dialog once more for a shortcut a
busy desktop delayed), fill fields checking each step in the tree (``fill``: Qt's file dialog pops a
completer up under its File name field that takes the first Enter or click for itself), and pick list
entries by typing them into the opened list. Convert's Destination file is read-only: its Browse button's
Save dialog sets it (``convert``).

**What VLC writes by itself.** ``vlc-qt-interface.conf`` (its window's geometry and recent media, on every
open and close), the media library's ``ml.xspf`` (on quit) and Qt's ``QtProject.conf`` (the file dialog's
last folder, whenever one closes): ``OWN`` lets them change, as VLC changes them (new content; never a
mode, nor a time alone: ``only_changed``, with ``_common.app_wrote``). ``vlcrc``, its
preferences, is written only by Tools > Preferences > Save, so no task lets it change but the one that
asks for a preference.

**Read back whole.** Playlists: XSPF with lxml (no entities, no network; ``read_xspf``) and M3U as text
(``read_m3u``), each by its content (an XSPF under an ``.m3u`` name is no M3U), ending as VLC ends them
(one newline after the last line: blank lines after it are not VLC's file). Images with Pillow
(``read_picture``), audio with ``wave`` (``read_wav``) and mutagen (``read_audio``): anything that is not
the asked format is a reason, a string, never an exception.
"""

from __future__ import annotations

import io
import math
import random
import wave
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

import numpy as np
from lxml import etree
from PIL import Image, UnidentifiedImageError

from cua_bench import Session, Task, TaskError
from cua_bench.filestate import Snapshot
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    PATIENCE,
    act,
    app_wrote,
    env_var,
    files_since_setup,
    key,
    no_window,
    nothing_else_changed,
    output_bytes,
    remember_files,
    shell,
    start,
    wait_for,
    window,
)
from cua_core import Click, TypeText, Wait

__all__ = [
    "APP",
    "ARGS",
    "BINARY_WAIVERS",
    "COLOURS",
    "MAIN",
    "OPEN_MEDIA",
    "OWN",
    "QT_CONF",
    "VLCRC",
    "WAIVERS",
    "Audio",
    "Picture",
    "after",
    "choose_type",
    "click",
    "colour_of",
    "colour_video",
    "convert",
    "fill",
    "frequencies",
    "from_menu",
    "home_path",
    "make_media",
    "node",
    "only_changed",
    "open_file",
    "open_video_at_end",
    "open_vlc",
    "open_window",
    "pitches",
    "read_audio",
    "read_m3u",
    "read_picture",
    "read_vlcrc",
    "read_wav",
    "read_xspf",
    "save_playlist",
    "scored",
    "seek",
    "set_time",
    "show_playlist",
    "tone_wav",
    "top",
    "track_names",
    "vlc_window",
]

APP = "vlc"
ARGS = ("--aout=dummy", "--no-qt-privacy-ask")
"""No sound card here (the dummy output plays in real time, silently); no first-run privacy question."""
QT_CONF = ".config/vlc/vlc-qt-interface.conf"
VLCRC = ".config/vlc/vlcrc"
MEDIA_LIBRARY = ".local/share/vlc/ml.xspf"
QT_DIALOGS = ".config/QtProject.conf"
OWN = [QT_CONF, MEDIA_LIBRARY, QT_DIALOGS]
"""What VLC and Qt rewrite on their own: VLC's window geometry and recent media on every open and close
(vlc-qt-interface.conf), its media library's playlist on quit (ml.xspf), and Qt's file dialog's last
folder and history whenever one closes (QtProject.conf)."""
WAIVERS = {
    **OUTPUT_IS_THE_WORK,
}
"""What every VLC task that reads the file it asks for waives, and why (its ``WAIVED``)."""
BINARY_WAIVERS = {
    **OUTPUT_IS_THE_WORK,
    "trailing-blank-lines": "the work is a binary file (an image or audio), which the mutation leaves alone; the "
    "only text files it changes are the ones VLC and Qt rewrite by themselves (vlc-qt-interface.conf, "
    "QtProject.conf: OWN), which the evaluator lets change",
}
"""What a VLC task whose output is an image or audio waives, and why."""
MAX_FILE = 32 << 20
MAIN = "VLC media player"

COLOURS = {
    "red": (220, 30, 30),
    "green": (30, 180, 60),
    "blue": (30, 60, 220),
    "yellow": (240, 220, 30),
    "magenta": (210, 40, 200),
    "cyan": (40, 210, 220),
    "orange": (250, 140, 20),
    "white": (240, 240, 240),
    "black": (15, 15, 15),
    "purple": (110, 40, 160),
    "brown": (120, 70, 30),
    "grey": (128, 128, 128),
}
"""Flat colours a seed video shows, one a second; far apart in RGB (a snapshot within 40 of one is that one)."""

Node = dict[str, Any]

# --- media made by setup -----------------------------------------------------------------------


def tone_wav(pitches: Sequence[int], *, rate: int = 44100, channels: int = 2, seconds: float = 1.0) -> bytes:
    """A 16-bit PCM WAV: ``seconds`` of a steady sine at each of ``pitches`` (Hz) in turn."""
    count = int(rate * seconds)
    t = np.arange(count) / rate
    parts = [np.round(12000 * np.sin(2 * np.pi * pitch * t)) for pitch in pitches]
    samples = np.concatenate(parts).astype("<i2")
    frames = np.repeat(samples[:, None], channels, axis=1).tobytes()
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(channels)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(frames)
    return out.getvalue()


def pitches(rng: random.Random, count: int) -> list[int]:
    """``count`` pitches (Hz) 300 to 3000, each at least 8% from every other, in a random order."""
    found: list[int] = []
    while len(found) < count:
        pitch = rng.randrange(300, 3000, 10)
        if all(abs(pitch - other) > 0.08 * max(pitch, other) for other in found):
            found.append(pitch)
    return found


def frequencies(samples: np.ndarray[Any, Any], rate: int, seconds: float = 1.0) -> list[float]:
    """The pitch (Hz) of each whole ``seconds`` of mono ``samples``, from its zero crossings (a steady
    tone crosses zero twice a period); a part quieter than a whisper reads 0."""
    step = int(rate * seconds)
    found = []
    for begin in range(0, len(samples) - step + 1, step):
        part = samples[begin + step // 10 : begin + step - step // 10].astype(np.float64)
        if part.size == 0 or float(np.abs(part).mean()) < 500:
            found.append(0.0)
            continue
        signs = np.signbit(part)
        crossings = int(np.count_nonzero(signs[1:] != signs[:-1]))
        found.append(crossings / 2 / (part.size / rate))
    return found


async def make_media(session: Session, command: str, timeout: float = 120) -> None:
    """Setup: ``ffmpeg`` (quiet, overwriting) with ``command``, run in home; its failure stops setup."""
    result = await session.run_command(f"ffmpeg -hide_banner -loglevel error -y {command}", timeout=timeout)
    if result.returncode != 0:
        raise TaskError(f"ffmpeg failed: {result.stderr[-400:]}")


async def colour_video(session: Session, path: str, colours: Sequence[str], size: tuple[int, int]) -> None:
    """Setup: ``~/path``, an MJPEG AVI of ``size`` at 10 frames a second showing each of ``colours``
    (names of ``COLOURS``) for one second in turn."""
    width, height = size
    inputs = " ".join(
        f"-f lavfi -i color=c=0x{''.join(f'{c:02x}' for c in COLOURS[name])}:s={width}x{height}:r=10:d=1"
        for name in colours
    )
    folder = path.rsplit("/", 1)[0] if "/" in path else "."
    await session.run_command(f"mkdir -p {shell(folder)}", timeout=20, check=True)
    await make_media(
        session,
        f"{inputs} -filter_complex concat=n={len(colours)}:v=1:a=0 -c:v mjpeg -q:v 2 -pix_fmt yuvj444p {shell(path)}",
    )


# --- VLC on the screen -------------------------------------------------------------------------


def vlc_window(title: str) -> bool:
    """VLC's main window: ``VLC media player``, or ``NOW PLAYING - VLC media player``."""
    return title == MAIN or title.endswith(f" - {MAIN}")


async def open_vlc(task: Task, session: Session, *args: str, remember: bool = True) -> None:
    """Setup: VLC started with ``ARGS`` and ``args`` (media paths relative to home) after its first-run
    question is marked answered, its menu bar in the tree, and (with ``remember``) the files under home
    remembered."""
    if (await session.run_command("id -u", timeout=20)).stdout.strip() == "0":
        raise TaskError(
            "VLC refuses to run as root: run the local backend isolated (CUA_LOCAL_ISOLATE=1, or auto as root), "
            "where the environment has a user of its own, or the docker backend's office image, whose env server "
            "runs as `user` (an image built before 2026-12-07 ran it as root: rebuild it with "
            "`cua-bench image build docker --variant office`)"
        )
    await session.run_command("mkdir -p .config/vlc", timeout=20, check=True)
    await session.write_file(QT_CONF, "[General]\nIsFirstRun=0\n")
    await start(session, APP, *ARGS, *args, title=vlc_window, timeout=90)
    await wait_for(lambda: node(session, "menu item", "Media"), "VLC's menu bar", PATIENCE)
    if remember:
        await remember_files(task, session)


async def open_video_at_end(task: Task, session: Session, meta: dict[str, Any], seconds: int) -> None:
    """Setup: the video of ``meta["colours"]`` (``colour_video``) at ``~/meta["path"]``, VLC playing it
    to its end and pausing there (``--play-and-pause``), and the files under home remembered."""
    await colour_video(session, meta["path"], meta["colours"], (int(meta["size"][0]), int(meta["size"][1])))
    await open_vlc(task, session, "--play-and-pause", meta["path"], remember=False)
    ends = (f"00:{seconds - 1:02d}", f"00:{seconds:02d}")

    async def at_end() -> bool:
        for found in await session.accessibility_tree():
            if vlc_window(str(found.get("name") or "")):
                labels = [n for n in walk([found]) if n.get("role") == "label" and n.get("bounds")]
                times = [str(n.get("name") or "").strip() for n in labels if ":" in str(n.get("name") or "")]
                return len(times) >= 2 and times[0] in ends
        return False

    # The elapsed time (the seek bar's first label) at the end: VLC paused on the last frame.
    await wait_for(at_end, "VLC to pause at the end of the video", 90)
    await remember_files(task, session)


async def node(
    session: Session,
    role: str,
    name: str | Callable[[str], bool] | None = None,
    window: str | Callable[[str], bool] | None = None,
) -> Node | None:
    """The first showing widget of ``role`` named ``name`` (in the window titled ``window``), front window
    first; None when there is none."""
    for top in await session.accessibility_tree():
        title = str(top.get("name") or "")
        if window is not None and not (window(title) if callable(window) else title == window):
            continue
        for found in walk([top]):
            label = str(found.get("name") or "")
            named = name is None or (name(label) if callable(name) else label == name)
            if found.get("role") == role and named and found.get("bounds"):
                return found
    return None


async def click(
    session: Session,
    role: str,
    name: str | Callable[[str], bool] | None = None,
    window: str | Callable[[str], bool] | None = None,
) -> None:
    """Oracle move: the widget clicked once it shows."""
    found = await wait_for(lambda: node(session, role, name, window), f"the {role} {name!r}")
    await act(session, Click(center(found)))


async def from_menu(session: Session, menu: str, item: str) -> None:
    """Oracle move: ``menu`` of the main window's menu bar opened and its ``item`` clicked (opened again
    when a click went nowhere)."""
    for _attempt in range(3):
        await click(session, "menu item", menu, vlc_window)
        try:
            found = await wait_for(lambda: node(session, "menu item", item), f"the menu item {item!r}", 5)
        except TaskError:
            await act(session, key("Escape"))
            continue
        await act(session, Click(center(found)))
        return
    raise TaskError(f"the menu {menu!r} would not show {item!r}")


def after(window: Node, label: str, role: str = "text") -> Node | None:
    """The first showing widget of ``role`` after the label ``label`` in ``window`` (Qt names few fields)."""
    seen = False
    for found in walk([window]):
        if found.get("role") == "label" and found.get("name") == label:
            seen = True
        elif seen and found.get("role") == role and found.get("bounds"):
            return found
    return None


async def top(session: Session, title: str) -> Node:
    """The window titled ``title`` with its widgets, once it shows."""

    async def find() -> Node | None:
        return next((t for t in await session.accessibility_tree() if t.get("name") == title), None)

    return await wait_for(find, f"the window {title!r}")


async def choose_type(session: Session, dialog: str, label: str) -> None:
    """Oracle move: ``label`` picked in the file dialog's Files of type list (opened with a click, the
    choice typed, Enter), checked in the tree."""

    async def box() -> Node | None:
        return after(await top(session, dialog), "Files of type:", "combo box")

    for _attempt in range(3):
        found = await wait_for(box, "the Files of type list")
        if found.get("name") == label:
            return
        await act(session, Click(center(found)), Wait(0.5), TypeText(label), key("Return"), Wait(0.3))
    found = await wait_for(box, "the Files of type list")
    if found.get("name") != label:
        raise TaskError(f"the Files of type list would not show {label!r}")


async def home_path(session: Session, path: str) -> str:
    """``~/path`` as an absolute path (what VLC's dialogs take and its playlists hold)."""
    return f"{await env_var(session, 'HOME')}/{path}"


async def file_dialog(session: Session, dialog: str, path: str, kind: str | None = None) -> None:
    """Oracle move: Qt's file dialog ``dialog`` given ``~/path`` (typed whole into its File name field,
    after ``kind`` is picked in its Files of type list) and its Open or Save button, until it closes."""
    await window(session, dialog)
    if kind is not None:
        await choose_type(session, dialog, kind)
    full = await home_path(session, path)
    last = ""
    for _attempt in range(3):
        await fill(session, lambda: _field(session, dialog), full, f"the File name field of {dialog!r}")
        # Qt's completer pops up under the field as the path is typed and takes an Enter (or a click
        # elsewhere) for itself, closing: Enter, then the dialog's own button while the field holds the path.
        for press in range(3):
            if press == 0:
                await act(session, key("Return"))
            else:
                button = await wait_for(lambda: _accept(session, dialog), f"the Open or Save button of {dialog!r}")
                await act(session, Click(center(button)))
            try:
                await no_window(session, dialog, timeout=5)
                return
            except TaskError:
                pass
            found = await _field(session, dialog)
            last = str((found or {}).get("value"))
            if last != full:
                break
    raise TaskError(f"the dialog {dialog!r} would not take {path!r} (its field reads {last!r})")


async def fill(session: Session, find: Callable[[], Awaitable[Node | None]], text: str, what: str) -> None:
    """Oracle move: the text field ``find`` finds emptied (a click, ctrl+a, BackSpace) and ``text`` typed,
    each step checked in the tree and done again when a key went astray (keys that come while a
    dialog takes the focus can go nowhere)."""

    async def reads(value: str) -> bool:
        found = await find()
        return found is not None and str(found.get("value") or "") == value

    for _attempt in range(4):
        field = await wait_for(find, what)
        if str(field.get("value") or "") == text:
            return
        await act(session, Click(center(field)), Wait(0.3), key("ctrl+a"), Wait(0.2), key("BackSpace"))
        try:
            await wait_for(lambda: reads(""), f"{what} to be empty", 3)
        except TaskError:
            continue
        await act(session, TypeText(text), Wait(0.5))
        try:
            await wait_for(lambda: reads(text), f"{what} to read {text!r}", 3)
            return
        except TaskError:
            continue
    raise TaskError(f"{what} would not take {text!r}")


async def _accept(session: Session, dialog: str) -> Node | None:
    return await node(session, "push button", lambda name: name in ("Open", "Save"), dialog)


async def _field(session: Session, dialog: str) -> Node | None:
    return after(await top(session, dialog), "File name:")


OPEN_DIALOG = "Select one or more files to open"
SAVE_PLAYLIST = "Save playlist as..."


async def open_file(session: Session, path: str) -> None:
    """Oracle move: Media > Open File... (ctrl+o) on ``~/path``; VLC adds it to the playlist and plays it."""
    await open_window(session, "ctrl+o", OPEN_DIALOG)
    await file_dialog(session, OPEN_DIALOG, path)


async def save_playlist(session: Session, path: str, kind: str | None = None) -> None:
    """Oracle move: Media > Save Playlist to File... (ctrl+y) to ``~/path`` as ``kind`` (a Files of type
    label: "M3U playlist (*.m3u"), and the wait for the file."""
    await open_window(session, "ctrl+y", SAVE_PLAYLIST)
    await file_dialog(session, SAVE_PLAYLIST, path, kind)

    async def written() -> bool:
        result = await session.run_command(f"test -s {shell(path)}", timeout=10)
        return result.returncode == 0

    await wait_for(written, f"{path} to be written")


async def open_window(session: Session, combo: str, dialog: str) -> None:
    """Oracle move: ``combo`` pressed until the window ``dialog`` shows. A second press comes only after a
    long wait: VLC queues the shortcuts a busy desktop delays, and opens the dialog again once the first
    closes."""
    for _attempt in range(2):
        await act(session, key(combo))
        try:
            await window(session, dialog, timeout=20)
            return
        except TaskError:
            continue
    raise TaskError(f"{combo} would not open {dialog!r}")


OPEN_MEDIA = "Open Media"
ADD_DIALOG = "Select one or multiple files"
CONVERT = "Convert"
SAVE_FILE = "Save file..."


async def convert(
    session: Session,
    source: str,
    profile: str | None,
    out: str,
    options: Callable[[Session], Awaitable[None]] | None = None,
) -> None:
    """Oracle move: Media > Convert / Save... (ctrl+r), ``~/source`` added with Add... (Qt's file
    dialog), ``options`` set in Open Media (None: none), Convert / Save, ``profile`` picked in the
    Profile list (None: VLC's first), ``~/out`` chosen with Browse, Start, and the wait for the
    conversion: VLC plays the source into the file faster than real time, so it is done once the file is
    there and VLC's title is its bare name again."""
    await open_window(session, "ctrl+r", OPEN_MEDIA)
    await click(session, "push button", "Add...", OPEN_MEDIA)
    await file_dialog(session, ADD_DIALOG, source)
    if options is not None:
        await options(session)
    await click(session, "button menu", "Convert / Save", OPEN_MEDIA)
    await window(session, CONVERT)
    if profile is not None:
        box = await wait_for(lambda: _in(session, CONVERT, "Profile", "combo box"), "the Profile list")
        await act(session, Click(center(box)), Wait(0.5), TypeText(profile), key("Return"), Wait(0.5))
    # Destination file is read-only: Browse opens a Save dialog, and VLC gives the name it returns the
    # profile's extension (the names asked for carry it already).
    full = await home_path(session, out)
    await click(session, "push button", "Browse", CONVERT)
    await file_dialog(session, SAVE_FILE, out)

    async def destination() -> bool:
        found = await _in(session, CONVERT, "Destination file:")
        return found is not None and found.get("value") == full

    try:
        await wait_for(destination, f"the Destination file to read {full}", 10)
    except TaskError:
        found = await _in(session, CONVERT, "Destination file:")
        raise TaskError(f"the Destination file reads {(found or {}).get('value')!r}, not {full!r}") from None
    await click(session, "push button", "Start", CONVERT)

    async def done() -> bool:
        result = await session.run_command(f"test -s {shell(out)}", timeout=10)
        return result.returncode == 0 and MAIN in [w["title"] for w in await session.windows()]

    await wait_for(done, f"{out} to be converted")


async def _in(session: Session, title: str, label: str, role: str = "text") -> Node | None:
    return after(await top(session, title), label, role)


async def set_time(session: Session, title: str, label: str, seconds: int) -> None:
    """Oracle move: the time field after ``label`` in the window ``title`` (a Qt time edit,
    ``00H:00m:00s.000``) set to ``seconds`` (under a minute): a click, Home (the hours), Tab twice (the
    seconds), the two digits typed, checked in the tree."""
    want = f"00H:{seconds // 60:02d}m:{seconds % 60:02d}s.000"
    for _attempt in range(4):
        box = await wait_for(lambda: _in(session, title, label, "spin box"), f"the {label} field")
        if box.get("value") == want:
            return
        await act(
            session, Click(center(box)), Wait(0.3), key("Home"), key("Tab"), key("Tab"), TypeText(f"{seconds:02d}")
        )
        try:
            await wait_for(lambda: _reads(session, title, label, want), f"the {label} field to read {want}", timeout=3)
            return
        except TaskError:
            continue
    raise TaskError(f"the {label} field would not take {want}")


async def _reads(session: Session, title: str, label: str, want: str) -> bool:
    box = await _in(session, title, label, "spin box")
    return box is not None and box.get("value") == want


async def show_playlist(session: Session) -> None:
    """Oracle move: View > Playlist (ctrl+l) until the playlist's Title column shows."""
    for _attempt in range(3):
        if await node(session, "column header", "Title", vlc_window):
            return
        await act(session, key("ctrl+l"))
        try:
            await wait_for(lambda: node(session, "column header", "Title", vlc_window), "the playlist", 5)
            return
        except TaskError:
            continue
    raise TaskError("the playlist would not show")


async def track_names(session: Session) -> list[str]:
    """The titles the playlist shows, top to bottom (the first cell of each row)."""
    main = next((t for t in await session.accessibility_tree() if vlc_window(str(t.get("name") or ""))), None)
    if main is None:
        return []
    for tree in walk([main]):
        if tree.get("role") == "tree" and any(
            c.get("role") == "column header" and c.get("name") == "Title" for c in tree.get("children") or []
        ):
            headers = [c for c in tree.get("children") or [] if c.get("role") == "column header" and c.get("bounds")]
            items = [c for c in tree.get("children") or [] if c.get("role") == "tree item" and c.get("bounds")]
            columns = max(len(headers), 1)
            return [str(items[i].get("name") or "") for i in range(0, len(items), columns)]
    return []


async def seek(session: Session, seconds: int) -> None:
    """Oracle move: Playback > Jump to Specific Time (ctrl+t), ``seconds`` typed as hh mm ss, Enter, and
    the wait for the elapsed time to show it."""
    await open_window(session, "ctrl+t", "Go to Time")
    hours, rest = divmod(seconds, 3600)
    stamp = f"{hours:02d}{rest // 60:02d}{rest % 60:02d}"
    await act(session, TypeText(stamp), Wait(0.3), key("Return"))
    await no_window(session, "Go to Time")
    shown = f"{rest // 60:02d}:{rest % 60:02d}"
    await wait_for(lambda: node(session, "label", shown, vlc_window), f"the elapsed time {shown}")


# --- reading what VLC wrote --------------------------------------------------------------------

XSPF = "http://xspf.org/ns/0/"
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _local(uri: str) -> str:
    """A playlist entry as a path: a ``file://`` URI decoded, anything else as it is."""
    if uri.startswith("file://"):
        return unquote(urlparse(uri).path)
    return uri


def _tail(data: bytes, last: bytes) -> str | None:
    """VLC ends its playlists with ``last`` and one newline: None when ``data`` does, else why not."""
    if not data.rstrip(b"\n").endswith(last) or not data.endswith(b"\n") or data.endswith(b"\n\n"):
        return "it does not end as VLC ends the file (blank lines or other text after it)"
    return None


def read_xspf(data: bytes | None) -> list[str] | str:
    """The tracks of an XSPF playlist, in order, as paths (``file://`` URIs decoded); or why it is not one."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE:
        return f"too large to read ({len(data)} bytes)"
    try:
        root = etree.fromstring(data, PARSER)
    except etree.XMLSyntaxError as exc:
        return f"not XML ({str(exc)[:120]})"
    if root.tag != f"{{{XSPF}}}playlist":
        return f"not an XSPF playlist (its root is {root.tag!r})"
    wrong = _tail(data, b"</playlist>")
    if wrong:
        return wrong
    tracks = root.findall(f"{{{XSPF}}}trackList/{{{XSPF}}}track")
    found = []
    for track in tracks:
        locations = track.findall(f"{{{XSPF}}}location")
        if len(locations) != 1 or not (locations[0].text or "").strip():
            return "a track without exactly one location"
        found.append(_local((locations[0].text or "").strip()))
    return found


def read_m3u(data: bytes | None, folder: str) -> list[str] | str:
    """The entries of an extended M3U playlist (``#EXTM3U`` first), in order, as absolute paths (VLC
    writes paths beside the playlist relative to ``folder``, its absolute folder); or why it is not one."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE:
        return f"too large to read ({len(data)} bytes)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    lines = text.split("\n")
    if lines[0].strip() != "#EXTM3U":
        return "not an extended M3U playlist (no #EXTM3U first)"
    if not text.endswith("\n") or text.endswith("\n\n"):
        return "it does not end as VLC ends the file (blank lines after it)"
    found = []
    for raw in lines[1:-1]:
        line = raw.rstrip("\r")
        if not line.strip():
            return "a blank line inside the playlist"
        if line.startswith("#"):
            continue
        path = _local(line)
        found.append(path if path.startswith("/") or "://" in path else f"{folder}/{path}")
    return found


def read_vlcrc(text: str | None) -> dict[str, str] | str:
    """VLC's preferences as it writes them: ``key=value`` lines under ``[module]`` headers, a setting
    left at its default written as a ``#key=value`` comment. Only the set ones: {key: value}; or why
    there are none (no file)."""
    if text is None:
        return "VLC's preferences were never saved (no vlcrc)"
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "[", ";")) or "=" not in line:
            continue
        name, value = line.split("=", 1)
        found[name.strip()] = value
    return found


@dataclass(frozen=True)
class Picture:
    """An image file read whole: its real format (Pillow's name), size and RGB pixels."""

    format: str
    size: tuple[int, int]
    pixels: np.ndarray[Any, np.dtype[np.uint8]]


def read_picture(data: bytes | None, fmt: str) -> Picture | str:
    """The image of format ``fmt`` ("PNG", "JPEG") in ``data``, as RGB; or why it is not one."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE:
        return f"too large to read ({len(data)} bytes)"
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != fmt:
                return f"a {image.format} file, not {fmt}"
            if image.width * image.height > 4_000_000:
                return f"too many pixels ({image.width}x{image.height})"
            image.load()
            pixels = np.asarray(image.convert("RGB"), dtype=np.uint8).copy()
            return Picture(fmt, (image.width, image.height), pixels)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        return f"not a readable {fmt} ({type(exc).__name__}: {str(exc)[:120]})"


def colour_of(picture: Picture, border: float = 0.1) -> str | None:
    """The name of the ``COLOURS`` colour ``picture`` is flat with (its middle, ``border`` of each side
    aside: every pixel within 40 of it and the mean within 20), None when it is none."""
    height, width = picture.pixels.shape[:2]
    middle = picture.pixels[
        int(height * border) : int(height * (1 - border)), int(width * border) : int(width * (1 - border))
    ].astype(np.int16)
    if middle.size == 0:
        return None
    for name, rgb in COLOURS.items():
        diff = np.abs(middle - np.array(rgb, dtype=np.int16))
        if int(diff.max()) <= 40 and float(diff.mean()) <= 20:
            return name
    return None


@dataclass(frozen=True)
class Wav:
    """A PCM WAV read whole: channels, rate, sample width (bytes) and the first channel's samples."""

    channels: int
    rate: int
    width: int
    samples: np.ndarray[Any, Any]

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.rate


def read_wav(data: bytes | None) -> Wav | str:
    """The 16-bit PCM WAV in ``data``; or why it is not one."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE * 4:
        return f"too large to read ({len(data)} bytes)"
    try:
        with wave.open(io.BytesIO(data), "rb") as file:
            channels, width, rate = file.getnchannels(), file.getsampwidth(), file.getframerate()
            frames = file.readframes(file.getnframes())
    except (wave.Error, EOFError, OSError, ValueError) as exc:
        return f"not a PCM WAV ({type(exc).__name__}: {str(exc)[:120]})"
    if width != 2 or channels < 1:
        return f"{width * 8}-bit samples, not 16-bit"
    samples = np.frombuffer(frames[: len(frames) // (2 * channels) * 2 * channels], dtype="<i2")
    return Wav(channels, rate, width, samples.reshape(-1, channels)[:, 0].copy())


@dataclass(frozen=True)
class Audio:
    """An audio file as mutagen reads it: its format (mutagen's class name), length in seconds, channels,
    sample rate, tags ({key in lower case: [values]}) and, for FLAC, the MD5 of its decoded audio."""

    format: str
    seconds: float
    channels: int
    rate: int
    tags: dict[str, list[str]]
    md5: int | None


def read_audio(data: bytes | None) -> Audio | str:
    """The audio file in ``data``, by its content (mutagen: FLAC, Ogg Vorbis, MP3, ...); or why it is none."""
    import mutagen  # the audio tasks' evaluators alone need it

    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE:
        return f"too large to read ({len(data)} bytes)"
    try:
        found = mutagen.File(io.BytesIO(data))
    except (mutagen.MutagenError, OSError, ValueError, EOFError) as exc:
        return f"not a readable audio file ({type(exc).__name__}: {str(exc)[:120]})"
    if found is None or found.info is None:
        return "not an audio file mutagen knows"
    info = found.info
    tags: dict[str, list[str]] = {}
    if found.tags is not None:
        for name, value in found.tags.items() if hasattr(found.tags, "items") else found.tags:
            values = value if isinstance(value, list) else [value]
            tags.setdefault(str(name).lower(), []).extend(str(v) for v in values)
    return Audio(
        type(found).__name__,
        float(getattr(info, "length", 0.0) or 0.0),
        int(getattr(info, "channels", 0) or 0),
        int(getattr(info, "sample_rate", 0) or 0),
        tags,
        getattr(info, "md5_signature", None),
    )


# --- the evaluators' frame -----------------------------------------------------------------------


async def scored(
    task: Task,
    session: Session,
    out: str,
    problem: Callable[[bytes | None], str | None],
    *,
    expect: Sequence[str] = (),
) -> list[float]:
    """A task's reward: 1.0 when ``~/out`` is a plain file with one link in which ``problem`` finds
    nothing wrong, and no other file under home changed but ``expect`` and what VLC rewrites by itself
    (``OWN``)."""
    before, after = await files_since_setup(task, session)
    data = await output_bytes(session, after, out)
    wrong = problem(data)
    if wrong:
        task.explain(f"{out}: {wrong}")
        return [0.0]
    return [1.0 if only_changed(task, before, after, [out, *expect]) else 0.0]


def only_changed(task: Task, before: Snapshot, after: Snapshot, expect: Sequence[str]) -> bool:
    """Nothing under home changed but ``expect`` and VLC's ``OWN`` files, and those only as VLC changes
    them (``app_wrote``)."""
    own = [path for path in OWN if path not in expect]
    return nothing_else_changed(task, before, after, expect=[*expect, *OWN]) and app_wrote(
        task, before, after, own, "VLC"
    )


def whole_seconds(value: float) -> int:
    """``value`` rounded to whole seconds (half up)."""
    return math.floor(value + 0.5)
