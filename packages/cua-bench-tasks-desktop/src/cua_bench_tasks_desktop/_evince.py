"""Evince (GNOME's document viewer, GTK 3) in the desktop tasks: PDFs written by setup, found on the
screen by the oracles, and read back whole by the evaluators (not a task: no ``main.py``).

**The documents.** ``pdf_bytes`` writes a seed with fpdf2: A5 landscape pages, each a bold heading
and lines of Helvetica at a fixed place (``Layout``), so every glyph's box is known from the text
alone (the standard font's metrics, which fpdf2 and Poppler share). The pages are compressed
streams, so a seed is binary, as PDFs are, and no text-file trick reads it as text.

**Read back whole.** ``read_pdf`` reads a saved file with pypdf: its pages' text and every
annotation (type, contents, rectangle, QuadPoints, the parent of a popup). Anything that is not a
PDF (no ``%PDF-`` header, a file pypdf cannot parse, a page it cannot read) is the reason why, a
string, never an exception; ``read_saved`` gives None for it and explains, and the evaluators score 0.

**Highlights.** Evince rounds a highlight's QuadPoints to whole points and may carry it over the
space before the first glyph or after the last, so ``highlight_problems`` holds a
highlight to the phrase's words: it must cover each glyph of the phrase but a sliver (``SLACK``) and
reach into no neighbouring word beyond that sliver, on the phrase's line and page.

**On the screen.** Evince's accessible pages report stale places once the window is resized, so the
oracles find the page as a person does: ``show_page`` puts it in view (Fit Page, ctrl+l and its
number), ``page_on_screen`` takes the white rectangle of the page in full view from the frame, and
``to_screen`` maps a point of the page there. Evince makes a highlight of a drag only when the
pointer moves between press and release (``drag``). Setup maximises the window (a double click on
its header bar) so the text is large, unless a task places it beside another app.

**Notes.** A note's (or a highlight's) text is typed in a window of its own that Evince opens; keys
sent before that window has the focus go elsewhere, and Evince keeps the text when it is closed
(``type_in_note``). Its spell checker makes empty word lists under ``~/.config/enchant`` the first
time: setup makes them first (``SPELL_FILES``), so they are no change of the agent's.

**Saving.** Evince 43 never writes the open file: File > Save a Copy (ctrl+s, a dialog titled
``Save As…``) writes the document with its annotations to a new file, which the tasks ask for.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pypdf
from fpdf import FPDF

from cua_bench import Session, Task, TaskError
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._a11y import nodes
from cua_bench_tasks_desktop._common import (
    PATIENCE,
    WORDS,
    act,
    files_since_setup,
    key,
    open_dialog,
    output_bytes,
    remember_files,
    sentence,
    shell,
    start,
    submit_dialog,
    unchanged_but,
    wait_for,
    window,
    write_files,
)
from cua_bench_tasks_desktop._office import still
from cua_core import Action, Click, CuaError, MouseDown, MouseMove, MouseUp, Point, TypeText, Wait

__all__ = [
    "LAYOUT",
    "SAVE_DIALOG",
    "Annotation",
    "Layout",
    "PageBox",
    "Pages",
    "Pdf",
    "add_note",
    "annotated_copy_score",
    "annotation_problems",
    "as_pages",
    "drag",
    "glyph_span",
    "highlight",
    "highlight_problems",
    "new_window",
    "open_highlight",
    "open_pdf",
    "open_seeded",
    "page_box",
    "page_on_screen",
    "pdf_bytes",
    "pdf_text_problems",
    "phrase_line",
    "phrase_problems",
    "read_pdf",
    "read_saved",
    "save_copy",
    "seed_pages",
    "show_page",
    "text_width",
    "title_of",
    "to_screen",
    "tool",
    "type_in_note",
]

SAVE_DIALOG = "Save As…"
"""The title of Evince's File > Save a Copy dialog (ctrl+s)."""

SPELL_FILES = (".config/enchant/en_US.dic", ".config/enchant/en_US.exc")
"""The spell checker's personal word lists, as a profile that has checked spelling once has them."""

MAX_PDF = 16 << 20
"""The largest file the evaluator parses (the tasks' PDFs are a few KiB): pypdf inflates what it reads,
and an agent's file may be built to blow up."""
SLACK = 1.5
"""Points of a phrase's outer glyphs a highlight may miss, or of a neighbouring word it may touch:
Evince rounds QuadPoints to whole points (a glyph of the body text is 3.5 pt wide at least)."""


