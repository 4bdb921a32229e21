"""LibreOffice Writer's documents in the desktop tasks: seeds written in a real format, and a saved
document read back as typed paragraphs (not a task: no ``main.py``).

**Read by content.** ``parse`` reads an OpenDocument text (``.odt``, Writer's own format: a zip whose
``mimetype`` says so, read with odfpy) or an Office Open XML document (``.docx``, read with
python-docx), whatever the file's name; ``parse_as`` only the format asked for, so an ``.odt`` saved
under ``report.docx`` is no ``.docx`` (None), nor is an RTF, a PDF or plain text.

**Paragraphs in order**, each with its text, its paragraph style (the named style: an ``.odt``'s
automatic style resolves to its parent, ``Standard`` and Word's ``Normal`` both read as
``Default Paragraph Style``), its outline level (``text:h``'s ``outline-level``, or Word's ``Heading N``
and ``outlineLvl``; 0 for body text), and its runs with bold, italic and underline as they show:
resolved through the span's style, the paragraph's automatic style and its named style chain to the
defaults. ``Paragraph.base`` is what the named paragraph style alone gives (Heading 1 is bold), so
``markup`` shows only what was done to the text itself.

**Tables.** A table in the body is read into ``Document.tables`` (``Table``): where it stands (how many
paragraphs come before it) and its cells row by row, each cell's text (its paragraphs joined by a
newline; the formatting in cells is not judged), the rows of an ``.odt``'s heading-row group
included; merged cells, a table in a cell and what a cell holds besides text (an image, a comment)
are listed in ``Document.objects``. Each table is also listed there as ``table``, so an evaluator
that expects no table still sees one; ``differences`` given the ``tables`` it expects compares them.

**Objects.** Tables, frames and images, drawings, comments, foot- and endnotes, links, fields, lists,
sections, tracked changes and headers or footers holding text are listed in ``Document.objects`` (a
table's own paragraphs are not read as the document's), so an evaluator that expects none sees them.

**Markup.** Seeds and expectations are written as one line per paragraph: ``# Title`` is a Heading 1
(``## `` a Heading 2), ``[Text Body] words`` a paragraph of another style, and ``<b>``, ``<i>``, ``<u>``
mark bold, italic and underlined text beyond the paragraph style's own (``<not-b>`` a heading's bold
taken off by hand). ``markup`` renders a read paragraph the same way, so ``differences`` compares
whole documents line by line. Bold or italic on a space does not show and is not told apart: a space
is bold where the characters on both sides are (a word selected with the space after it and made
bold is that word made bold); underline on a space shows, and is.

**The tasks.** ``open_writer`` writes the seed and opens it (``_office.open_document``). Writer's
accessibility tree is not available here, so the oracles use keys: ``find`` and ``replace_all`` drive
Edit > Find and Replace by its mnemonics, and ``watched`` waits for the screen to show a search's
effect before the dialog is closed (Writer runs the search after the key press returns; a dialog
closed at once closed before it had run, and ctrl+b then went to the word at the caret): the
status bar, which no dialog covers and the spelling checker never draws on. ``insert_table`` fills
Table > Insert Table's fields by Tab from its first one (its labels' mnemonics clash). ``scored``
is the evaluators' reward: the whole document as expected, in its format, and nothing else changed.
"""

from __future__ import annotations

import bisect
import io
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import odf.opendocument
import odf.style
import odf.teletype
import odf.text

from cua_bench import Session, Task, TaskError
from cua_bench.office import document_format
from cua_bench_tasks_desktop._common import (
    ADJECTIVES,
    ENDINGS,
    NOUNS,
    VERBS,
    WORDS,
    act,
    distinct,
    files_since_setup,
    key,
    no_window,
    nothing_else_changed,
    sentence,
    wait_for,
    window,
)
from cua_bench_tasks_desktop._office import app_title, open_document, read_bytes, still
from cua_core import Action, TypeText

__all__ = [
    "DEFAULT_STYLE",
    "FIND",
    "INSERT_TABLE",
    "STATUS_BAR",
    "VOCABULARY",
    "Document",
    "Format",
    "Paragraph",
    "Run",
    "Table",
    "body_line",
    "differences",
    "document_bytes",
    "find",
    "format_of",
    "insert_table",
    "markup",
    "open_writer",
    "parse",
    "parse_as",
    "parse_markup",
    "plain",
    "read_document",
    "replace_all",
    "scored",
    "seed_lines",
    "table_differences",
    "title_line",
    "watched",
    "words_of",
    "writer_format",
]

Format = Literal["odt", "docx"]
DEFAULT_STYLE = "Default Paragraph Style"
MARKS = ("b", "i", "u")
_DEFAULT_NAMES = {"Standard", "Normal", "Default Style", DEFAULT_STYLE}


@dataclass(frozen=True)
class Run:
    """A stretch of a paragraph's text and how it shows: bold, italic, underlined."""

    text: str
    bold: bool = False
    italic: bool = False
    underline: bool = False

    @property
    def marks(self) -> frozenset[str]:
        return frozenset(m for m, on in zip(MARKS, (self.bold, self.italic, self.underline), strict=True) if on)


@dataclass(frozen=True)
class Paragraph:
    """One paragraph (or heading): its text, named style, outline level (0: body text), its runs, and
    ``base``, the marks its named style alone gives every character (``{"b"}`` for a bold heading)."""

    text: str
    style: str = DEFAULT_STYLE
    level: int = 0
    runs: tuple[Run, ...] = ()
    base: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Table:
    """A table of the body: ``at``, how many of the document's paragraphs come before it, and its
    cells' texts row by row."""

    at: int
    rows: tuple[tuple[str, ...], ...]

    @property
    def size(self) -> tuple[int, int]:
        """(rows, columns): the columns of its widest row."""
        return len(self.rows), max((len(row) for row in self.rows), default=0)


