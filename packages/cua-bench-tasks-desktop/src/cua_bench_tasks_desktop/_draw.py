"""LibreOffice Draw 7.4 in the desktop tasks: drawings of named shapes on several pages written by setup,
edited through Draw's menus and dialogs by the oracles, and read back whole by the evaluators (not a task:
no ``main.py``).

**Seeds.** ``drawing_bytes`` writes an ``.odg`` with odfpy: one page layout (``PAGE``, landscape A4, no
margins, so a shape's position in Draw's dialogs is its ``svg:x``/``svg:y``), a ``Default`` master page,
and named pages each holding a few shapes (``draw:rect``, ``draw:ellipse``) with a name (``draw:name``:
what Draw's Navigator and Format > Name show), a position and a size in cm, a solid fill and a black line
(an automatic graphic style of its own), and maybe a word of text. Shapes sit in a grid of cells, never
overlapping. ``Shape`` keeps a seed's shape in a task's metadata (JSON).

**Read back whole.** ``parse`` reads a drawing by content, never by name: an ``.odg`` zip (its
``mimetype``) or a flat ``.fodg`` (its root's ``office:mimetype``, ending as Draw ends it with the root's
end tag), both with lxml (no entities, no network, a size cap): its page size, and each page's name and
shapes in document order (Draw's z-order), each with its kind (``rect``, ``ellipse``: a ``draw:circle``
is an ellipse, a ``group`` with its shapes, or the element's own name), name, box (cm, from
``svg:x``/``y``/``width``/``height`` in any unit), rotation or other ``draw:transform``, fill and line
(resolved through the style it names, its parents and the default style, as Draw shows them), text, and
Format > Description's title and description. ``problems`` compares a saved drawing with the expected
one: every page, every shape, every field (boxes within ``SLACK``).

**Setup.** ``open_seeded`` writes the seed, LibreOffice's ready profile (``_office``) with Draw's unit
of measure set to cm (``CENTIMETRES``: the C locale would give inches, and a dialog rounds a length
typed in cm to two places of an inch), and starts Draw on it.

**The oracle's hands.** LibreOffice's widgets are not on the accessibility bus here, so the oracles
play keys and clicks at known places of the maximised window and its dialogs, and wait on window titles
and the screen. A click in the drawing view's grey margin (``unselect``) selects nothing and gives the
view the keys; then Home and Page Down go to a page (``to_page``) and Tab selects its shapes one by one
in z-order (``select``). Menu commands run from LibreOffice's Search Commands (Shift+Esc, Help > Search
Commands: ``command``), whose first match Enter runs; dialogs are waited on by their titles and their
fields clicked at their places (``fill_in``).
"""

from __future__ import annotations

import dataclasses
import io
import random
import re
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import odf.draw
import odf.opendocument
import odf.style
import odf.text
from lxml import etree

from cua_bench import Session, Task
from cua_bench_tasks_desktop._common import (
    ADJECTIVES,
    NOUNS,
    WORDS,
    act,
    distinct,
    file_name,
    files_since_setup,
    key,
    no_window,
    nothing_else_changed,
    open_dialog,
    output_bytes,
    press,
    remember_files,
    shell,
    start,
    submit_dialog,
    window,
)
from cua_bench_tasks_desktop._impress import changed, settled
from cua_bench_tasks_desktop._office import NO_BLINK, still, write_profile
from cua_bench_tasks_desktop._office import click_in as office_click
from cua_core import TypeText, Wait

__all__ = [
    "APP",
    "CENTIMETRES",
    "COLOURS",
    "MIME",
    "PAGE",
    "SLACK",
    "VIEW_MARGIN",
    "Drawing",
    "Item",
    "Page",
    "Shape",
    "click_in",
    "command",
    "draw_title",
    "drawing_bytes",
    "edited",
    "expected_pages",
    "fill_in",
    "length",
    "open_seeded",
    "pages_of",
    "parse",
    "problems",
    "read_drawing",
    "reordered",
    "save_as",
    "scored",
    "seed",
    "select",
    "shape_item",
    "to_page",
    "unselect",
]

APP = "LibreOffice Draw"
MIME = "application/vnd.oasis.opendocument.graphics"
PAGE = (29.7, 21.0)
"""Every seed's page: landscape A4, in cm."""
SLACK = 0.011
"""How far (cm) a saved box may be from the one expected: Draw keeps 1/100 mm and writes cm to 3 places."""
MAX_BYTES = 16 << 20
"""The largest file or part the evaluator parses (a seed is a few KiB)."""