@dataclass(frozen=True)
class Layout:
    """Where setup's PDFs put their text, in points from the page's top-left corner (A5 landscape)."""

    width: float = 595.28
    height: float = 419.53
    left: float = 56.0
    heading_y: float = 56.0  # baselines
    first_y: float = 104.0
    step: float = 36.0
    size: float = 16.0
    heading_size: float = 22.0
    font: str = "Helvetica"

    def baseline(self, line: int) -> float:
        """The baseline of body line ``line`` (0-based), from the page's top."""
        return self.first_y + line * self.step


LAYOUT = Layout()
MAX_LINES = 8
"""Body lines a page holds (the last baseline 356 pt of 420)."""

_metrics = FPDF(unit="pt")


def text_width(text: str, size: float = LAYOUT.size, bold: bool = False) -> float:
    """The advance width of ``text`` in the layout's font, in points (the standard font's metrics)."""
    _metrics.set_font(LAYOUT.font, "B" if bold else "", size)
    return float(_metrics.get_string_width(text))


def glyph_span(line: str, start: int, end: int) -> tuple[float, float]:
    """The left and right edge (points from the page's left) of ``line[start:end]`` on a body line."""
    return LAYOUT.left + text_width(line[:start]), LAYOUT.left + text_width(line[:end])


def pdf_bytes(pages: Sequence[tuple[str, Sequence[str]]]) -> bytes:
    """A PDF of ``pages``, each ``(heading, body lines)``, laid out as ``LAYOUT`` says (compressed)."""
    if any(len(lines) > MAX_LINES for _, lines in pages):
        raise ValueError(f"a page holds {MAX_LINES} lines at most")
    pdf = FPDF(unit="pt", format=(LAYOUT.width, LAYOUT.height))
    pdf.set_auto_page_break(False)
    for heading, lines in pages:
        pdf.add_page()
        pdf.set_font(LAYOUT.font, "B", LAYOUT.heading_size)
        pdf.text(LAYOUT.left, LAYOUT.heading_y, heading)
        pdf.set_font(LAYOUT.font, "", LAYOUT.size)
        for index, line in enumerate(lines):
            pdf.text(LAYOUT.left, LAYOUT.baseline(index), line)
    return bytes(pdf.output())


# --- reading a saved PDF ---------------------------------------------------------------------


@dataclass(frozen=True)
class Annotation:
    """One annotation of a page, as the file has it (PDF coordinates: points from the bottom-left)."""

    subtype: str
    contents: str | None
    rect: tuple[float, ...]
    quads: tuple[float, ...] = ()
    popup_of: int | None = None  # a popup's parent: the index of that annotation on the page
    ref: int | None = None  # the object number, to match a popup's /Parent


@dataclass(frozen=True)
class Pdf:
    """A PDF read whole: each page's text and annotations."""

    texts: list[str]
    annotations: list[list[Annotation]] = field(default_factory=list)

    def markup(self) -> list[tuple[int, Annotation]]:
        """Every annotation but popups (which belong to another), with its page's index."""
        return [(page, a) for page, found in enumerate(self.annotations) for a in found if a.subtype != "/Popup"]


def _numbers(value: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in value) if value is not None else ()


def _annotation(raw: Any) -> Annotation:
    ref = raw.idnum if isinstance(raw, pypdf.generic.IndirectObject) else None
    obj = raw.get_object()
    parent = obj.get("/Parent")
    contents = obj.get("/Contents")
    return Annotation(
        subtype=str(obj.get("/Subtype")),
        contents=None if contents is None else str(contents),
        rect=_numbers(obj.get("/Rect")),
        quads=_numbers(obj.get("/QuadPoints")),
        popup_of=parent.idnum if isinstance(parent, pypdf.generic.IndirectObject) else None,
        ref=ref,
    )


