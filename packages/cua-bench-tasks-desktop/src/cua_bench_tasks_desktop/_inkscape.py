"""Inkscape (1.2, GTK 3) in the desktop tasks: drawings written by setup, edited through Inkscape's
dialogs by the oracles, and read back whole by the evaluators (not a task: no ``main.py``).

**The drawings.** ``svg_bytes`` writes a seed: a page of ``width`` x ``height`` px (a viewBox of the
same size, so one user unit is one px), a ``sodipodi:namedview``, an empty ``defs`` and one layer
holding a few shapes (``rect``, ``circle``, ``ellipse``), each with an id, an ``inkscape:label`` and
a flat fill, side by side and never overlapping. ``Shape`` keeps a shape as the task's metadata
does (JSON lists).

**Read back whole.** ``read_svg`` parses a saved file with lxml (no entities, no network, no DTD,
a size cap): anything that is not an SVG is the reason why, a string, never an exception. A
``Drawing`` is the file's content as the evaluators compare it: the root's attributes (but the ones
Inkscape writes on its own: its version, the file's name, the Export dialog's hints) and every
element of the drawing in document order with its attributes, its parent's id and its text
(whitespace between elements aside, as Inkscape indents). Inkscape's view settings
(``sodipodi:namedview``, which it rewrites with the zoom and the window's size on every save) and an
empty ``metadata`` are not the drawing. ``style`` parses a style attribute, with the CSS initial
values that Inkscape writes out when a colour is set (``fill-opacity:1``) taken as unset.
``drawing_problems`` compares a saved drawing with the one expected, element by element: a changed
attribute, a missing or extra element, another order or another parent is a problem.

**As Inkscape saves.** ctrl+s (File > Save) on an SVG opened in Inkscape writes Inkscape SVG: the
root gains ``inkscape:version``, which a seed never has, so a file without it was not saved by
Inkscape (or was saved as plain SVG). Inkscape ends the file with ``</svg>`` and one newline:
anything after it (blank lines) is not its file. Inkscape writes its profile (``~/.config/inkscape``)
when it first starts and again when it quits: setup waits for it, and the evaluators let it change.

**On the screen.** Inkscape 1.2 puts its menu bar, toolbars and dialogs (Layers and Objects, Fill
and Stroke, Object Properties, Export: docked at the right; Document Properties: a window of its
own) on the accessibility bus, but names few fields: ``right_of`` finds a field by the label beside
it. The oracles open dialogs from the menu bar (``from_menu``), click a field until it has the
focus before they type (``fill_field``: ctrl+a on the canvas would select every object), and wait
for what the window shows: the selector toolbar's X, Y, W and H (``selection_box``) say which
object is selected, the status bar says which tool is on and how many characters were typed. The
canvas itself is not on the bus: objects are picked by their label's row in Layers and Objects
(``select``), and the Text tool clicks the middle of the page after Zoom Page (``add_text``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from cua_bench import Session, Task, TaskError
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    NOUNS,
    PATIENCE,
    WORDS,
    act,
    env_var,
    file_title,
    files_since_setup,
    key,
    listing,
    output_bytes,
    remember_files,
    shell,
    start,
    unchanged_but,
    wait_for,
    window,
)
from cua_bench_tasks_desktop._office import still
from cua_core import Click, CuaError, Point, TypeText, Wait

__all__ = [
    "APP",
    "COLOURS",
    "EXPORT_WIDTH",
    "INKSCAPE",
    "LAYER",
    "PAGES",
    "SODIPODI",
    "SVG",
    "TEXT_TOOL",
    "Drawing",
    "Element",
    "Shape",
    "add_text",
    "as_shapes",
    "canvas",
    "click",
    "delete_selected",
    "drawing_problems",
    "expected_elements",
    "export_png",
    "fill_field",
    "find",
    "folder_and_name",
    "from_menu",
    "hide_selected",
    "object_properties",
    "open_drawing",
    "open_seeded",
    "previous",
    "read_saved",
    "read_svg",
    "right_of",
    "save",
    "saved_drawing_score",
    "seed_root",
    "seed_shapes",
    "seeded_problems",
    "select",
    "selection_box",
    "set_id_and_label",
    "set_page_size",
    "set_paint",
    "shape_element",
    "style",
    "svg_bytes",
    "target_changed",
    "title",
    "unchanged_but_profile",
]

APP = "Inkscape"
SVG = "http://www.w3.org/2000/svg"
INKSCAPE = "http://www.inkscape.org/namespaces/inkscape"
SODIPODI = "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
MAX_SVG = 8 << 20
"""The largest file the evaluator parses (a task's drawing is a couple of KiB)."""
LAYER = "layer1"

COLOURS = {
    "#d62728": "red",
    "#ff7f0e": "orange",
    "#2ca02c": "green",
    "#1f77b4": "blue",
    "#9467bd": "purple",
    "#8c564b": "brown",
    "#e377c2": "pink",
    "#7f7f7f": "grey",
    "#bcbd22": "olive",
    "#17becf": "teal",
    "#3d2b1f": "umber",
    "#f5c518": "yellow",
}
"""Flat fills a seed's shapes get (and tasks ask for), as Inkscape writes colours: lowercase #rrggbb."""

# The root's attributes Inkscape writes on its own: its version, the file's name, the Export dialog's hints.
ROOT_OWN = {
    f"{{{INKSCAPE}}}version",
    f"{{{SODIPODI}}}docname",
    f"{{{INKSCAPE}}}export-filename",
    f"{{{INKSCAPE}}}export-xdpi",
    f"{{{INKSCAPE}}}export-ydpi",
}
VIEW = {f"{{{SODIPODI}}}namedview"}
"""Elements that are the view, not the drawing: Inkscape rewrites them on every save."""

# CSS initial values: a property set to one is the property unset (Inkscape writes them out when a colour is set).
INITIAL = {
    "fill-opacity": "1",
    "stroke-opacity": "1",
    "opacity": "1",
    "stroke": "none",
    "fill-rule": "nonzero",
    "stroke-width": "1",
    "stroke-dasharray": "none",
    "stroke-linecap": "butt",
    "stroke-linejoin": "miter",
    "stroke-miterlimit": "4",
    "stroke-dashoffset": "0",
    "paint-order": "normal",
}

# --- the seed ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """One shape of a seed: ``kind`` (rect, circle, ellipse), its id and label, its fill, and its box
    (left, top, width, height; px, whole numbers; a circle's box is square)."""

    kind: str
    id: str
    fill: str
    box: tuple[int, int, int, int]

    @property
    def label(self) -> str:
        return self.id.capitalize()

    def geometry(self) -> dict[str, str]:
        x, y, w, h = self.box
        if self.kind == "rect":
            return {"x": str(x), "y": str(y), "width": str(w), "height": str(h)}
        if self.kind == "circle":
            return {"cx": _num(x + w / 2), "cy": _num(y + h / 2), "r": _num(w / 2)}
        return {"cx": _num(x + w / 2), "cy": _num(y + h / 2), "rx": _num(w / 2), "ry": _num(h / 2)}

    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return x + w / 2, y + h / 2

    def as_json(self) -> list[Any]:
        return [self.kind, self.id, self.fill, list(self.box)]


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def as_shapes(value: Any) -> list[Shape]:
    """Shapes as a task's metadata keeps them (JSON lists), typed back."""
    shapes = []
    for kind, id_, fill, (x, y, w, h) in value:
        shapes.append(Shape(str(kind), str(id_), str(fill), (int(x), int(y), int(w), int(h))))
    return shapes


PAGES = ((480, 320), (600, 400), (640, 360), (400, 300), (560, 420), (720, 400))
"""Page sizes (px) a seed picks from."""


def seed_shapes(rng: random.Random, width: int, height: int, count: int) -> list[Shape]:
    """``count`` shapes side by side across the page (one column each, never overlapping), each with
    a distinct id (a noun) and a distinct fill."""
    ids = rng.sample([noun for noun in NOUNS if noun.isalpha()], count)
    fills = rng.sample(sorted(COLOURS), count)
    column = width // count
    shapes = []
    for index, (id_, fill) in enumerate(zip(ids, fills, strict=True)):
        kind = rng.choice(["rect", "rect", "circle", "ellipse"])
        w = rng.randrange(column // 3, column - 20) // 2 * 2
        h = w if kind == "circle" else rng.randrange(height // 5, height * 3 // 5) // 2 * 2
        h = min(h, height - 40) // 2 * 2
        x = index * column + rng.randint(10, column - w - 10)
        y = rng.randint(20, height - h - 20)
        shapes.append(Shape(kind, id_, fill, (x, y, w, h)))
    return shapes


def shape_element(shape: Shape) -> Element:
    """The element a seed writes for ``shape``, as ``read_svg`` reads it back."""
    attrs = {"id": shape.id, f"{{{INKSCAPE}}}label": shape.label, **shape.geometry()}
    attrs["style"] = f"fill:{shape.fill};stroke:none"
    return Element(f"{{{SVG}}}{shape.kind}", attrs, LAYER, "")


def svg_bytes(width: int, height: int, shapes: Sequence[Shape]) -> bytes:
    """A seed drawing (see the module's docstring), UTF-8, as a text editor would write it."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
        f'<svg xmlns="{SVG}" xmlns:svg="{SVG}" xmlns:inkscape="{INKSCAPE}" xmlns:sodipodi="{SODIPODI}"',
        f'   width="{width}" height="{height}" viewBox="0 0 {width} {height}" version="1.1" id="svg1">',
        '  <sodipodi:namedview id="namedview1" pagecolor="#ffffff" bordercolor="#666666" borderopacity="1.0"',
        '     inkscape:pageopacity="0.0" inkscape:pagecheckerboard="0" inkscape:deskcolor="#d1d1d1"',
        '     inkscape:document-units="px" />',
        '  <defs id="defs1" />',
        f'  <g inkscape:groupmode="layer" inkscape:label="Layer 1" id="{LAYER}">',
    ]
    for shape in shapes:
        geometry = " ".join(f'{name}="{value}"' for name, value in shape.geometry().items())
        lines.append(
            f'    <{shape.kind} id="{shape.id}" inkscape:label="{shape.label}" {geometry} '
            f'style="fill:{shape.fill};stroke:none" />'
        )
    lines += ["  </g>", "</svg>", ""]
    return "\n".join(lines).encode()


def folder_and_name(rng: random.Random) -> str:
    """``~/``-relative path of a drawing: ``designs/poster_2027.svg``."""
    stem = rng.choice(["logo", "poster", "banner", "badge", "card", "sketch", "diagram", "icon", "flyer"])
    suffix = rng.choice([str(rng.randint(2015, 2031)), rng.choice(NOUNS)])
    return f"{rng.choice(WORDS)}/{stem}{rng.choice('_-')}{suffix}.svg"


# --- reading a saved drawing ------------------------------------------------------------------


@dataclass(frozen=True)
class Element:
    """One element of the drawing: its tag (``{namespace}name``), attributes, its parent's id (''
    for the root's children) and its own text (whitespace-only text is Inkscape's indentation: '')."""

    tag: str
    attrs: dict[str, str]
    parent: str
    text: str

    @property
    def id(self) -> str:
        return self.attrs.get("id", "")


@dataclass(frozen=True)
class Drawing:
    """A saved SVG as the evaluators compare it: the root's attributes (Inkscape's own aside), every
    element of the drawing in document order, and the bytes after the root (Inkscape writes one newline)."""

    root: dict[str, str]
    elements: list[Element]
    inkscape_version: str | None
    tail: bytes = b""
    raw_root: dict[str, str] = field(default_factory=dict)

    def by_id(self, id_: str) -> Element | None:
        return next((e for e in self.elements if e.id == id_), None)

    def text_of(self, id_: str) -> str:
        """The text of element ``id_`` and everything under it, in document order."""
        found = self.by_id(id_)
        if found is None:
            return ""
        under = _descendants(self.elements, id_)
        return found.text + "".join(e.text for e in under)


def _descendants(elements: list[Element], id_: str) -> list[Element]:
    ids, found = {id_}, []
    for element in elements:
        if element.parent in ids:
            found.append(element)
            if element.id:
                ids.add(element.id)
    return found


_ROOT_END = re.compile(rb"</(?:[A-Za-z_][\w.-]*:)?svg\s*>")


def read_svg(data: bytes | None) -> Drawing | str:
    """The SVG in ``data`` read whole, or why it is not one (missing, not XML, not an SVG, too big)."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_SVG:
        return f"too large to read ({len(data)} bytes; the evaluator reads up to {MAX_SVG})"
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        return f"not XML ({str(exc)[:120]})"
    if root.tag != f"{{{SVG}}}svg":
        return f"not an SVG (its root is {root.tag!r})"
    ends = list(_ROOT_END.finditer(data))
    tail = data[ends[-1].end() :] if ends else b""
    elements: list[Element] = []

    def visit(node: Any, parent: str) -> None:
        for child in node:
            if not isinstance(child.tag, str):
                continue  # comments and processing instructions are no part of the drawing
            if child.tag in VIEW or (child.tag == f"{{{SVG}}}metadata" and not _has_content(child)):
                continue
            text = child.text or ""
            attrs = {str(k): str(v) for k, v in child.attrib.items()}
            elements.append(Element(str(child.tag), attrs, parent, "" if not text.strip() else text))
            visit(child, attrs.get("id", f"#{len(elements)}"))

    visit(root, "")
    attrs = {str(k): str(v) for k, v in root.attrib.items()}
    return Drawing(
        {k: v for k, v in attrs.items() if k not in ROOT_OWN},
        elements,
        attrs.get(f"{{{INKSCAPE}}}version"),
        tail,
        attrs,
    )


def _has_content(node: Any) -> bool:
    return any(isinstance(child.tag, str) for child in node) or bool((node.text or "").strip())


def style(value: str | None) -> dict[str, str]:
    """A style attribute as ``{property: value}`` (lowercase colours; the CSS initial values left out)."""
    found = {}
    for part in (value or "").split(";"):
        name, sep, val = part.partition(":")
        name, val = name.strip().lower(), val.strip()
        if not sep or not name:
            continue
        if re.fullmatch(r"#[0-9a-fA-F]{6}", val):
            val = val.lower()
        if INITIAL.get(name) == val:
            continue
        found[name] = val
    return found


def _same(got: Element, want: Element) -> str | None:
    """Why ``got`` is not ``want`` (None: the same), styles compared as ``style`` reads them."""
    if got.tag != want.tag:
        return f"is a {_local(got.tag)}, not a {_local(want.tag)}"
    if got.parent != want.parent:
        return f"is in {got.parent or 'the root'}, not in {want.parent or 'the root'}"
    if style(got.attrs.get("style")) != style(want.attrs.get("style")):
        return f"has the style {got.attrs.get('style')!r}, not {want.attrs.get('style')!r}"
    rest_got = {k: v for k, v in got.attrs.items() if k != "style"}
    rest_want = {k: v for k, v in want.attrs.items() if k != "style"}
    if rest_got != rest_want:
        differ = sorted(k for k in set(rest_got) | set(rest_want) if rest_got.get(k) != rest_want.get(k))
        return "differs in " + ", ".join(
            f"{_local(k)}={rest_got.get(k)!r} (not {rest_want.get(k)!r})" for k in differ[:3]
        )
    if got.text != want.text:
        return f"holds the text {got.text[:40]!r}, not {want.text[:40]!r}"
    return None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def drawing_problems(
    drawing: Drawing,
    root: dict[str, str],
    expected: Sequence[Element],
    *,
    extra: Callable[[Element], bool] | None = None,
) -> list[str]:
    """How ``drawing`` differs from the drawing expected: the root's attributes ``root`` (Inkscape's own
    aside), the elements ``expected`` (matched by id, in that order), and no other element but those
    ``extra`` accepts (an element a task asks to add). Also: saved by Inkscape as Inkscape SVG, and
    nothing after the root but the one newline Inkscape writes."""
    problems = []
    if drawing.inkscape_version is None:
        problems.append("the file was not saved by Inkscape as Inkscape SVG (its root has no inkscape:version)")
    if drawing.tail not in (b"", b"\n"):
        problems.append(f"the file goes on after </svg> ({drawing.tail[:20]!r})")
    if drawing.root != root:
        differ = sorted(k for k in set(drawing.root) | set(root) if drawing.root.get(k) != root.get(k))
        problems.append(
            "the page differs in "
            + ", ".join(f"{_local(k)}={drawing.root.get(k)!r} (not {root.get(k)!r})" for k in differ[:4])
        )
    ids = [e.id for e in drawing.elements]
    for want in expected:
        got = drawing.by_id(want.id)
        if got is None:
            problems.append(f"no element {want.id!r}")
            continue
        if ids.count(want.id) > 1:
            problems.append(f"{ids.count(want.id)} elements with the id {want.id!r}")
        why = _same(got, want)
        if why:
            problems.append(f"{want.id} {why}")
    known = {want.id for want in expected}
    order = [e.id for e in drawing.elements if e.id in known]
    if not problems and order != [want.id for want in expected]:
        problems.append(f"the elements are in the order {order}, not {[w.id for w in expected]}")
    for element in drawing.elements:
        if element.id in known:
            continue
        if extra is not None and extra(element):
            continue
        problems.append(f"an element more: {_local(element.tag)} {element.id!r}")
    return problems


def expected_elements(
    shapes: Iterable[Shape], change: Callable[[Element], Element | None] | None = None
) -> list[Element]:
    """The seed's elements (defs, the layer, each shape), each passed through ``change`` (which may
    change it, or drop it with None)."""
    elements = [
        Element(f"{{{SVG}}}defs", {"id": "defs1"}, "", ""),
        Element(
            f"{{{SVG}}}g", {f"{{{INKSCAPE}}}groupmode": "layer", f"{{{INKSCAPE}}}label": "Layer 1", "id": LAYER}, "", ""
        ),
        *(shape_element(shape) for shape in shapes),
    ]
    if change is None:
        return elements
    return [changed for changed in (change(e) for e in elements) if changed is not None]


def seed_root(width: int, height: int) -> dict[str, str]:
    """The seed root's attributes as ``read_svg`` gives them."""
    return {
        "width": str(width),
        "height": str(height),
        "viewBox": f"0 0 {width} {height}",
        "version": "1.1",
        "id": "svg1",
    }


async def read_saved(task: Task, session: Session, path: str) -> Drawing | None:
    """The drawing at ``~/path`` (a plain file with one link, as the end state's snapshot has it), read
    whole; None (explained) when it is not one."""
    _, after = await files_since_setup(task, session)
    drawing = read_svg(await output_bytes(session, after, path))
    if isinstance(drawing, str):
        task.explain(f"{path}: {drawing}")
        return None
    return drawing


# --- setup and the oracle's hands ------------------------------------------------------------

PROFILE = ".config/inkscape"
"""Inkscape's profile: made at its first start (its preferences and folders) and written again when it
quits, so the evaluators let it change (``unchanged_but_profile``)."""


def previous(path: str) -> str:
    """The drawing's previous version, which setup leaves beside it (``logo_old.svg``): a file no task
    asks to change, so a change to it (its mode, its time) is a change of the agent's."""
    return path.removesuffix(".svg") + "_old.svg"


async def unchanged_but_profile(task: Task, session: Session, expect: list[str]) -> bool:
    """No file under home changed since setup but ``expect`` and Inkscape's profile (``PROFILE``)."""
    return await unchanged_but(task, session, [*expect, PROFILE])


def target_changed(meta: Any, **attrs: str) -> Callable[[Element], Element]:
    """``expected_elements``' change for a task on one seeded object (``metadata``: ``shapes``, ``target``):
    that object with ``attrs`` over its own, every other element as it was."""
    target = as_shapes(meta["shapes"])[meta["target"]].id

    def changed(element: Element) -> Element:
        return element if element.id != target else Element(element.tag, {**element.attrs, **attrs}, element.parent, "")

    return changed


def seeded_problems(
    drawing: Drawing, meta: Any, change: Callable[[Element], Element | None] | None = None
) -> list[str]:
    """How a saved drawing differs from the seed (``metadata``: ``width``, ``height``, ``shapes``) passed
    through ``change`` (``expected_elements``')."""
    expected = expected_elements(as_shapes(meta["shapes"]), change)
    return drawing_problems(drawing, seed_root(meta["width"], meta["height"]), expected)


async def saved_drawing_score(task: Task, session: Session, check: Callable[[Drawing], list[str]]) -> list[float]:
    """The score of a task that saves the seeded drawing (``metadata``'s ``path``): 1 when it is read whole,
    ``check`` finds no problem with it, and no other file under home but Inkscape's profile changed."""
    path = task.metadata["path"]
    drawing = await read_saved(task, session, path)
    if drawing is None:
        return [0.0]
    problems = check(drawing)
    for problem in problems:
        task.explain(f"{path}: {problem}")
    return [1.0 if not problems and await unchanged_but_profile(task, session, [path]) else 0.0]


def title(path: str, *, clean: bool = True) -> Callable[[str], bool]:
    """Inkscape's title while it shows ``~/path``; with ``clean``, only once it is saved."""
    return file_title(path, APP, clean=clean)


async def open_seeded(task: Task, session: Session) -> None:
    """Setup of a task on a seeded drawing (``metadata``: ``path``, ``width``, ``height``, ``shapes``): it
    open in Inkscape, as ``open_drawing``."""
    meta = task.metadata
    await open_drawing(task, session, meta["path"], svg_bytes(meta["width"], meta["height"], as_shapes(meta["shapes"])))


async def open_drawing(task: Task, session: Session, path: str, data: bytes, *, remember: bool = True) -> None:
    """Setup: ``data`` at ``~/path``, open in Inkscape, its window up, its widgets on the
    accessibility bus and the screen still; then (with ``remember``) every file under home remembered."""
    if "/" in path:
        await session.run_command(f"mkdir -p {shell(path.rsplit('/', 1)[0])}", timeout=20, check=True)
    await session.write_bytes(path, data)
    await session.write_bytes(previous(path), data)
    await start(session, "inkscape", path, title=title(path), timeout=90)

    async def profile() -> bool:
        return "preferences.xml" in (await listing(session, PROFILE) or {})

    await wait_for(profile, "Inkscape's profile", timeout=PATIENCE)
    await wait_for(lambda: _menu(session), "Inkscape's menu on the accessibility bus", 90)
    await still(session)
    if remember:
        await remember_files(task, session)


Node = dict[str, Any]


async def _menu(session: Session) -> Node | None:
    """The menu bar's File menu, once Inkscape has put its widgets on the accessibility bus."""
    return await find(session, "menu", "File")


async def find(
    session: Session,
    role: str,
    name: str | None = None,
    *,
    state: str | None = None,
    where: Callable[[Node], bool] | None = None,
) -> Node | None:
    """The first showing widget of ``role`` (named ``name``, in ``state``, accepted by ``where``), front
    window first."""
    return _first(await session.accessibility_tree(), role, name, state=state, where=where)


def _first(
    tree: Sequence[Node],
    role: str,
    name: str | None = None,
    *,
    state: str | None = None,
    where: Callable[[Node], bool] | None = None,
) -> Node | None:
    for node in walk(tree):
        if node.get("role") != role or (name is not None and node.get("name") != name):
            continue
        states = node.get("states") or []
        if not node.get("bounds") or "showing" not in states or (state is not None and state not in states):
            continue
        if where is not None and not where(node):
            continue
        return node
    return None


async def click(session: Session, role: str, name: str | None = None, **match: Any) -> Node:
    """Wait for the widget and click its middle; the widget as it was found."""
    node = await wait_for(lambda: find(session, role, name, **match), f"the {role} {name!r}")
    await act(session, Click(center(node)))
    return node


def right_of(tree: Sequence[Node], label: str, role: str) -> Node | None:
    """The showing widget of ``role`` on the same row as the label ``label``, the nearest to its right
    (Inkscape's dialogs put a field's label beside it, and name neither)."""
    found = _first(tree, "label", label)
    if found is None:
        return None
    _, top, right, bottom = found["bounds"]
    middle = (top + bottom) / 2
    beside = [
        node
        for node in walk(tree)
        if node.get("role") == role
        and node.get("bounds")
        and "showing" in (node.get("states") or [])
        and node["bounds"][1] <= middle <= node["bounds"][3]
        and node["bounds"][0] >= right - 2
    ]
    return min(beside, key=lambda node: node["bounds"][0] - right, default=None)


async def from_menu(session: Session, menu: str, item: str) -> None:
    """The menu bar's ``menu`` opened and its ``item`` clicked (a menu that did not open is clicked again)."""
    for _attempt in range(3):
        await click(session, "menu", menu)
        try:
            entry = await wait_for(lambda: find(session, "menu item", item, state="sensitive"), item, timeout=5)
        except TaskError:
            await act(session, key("escape"))
            continue
        await act(session, Click(center(entry)))
        return
    raise TaskError(f"Inkscape's menu {menu} would not show {item!r}")


Finder = Callable[[Sequence[Node]], Node | None]


async def fill_field(session: Session, field: Finder, text: str, what: str, *, enter: bool = True) -> None:
    """Click into the field ``field`` finds until it has the keyboard focus (a click while the window
    takes the focus can go nowhere; ctrl+a on the canvas would select every object), then select what
    it holds, type ``text`` and Enter."""

    async def focused() -> Node | None:
        node = field(await session.accessibility_tree())
        return node if node is not None and "focused" in (node.get("states") or []) else None

    for _attempt in range(4):
        node = await wait_for(lambda: _found(session, field), what)
        await act(session, Click(center(node)))
        try:
            await wait_for(focused, f"{what} to take the focus", timeout=3)
        except TaskError:
            continue
        await act(session, key("ctrl+a"), TypeText(text, press_enter=enter))
        return
    raise TaskError(f"{what} would not take the keyboard focus")


async def _found(session: Session, field: Finder) -> Node | None:
    return field(await session.accessibility_tree())


def _numbers(values: Sequence[str | None]) -> tuple[float, ...] | None:
    try:
        return tuple(float((value or "").strip().rstrip("%°")) for value in values)
    except ValueError:
        return None


def selection_box(tree: Sequence[Node]) -> tuple[float, ...] | None:
    """The selector toolbar's X, Y, W and H (the selection's box, px), as the fields show them."""
    fields = [right_of(tree, label, "spin button") for label in ("X:", "Y:", "W:", "H:")]
    if any(node is None for node in fields):
        return None
    return _numbers([node.get("value") for node in fields if node is not None])


async def select(session: Session, shape: Shape) -> None:
    """Oracle move: ``shape`` selected in the Layers and Objects dialog (its label's row; the layer's
    row expanded first), waiting until the toolbar shows the shape's box."""
    await click(session, "push button", "Layers and Objects...")

    async def row() -> Node | None:
        tree = await session.accessibility_tree()
        found = _first(tree, "table cell", shape.label)
        if found is None:
            layer = _parent_of(tree, _first(tree, "table cell", "Layer 1"))
            if layer is not None and "expanded" not in (layer.get("states") or []) and layer.get("children"):
                await act(session, Click(center(layer["children"][0])))
        return found

    cell = await wait_for(row, f"the row of {shape.label} in Layers and Objects")
    left, top, right, bottom = cell["bounds"]
    await act(session, Click(Point(left + (right - left) * 0.3, (top + bottom) / 2)))

    async def selected() -> bool:
        box = selection_box(await session.accessibility_tree())
        return box is not None and all(abs(a - b) < 0.01 for a, b in zip(box, shape.box, strict=True))

    await wait_for(selected, f"{shape.label} to be selected")


def _parent_of(tree: Sequence[Node], child: Node | None) -> Node | None:
    if child is None:
        return None
    for node in walk(tree):
        if any(c is child for c in node.get("children") or []):
            return node
    return None


def _rgba(node: Node) -> bool:
    return node.get("role") == "text" and re.fullmatch(r"[0-9a-f]{8}", str(node.get("value") or "")) is not None


async def set_paint(session: Session, colour: str, *, stroke: bool = False) -> None:
    """Oracle move: Fill and Stroke opened (Object menu), its Fill tab (or Stroke paint), Flat color,
    and ``colour`` typed into the RGBA field; waits for the field to show it."""
    await from_menu(session, "Object", "Fill and Stroke...")
    tab = "Stroke paint" if stroke else "Fill"
    await click(session, "page tab", tab)
    await wait_for(lambda: find(session, "page tab", tab, state="selected"), f"the {tab} tab")
    if stroke:
        # The paint modes' row: no paint, flat colour, gradients... (unnamed toggles, left to right).
        async def flat() -> Node | None:
            tree = await session.accessibility_tree()
            modes = sorted(
                (n for n in walk(tree) if n.get("role") == "toggle button" and not n.get("name")
                 and n.get("bounds") and 200 < n["bounds"][1] < 320 and n["bounds"][0] > 600),
                key=lambda n: n["bounds"][0],
            )  # fmt: skip
            return modes[1] if len(modes) >= 8 else None

        await act(session, Click(center(await wait_for(flat, "the Flat color button"))))
    want = colour.removeprefix("#").lower() + "ff"
    await fill_field(session, lambda tree: _first(tree, "text", where=_rgba), want, "the RGBA field")

    async def shown() -> bool:
        node = await find(session, "text", where=_rgba)
        return node is not None and node.get("value") == want

    await wait_for(shown, f"the RGBA field to show {want}")


async def object_properties(session: Session) -> None:
    """Object Properties opened (Object menu), its fields ready for the selected object."""
    await from_menu(session, "Object", "Object Properties...")
    await wait_for(lambda: _property(session, "ID: ", "sensitive"), "Object Properties")


async def _property(session: Session, label: str, state: str | None = None) -> Node | None:
    node = right_of(await session.accessibility_tree(), label, "text")
    return node if node is not None and (state is None or state in (node.get("states") or [])) else None


async def set_id_and_label(session: Session, id_: str | None, label: str) -> None:
    """Oracle move: in Object Properties, ``id_`` typed into ID (unless None) and ``label`` into Label,
    then Set; waits for the fields to show them after Set."""
    await object_properties(session)
    if id_ is not None:
        await fill_field(session, lambda tree: right_of(tree, "ID: ", "text"), id_, "the ID field")
    await fill_field(session, lambda tree: right_of(tree, "Label: ", "text"), label, "the Label field")
    await click(session, "push button", "Set")

    async def set_() -> bool:
        shown_id = await _property(session, "ID: ")
        shown_label = await _property(session, "Label: ")
        return (
            shown_label is not None
            and shown_label.get("value") == label
            and (id_ is None or (shown_id is not None and shown_id.get("value") == id_))
        )

    await wait_for(set_, "Object Properties to show the new id and label")


async def hide_selected(session: Session) -> None:
    """Wrong ways' move: Object Properties' Hide ticked for the selected object."""
    await object_properties(session)
    await click(session, "check box", "Hide")
    await wait_for(lambda: find(session, "check box", "Hide", state="checked"), "Hide to be ticked")


async def delete_selected(session: Session) -> None:
    """Oracle move: Edit > Delete on the selection; waits for the toolbar to show no selection."""
    await from_menu(session, "Edit", "Delete")

    async def none() -> bool:
        return await find(session, "push button", "Deselect", state="sensitive") is None

    await wait_for(none, "the selection to be deleted")


async def set_page_size(session: Session, width: int, height: int | None) -> None:
    """Oracle move: Document Properties (File menu), ``width`` typed into the page's Width and
    ``height`` (unless None) into its Height (px, the seed's units); waits for both to show them."""
    await from_menu(session, "File", "Document Properties...")
    await wait_for(lambda: _size_field(session, "Width:"), "Document Properties")
    for label, value in (("Width:", width), ("Height:", height)):
        if value is not None:
            await _set_size(session, label, value)


async def _set_size(session: Session, label: str, value: int) -> None:
    """``value`` typed into Document Properties' field ``label``; waits for the field to show it."""

    def field(tree: Sequence[Node]) -> Node | None:
        return right_of(tree, label, "spin button")

    await fill_field(session, field, str(value), label)

    async def shows() -> bool:
        node = await _size_field(session, label)
        shown = _numbers([node.get("value")]) if node is not None else None
        return shown is not None and abs(shown[0] - value) < 0.001

    await wait_for(shows, f"the page's {label} to show {value}")


async def _size_field(session: Session, label: str) -> Node | None:
    return right_of(await session.accessibility_tree(), label, "spin button")


EXPORT_WIDTH = "Width\n(px)"
"""The label of the Export dialog's image width field (two lines)."""


async def export_png(session: Session, path: str, width: int | None, *, area: str = "Page") -> None:
    """Oracle move: Export (the toolbar's button), the ``area`` (Page, Document, Selection), ``width``
    typed into the image's Width (None: Inkscape's default, 96 dpi), ``~/path`` as the file's name and
    Export clicked; waits until a whole PNG is there."""
    home = await env_var(session, "HOME")
    await click(session, "push button", "Export...")
    await wait_for(lambda: find(session, "push button", "Export", state="sensitive"), "the Export dialog")
    await click(session, "radio button", area)
    await wait_for(lambda: find(session, "radio button", area, state="checked"), f"the {area} area")
    if width is not None:
        field: Finder = lambda tree: right_of(tree, EXPORT_WIDTH, "spin button")  # noqa: E731
        await fill_field(session, field, str(width), "the image's width")

        async def shows() -> bool:
            node = await _found(session, field)
            return node is not None and _numbers([node.get("value")]) == (float(width),)

        await wait_for(shows, f"the image's width to show {width}")
    name: Finder = lambda tree: _first(tree, "text", where=lambda n: str(n.get("value") or "").startswith("/"))  # noqa: E731
    target = f"{home}/{path}"
    await fill_field(session, name, target, "the file name", enter=False)

    async def named() -> bool:
        node = await _found(session, name)
        return node is not None and node.get("value") == target

    await wait_for(named, "the file name to be typed")
    await click(session, "push button", "Export", state="sensitive")

    async def exported() -> bool:
        try:
            data = bytes(await session.read_bytes(path))
        except (OSError, CuaError, ValueError):
            return False
        return data.startswith(b"\x89PNG") and data.endswith(b"IEND\xaeB`\x82")

    await wait_for(exported, f"~/{path} to be exported")


TEXT_TOOL = "Click to select or create text"
"""The start of the status bar's message while the Text tool is on and nothing is being typed."""


async def _status(session: Session) -> str:
    """The status bar's message (the long label along the window's bottom)."""
    tree = await session.accessibility_tree()
    found = [
        str(n.get("name") or "")
        for n in walk(tree)
        if n.get("role") == "label" and n.get("bounds") and n["bounds"][1] > 900 and len(str(n.get("name") or "")) > 20
    ]
    return found[0] if found else ""


async def canvas(session: Session) -> Node:
    """The canvas: the widest focusable drawing area of the window."""

    async def widest() -> Node | None:
        areas = [
            n
            for n in walk(await session.accessibility_tree())
            if n.get("role") == "drawing area" and "focusable" in (n.get("states") or []) and n.get("bounds")
        ]
        return max(areas, key=lambda n: n["bounds"][2] - n["bounds"][0], default=None)

    return await wait_for(widest, "Inkscape's canvas")


async def add_text(session: Session, words: str, *, lower: bool = False) -> None:
    """Oracle move: the page fitted in view (Zoom Page), a click on the desk beside it (the canvas takes
    the keys), the Text tool (``t``), a click in the middle of the page (``lower``: a quarter of the
    view lower), ``words`` typed and Escape; waits for the status bar to say each step happened."""
    await click(session, "push button", "Zoom Page")
    area = await canvas(session)
    left, top, right, bottom = area["bounds"]
    for _attempt in range(3):
        if await _status_starts(session, TEXT_TOOL):
            break  # the Text tool is on already (a click on the desk would start a text there)
        await act(session, Click(Point(left + 3, top + 3)), Wait(0.2), key("t"))
        try:
            await wait_for(lambda: _status_starts(session, TEXT_TOOL), "the Text tool", timeout=5)
        except TaskError:
            continue
    y = (top + bottom) / 2 + ((bottom - top) / 4 if lower else 0)
    await act(session, Click(Point((left + right) / 2, y)))
    await wait_for(lambda: _status_starts(session, "Type"), "the text cursor", timeout=PATIENCE)
    await act(session, TypeText(words))
    await wait_for(lambda: _status_has(session, f"{len(words)} characters"), "the words to be typed")
    await act(session, key("escape"))
    await wait_for(lambda: _status_starts(session, TEXT_TOOL), "the text to be left")


async def _status_starts(session: Session, start: str) -> bool:
    return (await _status(session)).startswith(start)


async def _status_has(session: Session, part: str) -> bool:
    return part in await _status(session)


async def save(session: Session, path: str) -> None:
    """File > Save once the title shows unsaved changes (the menu, as ctrl+s would go to a field that
    has the focus), and the wait for the saved title."""
    await window(session, lambda name: name.startswith("*") and title(path, clean=False)(name))
    await from_menu(session, "File", "Save")
    await window(session, title(path))
