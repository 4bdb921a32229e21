"""The Draw tasks' typed reading of a saved drawing (``_draw``), and the seeds they write.

A drawing is judged whole: its page size, every page in order with its name, and every shape in z-order
with its kind, name, box, fill and line (resolved through its style's parents), text, rotation, title and
description. The files here are the seed as odfpy writes it, changed as Draw would save an edit (a new
automatic style, a ``draw:circle``, a ``text:s``), the same drawing as a flat ``.fodg``, and wrong ones.
"""

from __future__ import annotations

import dataclasses
import io
import random
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from cua_bench_tasks_desktop._draw import (
    MIME,
    PAGE,
    Drawing,
    Page,
    Shape,
    drawing_bytes,
    edited,
    expected_pages,
    length,
    pages_of,
    parse,
    problems,
    reordered,
    seed,
)

TASKS = Path(__file__).parents[2] / "packages/cua-bench-tasks-desktop/src/cua_bench_tasks_desktop"
SHAPES = [
    Shape("rect", "Harbor Box", 2.0, 3.0, 4.5, 2.5, "#c9211e", "Budget"),
    Shape("ellipse", "Meadow Badge", 12.0, 4.0, 3.0, 3.0, "#2a6099"),
    Shape("rect", "Teapot Tile", 20.1, 12.3, 5.0, 6.2, "#3faf46", "Notes"),
]
META = [
    {"name": "Quiet Sketch", "shapes": [s.as_json() for s in SHAPES[:2]]},
    {"name": "Golden Map", "shapes": [SHAPES[2].as_json()]},
]


def seed_bytes() -> bytes:
    return drawing_bytes(pages_of(META))


def rewritten(data: bytes, part: str, old: str, new: str) -> bytes:
    """``data`` (an ``.odg``) with ``old`` replaced by ``new`` once in ``part``, as an edit saved would leave it."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            body = source.read(info)
            if info.filename == part:
                text = body.decode()
                assert old in text, old
                body = text.replace(old, new, 1).encode()
            target.writestr(info, body)
    return out.getvalue()


def flat(data: bytes) -> bytes:
    """The ``.odg``'s content and styles as one flat XML document, as Save As ``.fodg`` writes it."""
    office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        content = etree.fromstring(archive.read("content.xml"))
        styles = etree.fromstring(archive.read("styles.xml"))
    root = etree.Element(f"{{{office}}}document", nsmap=content.nsmap)
    root.set(f"{{{office}}}mimetype", MIME)
    for child in [*styles, *content]:
        root.append(child)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def test_a_seed_reads_back_as_its_pages() -> None:
    drawing = parse(seed_bytes())
    assert drawing is not None and not drawing.flat and drawing.size == PAGE
    assert drawing.names() == ["Quiet Sketch", "Golden Map"]
    first = drawing.pages[0].items[0]
    assert (first.kind, first.name, first.box, first.fill, first.stroke, first.text) == (
        "rect", "Harbor Box", (2.0, 3.0, 4.5, 2.5), "#c9211e", "solid #000000", "Budget",
    )  # fmt: skip
    assert problems(drawing, expected_pages(META)) == []


def test_seeds_vary_and_keep_their_promises() -> None:
    for index in range(30):
        path, pages, fresh = seed(random.Random(index))
        assert path.endswith(".odg") and 2 <= len(pages) <= 4
        names = [shape["name"] for page in pages for shape in page["shapes"]]
        assert len(set(names)) == len(names) and not set(fresh) & set(names)
        for page in pages:
            boxes = [(s["x"], s["y"], s["x"] + s["width"], s["y"] + s["height"]) for s in page["shapes"]]
            assert all(b[0] > 0 and b[2] < PAGE[0] and b[1] > 0 and b[3] < PAGE[1] for b in boxes)
            for a in boxes:  # no two shapes overlap
                assert sum(not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]) for b in boxes) == 1
        assert problems(parse(drawing_bytes(pages_of(pages))), expected_pages(pages)) == []


def test_the_same_drawing_flat_is_a_fodg_and_only_that() -> None:
    data = flat(seed_bytes())
    drawing = parse(data)
    assert drawing is not None and drawing.flat
    assert problems(drawing, expected_pages(META), flat=True) == []
    assert problems(drawing, expected_pages(META)) != []  # a .fodg under an .odg's name
    assert problems(parse(seed_bytes()), expected_pages(META), flat=True) != []  # zipped under .fodg
    assert parse(data + b"\n\n\n") is None  # blank lines after the root: not as Draw writes it


def test_an_edit_saved_as_draw_saves_it_is_seen() -> None:
    # A new automatic style for the shape, its fill set there, the parent keeping the line.
    data = rewritten(
        seed_bytes(),
        "content.xml",
        'draw:fill-color="#c9211e"',
        'draw:fill-color="#123abc"',
    )
    assert problems(parse(data), edited(META, 0, 0, fill="#123abc")) == []
    assert problems(parse(data), expected_pages(META)) != []


def test_a_circle_is_an_ellipse_and_spaces_count() -> None:
    data = rewritten(seed_bytes(), "content.xml", "<draw:ellipse ", "<draw:circle ")  # empty: no end tag
    data = rewritten(data, "content.xml", "<text:p>Budget</text:p>", '<text:p>two<text:s text:c="2"/>words</text:p>')
    assert problems(parse(data), edited(META, 0, 0, text="two  words")) == []