@dataclass(frozen=True)
class Document:
    format: Format
    paragraphs: tuple[Paragraph, ...]
    objects: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()

    @property
    def texts(self) -> list[str]:
        return [p.text for p in self.paragraphs]


def writer_format(path: str) -> Format:
    """The format a document's name asks for: ``docx`` for ``.docx``, else Writer's own ``odt``."""
    return "docx" if path.lower().endswith(".docx") else "odt"


# --- markup: how seeds and expectations are written, and how a read paragraph is shown ------------------

_HEAD = re.compile(r"^(?:\[(?P<style>[^\]]+)\] )?(?:(?P<hashes>#+) )?(?P<body>.*)$", re.DOTALL)
_TAG = re.compile(r"<(/?)(b|i|u)>")


def _style_for(level: int) -> str:
    return f"Heading {level}" if level else DEFAULT_STYLE


def parse_markup(line: str) -> Paragraph:
    """A paragraph from one line of markup (see the module's docstring): text, style, level and runs."""
    found = _HEAD.match(line)
    assert found is not None  # the pattern matches any string
    level = len(found["hashes"] or "")
    style = found["style"] or _style_for(level)
    runs: list[Run] = []
    on: set[str] = set()
    body = found["body"]
    position = 0
    for tag in _TAG.finditer(body):
        if tag.start() > position:
            runs.append(_run(body[position : tag.start()], on))
        (on.discard if tag[1] else on.add)(tag[2])
        position = tag.end()
    if position < len(body):
        runs.append(_run(body[position:], on))
    return Paragraph("".join(r.text for r in runs), style, level, tuple(runs))


def _run(text: str, marks: Iterable[str]) -> Run:
    marks = set(marks)
    return Run(text, "b" in marks, "i" in marks, "u" in marks)


def _shown(paragraph: Paragraph) -> list[tuple[str, frozenset[str], frozenset[str]]]:
    """Each character with the marks it has beyond its style and the style's marks it lacks.

    Bold and italic do not show on white space, so a space is given them from the text around it: bold
    between two bold characters, else as its style says (``<b>bridge</b> today`` whether the space after
    the word was made bold too or not, ``<b>two words</b>`` with the space between them)."""
    chars = [(char, run.marks) for run in paragraph.runs for char in run.text]
    solid = [index for index, (char, _) in enumerate(chars) if not char.isspace()]
    shown = []
    for index, (char, own) in enumerate(chars):
        marks = own
        if char.isspace():
            at = bisect.bisect(solid, index)
            around = chars[solid[at - 1]][1] & chars[solid[at]][1] if 0 < at < len(solid) else paragraph.base
            marks = (own - {"b", "i"}) | (around & {"b", "i"})
        shown.append((char, marks - paragraph.base, paragraph.base - marks))
    return shown


def markup(paragraph: Paragraph) -> str:
    """The paragraph as one line of markup: ``parse_markup(markup(p))`` has p's text, style, level and marks."""
    style = "" if paragraph.style == _style_for(paragraph.level) else f"[{paragraph.style}] "
    head = "#" * paragraph.level + " " if paragraph.level else ""
    out: list[str] = []
    current: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    for char, added, lost in [*_shown(paragraph), ("", frozenset(), frozenset())]:
        if (added, lost) != current:
            out += [f"</{m}>" for m in MARKS[::-1] if m in current[0]]
            out += [f"</not-{m}>" for m in MARKS[::-1] if m in current[1]]
            out += [f"<not-{m}>" for m in MARKS if m in lost]
            out += [f"<{m}>" for m in MARKS if m in added]
            current = (added, lost)
        out.append(char)
    return style + head + "".join(out)


def differences(
    document: Document | None, expected: Sequence[str], *, what: str = "the document", tables: Sequence[Table] = ()
) -> list[str]:
    """How ``document`` differs from the paragraphs ``expected`` (markup lines), whole: every
    paragraph's text, style, level and marks, no paragraph more or less, no objects, and exactly the
    ``tables`` (none by default; ``table_differences``). [] when equal.

    The one slack, as ``same_text``'s final newline: empty body paragraphs at the very end (Enter
    pressed once more after the last line) are not counted."""
    if document is None:
        return [f"{what} is missing, or not a document of the format its name asks for"]
    objects = list(document.objects)
    if tables:
        objects = [o for o in objects if o != "table"]
    found = [f"{what} holds {', '.join(sorted(set(objects)))}"] if objects else []
    if tables:
        found += table_differences(document, tables, len(expected), what=what)
    got = [markup(p) for p in document.paragraphs]
    while got and not got[-1]:
        got.pop()
    want = [markup(parse_markup(line)) for line in expected]
    for number, (line, wanted) in enumerate(zip(got, want, strict=False), start=1):
        if line != wanted:
            found.append(f"paragraph {number} is {line[:120]!r}, not {wanted[:120]!r}")
    if len(got) != len(want):
        found.append(f"{what} has {len(got)} paragraphs, not {len(want)}")
    return found


