"""LibreOffice Impress in the desktop tasks: seed presentations with real title and outline
placeholders, a typed reading of a saved presentation, and the moves Impress's oracles make (not a
task: no ``main.py``).

**Seeds.** ``deck_bytes`` writes Title, Content slides (a title and bullet lines) as Impress and
PowerPoint make them: in ``.odp`` (odfpy) a master page with title and outline placeholders, the
Title, Content page layout, and each slide's ``draw:frame`` of ``presentation:class`` title and
outline; in ``.pptx`` (python-pptx's default template) the Title and Content layout's title and
body placeholders. Impress shows them as its own title and outline boxes, and Slide > New Slide
after one makes another Title, Content slide (for ``.odp``; a ``.pptx``'s new slide comes as Title,
Object in Impress 7.4, so ``new_slide`` sets the layout in the sidebar, as a person would).

**Reading.** ``parse`` reads a presentation by content, never by name: an ``.odp`` zip (its
``mimetype``) or a ``.pptx`` package (``ppt/presentation.xml``); ``parse_as`` also wants the format
the name asks for, so an ``.odp`` saved under ``talk.pptx`` is None. Each ``Slide`` holds its layout
(by the placeholders it has: ``title, content``, ``title slide``, ``title only``, ``blank``), its
title text, its body paragraphs (the outline's or subtitle's, with their indent levels; trailing
empty paragraphs dropped, as they show nothing), its speaker notes, whether it is hidden from the
show, and every other shape with its text (a text box, an image, a table, a second title), so an
evaluator compares the whole presentation (``deck_differences``), not one field of it.

**The oracle's hands.** LibreOffice shows no accessibility tree here, so the moves are keys and the
slide pane's first thumbnail: in the editing area with nothing selected Home and Page Down go to a
slide, Tab selects its objects in order (the title, then the body), Enter edits the selected one and
Esc leaves it; in the slide pane the arrows select a slide, Delete deletes it and Alt+Shift+Home/End
move it to the start or the end; the Slide menu is Alt+L. The View menu (Alt+V) lists the views
in order, Normal first and Notes third: in the Notes view the slide shown keeps its place, and Tab
selects its slide image, then its notes box (``write_notes``).

**Judging one slide's change.** ``altered`` and ``duplicated`` give the seed as it must end after a
task's one change to slide N (its notes, hidden, or a copy right after it); ``neighbour`` is the slide
a careless agent changes instead.
"""

from __future__ import annotations

import dataclasses
import io
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import odf.draw
import odf.opendocument
import odf.presentation
import odf.style
import odf.teletype
import odf.text

from cua_bench import Session, Task, evaluate_task, setup_task, solve_task
from cua_bench.builders import Evaluator, TaskFn, wrong_way
from cua_bench.office import document_format
from cua_bench_tasks_desktop._common import (
    ADJECTIVES,
    NOUNS,
    PATIENCE,
    act,
    distinct,
    file_name,
    key,
    press,
    sentence,
    type_text,
    unchanged_but,
    wait_for,
)
from cua_bench_tasks_desktop._office import APPS, open_document, read_bytes, save, screen_hash, still
from cua_bench_tasks_desktop._office import click_in as office_click
from cua_core import Action

__all__ = [
    "BLANK",
    "CONTENT",
    "ONLY_TITLE",
    "TITLE_SLIDE",
    "Deck",
    "Format",
    "Shape",
    "Slide",
    "SlideCommand",
    "altered",
    "changed",
    "click_in",
    "deck_bytes",
    "deck_differences",
    "duplicated",
    "edit_box",
    "fmt",
    "format_of",
    "line",
    "neighbour",
    "new_slide",
    "notes_line",
    "open_deck",
    "parse",
    "parse_as",
    "pick_in_pane",
    "read_deck",
    "scored",
    "seed_deck",
    "seed_slide",
    "settled",
    "slide_menu",
    "slides_of",
    "title",
    "to_slide",
    "view",
    "write_notes",
]

Format = Literal["odp", "pptx"]