def test_units_and_boxes() -> None:
    assert length("1in") == pytest.approx(2.54) and length("25mm") == pytest.approx(2.5) and length("x") is None
    data = rewritten(seed_bytes(), "content.xml", 'svg:x="2cm"', 'svg:x="20mm"')
    assert problems(parse(data), expected_pages(META)) == []
    moved = rewritten(seed_bytes(), "content.xml", 'svg:x="2cm"', 'svg:x="2.1cm"')
    assert problems(parse(moved), expected_pages(META)) != []
    assert problems(parse(moved), edited(META, 0, 0, box=(2.1, 3.0, 4.5, 2.5))) == []


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        ('draw:name="Meadow Badge"', 'draw:name="Meadow Tile"', "holds"),
        ('draw:name="Golden Map"', 'draw:name="Golden Maps"', "pages"),
        ('draw:fill="solid" draw:fill-color="#2a6099"', 'draw:fill="none"', "fill"),
        ('draw:fill-color="#3faf46" draw:stroke="solid"', 'draw:fill-color="#3faf46" draw:stroke="none"', "stroke"),
        ("<text:p>Notes</text:p>", "<text:p>Notes</text:p><text:p>more</text:p>", "text"),
        ('draw:name="Harbor Box"', 'draw:name="Harbor Box" draw:transform="rotate (0.5)"', "transform"),
        ("<text:p>Budget</text:p>", "<svg:title>Budget</svg:title><text:p>Budget</text:p>", "title"),
        ('draw:fill-color="#c9211e"', 'draw:fill-color="#c9211e" draw:shadow="visible"', "extras"),
        (
            '<style:style style:name="gr1"',
            '<style:style style:name="T1" style:family="text"><style:text-properties '
            'fo:font-weight="bold"/></style:style><style:style style:name="gr1"',
            "extras",
        ),
        (
            '<style:style style:name="gr3"',
            '<style:style style:name="P1" style:family="paragraph"><style:paragraph-'
            'properties fo:text-align="end"/></style:style><style:style style:name="gr3"',
            "extras",
        ),
    ],
)
def test_any_other_change_is_a_problem(old: str, new: str, what: str) -> None:
    data = rewritten(seed_bytes(), "content.xml", old, new)
    if "T1" in new:  # the span that uses the bold style
        data = rewritten(
            data, "content.xml", "<text:p>Budget", '<text:p><text:span text:style-name="T1">Budget</text:span>'
        )
    if "P1" in new:
        data = rewritten(data, "content.xml", "<text:p>Notes", '<text:p text:style-name="P1">Notes')
    found = problems(parse(data), expected_pages(META))
    assert found and what in found[0], found


def test_order_and_missing_or_extra_shapes_are_problems() -> None:
    swapped = reordered(META, 0, [1, 0])
    assert problems(parse(seed_bytes()), swapped) != []
    assert problems(parse(seed_bytes()), reordered(META, 0, [0])) != []
    extra = [Page(p.name, p.items) for p in expected_pages(META)]
    extra[1] = dataclasses.replace(extra[1], items=(*extra[1].items, extra[0].items[0]))
    assert problems(parse(seed_bytes()), extra) != []


def test_what_is_not_a_drawing_is_none() -> None:
    from odf.opendocument import OpenDocumentPresentation

    out = io.BytesIO()
    OpenDocumentPresentation().write(out)
    assert parse(out.getvalue()) is None  # an .odp
    assert parse(b"Quiet Sketch\nHarbor Box\n") is None
    assert parse(b"<?xml version='1.0'?><!DOCTYPE x [<!ENTITY e 'x'>]><x>&e;</x>") is None
    assert parse(seed_bytes()[:200]) is None
    assert problems(None, expected_pages(META)) == ["not a Draw drawing (.odg)"]


def test_a_drawing_is_typed() -> None:
    drawing = parse(seed_bytes())
    assert isinstance(drawing, Drawing) and drawing.pages[1].find("Teapot Tile") is not None


def _pdf(pages: list[list[str]], size: tuple[float, float] = PAGE) -> bytes:
    """A PDF of ``pages``, each showing its words apart, on pages of ``size`` cm (fpdf2)."""
    from fpdf import FPDF

    pdf = FPDF(unit="cm", format=(size[1], size[0]))
    pdf.set_font("helvetica", size=18)
    for words in pages:
        pdf.add_page(orientation="L")
        for number, word in enumerate(words):
            pdf.text(2 + 8 * number, 5 + 4 * number, word)
    return bytes(pdf.output())


def test_the_pdf_export_wants_the_range_and_nothing_else() -> None:
    from cua_bench.tasks import load_task_module

    module = load_task_module(TASKS / "draw-export-pdf")
    evaluate = module.function("evaluate_task", "test")
    assert evaluate is not None
    problem = evaluate.__globals__["pdf_problem"]
    pages = [{"shapes": [{"text": w} for w in page]} for page in (["Budget"], ["Notes", "Memo"], ["Plan"])]
    meta: dict[str, object] = {"pages": pages, "first": 2, "last": 3}
    assert problem(_pdf([["Notes", "Memo"], ["Plan"]]), meta) is None
    assert problem(_pdf([["NotesMemo"], ["Plan"]]), meta) is None  # words pypdf reads joined
    assert problem(_pdf([["Budget"], ["Notes", "Memo"], ["Plan"]]), meta) is not None  # the whole drawing
    assert problem(_pdf([["Notes", "Memo"]]), meta) is not None  # one short
    assert problem(_pdf([["Plan"], ["Notes", "Memo"]]), meta) is not None  # out of order
    assert problem(_pdf([["Notes"], ["Plan"]]), meta) is not None  # a word missing
    assert problem(_pdf([["Notes", "Memo"], ["Plan"]], (21.0, 29.7)), meta) is not None  # portrait
    assert problem(b"%PDF-1.4 broken", meta) is not None and problem(None, meta) is not None