def table_differences(document: Document, tables: Sequence[Table], paragraphs: int, *, what: str) -> list[str]:
    """How the document's tables differ from ``tables``, in order: each one's size, cells' texts and
    place. A table expected after all ``paragraphs`` of the document may have empty paragraphs before
    it (Enter pressed at the end before the table was inserted); any other must stand where asked."""
    found = []
    if len(document.tables) != len(tables):
        found.append(f"{what} has {len(document.tables)} tables, not {len(tables)}")
    for number, (got, want) in enumerate(zip(document.tables, tables, strict=False), start=1):
        if got.size != want.size:
            found.append(
                f"table {number} is {got.size[0]} rows by {got.size[1]} columns, not {want.size[0]} by {want.size[1]}"
            )
        elif got.rows != want.rows:
            found.append(
                f"table {number} holds {[list(r) for r in got.rows]!r}"[:300]
                + f", not {[list(r) for r in want.rows]!r}"[:300]
            )
        if not (got.at == want.at or (want.at >= paragraphs and got.at >= want.at)):
            found.append(f"table {number} comes after paragraph {got.at}, not {want.at}")
    return found


# --- reading -----------------------------------------------------------------------------------------


def format_of(data: bytes) -> Format | None:
    """``odt`` or ``docx`` by content (``cua_bench.office.document_format``, text documents only)."""
    kind = document_format(data)
    if kind == "odt":
        return "odt"
    return "docx" if kind == "docx" else None


def parse(data: bytes) -> Document | None:
    """The paragraphs and objects of an ``.odt`` or ``.docx`` document by content; None for anything else."""
    kind = format_of(data)
    if kind is None:
        return None
    try:
        return _parse_odt(data) if kind == "odt" else _parse_docx(data)
    except Exception:  # a broken file of the right signature is not a document
        return None


def parse_as(data: bytes, wanted: Format) -> Document | None:
    """``parse``, but only a document of the ``wanted`` format: an ``.odt`` under ``.docx`` is None."""
    return parse(data) if format_of(data) == wanted else None


async def read_document(session: Session, path: str, fmt: Format | None = None) -> Document | None:
    """The document saved at ``~/path`` in the format ``fmt`` (by default, the one its name asks for)."""
    data = await read_bytes(session, path)
    return None if data is None else parse_as(data, fmt or writer_format(path))


# --- OpenDocument ----------------------------------------------------------------------------------

_ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_ODF_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_ODF_FO = "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
_ODF_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_ODF_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
_ODF_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"

# Inline elements that hold no content of their own, and body elements that are bookkeeping.
_ODT_INLINE_QUIET = {"bookmark", "bookmark-start", "bookmark-end", "soft-page-break", "reference-mark-start"}
_ODT_INLINE_QUIET |= {"reference-mark-end", "reference-mark", "alphabetical-index-mark", "toc-mark"}
_ODT_BODY_QUIET = {"sequence-decls", "variable-decls", "user-field-decls", "soft-page-break", "forms"}
_ODT_BODY_QUIET |= {"bookmark", "bookmark-start", "bookmark-end"}
_ODT_FIELDS = {"date", "time", "page-number", "page-count", "word-count", "author-name", "title", "subject"}
_ODT_FIELDS |= {"file-name", "chapter", "variable-get", "variable-set", "user-field-get", "sequence"}
_ODT_FIELDS |= {"bookmark-ref", "reference-ref", "sequence-ref", "note-ref", "placeholder", "initial-creator"}
_ODT_FIELDS |= {"creation-date", "modification-date", "paragraph-count", "character-count", "text-input"}


def _local(node: Any) -> tuple[str, str]:
    qname = getattr(node, "qname", None)
    return qname if isinstance(qname, tuple) else ("", "")


def _odf_marks(props: dict[tuple[str, str], str]) -> dict[str, bool]:
    """The marks a ``style:text-properties`` element sets (a mark it does not mention is inherited)."""
    marks: dict[str, bool] = {}
    weight = props.get((_ODF_FO, "font-weight"))
    if weight is not None:
        marks["b"] = weight == "bold" or (weight.isdigit() and int(weight) >= 600)
    style = props.get((_ODF_FO, "font-style"))
    if style is not None:
        marks["i"] = style in ("italic", "oblique")
    underline = props.get((_ODF_STYLE, "text-underline-style"))
    if underline is not None:
        marks["u"] = underline != "none"
    return marks


class _OdtStyles:
    """A loaded document's styles by family and name, each one's own marks, parent and outline level."""

    def __init__(self, doc: Any) -> None:
        self.styles: dict[tuple[str, str], Any] = {}
        self.automatic: set[tuple[str, str]] = set()
        self.defaults: dict[str, dict[str, bool]] = {}
        for container, automatic in ((doc.styles, False), (doc.automaticstyles, True)):
            for node in container.childNodes:
                local = _local(node)[1]
                family = node.attributes.get((_ODF_STYLE, "family"), "")
                if local == "style":
                    key = (family, node.attributes.get((_ODF_STYLE, "name"), ""))
                    self.styles[key] = node
                    if automatic:
                        self.automatic.add(key)
                elif local == "default-style":
                    self.defaults[family] = self._own(node)

    @staticmethod
    def _own(node: Any) -> dict[str, bool]:
        marks: dict[str, bool] = {}
        for child in node.childNodes:
            if _local(child)[1] == "text-properties":
                marks.update(_odf_marks(child.attributes))
        return marks

    def chain(self, family: str, name: str | None, *, named_only: bool = False) -> list[Any]:
        """The style and its parents, nearest first (automatic ones skipped with ``named_only``)."""
        found: list[Any] = []
        seen: set[str] = set()
        while name and name not in seen:
            seen.add(name)
            node = self.styles.get((family, name))
            if node is None:
                break
            if not (named_only and (family, name) in self.automatic):
                found.append(node)
            name = node.attributes.get((_ODF_STYLE, "parent-style-name"))
        return found

    def marks(self, chains: Iterable[Any]) -> frozenset[str]:
        """The marks through ``chains`` (nearest style first), the paragraph defaults last."""
        resolved: dict[str, bool] = {}
        for node in chains:
            for mark, on in self._own(node).items():
                resolved.setdefault(mark, on)
        for mark, on in self.defaults.get("paragraph", {}).items():
            resolved.setdefault(mark, on)
        return frozenset(mark for mark, on in resolved.items() if on)

    def display_name(self, name: str | None) -> str:
        """A paragraph style's name as Writer shows it: the first named style of its chain."""
        for node in self.chain("paragraph", name, named_only=True):
            shown = node.attributes.get((_ODF_STYLE, "display-name")) or _odf_unescape(
                node.attributes.get((_ODF_STYLE, "name"), "")
            )
            return DEFAULT_STYLE if shown in _DEFAULT_NAMES else shown
        shown = _odf_unescape(name or "")
        return DEFAULT_STYLE if not shown or shown in _DEFAULT_NAMES else shown

    def outline_level(self, name: str | None) -> int:
        for node in self.chain("paragraph", name):
            level = node.attributes.get((_ODF_STYLE, "default-outline-level"))
            if level is not None:
                return int(level) if level.isdigit() else 0
        return 0