CONTENT = "title, content"
TITLE_SLIDE = "title slide"
ONLY_TITLE = "title only"
BLANK = "blank"
_LAYOUTS = {
    frozenset({"title", "outline"}): CONTENT,
    frozenset({"title", "subtitle"}): TITLE_SLIDE,
    frozenset({"title"}): ONLY_TITLE,
    frozenset(): BLANK,
}

_TEXT_CLASSES = ("title", "outline", "subtitle")


@dataclass(frozen=True)
class Shape:
    """A shape on a slide besides its title and body placeholders: what it is (``text box``,
    ``image``, ``table``, ``chart``, ``object``, ``media``, ``shape``, ``group``, or a placeholder's
    class such as ``title`` for a second title) and the text it shows."""

    kind: str
    text: str = ""


@dataclass(frozen=True)
class Slide:
    """One slide as saved: ``title`` (None: no title placeholder), ``body`` (the outline's, or the
    subtitle's, paragraphs) with their ``levels`` (0 for a top-level bullet; all 0 when not given),
    ``layout`` (see ``_LAYOUTS``; another set of placeholders is their classes joined by ``+``),
    ``notes``, ``hidden`` (left out of the show) and ``others``."""

    title: str | None
    body: tuple[str, ...] = ()
    layout: str = CONTENT
    levels: tuple[int, ...] = ()
    notes: str = ""
    hidden: bool = False
    others: tuple[Shape, ...] = ()

    def __post_init__(self) -> None:
        if not self.levels and self.body:
            object.__setattr__(self, "levels", (0,) * len(self.body))


@dataclass(frozen=True)
class Deck:
    format: Format
    slides: tuple[Slide, ...] = field(default_factory=tuple)

    def titles(self) -> list[str | None]:
        return [slide.title for slide in self.slides]


def seed_slide(title: str, body: Sequence[str]) -> Slide:
    """A Title, Content slide with ``title`` and one top-level bullet per line of ``body``."""
    return Slide(title=title, body=tuple(body))


def slides_of(seeds: Sequence[dict[str, Any]]) -> list[Slide]:
    """Metadata's slides (``{"title": ..., "body": [...]}``) as Title, Content slides."""
    return [seed_slide(seed["title"], seed["body"]) for seed in seeds]


def fmt(path: str) -> Format:
    """The format a name asks for: ``pptx`` for ``.pptx``, else Impress's own ``odp``."""
    return "pptx" if path.lower().endswith(".pptx") else "odp"


# --- variants ------------------------------------------------------------------------------------

TOPICS = ("Plan", "Review", "Update", "Goals", "Budget", "Timeline", "Risks", "Summary", "Roadmap", "Results")
FOLDERS = ("talks", "slides", "decks", "Documents")


def title(rng: random.Random) -> str:
    """A slide title a person would give: ``Golden Harbor Timeline``."""
    return f"{rng.choice(ADJECTIVES).title()} {rng.choice(NOUNS).title()} {rng.choice(TOPICS)}"


def line(rng: random.Random) -> str:
    """A bullet line, capitalised as Impress's autocorrect would leave it: ``The quiet server ...``."""
    text = sentence(rng)
    return text[0].upper() + text[1:]


def notes_line(rng: random.Random) -> str:
    """A line to type, which Impress's autocorrect leaves as typed (``line`` without a weekday, which it
    would capitalise)."""
    text = line(rng)
    while "monday" in text:
        text = line(rng)
    return text


def neighbour(number: int, count: int) -> int:
    """The slide after slide ``number`` of ``count`` (the one before, for the last): the wrong slide."""
    return number + 1 if number < count else number - 1


def seed_deck(rng: random.Random, count: int, ext: str | None = None) -> tuple[str, list[dict[str, Any]], list[str]]:
    """A variant's presentation: its path (``talks/budget_2027.odp``), ``count`` slides of distinct
    titles (none a prefix of another) and one to three bullet lines each, and two more titles no
    slide has (for the new title a task asks for)."""
    ext = ext or rng.choice([".odp", ".pptx"])
    path = f"{rng.choice(FOLDERS)}/{file_name(rng, ext)}"
    titles = distinct(rng, count + 2, title)
    slides = [{"title": t, "body": [line(rng) for _ in range(rng.randint(1, 3))]} for t in titles[:count]]
    return path, slides, titles[count:]