COLOURS = {
    "#c9211e": "red",
    "#ff8000": "orange",
    "#3faf46": "green",
    "#2a6099": "blue",
    "#800080": "purple",
    "#8d6e63": "brown",
    "#ff66cc": "pink",
    "#808080": "grey",
    "#ffbf00": "gold",
    "#00a0a0": "teal",
}
"""Fills a seed's shapes get, lowercase ``#rrggbb`` as Draw writes them."""
LINE = "solid #000000"
"""Every seed shape's line, as ``Item.stroke`` reads it."""

OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
SVGNS = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
FO = "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


# --- seeds --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A seed's shape: ``kind`` (``rect`` or ``ellipse``), ``name``, box in cm, ``fill`` (``#rrggbb``) and ``text``."""

    kind: str
    name: str
    x: float
    y: float
    width: float
    height: float
    fill: str
    text: str = ""

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of(cls, data: dict[str, Any]) -> Shape:
        return cls(**data)


def pages_of(meta_pages: Sequence[dict[str, Any]]) -> list[tuple[str, list[Shape]]]:
    """Metadata's pages (``{"name": ..., "shapes": [...]}``) as (name, shapes)."""
    return [(page["name"], [Shape.of(shape) for shape in page["shapes"]]) for page in meta_pages]


KINDS = ("Box", "Badge", "Panel", "Tile", "Marker", "Card", "Label", "Sign")
PAGE_NAMES = ("Overview", "Floor Plan", "Layout", "Sketch", "Details", "Summary", "Legend", "Draft", "Map", "Notes")
FOLDERS = ("drawings", "sketches", "Documents", "plans")


def _shape_name(rng: random.Random) -> str:
    return f"{rng.choice(NOUNS).title()} {rng.choice(KINDS)}"


def _page_name(rng: random.Random) -> str:
    return f"{rng.choice(ADJECTIVES).title()} {rng.choice(PAGE_NAMES)}"