def _odf_unescape(name: str) -> str:
    """ODF's escaped style names: ``Heading_20_1`` is ``Heading 1``."""
    return re.sub(r"_([0-9a-fA-F]{2})_", lambda m: chr(int(m[1], 16)), name)


def _parse_odt(data: bytes) -> Document:
    doc = odf.opendocument.load(io.BytesIO(data))
    styles = _OdtStyles(doc)
    paragraphs: list[Paragraph] = []
    objects: list[str] = []
    tables: list[Table] = []
    _odt_blocks(doc.text.childNodes, styles, paragraphs, objects, tables)
    objects += _odt_margins(doc)
    return Document("odt", tuple(paragraphs), tuple(objects), tuple(tables))


def _odt_blocks(
    nodes: Iterable[Any],
    styles: _OdtStyles,
    paragraphs: list[Paragraph],
    objects: list[str],
    tables: list[Table] | None = None,
) -> None:
    """The paragraphs, objects and (where ``tables`` is given: the body, not a cell) tables of ``nodes``."""
    for node in nodes:
        ns, local = _local(node)
        if not local:
            if getattr(node, "data", "").strip():
                objects.append("text outside a paragraph")
            continue
        if ns == _ODF_TEXT and local in ("p", "h"):
            paragraphs.append(_odt_paragraph(node, local, styles, objects))
        elif ns == _ODF_TEXT and local in ("list", "list-item", "list-header"):
            if local == "list":
                objects.append("list")
            _odt_blocks(node.childNodes, styles, paragraphs, objects, tables)
        elif ns == _ODF_TEXT and local == "section":
            objects.append("section")
            _odt_blocks(node.childNodes, styles, paragraphs, objects, tables)
        elif ns == _ODF_TEXT and local == "tracked-changes":
            if node.childNodes:
                objects.append("tracked changes")
        elif local in _ODT_BODY_QUIET:
            continue
        elif ns == _ODF_TABLE and local == "table":
            objects.append("table" if tables is not None else "table in a cell")
            rows = _odt_rows(node.childNodes, styles, objects)
            if tables is not None:
                tables.append(Table(len(paragraphs), tuple(rows)))
        elif ns == _ODF_TABLE:
            objects.append(f"table {local}")
        elif ns == _ODF_DRAW:
            objects.append("drawing")
        else:
            objects.append(local)


_ODT_ROW_GROUPS = {"table-header-rows", "table-rows", "table-row-group"}
_ODT_TABLE_QUIET = {"table-columns", "table-column", "table-header-columns", "table-column-group", "title", "desc"}


def _odt_rows(nodes: Iterable[Any], styles: _OdtStyles, objects: list[str]) -> list[tuple[str, ...]]:
    """A table's rows (row groups, the heading rows among them, opened), each cell's text."""
    rows: list[tuple[str, ...]] = []
    for node in nodes:
        ns, local = _local(node)
        if ns == _ODF_TABLE and local in _ODT_ROW_GROUPS:
            rows += _odt_rows(node.childNodes, styles, objects)
        elif ns == _ODF_TABLE and local == "table-row":
            if node.attributes.get((_ODF_TABLE, "number-rows-repeated"), "1") != "1":
                objects.append("repeated table rows")
            cells = []
            for cell in node.childNodes:
                kind = _local(cell)[1]
                if kind == "covered-table-cell":
                    objects.append("merged cells")
                elif kind == "table-cell":
                    spans = ("number-columns-spanned", "number-rows-spanned", "number-columns-repeated")
                    if any(cell.attributes.get((_ODF_TABLE, a), "1") != "1" for a in spans):
                        objects.append("merged cells")
                    inside: list[Paragraph] = []
                    _odt_blocks(cell.childNodes, styles, inside, objects)
                    cells.append("\n".join(p.text for p in inside))
                elif kind:
                    objects.append(f"table {kind}")
            rows.append(tuple(cells))
        elif local and local not in _ODT_TABLE_QUIET:
            objects.append(f"table {local}")
    return rows


def _odt_paragraph(node: Any, local: str, styles: _OdtStyles, objects: list[str]) -> Paragraph:
    name = node.attributes.get((_ODF_TEXT, "style-name"))
    chain = styles.chain("paragraph", name)
    runs: list[Run] = []
    _odt_inline(node.childNodes, [], chain, styles, runs, objects)
    if local == "h":
        given = node.attributes.get((_ODF_TEXT, "outline-level"))
        level = int(given) if given and given.isdigit() else styles.outline_level(name) or 1
    else:
        level = styles.outline_level(name)
    base = styles.marks(styles.chain("paragraph", name, named_only=True))
    return Paragraph("".join(r.text for r in runs), styles.display_name(name), level, _merged(runs), base)


