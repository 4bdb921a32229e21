"""``_evince``'s pure parts: seeds written with fpdf2 and read back whole with pypdf, a clear reason
(never a crash) for files that are not PDFs or are damaged, and the highlight and annotation checks
on QuadPoints as Evince writes them."""

from __future__ import annotations

import io
import random

import numpy as np
import pypdf
import pytest
from pypdf.annotations import Highlight, Text
from pypdf.generic import ArrayObject, FloatObject

from cua_bench_tasks_desktop._evince import (
    LAYOUT,
    Pdf,
    annotation_problems,
    glyph_span,
    highlight_problems,
    page_on_screen,
    pdf_bytes,
    pdf_text_problems,
    read_pdf,
    seed_pages,
    text_width,
)

PAGES = [("Budget page 1", ["the quiet garden holds the lantern today", "the green river keeps the bridge"]),
         ("Budget page 2", ["the rapid falcon finds the meadow twice"])]  # fmt: skip
LINE = PAGES[0][1][0]


def _quads(left: float, right: float, row: int = 0) -> list[float]:
    """QuadPoints as Evince writes them for a highlight on body line ``row``: whole points across."""
    base = LAYOUT.height - LAYOUT.baseline(row)
    top, bottom = base + 12, base - 5
    return [left, top, right, top, left, bottom, right, bottom]


def _annotated(*annotations: tuple[int, object]) -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(pdf_bytes(PAGES)))
    for page, annotation in annotations:
        writer.add_annotation(page, annotation)  # type: ignore[arg-type]
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_seed_reads_back_with_its_pages_and_text() -> None:
    pdf = read_pdf(pdf_bytes(PAGES))
    assert isinstance(pdf, Pdf)
    assert len(pdf.texts) == 2 and pdf.annotations == [[], []]
    assert pdf.texts[0].splitlines() == ["Budget page 1", *PAGES[0][1]]
    assert pdf_text_problems(pdf, pdf_bytes(PAGES)) == []


def test_a_seed_is_binary_and_its_page_is_the_layouts() -> None:
    data = pdf_bytes(PAGES)
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    box = pypdf.PdfReader(io.BytesIO(data)).pages[0].mediabox
    assert (float(box.width), float(box.height)) == pytest.approx((LAYOUT.width, LAYOUT.height))


def test_too_many_lines_for_a_page_are_refused() -> None:
    with pytest.raises(ValueError, match="8 lines at most"):
        pdf_bytes([("h", ["x"] * 9)])


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (None, "no such file"),
        (b"", "not a PDF"),
        (b"hello, world\n", "not a PDF"),
        (b"%PDF-1.4\n garbage", "not a readable PDF"),
        (b"%PDF-1.4\n" + bytes(17 << 20), "too large to read"),
    ],
)
def test_what_is_not_a_pdf_is_a_reason(data: bytes | None, why: str) -> None:
    found = read_pdf(data)
    assert isinstance(found, str) and found.startswith(why)


def test_a_truncated_or_damaged_pdf_is_read_without_a_crash() -> None:
    data = pdf_bytes(PAGES)
    damaged = [data[:cut] for cut in (9, len(data) // 3, len(data) // 2, len(data) - 40)]
    damaged.append(data[:200] + bytes(len(data) - 200))
    for found in map(read_pdf, damaged):
        # pypdf rebuilds what it can of a damaged file; what it cannot is a reason, never an exception.
        assert isinstance(found, str | Pdf)
    assert isinstance(read_pdf(data[:9]), str)


def test_other_pages_or_text_are_told_apart() -> None:
    other = read_pdf(pdf_bytes([PAGES[0]]))
    assert isinstance(other, Pdf)
    assert pdf_text_problems(other, pdf_bytes(PAGES)) == ["1 pages, not 2"]
    changed = read_pdf(pdf_bytes([PAGES[0], ("Budget page 2", ["the rapid falcon finds the meadow"])]))
    assert isinstance(changed, Pdf)
    assert pdf_text_problems(changed, pdf_bytes(PAGES)) == ["page 2's text is not the original's"]


def test_annotations_are_read_with_their_page_contents_and_quads() -> None:
    start = LINE.index("lantern")
    x0, x1 = glyph_span(LINE, start, start + len("lantern"))
    quads = _quads(round(x0), round(x1))
    highlight = Highlight(rect=(x0, 0, x1, 10), quad_points=ArrayObject(FloatObject(q) for q in quads))
    note = Text(rect=(500, 380, 520, 400), text="check the seals")
    pdf = read_pdf(_annotated((0, highlight), (1, note)))
    assert isinstance(pdf, Pdf)
    (page, mark), (other, sticky) = pdf.markup()
    assert (page, mark.subtype, mark.quads) == (0, "/Highlight", tuple(float(q) for q in quads))
    assert (other, sticky.subtype, sticky.contents) == (1, "/Text", "check the seals")
    assert annotation_problems(pdf, {0: ["/Highlight"], 1: ["/Text"]}) == []
    assert annotation_problems(pdf, {1: ["/Highlight"]}) != []


def test_a_highlight_must_cover_the_phrase_and_no_more() -> None:
    start = LINE.index("lantern")
    end = start + len("lantern today")
    x0, x1 = glyph_span(LINE, start, end)
    space = text_width(" ")
    # As Evince writes it: whole points, the spaces on either side or not.
    for left, right in ((int(x0), int(x1) + 1), (int(x0 - space) + 1, int(x1) + 1), (int(x0), int(x1 + space) + 1)):
        assert highlight_problems(_quads(left, right), LINE, 0, start, end) == []
    first_word = glyph_span(LINE, start, start + len("lantern"))[1]
    assert highlight_problems(_quads(int(x0), int(first_word) + 1), LINE, 0, start, end) != []
    before = glyph_span(LINE, LINE.index("the lantern"), start)[0]
    assert highlight_problems(_quads(int(before), int(x1) + 1), LINE, 0, start, end) != []
    assert highlight_problems(_quads(int(x0), int(x1) + 1, row=1), LINE, 0, start, end) != []
    assert highlight_problems([], LINE, 0, start, end) != []
    assert highlight_problems([1.0, 2.0, 3.0], LINE, 0, start, end) != []


def test_the_page_in_view_is_found_on_a_frame() -> None:
    frame = np.full((800, 1280, 3), 240, dtype=np.uint8)
    scale = 1.5
    left, top = 200, 120
    width, height = round(LAYOUT.width * scale), round(LAYOUT.height * scale)
    frame[top : top + height, left : left + width] = 255
    frame[top + 100 : top + 120, left + 80 : left + 400] = 0  # a line of text
    box = page_on_screen(frame)
    assert (box.left, box.top) == (left, top) and box.scale == pytest.approx(scale, rel=0.01)
    with pytest.raises(Exception, match="no page"):
        page_on_screen(np.full((800, 1280, 3), 240, dtype=np.uint8))


def test_seed_pages_are_varied_and_fit_a_page() -> None:
    seen = set()
    for seed in range(20):
        pages = seed_pages(random.Random(seed), 3)
        assert all(LAYOUT.left + text_width(line) < LAYOUT.width for _, lines in pages for line in lines)
        seen.add(pages[0][1][0])
        pdf_bytes(pages)
    assert len(seen) > 10