# --- reading ----------------------------------------------------------------------------------------


def format_of(data: bytes) -> Format | None:
    """``odp`` or ``pptx`` by content (``cua_bench.office.document_format``, presentations only)."""
    kind = document_format(data)
    if kind == "odp":
        return "odp"
    return "pptx" if kind == "pptx" else None


def parse(data: bytes) -> Deck | None:
    """Every slide of an ``.odp`` or ``.pptx`` presentation, by content; None for anything else."""
    kind = format_of(data)
    if kind is None:
        return None
    try:
        return _parse_odp(data) if kind == "odp" else _parse_pptx(data)
    except Exception:  # a broken file of the right signature is not a presentation
        return None


def parse_as(data: bytes, wanted: Format) -> Deck | None:
    """``parse``, but only a presentation of the ``wanted`` format: an ``.odp`` under ``.pptx`` is None."""
    return parse(data) if format_of(data) == wanted else None


def _layout(classes: Sequence[str]) -> str:
    found = frozenset(classes)
    return _LAYOUTS.get(found, "+".join(sorted(found)))


def _trimmed(paragraphs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    while paragraphs and not paragraphs[-1][1]:
        paragraphs.pop()
    return paragraphs


# --- OpenDocument -------------------------------------------------------------------------------------

DRAWNS = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
PRESENTATIONNS = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
STYLENS = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
ANIMATIONNS = "urn:oasis:names:tc:opendocument:xmlns:animation:1.0"


def _local(node: Any) -> str:
    qname = getattr(node, "qname", None)
    return qname[1] if qname else ""


def _paragraphs(node: Any, level: int = -1) -> list[tuple[int, str]]:
    """The text paragraphs under ``node`` in order, each with its list depth (0 outside or at a list's top)."""
    found: list[tuple[int, str]] = []
    for child in node.childNodes:
        local = _local(child)
        if local in ("p", "h"):
            found.append((max(level, 0), odf.teletype.extractText(child)))
        elif local == "list":
            found += _paragraphs(child, level + 1)
        elif local in ("list-item", "list-header", "text-box", "section"):
            found += _paragraphs(child, level)
    return found


def _all_text(node: Any) -> list[str]:
    """Every paragraph's text under ``node``, however deep (a table's cells, a group's shapes)."""
    found: list[str] = []
    for child in node.childNodes:
        if _local(child) in ("p", "h"):
            found.append(odf.teletype.extractText(child))
        elif _local(child):
            found += _all_text(child)
    return found


def _odp_kind(node: Any) -> str:
    local = _local(node)
    if local == "a":
        inner = [child for child in node.childNodes if _local(child)]
        return _odp_kind(inner[0]) if inner else "link"
    if local == "frame":
        parts = {_local(child) for child in node.childNodes}
        for part, kind in (("image", "image"), ("table", "table"), ("object", "object"), ("plugin", "media")):
            if part in parts:
                return kind
        return "text box" if "text-box" in parts else "frame"
    if local == "g":
        return "group"
    return "shape"


def _parse_odp(data: bytes) -> Deck:
    doc = odf.opendocument.load(io.BytesIO(data))
    slides: list[Slide] = []
    for page in doc.presentation.childNodes:
        if _local(page) != "page":
            continue
        title: str | None = None
        body: list[tuple[int, str]] = []
        classes: list[str] = []
        notes = ""
        others: list[Shape] = []
        for shape in page.childNodes:
            local = _local(shape)
            if not local or local == "forms" or shape.qname[0] == ANIMATIONNS:
                continue
            if local == "notes":
                notes = "\n".join(
                    text
                    for frame in shape.childNodes
                    if frame.attributes.get((PRESENTATIONNS, "class")) == "notes"
                    for _, text in _trimmed(_paragraphs(frame))
                )
                continue
            kind = shape.attributes.get((PRESENTATIONNS, "class"))
            text = "\n".join(text for _, text in _trimmed(_paragraphs(shape)))
            if kind in _TEXT_CLASSES and kind not in classes:
                classes.append(kind)
                if kind == "title":
                    title = text
                else:
                    body = _trimmed(_paragraphs(shape))
            elif kind and shape.attributes.get((PRESENTATIONNS, "placeholder")) == "true" and kind not in classes:
                classes.append(kind)  # an empty placeholder (Click to add ...): part of the layout only
            else:
                others.append(Shape(kind if kind in _TEXT_CLASSES else _odp_kind(shape), "\n".join(_all_text(shape))))
        style = page.attributes.get((DRAWNS, "style-name"))
        slides.append(
            Slide(
                title=title,
                body=tuple(text for _, text in body),
                layout=_layout(classes),
                levels=tuple(level for level, _ in body),
                notes=notes,
                hidden=_odp_hidden(doc, style),
                others=tuple(others),
            )
        )
    return Deck("odp", tuple(slides))


def _odp_hidden(doc: Any, style_name: str | None) -> bool:
    """Whether the drawing-page style ``style_name`` leaves the slide out of the show (Slide > Hide Slide)."""
    if not style_name:
        return False
    for style in doc.automaticstyles.childNodes:
        if _local(style) == "style" and style.attributes.get((STYLENS, "name")) == style_name:
            for props in style.childNodes:
                if _local(props) == "drawing-page-properties":
                    return bool(props.attributes.get((PRESENTATIONNS, "visibility")) == "hidden")
    return False


# --- Office Open XML -------------------------------------------------------------------------------


def _pptx_class(shape: Any) -> str | None:
    from pptx.enum.shapes import PP_PLACEHOLDER

    if not shape.is_placeholder:
        return None
    kind = shape.placeholder_format.type
    if kind in (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE):
        return "title"
    if kind in (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY):
        return "outline"
    if kind == PP_PLACEHOLDER.SUBTITLE:
        return "subtitle"
    names = {
        PP_PLACEHOLDER.PICTURE: "graphic",
        PP_PLACEHOLDER.TABLE: "table",
        PP_PLACEHOLDER.CHART: "chart",
        PP_PLACEHOLDER.DATE: "date-time",
        PP_PLACEHOLDER.FOOTER: "footer",
        PP_PLACEHOLDER.HEADER: "header",
        PP_PLACEHOLDER.SLIDE_NUMBER: "page-number",
    }
    return names.get(kind, "object")


def _pptx_paragraphs(shape: Any) -> list[tuple[int, str]]:
    if not shape.has_text_frame:
        return []
    return _trimmed([(p.level, p.text.replace("\v", "\n")) for p in shape.text_frame.paragraphs])


def _pptx_kind(shape: Any) -> str:
    """What a slide's shape is, by its element (placeholders too: a picture placeholder holding an
    image is a ``p:pic``)."""
    element = shape.element
    tag = element.tag.rsplit("}", 1)[-1]
    if tag == "pic":
        return "image"
    if tag == "graphicFrame":
        if shape.has_table:
            return "table"
        return "chart" if shape.has_chart else "object"
    if tag == "grpSp":
        return "group"
    if tag == "sp" and any(node.get("txBox") == "1" for node in element.iter() if node.tag.endswith("}cNvSpPr")):
        return "text box"
    return "shape"


def _pptx_text(shape: Any) -> str:
    if getattr(shape, "has_table", False) and shape.has_table:
        return "\n".join(cell.text for row in shape.table.rows for cell in row.cells)
    return "\n".join(text for _, text in _pptx_paragraphs(shape))


def _parse_pptx(data: bytes) -> Deck:
    from pptx import Presentation

    deck = Presentation(io.BytesIO(data))
    slides: list[Slide] = []
    for slide in deck.slides:
        title: str | None = None
        body: list[tuple[int, str]] = []
        classes: list[str] = []
        others: list[Shape] = []
        for shape in slide.shapes:
            kind = _pptx_class(shape)
            if kind in _TEXT_CLASSES and kind not in classes:
                classes.append(kind)
                if kind == "title":
                    title = _pptx_text(shape)
                else:
                    body = _pptx_paragraphs(shape)
            elif kind is not None and kind not in classes and _pptx_kind(shape) == "shape" and not _pptx_text(shape):
                classes.append(kind)  # an empty placeholder (Click to add ...): part of the layout only
            else:
                others.append(Shape(kind if kind in _TEXT_CLASSES else _pptx_kind(shape), _pptx_text(shape)))
        notes = ""
        if slide.has_notes_slide and slide.notes_slide.notes_placeholder is not None:
            notes = "\n".join(text for _, text in _pptx_paragraphs(slide.notes_slide.notes_placeholder))
        slides.append(
            Slide(
                title=title,
                body=tuple(text for _, text in body),
                layout=_layout(classes),
                levels=tuple(level for level, _ in body),
                notes=notes,
                hidden=slide.element.get("show") in ("0", "false"),
                others=tuple(others),
            )
        )
    return Deck("pptx", tuple(slides))


# --- writing seeds --------------------------------------------------------------------------------


def deck_bytes(slides: Sequence[Slide], fmt: Format) -> bytes:
    """A presentation in ``fmt`` of Title and Content slides holding each slide's title and body (top
    level bullets) in real placeholders, as setup's seed."""
    return _pptx_bytes(slides) if fmt == "pptx" else _odp_bytes(slides)


def _pptx_bytes(slides: Sequence[Slide]) -> bytes:
    from pptx import Presentation

    deck = Presentation()  # 4:3, the template's own: its placeholders are laid out for it
    layout = deck.slide_layouts[1]  # Title and Content
    for seed in slides:
        slide = deck.slides.add_slide(layout)
        placeholders = {p.placeholder_format.idx: p for p in slide.placeholders}
        placeholders[0].text_frame.text = seed.title or ""
        frame = placeholders[1].text_frame
        for index, line in enumerate(seed.body):
            paragraph = frame.paragraphs[0] if index == 0 else frame.add_paragraph()
            paragraph.text = line
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


_WIDTH, _HEIGHT = 28.0, 15.75  # cm: Impress's 16:9 default slide
_TITLE_BOX = {"x": "1.4cm", "y": "0.628cm", "width": "25.2cm", "height": "2.629cm"}
_OUTLINE_BOX = {"x": "1.4cm", "y": "3.685cm", "width": "25.2cm", "height": "9.134cm"}
_NOTES_BOX = {"x": "2.1cm", "y": "14.1cm", "width": "16.8cm", "height": "13.36cm"}


def _frame(kind: str, style_name: str, layer: str, box: dict[str, str], *, placeholder: bool = False) -> Any:
    """A ``draw:frame`` of ``presentation:class`` ``kind`` with an empty text box."""
    frame = odf.draw.Frame(layer=layer, **box)
    frame.setAttrNS(PRESENTATIONNS, "style-name", style_name)
    frame.setAttrNS(PRESENTATIONNS, "class", kind)
    if placeholder:
        frame.setAttrNS(PRESENTATIONNS, "placeholder", "true")
    return frame


def _odp_bytes(slides: Sequence[Slide]) -> bytes:
    draw, presentation, style, text = odf.draw, odf.presentation, odf.style, odf.text
    doc = odf.opendocument.OpenDocumentPresentation()
    layout = style.PageLayout(name="PM1")
    layout.addElement(
        style.PageLayoutProperties(
            margintop="0cm",
            marginbottom="0cm",
            marginleft="0cm",
            marginright="0cm",
            pagewidth=f"{_WIDTH}cm",
            pageheight=f"{_HEIGHT}cm",
            printorientation="landscape",
        )
    )
    doc.automaticstyles.addElement(layout)
    background = style.Style(name="Mdp1", family="drawing-page")
    background.addElement(style.DrawingPageProperties(backgroundsize="border", fill="none"))
    doc.automaticstyles.addElement(background)
    page_style = style.Style(name="dp1", family="drawing-page")
    page_style.addElement(style.DrawingPageProperties(backgroundvisible="true", backgroundobjectsvisible="true"))
    doc.automaticstyles.addElement(page_style)
    for name, size, align in (
        ("Default-title", "44pt", "middle"),
        ("Default-subtitle", "32pt", "middle"),
        ("Default-outline1", "32pt", "top"),
        ("Default-notes", "20pt", "top"),
    ):
        made = style.Style(name=name, family="presentation")
        made.addElement(style.GraphicProperties(stroke="none", fill="none", textareaverticalalign=align))
        made.addElement(style.TextProperties(fontsize=size, fontfamily="'Liberation Sans'", color="#000000"))
        doc.styles.addElement(made)
    for name in ("Default-background", "Default-backgroundobjects"):
        made = style.Style(name=name, family="presentation")
        made.addElement(style.GraphicProperties(stroke="none", fill="none"))
        doc.styles.addElement(made)
    content = style.PresentationPageLayout(name="AL1T1")  # Title, Content: what Slide > New Slide copies
    for kind, box in (("title", _TITLE_BOX), ("outline", _OUTLINE_BOX)):
        content.addElement(presentation.Placeholder(object=kind, **box))
    doc.styles.addElement(content)
    bullets = text.ListStyle(name="L1")
    bullet = text.ListLevelStyleBullet(level=1, bulletchar="\u25cf")
    bullet.addElement(style.ListLevelProperties(minlabelwidth="0.6cm"))
    bullet.addElement(style.TextProperties(fontfamily="OpenSymbol", fontsize="45%"))
    bullets.addElement(bullet)
    doc.automaticstyles.addElement(bullets)

    master = style.MasterPage(name="Default", pagelayoutname=layout, stylename=background)
    for kind, style_name, box in (
        ("title", "Default-title", _TITLE_BOX),
        ("outline", "Default-outline1", _OUTLINE_BOX),
    ):
        frame = _frame(kind, style_name, "backgroundobjects", box, placeholder=True)
        frame.addElement(draw.TextBox())
        master.addElement(frame)
    doc.masterstyles.addElement(master)

    for number, seed in enumerate(slides, start=1):
        page = draw.Page(name=f"page{number}", masterpagename=master, stylename=page_style)
        page.setAttrNS(PRESENTATIONNS, "presentation-page-layout-name", "AL1T1")
        title = _frame("title", "Default-title", "layout", _TITLE_BOX, placeholder=not seed.title)
        box = draw.TextBox()
        if seed.title:
            box.addElement(text.P(text=seed.title))
        title.addElement(box)
        page.addElement(title)
        outline = _frame("outline", "Default-outline1", "layout", _OUTLINE_BOX, placeholder=not seed.body)
        box = draw.TextBox()
        if seed.body:
            listing = text.List(stylename=bullets)
            for line in seed.body:
                item = text.ListItem()
                item.addElement(text.P(text=line))
                listing.addElement(item)
            box.addElement(listing)
        outline.addElement(box)
        page.addElement(outline)
        notes = presentation.Notes()
        notes_frame = _frame("notes", "Default-notes", "layout", _NOTES_BOX, placeholder=True)
        notes_frame.addElement(draw.TextBox())
        notes.addElement(notes_frame)
        page.addElement(notes)
        doc.presentation.addElement(page)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


# --- judging -----------------------------------------------------------------------------------------


def deck_differences(deck: Deck | None, expected: Sequence[Slide]) -> list[str]:
    """How ``deck`` parts from ``expected``, slide by slide and field by field ([]: the same)."""
    if deck is None:
        return ["not a presentation of the format its name asks for"]
    found: list[str] = []
    if len(deck.slides) != len(expected):
        found.append(f"{len(deck.slides)} slides ({deck.titles()}), not {len(expected)}")
    for number, (got, want) in enumerate(zip(deck.slides, expected, strict=False), start=1):
        for name in ("title", "body", "layout", "levels", "notes", "hidden", "others"):
            have, wanted = getattr(got, name), getattr(want, name)
            if have != wanted:
                found.append(f"slide {number}'s {name} is {have!r}, not {wanted!r}")
    return found


def altered(slides: Sequence[Slide], number: int, **changes: Any) -> list[Slide]:
    """``slides`` with slide ``number`` (from 1) given ``changes`` (``notes=...``, ``hidden=True``)."""
    found = list(slides)
    found[number - 1] = dataclasses.replace(found[number - 1], **changes)
    return found


def duplicated(slides: Sequence[Slide], number: int) -> list[Slide]:
    """``slides`` with slide ``number`` (from 1) twice in a row, as Slide > Duplicate Slide leaves them."""
    return [*slides[:number], slides[number - 1], *slides[number:]]


async def read_deck(session: Session, path: str, wanted: Format | None = None) -> Deck | None:
    """The presentation saved at ``~/path`` in the format its name asks for (or ``wanted``); None
    when it is missing or another format."""
    data = await read_bytes(session, path)
    return None if data is None else parse_as(data, wanted or fmt(path))


async def scored(task: Task, session: Session, expected: Sequence[Slide], path: str | None = None) -> float:
    """1.0 when the presentation saved at ``path`` (``metadata["path"]``) is exactly ``expected`` in its
    name's format and nothing else under home changed."""
    path = path or task.metadata["path"]
    differences = deck_differences(await read_deck(session, path), expected)
    for difference in differences:
        task.explain(f"{path}: {difference}")
    return 1.0 if not differences and await unchanged_but(task, session, [path]) else 0.0


# --- setup and the oracle's hands ---------------------------------------------------------------------

# Places in the Impress window (1280x800, the sidebar's Properties deck as it opens), in pixels from its
# top-left corner.
VIEW_MARGIN = (535, 745)
"""The slide view's grey margin under the slide (16:9 or 4:3): a click there selects nothing and gives
the slide view the keys."""
FIRST_THUMBNAIL = (100, 208)
"""The slide pane's first thumbnail."""
LAYOUT_BUTTONS = {BLANK: (941, 498), TITLE_SLIDE: (1023, 498), CONTENT: (1105, 498), ONLY_TITLE: (941, 564)}
"""The sidebar's Layouts panel (shown while nothing is selected): its buttons."""


def _impress(title: str) -> bool:
    return title.endswith(f" - {APPS['impress']}")


async def open_deck(task: Task, session: Session) -> None:
    """Setup: the presentation of ``metadata["slides"]`` at ``metadata["path"]`` (its format by its
    name), open in Impress on its first slide and ready for keys."""
    meta = task.metadata
    data = deck_bytes(slides_of(meta["slides"]), fmt(meta["path"]))
    await open_document(task, session, "impress", meta["path"], data)


async def settled(session: Session) -> None:
    """Wait for Impress to finish drawing (shorter than a blinking caret's phase)."""
    await still(session, quiet=0.35, timeout=PATIENCE)


async def changed(session: Session, *actions: Action) -> None:
    """``actions`` applied, then a wait until the screen shows a change and settles: a menu opened,
    a box entered. On two loaded cores Impress can take seconds to react, and keys sent before a
    menu is up go to the window beneath it; a still screen alone cannot tell "done" from "not yet"."""
    before = await screen_hash(session)
    await act(session, *actions)

    async def moved() -> bool:
        return await screen_hash(session) != before

    await wait_for(moved, "Impress to show what the keys did")
    await settled(session)


async def click_in(session: Session, place: tuple[int, int]) -> None:
    """A click at ``place`` in the Impress window (pixels from its top-left corner)."""
    await office_click(session, _impress, place)


async def to_slide(session: Session, number: int) -> None:
    """Slide ``number`` shown in the slide view, nothing selected and the view taking keys: a click
    in its margin, Home (the first slide), then Page Down to it."""
    await click_in(session, VIEW_MARGIN)
    await press(session, "home", *["pagedown"] * (number - 1))
    await settled(session)


async def edit_box(session: Session, tabs: int, text: str, *, replace: bool = True) -> None:
    """On the slide shown: the ``tabs``-th object (1: the title, 2: the body) edited, its text
    replaced by ``text`` (or ``text`` added at its end; a newline is a new paragraph), then a click in
    the view's margin (the edit ended, nothing selected)."""
    await click_in(session, VIEW_MARGIN)
    await changed(session, *[key("tab")] * tabs, key("enter"))
    if replace:
        await press(session, "ctrl+a")
    for number, part in enumerate(text.split("\n")):
        if number:
            await press(session, "enter")
        await type_text(session, part)
    await press(session, "escape")
    await settled(session)
    await click_in(session, VIEW_MARGIN)


async def pick_in_pane(session: Session, number: int) -> None:
    """Slide ``number`` selected in the slide pane (a click on the first thumbnail, Down to it), the
    pane taking keys."""
    await click_in(session, FIRST_THUMBNAIL)
    await press(session, *["down"] * (number - 1))
    await settled(session)


async def slide_menu(session: Session, item: str) -> None:
    """The Slide menu opened (Alt+L) and its ``item`` chosen by its letter (``h``: Hide Slide, ``w``:
    Show Slide, ``s``: Duplicate Slide), each once the screen shows the step before."""
    await changed(session, key("alt+l"))
    await changed(session, key(item))


@dataclass(frozen=True)
class SlideCommand:
    """A task that runs one Slide menu command on slide N, picked in the slide pane (``metadata["number"]``):
    ``letter`` is the command's letter in the Slide menu, ``wanted`` the deck expected after it from the seed's
    slides and N. ``functions`` gives the task's setup, evaluator and oracle; ``unsaved`` and ``on_the_neighbour``
    the wrong ways every such task has."""

    letter: str
    wanted: Callable[[list[Slide], int], list[Slide]]

    async def run(self, session: Session, number: int) -> None:
        await pick_in_pane(session, number)
        await slide_menu(session, self.letter)

    def functions(self) -> tuple[TaskFn, Evaluator, TaskFn]:
        async def setup(task: Task, session: Session) -> None:
            await open_deck(task, session)

        async def evaluate(task: Task, session: Session) -> list[float]:
            meta = task.metadata
            return [await scored(task, session, self.wanted(slides_of(meta["slides"]), meta["number"]))]

        async def solve(task: Task, session: Session) -> None:
            await self.run(session, task.metadata["number"])
            await save(session, task.metadata["path"])

        return setup_task(setup), evaluate_task(evaluate), solve_task(solve)

    def unsaved(self, name: str, doc: str) -> TaskFn:
        """A wrong way: the command run, never saved."""

        async def way(task: Task, session: Session) -> None:
            await self.run(session, task.metadata["number"])

        return wrong_way(way, name, doc)

    def on_the_neighbour(self, name: str, doc: str) -> TaskFn:
        """A wrong way: the command run on the slide after N (before, for the last), and saved."""

        async def way(task: Task, session: Session) -> None:
            meta = task.metadata
            await self.run(session, neighbour(meta["number"], len(meta["slides"])))
            await save(session, meta["path"])

        return wrong_way(way, name, doc)


VIEWS = ("normal", "outline", "notes", "slide sorter")
"""The View menu's first items, in order (each a radio item; Normal is highlighted as the menu opens)."""


async def view(session: Session, name: str) -> None:
    """View > ``name`` (``normal`` or ``notes``): the View menu opened (Alt+V), Down to the item, Enter.
    Both the Normal and the Notes item have N as their letter, so the oracle walks to it."""
    await changed(session, key("alt+v"))
    for _ in range(VIEWS.index(name)):
        await changed(session, key("down"))
    await changed(session, key("enter"))


async def write_notes(session: Session, number: int, text: str) -> None:
    """Slide ``number``'s speaker notes: the slide shown, View > Notes, Tab to its notes box (after the
    slide's image), Enter, ``text`` typed, Esc, and View > Normal again."""
    await to_slide(session, number)
    await view(session, "notes")
    await changed(session, key("tab"))
    await changed(session, key("tab"))
    await changed(session, key("enter"))
    await type_text(session, text)
    await press(session, "escape")
    await settled(session)
    await view(session, "normal")


async def new_slide(session: Session, title: str, body: str | None, *, layout: str = CONTENT) -> None:
    """Slide > New Slide (Ctrl+M) after the slide shown, given ``layout`` in the sidebar's Layouts
    panel, and ``title`` and ``body`` (unless None) typed into its first two placeholders."""
    await changed(session, key("ctrl+m"))
    await click_in(session, LAYOUT_BUTTONS[layout])
    await edit_box(session, 1, title, replace=False)
    if body is not None:
        await edit_box(session, 2, body, replace=False)