def _odt_inline(
    nodes: Iterable[Any],
    spans: list[Any],
    paragraph: list[Any],
    styles: _OdtStyles,
    runs: list[Run],
    objects: list[str],
) -> None:
    """The runs of a paragraph's content; ``spans`` holds the style chains of the spans around it, innermost first."""

    def add(text: str) -> None:
        if text:
            runs.append(_run(text, styles.marks([*spans, *paragraph])))

    for node in nodes:
        ns, local = _local(node)
        if not local:
            add(getattr(node, "data", ""))
        elif ns == _ODF_TEXT and local == "s":
            add(" " * int(node.attributes.get((_ODF_TEXT, "c"), "1") or "1"))
        elif ns == _ODF_TEXT and local == "tab":
            add("\t")
        elif ns == _ODF_TEXT and local == "line-break":
            add("\n")
        elif ns == _ODF_TEXT and local in ("span", "a"):
            if local == "a":
                objects.append("link")
            chain = styles.chain("text", node.attributes.get((_ODF_TEXT, "style-name")))
            _odt_inline(node.childNodes, [*chain, *spans], paragraph, styles, runs, objects)
        elif ns == _ODF_TEXT and local in _ODT_INLINE_QUIET:
            continue
        elif ns == _ODF_TEXT and local in _ODT_FIELDS:
            objects.append("field")
            _odt_inline(node.childNodes, spans, paragraph, styles, runs, objects)
        elif ns == _ODF_TEXT and local in ("note", "change", "change-start", "change-end"):
            objects.append("note" if local == "note" else "tracked changes")
        elif ns == _ODF_OFFICE and local in ("annotation", "annotation-end"):
            objects.append("comment")
        elif ns == _ODF_DRAW:
            objects.append("image" if any(_local(c)[1] == "image" for c in node.childNodes) else "drawing")
        else:
            objects.append(local)


def _odt_margins(doc: Any) -> list[str]:
    """Headers and footers of the master pages that hold text."""
    teletype = odf.teletype
    found = []
    for page in doc.masterstyles.childNodes:
        for part in page.childNodes:
            local = _local(part)[1]
            if local.startswith(("header", "footer")) and teletype.extractText(part).strip():
                found.append(local.split("-")[0])
    return found


# --- Office Open XML ----------------------------------------------------------------------------------

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCX_BODY_QUIET = {"sectPr", "bookmarkStart", "bookmarkEnd", "proofErr", "permStart", "permEnd", "tcPr"}
_DOCX_INLINE_QUIET = {"pPr", "bookmarkStart", "bookmarkEnd", "proofErr", "permStart", "permEnd"}
_DOCX_RUN_QUIET = {"rPr", "lastRenderedPageBreak", "softHyphen"}


def _parse_docx(data: bytes) -> Document:
    import docx

    doc = docx.Document(io.BytesIO(data))
    paragraphs: list[Paragraph] = []
    objects: list[str] = []
    tables: list[Table] = []
    _docx_blocks(doc, doc.element.body, paragraphs, objects, tables)
    objects += _docx_margins(doc)
    return Document("docx", tuple(paragraphs), tuple(objects), tuple(tables))


def _tag(element: Any) -> str:
    tag = element.tag
    return tag[len(_W) :] if isinstance(tag, str) and tag.startswith(_W) else str(tag).rsplit("}", 1)[-1]


def _docx_blocks(
    doc: Any, parent: Any, paragraphs: list[Paragraph], objects: list[str], tables: list[Table] | None = None
) -> None:
    """The paragraphs, objects and (where ``tables`` is given: the body, not a cell) tables under ``parent``."""
    for child in parent.iterchildren():
        local = _tag(child)
        if local == "p":
            paragraphs.append(_docx_paragraph(doc, child, objects))
        elif local == "tbl":
            objects.append("table" if tables is not None else "table in a cell")
            rows = _docx_rows(doc, child, objects)
            if tables is not None:
                tables.append(Table(len(paragraphs), tuple(rows)))
        elif local in ("sdt", "sdtContent", "customXml"):
            _docx_blocks(doc, child, paragraphs, objects, tables)
        elif local in ("ins", "del", "moveFrom", "moveTo"):
            objects.append("tracked changes")
        elif local not in _DOCX_BODY_QUIET and local != "sdtPr":
            objects.append(local)


def _docx_rows(doc: Any, table: Any, objects: list[str]) -> list[tuple[str, ...]]:
    """A table's rows, each cell's text; a cell spanning columns or rows is listed as merged cells."""
    rows: list[tuple[str, ...]] = []
    for row in table.iterchildren():
        local = _tag(row)
        if local in ("tblPr", "tblGrid", "bookmarkStart", "bookmarkEnd"):
            continue
        if local != "tr":
            objects.append(f"table {local}")
            continue
        cells = []
        for cell in row.iterchildren():
            kind = _tag(cell)
            if kind in ("trPr", "tblPrEx", "bookmarkStart", "bookmarkEnd"):
                continue
            if kind != "tc":
                objects.append(f"table {kind}")
                continue
            span = cell.find(f"{_W}tcPr/{_W}gridSpan")
            if cell.find(f"{_W}tcPr/{_W}vMerge") is not None or (span is not None and span.get(f"{_W}val") != "1"):
                objects.append("merged cells")
            inside: list[Paragraph] = []
            _docx_blocks(doc, cell, inside, objects)
            cells.append("\n".join(p.text for p in inside))
        rows.append(tuple(cells))
    return rows


