"""``cua_bench.documents``: the adversary's mutations of text documents and presentations, each in the
file's own format (by content), and nothing done to any other file."""

from __future__ import annotations

import io
from collections.abc import Callable

import docx
import pptx
import pytest
from odf import teletype
from odf.draw import Page
from odf.opendocument import load
from odf.text import P
from support.office_files import docx_doc, odp, ods, odt, pptx_deck, xlsx

from cua_bench.documents import JUNK, as_text, with_extra_paragraph, with_extra_slide
from cua_bench.office import document_format

LINES = ["Quarterly Plan", "The green rocket turns the river.", "Ship by Friday."]
TITLES = ["Harbor Plan", "Bridge Risks"]


def odf_lines(data: bytes) -> list[str]:
    return [teletype.extractText(p) for p in load(io.BytesIO(data)).text.getElementsByType(P)]


def test_an_extra_paragraph_ends_an_odt_and_a_docx_in_their_own_format() -> None:
    changed = with_extra_paragraph(odt(LINES))
    assert changed is not None and document_format(changed) == "odt"
    assert odf_lines(changed) == [*LINES[1:], JUNK]  # the heading is an H, the rest and the junk are Ps
    changed = with_extra_paragraph(docx_doc(LINES))
    assert changed is not None and document_format(changed) == "docx"
    assert [p.text for p in docx.Document(io.BytesIO(changed)).paragraphs] == [*LINES, JUNK]


def test_an_extra_slide_ends_an_odp_and_a_pptx_in_their_own_format() -> None:
    changed = with_extra_slide(odp(TITLES))
    assert changed is not None and document_format(changed) == "odp"
    pages = load(io.BytesIO(changed)).presentation.getElementsByType(Page)
    assert len(pages) == 3 and len({page.getAttribute("name") for page in pages}) == 3
    assert pages[-1].getAttribute("masterpagename") == pages[0].getAttribute("masterpagename")
    changed = with_extra_slide(pptx_deck(TITLES))
    assert changed is not None and document_format(changed) == "pptx"
    slides = list(pptx.Presentation(io.BytesIO(changed)).slides)
    assert len(slides) == 3 and any(
        shape.has_text_frame and shape.text_frame.text == JUNK for shape in slides[2].shapes
    )


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: odt(LINES), LINES),
        (lambda: docx_doc(LINES), LINES),
        (lambda: odp(TITLES), TITLES),
        (lambda: pptx_deck(TITLES), TITLES),
    ],
    ids=["odt", "docx", "odp", "pptx"],
)
def test_as_text_keeps_every_paragraph_in_order_and_is_no_document(make: Callable[[], bytes], words: list[str]) -> None:
    text = as_text(make())
    assert text is not None and document_format(text) is None
    assert [line for line in text.decode().splitlines() if line] == words


@pytest.mark.parametrize("transform", [as_text, with_extra_paragraph, with_extra_slide])
def test_other_files_are_left_alone(transform: Callable[[bytes], bytes | None]) -> None:
    for data in (b"plain text\n", b"PK\x03\x04 not a zip", ods(), xlsx()):
        assert transform(data) is None
    assert with_extra_paragraph(odp(TITLES)) is None and with_extra_slide(docx_doc(LINES)) is None