def seed(
    rng: random.Random, pages: int = 0, *, least: int = 2, texts: float = 0.5
) -> tuple[str, list[dict[str, Any]], list[str]]:
    """A variant's drawing: its path (``drawings/plan_2027.odg``), 2 to 4 pages (or ``pages``) of distinct
    names with 2 to 4 shapes each (at least ``least``), shape names distinct over the drawing (none a prefix
    of another), and two more page names and two more shape names no page or shape has. Each shape sits
    in its own cell of a 3 x 2 grid, in whole mm; each holds a word with the chance ``texts``."""
    path = f"{rng.choice(FOLDERS)}/{file_name(rng, '.odg')}"
    count = pages or rng.randint(2, 4)
    sizes = [rng.randint(least, 4) for _ in range(count)]
    names = distinct(rng, sum(sizes) + 2, _shape_name)
    page_names = distinct(rng, count + 2, _page_name)
    made: list[dict[str, Any]] = []
    used = 0
    for number in range(count):
        cells = rng.sample(range(6), sizes[number])
        fills = rng.sample(sorted(COLOURS), sizes[number])
        shapes = []
        for cell, fill in zip(cells, fills, strict=True):
            left, top = 1.0 + (cell % 3) * 9.3, 1.5 + (cell // 3) * 9.5
            width, height = rng.randint(25, 70) / 10, rng.randint(25, 70) / 10
            x = round(left + rng.randint(0, int((8.8 - width) * 10)) / 10, 1)
            y = round(top + rng.randint(0, int((9.0 - height) * 10)) / 10, 1)
            word = rng.choice(WORDS).title() if rng.random() < texts else ""
            kind = rng.choice(["rect", "ellipse"])
            shapes.append(Shape(kind, names[used], x, y, width, height, fill, word).as_json())
            used += 1
        made.append({"name": page_names[number], "shapes": shapes})
    return path, made, [*names[used:], *page_names[count:]]


def _cm(value: float) -> str:
    return f"{value:g}cm"


def drawing_bytes(pages: Sequence[tuple[str, Sequence[Shape]]]) -> bytes:
    """An ``.odg`` of ``pages`` (name, shapes), as setup's seed."""
    style, draw, text = odf.style, odf.draw, odf.text
    doc = odf.opendocument.OpenDocumentDrawing()
    layout = style.PageLayout(name="PM1")
    layout.addElement(
        style.PageLayoutProperties(
            margintop="0cm",
            marginbottom="0cm",
            marginleft="0cm",
            marginright="0cm",
            pagewidth=_cm(PAGE[0]),
            pageheight=_cm(PAGE[1]),
            printorientation="landscape",
        )
    )
    doc.automaticstyles.addElement(layout)
    standard = style.Style(name="standard", family="graphic")
    standard.addElement(style.GraphicProperties(stroke="solid", strokecolor="#000000", fill="solid"))
    standard.addElement(style.TextProperties(fontsize="18pt", fontfamily="'Liberation Sans'", color="#000000"))
    doc.styles.addElement(standard)
    master = style.MasterPage(name="Default", pagelayoutname=layout)
    doc.masterstyles.addElement(master)
    number = 0
    for name, shapes in pages:
        page = draw.Page(masterpagename=master)
        page.attributes[(DRAW, "name")] = name  # as is: odfpy's setter would write a style name's "_20_"
        for shape in shapes:
            number += 1
            graphic = style.Style(name=f"gr{number}", family="graphic", parentstylename=standard)
            graphic.addElement(
                style.GraphicProperties(fill="solid", fillcolor=shape.fill, stroke="solid", strokecolor="#000000")
            )
            doc.automaticstyles.addElement(graphic)
            make = draw.Rect if shape.kind == "rect" else draw.Ellipse
            element = make(
                stylename=graphic,
                layer="layout",
                x=_cm(shape.x),
                y=_cm(shape.y),
                width=_cm(shape.width),
                height=_cm(shape.height),
            )
            element.attributes[(DRAW, "name")] = shape.name
            if shape.text:
                element.addElement(text.P(text=shape.text))
            page.addElement(element)
        doc.drawing.addElement(page)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


# --- reading ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One shape of a saved page: ``kind``, ``name``, ``box`` (x, y, width, height in cm; a group's is
    its shapes' bounds), ``transform`` (``draw:transform``, as written), ``fill`` (``#rrggbb`` for a
    solid fill, ``none``, or the fill's kind and its gradient's, hatch's or bitmap's name), ``stroke``
    (``solid #rrggbb``, ``none``, or ``dash NAME #rrggbb``), ``text`` (its paragraphs, one a line), a
    group's ``children``, and the ``title`` and ``description`` of Format > Description (``svg:title``,
    ``svg:desc``), and ``extras``: every other property its own automatic styles set (``prefix:name=value``:
    a shadow, a line width, a transparency, a paragraph's alignment, a span's bold), which a seed has none of."""

    kind: str
    name: str
    box: tuple[float, float, float, float]
    fill: str
    stroke: str
    text: str = ""
    transform: str = ""
    children: tuple[Item, ...] = ()
    title: str = ""
    description: str = ""
    extras: tuple[str, ...] = ()


@dataclass(frozen=True)
class Page:
    name: str
    items: tuple[Item, ...] = ()

    def find(self, name: str) -> Item | None:
        return next((item for item in self.items if item.name == name), None)


@dataclass(frozen=True)
class Drawing:
    flat: bool
    size: tuple[float, float]
    pages: tuple[Page, ...] = field(default_factory=tuple)

    def names(self) -> list[str]:
        return [page.name for page in self.pages]


def shape_item(shape: Shape) -> Item:
    """What a seed's shape reads back as, once Draw has saved it."""
    return Item(shape.kind, shape.name, (shape.x, shape.y, shape.width, shape.height), shape.fill, LINE, shape.text)


def expected_pages(meta_pages: Sequence[dict[str, Any]]) -> list[Page]:
    """The seed's pages as ``parse`` reads them, to change into what a task expects."""
    return [Page(name, tuple(shape_item(shape) for shape in shapes)) for name, shapes in pages_of(meta_pages)]


_UNITS = {"cm": 1.0, "mm": 0.1, "in": 2.54, "inch": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96}
_LENGTH = re.compile(r"^\s*(-?\d+(?:\.\d*)?|-?\.\d+)\s*([a-z]*)\s*$")


def length(value: str | None) -> float | None:
    """An ODF length (``2.5cm``, ``25mm``, ``1in``) in cm; None when missing or not a length."""
    if value is None:
        return None
    found = _LENGTH.match(value)
    if not found or found.group(2) not in _UNITS:
        return None
    return float(found.group(1)) * _UNITS[found.group(2)]


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _xml(data: bytes) -> Any:
    return etree.fromstring(data, _parser())