def _docx_paragraph(doc: Any, element: Any, objects: list[str]) -> Paragraph:
    from docx.text.paragraph import Paragraph as DocxParagraph

    paragraph = DocxParagraph(element, doc.part)
    style = paragraph.style
    chain = list(_docx_chain(style))
    level = _docx_level(element, chain, style.name if style is not None else "")
    numbering = element.find(f"{_W}pPr/{_W}numPr/{_W}numId")
    if numbering is not None and numbering.get(f"{_W}val") not in (None, "0"):
        objects.append("list")
    runs: list[Run] = []
    _docx_inline(paragraph, element, chain, runs, objects)
    name = style.name if style is not None and style.name else DEFAULT_STYLE
    base = frozenset(m for m, on in _docx_marks(s.font for s in chain).items() if on)
    return Paragraph(
        "".join(r.text for r in runs), DEFAULT_STYLE if name in _DEFAULT_NAMES else name, level, _merged(runs), base
    )


def _docx_chain(style: Any) -> Iterator[Any]:
    seen: set[int] = set()
    while style is not None and id(style) not in seen:
        seen.add(id(style))
        yield style
        style = style.base_style


def _docx_level(element: Any, chain: list[Any], name: str) -> int:
    for owner in [element, *(s.element for s in chain)]:
        found = owner.find(f"{_W}pPr/{_W}outlineLvl")
        if found is not None:
            value = found.get(f"{_W}val", "9")
            return int(value) + 1 if value.isdigit() and int(value) < 9 else 0
    heading = re.fullmatch(r"[Hh]eading (\d)", name or "")
    return int(heading[1]) if heading else 0


def _docx_marks(fonts: Iterable[Any]) -> dict[str, bool]:
    """The marks through ``fonts`` (python-docx ``Font``\\ s, nearest first): a mark none sets is off."""
    from docx.enum.text import WD_UNDERLINE

    resolved: dict[str, bool] = {}
    for font in fonts:
        if font.bold is not None:
            resolved.setdefault("b", bool(font.bold))
        if font.italic is not None:
            resolved.setdefault("i", bool(font.italic))
        underline = font.underline
        if underline is not None:
            resolved.setdefault("u", underline is True or (underline is not False and underline != WD_UNDERLINE.NONE))
    return resolved


def _docx_inline(paragraph: Any, parent: Any, chain: list[Any], runs: list[Run], objects: list[str]) -> None:
    from docx.text.run import Run as DocxRun

    for child in parent.iterchildren():
        local = _tag(child)
        if local == "r":
            run = DocxRun(child, paragraph)
            fonts = [run.font, *(s.font for s in _docx_chain(run.style) if s is not None), *(s.font for s in chain)]
            marks = {m for m, on in _docx_marks(fonts).items() if on}
            text = _docx_run_text(child, objects)
            if text:
                runs.append(_run(text, marks))
        elif local in ("hyperlink", "smartTag", "sdt", "sdtContent", "customXml", "fldSimple"):
            if local in ("hyperlink", "fldSimple"):
                objects.append("link" if local == "hyperlink" else "field")
            _docx_inline(paragraph, child, chain, runs, objects)
        elif local in ("ins", "del", "moveFrom", "moveTo"):
            objects.append("tracked changes")
        elif local in ("commentRangeStart", "commentRangeEnd"):
            objects.append("comment")
        elif local not in _DOCX_INLINE_QUIET and local != "sdtPr":
            objects.append(local)


def _docx_run_text(run: Any, objects: list[str]) -> str:
    out = []
    for child in run.iterchildren():
        local = _tag(child)
        if local == "t":
            out.append(child.text or "")
        elif local == "tab":
            out.append("\t")
        elif local in ("br", "cr"):
            if child.get(f"{_W}type") in ("page", "column"):
                objects.append(f"{child.get(f'{_W}type')} break")
            else:
                out.append("\n")
        elif local == "noBreakHyphen":
            out.append("-")
        elif local in ("drawing", "pict"):
            objects.append("image")
        elif local in ("fldChar", "instrText"):
            objects.append("field")
        elif local == "commentReference":
            objects.append("comment")
        elif local in ("footnoteReference", "endnoteReference"):
            objects.append("note")
        elif local not in _DOCX_RUN_QUIET:
            objects.append(local)
    return "".join(out)


def _docx_margins(doc: Any) -> list[str]:
    """Headers and footers that hold text."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT

    found = []
    for rel in doc.part.rels.values():
        if rel.is_external or rel.reltype not in (RT.HEADER, RT.FOOTER):
            continue
        text = "".join(rel.target_part.element.itertext())
        if text.strip():
            found.append("header" if rel.reltype == RT.HEADER else "footer")
    return found


def _merged(runs: Iterable[Run]) -> tuple[Run, ...]:
    """Neighbouring runs of the same marks as one."""
    merged: list[Run] = []
    for run in runs:
        if merged and merged[-1].marks == run.marks:
            merged[-1] = Run(merged[-1].text + run.text, run.bold, run.italic, run.underline)
        elif run.text:
            merged.append(run)
    return tuple(merged)


# --- seeds -----------------------------------------------------------------------------------------


def document_bytes(lines: Sequence[str], fmt: Format) -> bytes:
    """A document in ``fmt`` holding the paragraphs ``lines`` (markup), as setup's seed: Writer's own
    styles (Default Paragraph Style, Heading 1 to 3) in an ``.odt``, Word's default template in a ``.docx``."""
    paragraphs = [parse_markup(line) for line in lines]
    return _odt_bytes(paragraphs) if fmt == "odt" else _docx_bytes(paragraphs)