def read_pdf(data: bytes | None) -> Pdf | str:
    """The PDF in ``data`` read whole, or why it is not one (missing, not a PDF, corrupt)."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if not data.startswith(b"%PDF-"):
        return "not a PDF (no %PDF- header)"
    if len(data) > MAX_PDF:
        return f"too large to read ({len(data)} bytes; the evaluator reads up to {MAX_PDF})"
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        texts = [page.extract_text() for page in reader.pages]
        annotations = [[_annotation(raw) for raw in page.get("/Annots") or []] for page in reader.pages]
    except Exception as exc:  # pypdf raises many kinds on a damaged file; any of them means "not readable"
        return f"not a readable PDF ({type(exc).__name__}: {str(exc)[:120]})"
    return Pdf(texts, annotations)


def pdf_text_problems(pdf: Pdf, seed: bytes) -> list[str]:
    """How ``pdf``'s pages and text differ from the seed's (nothing: the same pages, the same text)."""
    original = read_pdf(seed)
    assert isinstance(original, Pdf), original
    if len(pdf.texts) != len(original.texts):
        return [f"{len(pdf.texts)} pages, not {len(original.texts)}"]
    return [
        f"page {number}'s text is not the original's"
        for number, (got, want) in enumerate(zip(pdf.texts, original.texts, strict=True), start=1)
        if got != want
    ]


def annotation_problems(pdf: Pdf, wanted: dict[int, list[str]]) -> list[str]:
    """How ``pdf``'s annotations differ from ``wanted`` ({page index: subtypes, in any order}): each
    popup must belong to an annotation of its page."""
    problems = []
    for page, found in enumerate(pdf.annotations):
        refs = {a.ref for a in found if a.subtype != "/Popup"}
        kinds = sorted(a.subtype for a in found if a.subtype != "/Popup")
        if kinds != sorted(wanted.get(page, [])):
            problems.append(f"page {page + 1} has annotations {kinds or 'none'}, not {sorted(wanted.get(page, []))}")
        if any(a.subtype == "/Popup" and a.popup_of not in refs for a in found):
            problems.append(f"page {page + 1} has a popup of no annotation of its own")
    return problems


def highlight_problems(quads: Sequence[float], line: str, row: int, start: int, end: int) -> list[str]:
    """How a highlight's QuadPoints miss ``line[start:end]`` on body line ``row`` (see the module's
    docstring): every quad on that line, together spanning the phrase and reaching into no other word."""
    if not quads or len(quads) % 8:
        return [f"QuadPoints {list(quads)[:16]} are no quads"]
    x0, x1 = glyph_span(line, start, end)
    space = text_width(" ")
    # The phrase is whole words: a space (or the line's edge) on each side, then the next word.
    prev_end = x0 - space
    next_start = x1 + space
    base = LAYOUT.height - LAYOUT.baseline(row)  # PDF space: from the bottom
    low, high = base - 0.25 * LAYOUT.size, base + 0.75 * LAYOUT.size
    lefts, rights = [], []
    for i in range(0, len(quads), 8):
        xs, ys = quads[i : i + 8 : 2], quads[i + 1 : i + 8 : 2]
        middle = (min(ys) + max(ys)) / 2
        if not low <= middle <= high or max(ys) - min(ys) > LAYOUT.step:
            return [f"a quad spans y {min(ys):g}..{max(ys):g}, not line {row + 1} ({low:g}..{high:g})"]
        lefts.append(min(xs))
        rights.append(max(xs))
    left, right = min(lefts), max(rights)
    problems = []
    if left > x0 + SLACK or right < x1 - SLACK:
        problems.append(f"the highlight spans x {left:g}..{right:g}, short of the phrase's {x0:.1f}..{x1:.1f}")
    if left < prev_end - SLACK or right > next_start + SLACK:
        problems.append(f"the highlight spans x {left:g}..{right:g}, into the words beside the phrase")
    return problems


async def read_saved(task: Task, session: Session, path: str) -> Pdf | None:
    """The PDF at ``~/path`` (a plain file with one link, as the end state's snapshot has it), read
    whole; None (explained) when it is not one."""
    _, after = await files_since_setup(task, session)
    pdf = read_pdf(await output_bytes(session, after, path))
    if isinstance(pdf, str):
        task.explain(f"{path}: {pdf}")
        return None
    return pdf


def phrase_line(meta: Meta) -> str:
    """The line of a highlight task's phrase (``metadata``: ``pages``, ``page``, ``row``)."""
    return as_pages(meta["pages"])[meta["page"]][1][meta["row"]]


def phrase_problems(pdf: Pdf, meta: Meta) -> list[str]:
    """What is wrong with a copy's one highlight: it must cover exactly the phrase's words on its line
    (``metadata``'s ``start`` and ``end``, characters of the line)."""
    (_, mark), *_ = pdf.markup()
    return highlight_problems(mark.quads, phrase_line(meta), meta["row"], meta["start"], meta["end"])


async def annotated_copy_score(
    task: Task, session: Session, wanted: dict[int, list[str]], check: Callable[[Pdf], list[str]]
) -> list[float]:
    """The score of a task that annotates the seeded PDF and saves a copy (``metadata``: ``pages``, ``copy``):
    1 when the copy is read whole, holds the seed's pages and text and exactly the ``wanted`` annotations
    (``annotation_problems``), ``check`` finds no problem with them, and no other file under home changed."""
    meta = task.metadata
    pdf = await read_saved(task, session, meta["copy"])
    if pdf is None:
        return [0.0]
    problems = pdf_text_problems(pdf, pdf_bytes(as_pages(meta["pages"])))
    problems += annotation_problems(pdf, wanted)
    if not problems:
        problems = check(pdf)
    for problem in problems:
        task.explain(f"{meta['copy']}: {problem}")
    return [1.0 if not problems and await unchanged_but(task, session, [meta["copy"]]) else 0.0]


# --- setup and the oracle's hands ------------------------------------------------------------


def title_of(path: str) -> str:
    """Evince's title for ``~/path`` (a seed has no document title, so the file's name)."""
    return path.rsplit("/", 1)[-1]


async def open_pdf(
    task: Task, session: Session, path: str, data: bytes, *, remember: bool = True, maximise: bool = True
) -> None:
    """Setup: ``data`` at ``~/path``, open in Evince, its window maximised (unless not ``maximise``)
    and still; then (with ``remember``) every file under home remembered."""
    if "/" in path:
        await session.run_command(f"mkdir -p {shell(path.rsplit('/', 1)[0])}", timeout=20, check=True)
    await session.write_bytes(path, data)
    # An annotation's window checks spelling, and enchant makes its (empty) word lists the first time:
    # made during the episode, they would count as the agent's change.
    await write_files(session, dict.fromkeys(SPELL_FILES, ""))
    title = title_of(path)
    await start(session, "evince", path, title=title)
    if maximise:
        await _maximise(session, title)
    await still(session)
    if remember:
        await remember_files(task, session)


async def open_seeded(task: Task, session: Session) -> None:
    """Setup of a task on a seeded PDF (``metadata``: ``path``, ``pages``): it open in Evince, as ``open_pdf``."""
    await open_pdf(task, session, task.metadata["path"], pdf_bytes(as_pages(task.metadata["pages"])))


async def _maximise(session: Session, title: str, tries: int = 3) -> None:
    """A double click on the header bar's empty middle (left of the title), as a person maximises."""
    for _ in range(tries):
        info = await window(session, title)
        left, top, right, _ = info["bounds"]
        if right - left >= 990:
            return
        header = await _header(session, title)
        y = (header[1] + header[3]) / 2 if header else top + 30
        await act(session, Click(Point(left + (right - left) * 0.3, y), clicks=2))
        try:
            await wait_for(lambda: _wide(session, title), "Evince's window to be maximised", 5)
            return
        except TaskError:
            continue
    raise TaskError("Evince's window would not maximise")


async def _wide(session: Session, title: str) -> bool:
    info = await window(session, title)
    return bool(info["bounds"][2] - info["bounds"][0] >= 990)


async def _header(session: Session, title: str) -> list[float] | None:
    for node in await session.accessibility_tree():
        if node.get("name") == title:
            for child in nodes(node):
                if child.get("role") == "panel" and any(
                    c.get("name") == "Annotate document" for c in child.get("children") or []
                ):
                    return list(child["bounds"])
    return None


async def _node(session: Session, title: str, role: str, name: str) -> dict[str, Any] | None:
    for top in await session.accessibility_tree():
        if top.get("name") == title:
            return next((n for n in nodes(top) if n.get("role") == role and n.get("name") == name), None)
    return None


def _centre(node: dict[str, Any]) -> Point:
    left, top, right, bottom = node["bounds"]
    return Point((left + right) / 2, (top + bottom) / 2)


async def tool(session: Session, title: str, name: str) -> None:
    """Pick an annotation tool ("Highlight text", "Note text"): the annotations bar opened with its
    header button first when it is closed."""
    toggle = await wait_for(lambda: _node(session, title, "toggle button", "Annotate document"), "Evince's header")
    if "checked" not in (toggle.get("states") or []):
        await act(session, Click(_centre(toggle)))
    button = await wait_for(lambda: _node(session, title, "toggle button", name), f"Evince's {name!r} tool")
    await act(session, Click(_centre(button)))


async def show_page(session: Session, title: str, page: int) -> None:
    """Page ``page`` (1-based) alone in view: Fit Page ("f"), then ctrl+l, its number and Enter in
    the page box; waits for the box to say so and the screen to be still."""
    await act(session, key("f"), key("ctrl+l"), TypeText(str(page), press_enter=True))

    async def shown() -> bool:
        entry = await _node(session, title, "text", "page-label-entry")
        return entry is not None and entry.get("value") == str(page)

    await wait_for(shown, f"Evince to show page {page}")
    await still(session)


@dataclass(frozen=True)
class PageBox:
    """Where the page in view is on the screen: its top-left corner in pixels and pixels per point."""

    left: float
    top: float
    scale: float


def page_on_screen(frame: np.ndarray[Any, Any], region: tuple[int, int, int, int] | None = None) -> PageBox:
    """The page fully in view in ``frame`` within ``region`` (pixels: left, top, right, bottom; by
    default all but the header bars): the largest run of rows that are mostly white, and the columns
    white across them; its width and height must be the page's."""
    x_from, below, x_to, y_to = region or (0, 60, frame.shape[1], frame.shape[0])
    white = np.all(frame[below:y_to, x_from:x_to, :3] >= 250, axis=2)
    top, bottom = _longest_run(white.sum(axis=1) >= white.shape[1] * 0.2)
    if bottom - top < 50:
        raise TaskError("no page in view")
    # Columns white down most of those rows, the longest run of them: a white border or scroll bar
    # beside the page is not the page.
    left, right = _longest_run(white[top:bottom].sum(axis=0) >= (bottom - top) * 0.5)
    scale = (right - left) / LAYOUT.width
    if abs((bottom - top) / LAYOUT.height - scale) > 0.03 * scale:
        raise TaskError(f"the page in view is {right - left}x{bottom - top} px: not one whole page")
    return PageBox(float(left + x_from), float(top + below), scale)


def _longest_run(mask: np.ndarray[Any, Any]) -> tuple[int, int]:
    """The start and end (exclusive) of the longest run of True in ``mask``; (0, 0) when none."""
    best, start = (0, 0), None
    for index, on in enumerate([*mask.tolist(), False]):
        if on and start is None:
            start = index
        elif not on and start is not None:
            if index - start > best[1] - best[0]:
                best = (start, index)
            start = None
    return best


def to_screen(session: Session, box: PageBox, x: float, y: float) -> Point:
    """The screen point (0..1000) of the page's point ``x``, ``y`` (points from its top-left)."""
    return Point((box.left + x * box.scale) * 1000 / session.width, (box.top + y * box.scale) * 1000 / session.height)


async def page_box(session: Session, title: str) -> PageBox:
    """The page in view in the window titled ``title``, once the screen is still."""
    await still(session)
    frame = session.frame()
    if frame is None:
        from PIL import Image

        frame = np.asarray(Image.open(io.BytesIO(await session.screenshot())).convert("RGB"))
    left, top, right, bottom = (await window(session, title))["bounds"]
    width, height = session.width / 1000, session.height / 1000
    region = (int(left * width), int(top * height) + 60, int(right * width), int(bottom * height))
    return page_on_screen(frame, region)


def drag(start: Point, end: Point, steps: int = 10) -> list[Action]:
    """A press, a slow move and a release: Evince makes no highlight of a press and release alone."""
    moves: list[Action] = []
    for i in range(1, steps + 1):
        moves += [MouseMove(Point(start.x + (end.x - start.x) * i / steps, start.y + (end.y - start.y) * i / steps))]
        moves += [Wait(0.03)]
    return [MouseMove(start), Wait(0.1), MouseDown("left", start), Wait(0.1), *moves, Wait(0.1), MouseUp("left", end)]


async def highlight(session: Session, title: str, page: int, line: str, row: int, start: int, end: int) -> None:
    """Oracle move: ``line[start:end]`` of body line ``row`` on ``page`` highlighted with Evince's
    Highlight tool, dragged from inside the space before the phrase to inside its last glyph."""
    await show_page(session, title, page)
    await tool(session, title, "Highlight text")
    box = await page_box(session, title)  # after the tool: the annotation bar's opening resizes the page
    x0, x1 = glyph_span(line, start, end)
    y = LAYOUT.baseline(row) - 0.3 * LAYOUT.size
    await act(session, *drag(to_screen(session, box, x0 - 1.2, y), to_screen(session, box, x1 - 1.0, y)))


async def open_highlight(
    session: Session, title: str, before: set[str], line: str, row: int, start: int, end: int
) -> dict[str, Any]:
    """Oracle move: the window of the highlight over ``line[start:end]`` (on the page in view), opened
    by a click on the highlight, as a person opens it to comment; the windows in ``before`` were there
    before the highlight. Evince opens it by itself at times: then no click, as a click would close it."""
    x0, x1 = glyph_span(line, start, end)
    for _ in range(3):
        try:
            return await wait_for(lambda: new_window(session, before), "the highlight's window", 3)
        except TaskError:
            box = await page_box(session, title)
            await act(session, Click(to_screen(session, box, (x0 + x1) / 2, LAYOUT.baseline(row) - 0.3 * LAYOUT.size)))
    return await wait_for(lambda: new_window(session, before), "the highlight's window")


async def add_note(session: Session, title: str, page: int, x: float, y: float, text: str) -> None:
    """Oracle move: a note on ``page`` at its point ``x``, ``y`` (Note text tool), ``text`` typed into
    the note's window once it has the focus, and the window closed (Evince keeps its text then)."""
    await show_page(session, title, page)
    before = {info["id"] for info in await session.windows()}
    await tool(session, title, "Note text")
    box = await page_box(session, title)  # after the tool: the annotation bar's opening resizes the page
    await act(session, Click(to_screen(session, box, x, y)))
    note = await wait_for(lambda: new_window(session, before), "the note's window")
    await type_in_note(session, note, text)


async def new_window(session: Session, before: set[str]) -> dict[str, Any] | None:
    return next((info for info in await session.windows() if info["id"] not in before), None)


async def type_in_note(session: Session, note: dict[str, Any], text: str) -> None:
    """Click into the note window's text, wait for it to take the focus (keys typed before go
    elsewhere), type ``text`` and close the window with its Close button."""
    entry = await wait_for(lambda: _in_window(session, note["title"], "text", None), "the note's text box")
    await act(session, Click(_centre(entry)))

    async def focused() -> dict[str, Any] | None:
        found = await _in_window(session, note["title"], "text", None)
        return found if found and "focused" in (found.get("states") or []) else None

    await wait_for(focused, "the note's text box to take the focus")
    if text:
        await act(session, TypeText(text))
    await wait_for(lambda: _typed(session, note["title"], text), "the note to show the text")
    close = await wait_for(lambda: _in_window(session, note["title"], "push button", "Close"), "the note's Close")
    await act(session, Click(_centre(close)))


async def _in_window(session: Session, title: str, role: str, name: str | None) -> dict[str, Any] | None:
    for top in await session.accessibility_tree():
        if top.get("name") == title:
            found = [n for n in nodes(top) if n.get("role") == role and (name is None or n.get("name") == name)]
            if found:
                return found[0]
    return None


async def _typed(session: Session, title: str, text: str) -> bool:
    entry = await _in_window(session, title, "text", None)
    return entry is not None and (entry.get("value") or "") == text


async def save_copy(session: Session, path: str) -> None:
    """Oracle move: File > Save a Copy (ctrl+s) under ``~/path``; waits until a whole PDF is there."""
    before = await _bytes(session, path)
    await open_dialog(session, "ctrl+s", SAVE_DIALOG)
    await submit_dialog(session, SAVE_DIALOG, f"~/{path}")

    async def saved() -> bool:
        data = await _bytes(session, path)
        return data is not None and data != before and data.rstrip().endswith(b"%%EOF")

    await wait_for(saved, f"{path} to be saved", PATIENCE)


async def _bytes(session: Session, path: str) -> bytes | None:
    try:
        return await session.read_bytes(path)
    except (OSError, CuaError, ValueError):
        return None


Pages = list[tuple[str, list[str]]]


def seed_pages(rng: random.Random, count: int) -> Pages:
    """``count`` pages of a report: a heading naming the page, and 4 to 7 lines of ``sentence``."""
    title = rng.choice(WORDS).capitalize()
    return [(f"{title} page {n}", [sentence(rng) for _ in range(rng.randint(4, 7))]) for n in range(1, count + 1)]


def as_pages(value: Any) -> Pages:
    """Pages as a task's metadata keeps them (JSON lists), typed back."""
    return [(str(heading), [str(line) for line in lines]) for heading, lines in value]