def _q(ns: str, name: str) -> str:
    return f"{{{ns}}}{name}"


class _Styles:
    """Graphic styles by name (automatic and common), their parents, and the default: the properties a
    shape shows, resolved as Draw resolves them."""

    def __init__(self, content: Any, *roots: Any) -> None:
        self.styles: dict[str, Any] = {}
        self.default: Any = None
        self.automatic: dict[tuple[str, str], Any] = {}
        for automatic in content.iter(_q(OFFICE, "automatic-styles")):
            for node in automatic.iter(_q(STYLE, "style")):
                self.automatic[(node.get(_q(STYLE, "family"), ""), node.get(_q(STYLE, "name"), ""))] = node
        for root in (content, *roots):
            for node in root.iter(_q(STYLE, "style"), _q(STYLE, "default-style")):
                if node.get(_q(STYLE, "family")) != "graphic":
                    continue
                if node.tag == _q(STYLE, "default-style"):
                    self.default = node
                else:
                    self.styles.setdefault(node.get(_q(STYLE, "name"), ""), node)

    def own(self, family: str, name: str | None) -> list[str]:
        """The properties the automatic style ``name`` of ``family`` and its automatic parents set, but
        fill and line (read on their own) and the writing mode Draw adds, as ``prefix:name=value``."""
        found: dict[str, str] = {}
        seen: set[str] = set()
        while name and (family, name) in self.automatic and name not in seen:
            seen.add(name)
            node = self.automatic[(family, name)]
            for properties in node:
                if properties.tag not in _PROPERTIES:
                    continue  # loext:graphic-properties of a paragraph style: the shape's fill again
                for attribute, value in properties.attrib.items():
                    label = _label(attribute)
                    if label not in _READ_APART:
                        found.setdefault(label, value)
            name = node.get(_q(STYLE, "parent-style-name"))
        return [f"{label}={value}" for label, value in found.items()]

    def get(self, name: str | None, ns: str, attribute: str) -> str | None:
        seen: set[str] = set()
        chain: list[Any] = []
        while name and name in self.styles and name not in seen:
            seen.add(name)
            node = self.styles[name]
            chain.append(node)
            name = node.get(_q(STYLE, "parent-style-name"))
        if self.default is not None:
            chain.append(self.default)
        for node in chain:
            for properties in node.iter(_q(STYLE, "graphic-properties")):
                value = properties.get(_q(ns, attribute))
                if value is not None:
                    return str(value)
        return None


def _fill(styles: _Styles, name: str | None) -> str:
    kind = styles.get(name, DRAW, "fill") or "solid"
    if kind == "solid":
        return (styles.get(name, DRAW, "fill-color") or "").lower()
    if kind == "none":
        return "none"
    return f"{kind} {styles.get(name, DRAW, f'fill-{kind}-name') or ''}".strip()


def _stroke(styles: _Styles, name: str | None) -> str:
    kind = styles.get(name, DRAW, "stroke") or "solid"
    if kind == "none":
        return "none"
    colour = (styles.get(name, SVGNS, "stroke-color") or "").lower()
    return f"solid {colour}" if kind == "solid" else f"{kind} {styles.get(name, DRAW, 'stroke-dash') or ''} {colour}"


def _text(node: Any) -> str:
    lines = [_paragraph(p) for p in node if p.tag in (_q(TEXT, "p"), _q(TEXT, "h"))]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def _paragraph(node: Any) -> str:
    """A paragraph's text, its spaces (``text:s``), tabs and line breaks as the characters they stand for."""
    parts: list[str] = [node.text or ""]
    for child in node:
        local = etree.QName(child).localname if isinstance(child.tag, str) else ""
        if local == "s":
            parts.append(" " * int(child.get(_q(TEXT, "c"), "1") or 1))
        elif local == "tab":
            parts.append("\t")
        elif local == "line-break":
            parts.append("\n")
        else:
            parts.append(_paragraph(child))
        parts.append(child.tail or "")
    return "".join(parts)


_PROPERTIES = {_q(STYLE, f"{kind}-properties") for kind in ("graphic", "text", "paragraph")}
_READ_APART = {"draw:fill", "draw:fill-color", "draw:stroke", "svg:stroke-color", "style:writing-mode"}
_PREFIXES = {OFFICE: "office", STYLE: "style", DRAW: "draw", SVGNS: "svg", FO: "fo", TEXT: "text"}