@dataclass
class _OdtSeed:
    doc: Any
    text_styles: dict[frozenset[str], Any] = field(default_factory=dict)

    def text_style(self, marks: frozenset[str]) -> Any:
        if marks not in self.text_styles:
            odf_style = odf.style
            props: dict[str, str] = {}
            if "b" in marks:
                props.update(fontweight="bold", fontweightasian="bold", fontweightcomplex="bold")
            if "i" in marks:
                props.update(fontstyle="italic", fontstyleasian="italic", fontstylecomplex="italic")
            if "u" in marks:
                props.update(textunderlinestyle="solid", textunderlinewidth="auto", textunderlinecolor="font-color")
            style = odf_style.Style(name=f"T{len(self.text_styles) + 1}", family="text")
            style.addElement(odf_style.TextProperties(**props))
            self.doc.automaticstyles.addElement(style)
            self.text_styles[marks] = style
        return self.text_styles[marks]


def _odt_bytes(paragraphs: Sequence[Paragraph]) -> bytes:
    odf_style, odf_text = odf.style, odf.text
    doc = odf.opendocument.OpenDocumentText()
    doc.styles.addElement(odf_style.Style(name="Standard", family="paragraph", attributes={"class": "text"}))
    body = odf_style.Style(name="Text_20_body", displayname="Text body", family="paragraph", parentstylename="Standard")
    body.setAttribute("class", "text")
    body.addElement(odf_style.ParagraphProperties(margintop="0cm", marginbottom="0.247cm", lineheight="115%"))
    doc.styles.addElement(body)
    heading = odf_style.Style(
        name="Heading", family="paragraph", parentstylename="Standard", nextstylename="Text_20_body"
    )
    heading.setAttribute("class", "text")
    heading.addElement(
        odf_style.ParagraphProperties(margintop="0.423cm", marginbottom="0.212cm", keepwithnext="always")
    )
    heading.addElement(odf_style.TextProperties(fontsize="14pt"))
    doc.styles.addElement(heading)
    for level, size in ((1, "130%"), (2, "115%"), (3, "101%")):
        style = odf_style.Style(
            name=f"Heading_20_{level}",
            displayname=f"Heading {level}",
            family="paragraph",
            parentstylename="Heading",
            nextstylename="Text_20_body",
            defaultoutlinelevel=str(level),
        )
        style.setAttribute("class", "text")
        style.addElement(odf_style.TextProperties(fontsize=size, fontweight="bold"))
        doc.styles.addElement(style)
    seed = _OdtSeed(doc)
    for paragraph in paragraphs:
        name = paragraph.style.replace(" ", "_20_") if paragraph.style != DEFAULT_STYLE else "Standard"
        # A text:h for a heading, as Writer saves one.
        element = (
            odf_text.H(outlinelevel=paragraph.level, stylename=name) if paragraph.level else odf_text.P(stylename=name)
        )
        for run in paragraph.runs:
            if run.marks:
                span = odf_text.Span(stylename=seed.text_style(run.marks))
                _odt_text(span, run.text)
                element.addElement(span)
            else:
                _odt_text(element, run.text)
        doc.text.addElement(element)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


def _odt_text(element: Any, text: str) -> None:
    odf.teletype.addTextToElement(element, text)


def _docx_bytes(paragraphs: Sequence[Paragraph]) -> bytes:
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    doc = docx.Document()
    names = {style.name for style in doc.styles}
    for paragraph in paragraphs:
        name = "Normal" if paragraph.style == DEFAULT_STYLE else paragraph.style
        if name not in names:
            doc.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH).base_style = doc.styles["Normal"]
            names.add(name)
        made = doc.add_paragraph(style=name)
        for run in paragraph.runs:
            added = made.add_run(run.text)
            added.bold = True if run.bold else None
            added.italic = True if run.italic else None
            added.underline = True if run.underline else None
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


# --- the tasks: seeds, setup, the evaluator's reading, the oracle's moves ----------------------------------

FIND = "Find and Replace"


def body_line(rng: random.Random) -> str:
    """A body paragraph: a sentence of distinct-looking words, capitalised, with a full stop."""
    text = sentence(rng)
    return text[0].upper() + text[1:] + "."


def title_line(rng: random.Random) -> str:
    """A Heading 1 title of two of the file-name words (``Budget review``)."""
    first, second = rng.sample(WORDS, 2)
    return f"# {first.capitalize()} {second}"


def seed_lines(rng: random.Random, count: int) -> list[str]:
    """A title and ``count`` different body sentences (none a prefix of another), a noun of one of
    them in italics: formatting already there, which the task's work must keep."""
    bodies = distinct(rng, count, body_line)
    index = rng.randrange(count)
    words = bodies[index].split(" ")
    at = rng.choice([2, 5])  # the nouns of ``sentence``: "the ADJ NOUN VERB the NOUN ..."
    words[at] = f"<i>{words[at]}</i>"
    bodies[index] = " ".join(words)
    return [title_line(rng), *bodies]


def plain(line: str) -> str:
    """A markup line's text: ``parse_markup(line).text``."""
    return parse_markup(line).text


def words_of(lines: Iterable[str]) -> set[str]:
    """Every word of the paragraphs (markup and punctuation aside), lower-cased."""
    return {w.lower() for line in lines for w in re.findall(r"[A-Za-z]+", plain(line))}


VOCABULARY = {w for phrase in (*NOUNS, *ADJECTIVES, *VERBS, *ENDINGS, "the") for w in phrase.split()}


async def open_writer(task: Task, session: Session) -> None:
    """Setup: ``metadata["lines"]`` saved at ``~/metadata["path"]`` in the format its name asks for,
    open in Writer and ready for keys, and every file under home remembered."""
    meta = task.metadata
    path = meta["path"]
    await open_document(task, session, "writer", path, document_bytes(meta["lines"], writer_format(path)))


