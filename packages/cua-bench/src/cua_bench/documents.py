"""Text documents (``.odt``, ``.docx``) and presentations (``.odp``, ``.pptx``): the adversary's
mutations of them, made with maintained libraries (odfpy, python-docx, python-pptx).

The format is what the content is (``office.document_format``), never the name, so each mutation
answers None for a file it has nothing to do with. The desktop taskset's evaluators read these formats
(its ``_writer`` and ``_impress``); the mutations are what an agent's wrong work would leave: the words
typed into a text editor and saved under the document's name, a stray paragraph, a stray slide.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from cua_bench.office import document_format

__all__ = ["JUNK", "as_text", "with_extra_paragraph", "with_extra_slide"]

JUNK = "junk"
"""What a stray paragraph or slide says."""


def as_text(data: bytes) -> bytes | None:
    """A text document's or a presentation's paragraphs as plain text, one a line (what typing its words
    into a text editor and saving under its name leaves); None for any other file."""
    kind = document_format(data)
    if kind in ("odt", "odp"):
        from odf import teletype
        from odf.opendocument import load

        lines = [teletype.extractText(p) for p in _odf_paragraphs(load(io.BytesIO(data)).body)]
    elif kind == "docx":
        import docx

        lines = [p.text for p in docx.Document(io.BytesIO(data)).paragraphs]
    elif kind == "pptx":
        import pptx

        lines = [
            "".join(run.text for run in paragraph.runs)
            for slide in pptx.Presentation(io.BytesIO(data)).slides
            for shape in slide.shapes
            if shape.has_text_frame
            for paragraph in shape.text_frame.paragraphs
        ]
    else:
        return None
    return ("\n".join(lines) + "\n").encode()


def with_extra_paragraph(data: bytes) -> bytes | None:
    """The text document with a paragraph of junk at its end; None for anything but an .odt or a .docx."""
    kind = document_format(data)
    if kind == "odt":
        from odf.opendocument import load
        from odf.text import P

        doc = load(io.BytesIO(data))
        doc.text.addElement(P(text=JUNK))
        return _odf_saved(doc)
    if kind == "docx":
        import docx

        document = docx.Document(io.BytesIO(data))
        document.add_paragraph(JUNK)
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()
    return None


def with_extra_slide(data: bytes) -> bytes | None:
    """The presentation with a slide at its end holding a text box of junk (on the last slide's master
    in an .odp, on the blank layout in a .pptx); None for anything but an .odp or a .pptx."""
    kind = document_format(data)
    if kind == "odp":
        from odf.draw import Frame, Page, TextBox
        from odf.opendocument import load
        from odf.text import P

        doc = load(io.BytesIO(data))
        pages = doc.presentation.getElementsByType(Page)
        if not pages:
            return None
        names = {page.getAttribute("name") for page in pages}
        page = Page(
            name=next(f"page{n}" for n in range(len(pages) + 1, len(pages) + 3) if f"page{n}" not in names),
            masterpagename=pages[-1].getAttribute("masterpagename"),
        )
        frame = Frame(width="20cm", height="3cm", x="2cm", y="2cm")
        box = TextBox()
        box.addElement(P(text=JUNK))
        frame.addElement(box)
        page.addElement(frame)
        doc.presentation.addElement(page)
        return _odf_saved(doc)
    if kind == "pptx":
        import pptx
        from pptx.util import Inches

        deck = pptx.Presentation(io.BytesIO(data))
        layouts = list(deck.slide_layouts)
        layout = next((layout for layout in layouts if layout.name == "Blank"), layouts[-1])
        slide = deck.slides.add_slide(layout)
        slide.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(1)).text_frame.text = JUNK
        out = io.BytesIO()
        deck.save(out)
        return out.getvalue()
    return None


def _odf_paragraphs(node: Any) -> Iterator[Any]:
    """The paragraphs and headings under ``node``, in document order (odfpy lists each kind apart)."""
    from odf.namespaces import TEXTNS

    for child in node.childNodes:
        if getattr(child, "qname", None) in ((TEXTNS, "p"), (TEXTNS, "h")):
            yield child
        elif getattr(child, "childNodes", None):
            yield from _odf_paragraphs(child)


def _odf_saved(doc: Any) -> bytes:
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()