def _label(attribute: str) -> str:
    name = etree.QName(attribute)
    return f"{_PREFIXES.get(name.namespace or '', name.namespace)}:{name.localname}"


def _extras(node: Any, styles: _Styles) -> tuple[str, ...]:
    """Every property the shape's own automatic styles set (its graphic style, its paragraphs' and spans')."""
    found = styles.own("graphic", node.get(_q(DRAW, "style-name")))
    found += styles.own("paragraph", node.get(_q(DRAW, "text-style-name")))
    for child in node.iter(_q(TEXT, "p"), _q(TEXT, "h"), _q(TEXT, "span")):
        family = "text" if child.tag == _q(TEXT, "span") else "paragraph"
        found += styles.own(family, child.get(_q(TEXT, "style-name")))
    return tuple(sorted(set(found)))


_KINDS = {"circle": "ellipse", "g": "group"}
_SKIP = {"forms"}


def _item(node: Any, styles: _Styles) -> Item:
    local = etree.QName(node).localname
    style = node.get(_q(DRAW, "style-name"))
    children = tuple(_item(child, styles) for child in _shape_nodes(node)) if local == "g" else ()
    if children:
        left = min(child.box[0] for child in children)
        top = min(child.box[1] for child in children)
        right = max(child.box[0] + child.box[2] for child in children)
        bottom = max(child.box[1] + child.box[3] for child in children)
        box = (round(left, 3), round(top, 3), round(right - left, 3), round(bottom - top, 3))
    else:
        values = [length(node.get(_q(SVGNS, name))) for name in ("x", "y", "width", "height")]
        box = tuple(round(value or 0.0, 3) for value in values)  # type: ignore[assignment]
    return Item(
        kind=_KINDS.get(local, local),
        name=node.get(_q(DRAW, "name"), ""),
        box=box,
        fill="" if local == "g" else _fill(styles, style),
        stroke="" if local == "g" else _stroke(styles, style),
        text="" if local == "g" else _text(node),
        transform=node.get(_q(DRAW, "transform"), ""),
        children=children,
        title=_child_text(node, "title"),
        description=_child_text(node, "desc"),
        extras=() if local == "g" else _extras(node, styles),
    )


def _child_text(node: Any, name: str) -> str:
    found = node.find(_q(SVGNS, name))
    return "" if found is None else "".join(found.itertext())


def _shape_nodes(parent: Any) -> list[Any]:
    return [
        child
        for child in parent
        if isinstance(child.tag, str) and child.tag.startswith(f"{{{DRAW}}}") and etree.QName(child).localname
    ]


def _page_size(styles: Any) -> tuple[float, float]:
    masters = list(styles.iter(_q(STYLE, "master-page")))
    layout_name = masters[0].get(_q(STYLE, "page-layout-name")) if masters else None
    for layout in styles.iter(_q(STYLE, "page-layout")):
        if layout.get(_q(STYLE, "name")) == layout_name:
            for properties in layout.iter(_q(STYLE, "page-layout-properties")):
                width = length(properties.get(_q(FO, "page-width")))
                height = length(properties.get(_q(FO, "page-height")))
                return (round(width or 0.0, 3), round(height or 0.0, 3))
    return (0.0, 0.0)


def _drawing(content: Any, styles: Any, flat: bool) -> Drawing | None:
    body = content.find(_q(OFFICE, "body"))
    drawing = body.find(_q(OFFICE, "drawing")) if body is not None else None
    if drawing is None:
        return None
    resolved = _Styles(content, styles)
    pages = tuple(
        Page(
            node.get(_q(DRAW, "name"), ""),
            tuple(_item(child, resolved) for child in _shape_nodes(node)),
        )
        for node in drawing
        if node.tag == _q(DRAW, "page")
    )
    return Drawing(flat, _page_size(styles), pages)


_FLAT_END = re.compile(rb"</office:document>\n?\Z")
"""How Draw ends a ``.fodg``: its root's end tag, nothing after it (blank lines after it are not Draw's file)."""