async def scored(
    task: Task, session: Session, expected: Sequence[str], path: str | None = None, tables: Sequence[Table] = ()
) -> float:
    """1.0 when ``~/path`` (``metadata["path"]``) is a plain file (one link) holding a document of the
    format its name asks for with exactly the paragraphs ``expected`` and the ``tables`` (none by
    default; ``differences``), and no other file under home changed since setup."""
    path = path or task.metadata["path"]
    before, after = await files_since_setup(task, session)
    state = after.get(path)
    if state is None:
        found = [f"{path} is missing"]
    elif state.kind != "file" or state.links != 1:
        found = [f"{path} is not a plain file with one link (a {state.kind}, {state.links} links)"]
    else:
        found = differences(await read_document(session, path), expected, what=path, tables=tables)
    for difference in found:
        task.explain(difference)
    return 1.0 if not found and nothing_else_changed(task, before, after, expect=[path]) else 0.0


STATUS_BAR = 20
"""Pixels of the status bar (of its 22) at the bottom of Writer's window: it shows the word count,
or ``Selected: 1 word, 6 characters`` while text is selected."""


async def _status_bar(session: Session, path: str) -> int:
    """A key of what the status bar of the window showing ``~/path`` shows now (equal while it does not change)."""
    info = await window(session, app_title(path, "writer"))
    sizes = (session.width, session.height) * 2
    left, _top, right, bottom = (int(value * size / 1000) for value, size in zip(info["bounds"], sizes, strict=True))
    frame = session.frame()
    if frame is None:
        return hash(await session.screenshot())
    return hash(frame[max(bottom - STATUS_BAR, 0) : bottom, left:right].tobytes())


async def watched(session: Session, path: str, *actions: Action, what: str) -> None:
    """Oracle move: ``actions``, then a wait until the status bar of the window showing ``~/path``
    changes, as a person watches it say ``Selected: 1 word`` after a search or count the replaced
    words' letters. Writer runs a dialog's search after the key press returns: a dialog closed at once
    can close before the search has run. The status bar alone is watched: the spelling checker draws
    on the page whenever it likes, and the Find and Replace dialog (centred on the window) never
    covers the bar."""
    before = await _status_bar(session, path)
    await act(session, *actions)

    async def changed() -> bool:
        return await _status_bar(session, path) != before

    await wait_for(changed, what)
    await still(session, quiet=0.3)


async def _focused(session: Session, match: Callable[[str], bool], what: str) -> None:
    async def check() -> bool:
        return any(info["focused"] and match(info["title"]) for info in await session.windows())

    await wait_for(check, what)


async def _open_find(session: Session) -> None:
    """Edit > Find and Replace (ctrl+h), pressed again if the dialog does not show, and focused."""
    for _ in range(3):
        await act(session, key("ctrl+h"))
        try:
            await window(session, FIND, timeout=5)
            break
        except TaskError:
            continue
    await _focused(session, lambda title: title == FIND, "the Find and Replace dialog to take the keys")


async def _close_find(session: Session, path: str) -> None:
    """The dialog's Close (alt+c), and a wait until the document's window has the keys again."""
    await act(session, key("alt+c"))
    await no_window(session, FIND)
    await _focused(session, app_title(path, "writer"), "the document to take the keys")


def _field(text: str) -> list[Action]:
    """Keys that fill a dialog's focused field with ``text``: delete drops an inline completion
    the field's history appended."""
    return [key("ctrl+a"), TypeText(text), key("delete")]


async def find(session: Session, path: str, text: str) -> None:
    """Oracle move: the first ``text`` from the caret selected with Find and Replace's Find Next (alt+x),
    the dialog closed, the document focused (the match stays selected)."""
    await _open_find(session)
    await act(session, *_field(text))
    await watched(session, path, key("alt+x"), what=f"{text!r} to be found")
    await _close_find(session, path)


async def replace_all(session: Session, path: str, old: str, new: str) -> None:
    """Oracle move: Find and Replace's Replace All (alt+l) of ``old`` by ``new`` (the dialog's
    defaults: any case, within words), and the dialog closed. ``new`` must differ from ``old`` in
    length: the status bar's count of characters is what shows the replacements done."""
    if len(new) == len(old):
        raise TaskError(f"{old!r} and {new!r} are as long: the status bar would not show the replacements")
    await _open_find(session)
    await act(session, *_field(old))
    await act(session, key("alt+p"), *_field(new))
    await watched(session, path, key("alt+l"), what="the replacements")
    await _close_find(session, path)


INSERT_TABLE = "Insert Table"


async def insert_table(session: Session, path: str, rows: int, columns: int, headers: Sequence[str] = ()) -> None:
    """Oracle move: Table > Insert Table (ctrl+F12) at the caret, its Columns and Rows fields filled,
    Insert pressed (Enter), and ``headers`` typed into the first row's cells (Tab to the next cell).
    The dialog opens on its Name field; Tab goes to Columns, then to Rows (their labels' mnemonics are
    not dependable: alt+c is also Cancel's)."""
    await act(session, key("ctrl+F12"))
    await window(session, INSERT_TABLE)
    await _focused(session, lambda title: title == INSERT_TABLE, "the Insert Table dialog to take the keys")
    await act(session, key("Tab"), *_field(str(columns)), key("Tab"), *_field(str(rows)), key("Return"))
    await no_window(session, INSERT_TABLE)
    await _focused(session, app_title(path, "writer"), "the document to take the keys")
    await still(session, quiet=0.3)
    for index, header in enumerate(headers):
        if index:
            await act(session, key("Tab"))
        await act(session, TypeText(header))