def parse(data: bytes) -> Drawing | None:
    """A Draw drawing, by content: an ``.odg`` zip or a flat ``.fodg``; None for anything else."""
    try:
        if data[:2] == b"PK":
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                if archive.read("mimetype").strip() != MIME.encode():
                    return None
                parts = {}
                for part in ("content.xml", "styles.xml"):
                    if archive.getinfo(part).file_size > MAX_BYTES:
                        return None
                    parts[part] = _xml(archive.read(part))
            return _drawing(parts["content.xml"], parts["styles.xml"], False)
        if len(data) > MAX_BYTES or not data.startswith(b"<") or not _FLAT_END.search(data):
            return None
        root = _xml(data)
        if root.tag != _q(OFFICE, "document") or root.get(_q(OFFICE, "mimetype")) != MIME:
            return None
        return _drawing(root, root, True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, etree.XMLSyntaxError):
        return None


# --- judging --------------------------------------------------------------------------------------


def _item_problems(got: Item, want: Item, where: str) -> list[str]:
    found: list[str] = []
    for name in ("kind", "name", "fill", "stroke", "text", "transform", "title", "description", "extras"):
        have, wanted = getattr(got, name), getattr(want, name)
        if have != wanted:
            found.append(f"{where}'s {name} is {have!r}, not {wanted!r}")
    if any(abs(a - b) > SLACK for a, b in zip(got.box, want.box, strict=True)):
        found.append(f"{where}'s box (x, y, width, height in cm) is {got.box}, not {want.box}")
    found += _items_problems(got.children, want.children, f"{where}'s group")
    return found


def _items_problems(got: Sequence[Item], want: Sequence[Item], where: str) -> list[str]:
    if [item.name for item in got] != [item.name for item in want]:
        return [f"{where} holds {[i.name for i in got]}, not {[i.name for i in want]} (in this order)"]
    found: list[str] = []
    for have, wanted in zip(got, want, strict=True):
        found += _item_problems(have, wanted, f"{where}'s {wanted.name!r}")
    return found


def problems(drawing: Drawing | None, pages: Sequence[Page], *, flat: bool = False) -> list[str]:
    """How ``drawing`` parts from ``pages`` on the seed's page size ([]: the same)."""
    if drawing is None:
        return [f"not a Draw drawing ({'.fodg' if flat else '.odg'})"]
    if drawing.flat != flat:
        return [f"a {'flat .fodg' if drawing.flat else 'zipped .odg'} drawing, not {'.fodg' if flat else '.odg'}"]
    found: list[str] = []
    if any(abs(a - b) > SLACK for a, b in zip(drawing.size, PAGE, strict=True)):
        found.append(f"the page size is {drawing.size} cm, not {PAGE}")
    if drawing.names() != [page.name for page in pages]:
        return [*found, f"the pages are {drawing.names()}, not {[page.name for page in pages]}"]
    for got, want in zip(drawing.pages, pages, strict=True):
        found += _items_problems(got.items, want.items, f"page {want.name!r}")
    return found


async def read_drawing(task: Task, session: Session, path: str) -> tuple[Drawing | None, bool]:
    """The drawing at ``~/path`` (a plain file with one link, else None), and whether nothing else under
    home changed since setup."""
    before, after = await files_since_setup(task, session)
    data = await output_bytes(session, after, path)
    others = nothing_else_changed(task, before, after, expect=[path])
    return (None if data is None else parse(data)), others


async def scored(task: Task, session: Session, pages: Sequence[Page], path: str | None = None) -> list[float]:
    """1.0 when the drawing saved at ``path`` (``metadata["path"]``) is ``pages`` (``problems``) and no
    other file under home changed."""
    path = path or task.metadata["path"]
    drawing, others = await read_drawing(task, session, path)
    found = problems(drawing, pages, flat=path.endswith(".fodg"))
    for problem in found[:6]:
        task.explain(f"{path}: {problem}")
    return [1.0 if not found and others else 0.0]


def edited(meta_pages: Sequence[dict[str, Any]], page: int, index: int, **fields: Any) -> list[Page]:
    """The seed's pages with the ``index``-th shape of page ``page`` (both 0-based) given ``fields``."""
    pages = expected_pages(meta_pages)
    items = list(pages[page].items)
    items[index] = dataclasses.replace(items[index], **fields)
    pages[page] = dataclasses.replace(pages[page], items=tuple(items))
    return pages


def reordered(meta_pages: Sequence[dict[str, Any]], page: int, order: Sequence[int]) -> list[Page]:
    """The seed's pages with page ``page``'s shapes in ``order`` (their seed indexes; one left out is deleted)."""
    pages = expected_pages(meta_pages)
    items = pages[page].items
    pages[page] = dataclasses.replace(pages[page], items=tuple(items[i] for i in order))
    return pages


# --- setup and the oracle's hands ---------------------------------------------------------------------

CENTIMETRES = (
    '<item oor:path="/org.openoffice.Office.Draw/Layout/Other/MeasureUnit"><prop oor:name="NonMetric" '
    'oor:op="fuse"><value>2</value></prop></item>'
)
"""Draw's unit of measure: cm (FieldUnit 2) where the locale (C, en-US) would give inches. Its dialogs show
lengths to two places in their unit, so a length typed in cm into an inch field comes back rounded."""


def draw_title(path: str) -> Callable[[str], bool]:
    """Draw's title showing ``~/path``: ``NAME - LibreOffice Draw``."""
    name = path.rsplit("/", 1)[-1]
    return lambda title: title == f"{name} - {APP}"


def _draw(title: str) -> bool:
    return title.endswith(f" - {APP}")


async def open_seeded(task: Task, session: Session) -> None:
    """Setup: the drawing of ``metadata["pages"]`` at ``metadata["path"]``, open in Draw on its first
    page (LibreOffice's ready profile, as ``_office.open_document`` makes it), and the files remembered."""
    meta = task.metadata
    path = meta["path"]
    await session.run_command(f"mkdir -p {shell(path.rsplit('/', 1)[0])}", timeout=20, check=True)
    await session.write_bytes(path, drawing_bytes(pages_of(meta["pages"])))
    await write_profile(session, (CENTIMETRES,))
    await session.write_file(NO_BLINK, "[Settings]\ngtk-cursor-blink = false\n")
    await start(session, "soffice", "--draw", "--norestore", "--nologo", path, title=draw_title(path))
    await still(session)
    await remember_files(task, session)


# Places in the Draw window (1280x800 maximised, the Pages pane and the sidebar as they open), in pixels
# from its top-left corner.
VIEW_MARGIN = (560, 690)
"""The drawing view's grey margin under the page: a click there selects nothing and gives the view the keys."""


async def click_in(session: Session, place: tuple[int, int], match: Callable[[str], bool] | str = _draw) -> None:
    """A click at ``place`` (pixels from the top-left corner) in the window ``match`` finds: Draw's, or a dialog's."""
    await office_click(session, match, place)


async def unselect(session: Session) -> None:
    """Nothing selected, the drawing view taking keys (a click in its margin)."""
    await click_in(session, VIEW_MARGIN)


async def to_page(session: Session, number: int) -> None:
    """Page ``number`` shown, nothing selected: Home (the first page), then Page Down to it."""
    await unselect(session)
    await changed_or_not(session, "home", *["pagedown"] * (number - 1))


async def changed_or_not(session: Session, *combos: str) -> None:
    """Keys that may leave the screen as it was (Home on the first page): pressed, then a still screen."""
    await press(session, *combos)
    await settled(session)


async def select(session: Session, page: int, index: int) -> None:
    """The ``index``-th shape (0-based, in z-order) of page ``page`` (1-based) selected: Tab from nothing."""
    await to_page(session, page)
    await changed(session, *[key("tab")] * (index + 1))


async def command(session: Session, words: str, dialog: str | None = None) -> None:
    """LibreOffice's Search Commands (Shift+Esc, Help > Search Commands): ``words`` typed and the first
    command found run, then (with ``dialog``) a wait for the dialog it opens."""
    await changed(session, key("shift+escape"))
    await act(session, TypeText(words), Wait(0.6))
    await settled(session)
    await act(session, key("Return"))
    if dialog is not None:
        await window(session, dialog)
    await settled(session)


async def fill_in(
    session: Session, dialog: str, fields: Sequence[tuple[tuple[int, int], str]], ok: tuple[int, int]
) -> None:
    """In ``dialog``: each field (its place) clicked, emptied and typed into, then its OK button clicked and
    the dialog gone."""
    for place, value in fields:
        await click_in(session, place, dialog)
        await act(session, key("ctrl+a"), TypeText(value), key("tab"), Wait(0.2))
    await click_in(session, ok, dialog)
    await no_window(session, dialog)


async def save_as(session: Session, path: str) -> None:
    """File > Save As (Ctrl+Shift+S) under ``~/path`` (the format by its extension), waiting for the title."""
    await open_dialog(session, "ctrl+shift+s", "Save")
    await submit_dialog(session, "Save", f"~/{path}")
    await window(session, draw_title(path))
