"""draw-export-pdf: export a range of pages of the drawing open in LibreOffice Draw as a PDF (File > Export
as PDF, General > Range > Pages), leaving the ``.odg`` as it was.

Every shape of the seed holds a word, so each page's text tells it from the others. The oracle runs Export
as PDF from LibreOffice's Search Commands (Shift+Esc), picks Range > Pages in the PDF Options dialog,
types the range, clicks Export, and gives the file's name in the Export dialog.
The evaluator reads the PDF with pypdf: a plain file with one link, a PDF by content, exactly as many
pages as the range, each the seed's page size (landscape A4, within a point) and showing the words of the
shapes of its page of the drawing, in order of the range, and no other letter (pypdf may join two words
that sit side by side, so each word is looked for in the page's letters); and no other file under home
changed (the ``.odg`` byte for byte).
Wrong ways: ``whole_drawing`` (Range > All), ``range_one_short`` (the range's last page left out) and
``saved_as_odg`` (File > Save As under the name with ``.odg``: a drawing, not a PDF).
"""

from __future__ import annotations

import io
import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    act,
    file_name,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    output_bytes,
    submit_dialog,
    wait_path,
)
from cua_bench_tasks_desktop._draw import PAGE, click_in, command, open_seeded, save_as, seed
from cua_core import TypeText

NAME = "draw-export-pdf"
WAIVED = OUTPUT_IS_THE_WORK
OPTIONS = "PDF Options"
PAGES = (40, 139)
"""In PDF Options (pixels from its corner): Range > Pages, its field, and Export."""
RANGE = (346, 139)
EXPORT = (752, 489)
POINTS = tuple(cm / 2.54 * 72 for cm in PAGE)


def build(rng: random.Random) -> cb.Task:
    path, pages, _ = seed(rng, rng.randint(3, 4), texts=1.0)
    first = rng.randint(1, len(pages) - 1)
    last = rng.randint(first + 1, len(pages))
    folder = path.rsplit("/", 1)[0]
    out = f"{folder}/{file_name(rng, '.pdf')}"
    return cb.Task(
        description=f"The drawing ~/{path} is open in LibreOffice Draw. Export pages {first} to {last} of it (only "
        f"those pages) as a PDF file ~/{out}, and leave ~/{path} as it is.",
        metadata={"path": path, "pages": pages, "first": first, "last": last, "out": out},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def pdf_problem(data: bytes | None, meta: dict[str, Any]) -> str | None:
    """Why ``data`` is not the PDF asked (None: it is)."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    if data is None or not data.startswith(b"%PDF-"):
        return "not a PDF (or not a plain file with one link)"
    try:
        pages = [(float(page.mediabox.width), float(page.mediabox.height), page.extract_text()) for page in
                 PdfReader(io.BytesIO(data)).pages]  # fmt: skip
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        return f"not a readable PDF ({exc})"
    wanted = meta["pages"][meta["first"] - 1 : meta["last"]]
    if len(pages) != len(wanted):
        return f"{len(pages)} pages, not {len(wanted)}"
    for number, ((width, height, text), page) in enumerate(zip(pages, wanted, strict=True), start=meta["first"]):
        if abs(width - POINTS[0]) > 1 or abs(height - POINTS[1]) > 1:
            return f"page {number} is {width:.1f} x {height:.1f} pt, not {POINTS[0]:.1f} x {POINTS[1]:.1f}"
        # pypdf may join words that sit side by side: every word is there, and no other letter.
        shown = "".join(text.split())
        words = [word for shape in page["shapes"] for word in shape["text"].split()]
        if sorted(shown) != sorted("".join(words)) or any(word not in shown for word in words):
            return f"page {number} shows {text.split()}, not the words {sorted(words)}"
    return None


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_seeded(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    problem = pdf_problem(await output_bytes(session, after, meta["out"]), meta)
    if problem:
        task.explain(f"{meta['out']}: {problem}")
    others = nothing_else_changed(task, before, after, expect=[meta["out"]])
    return [1.0 if problem is None and others else 0.0]


async def export(session: cb.Session, meta: dict[str, Any], pages: str | None) -> None:
    """Export as PDF with Range > Pages ``pages`` (None: All), saved under ``~/out``."""
    await command(session, "Export as PDF", OPTIONS)
    if pages is not None:
        await click_in(session, PAGES, OPTIONS)
        await click_in(session, RANGE, OPTIONS)
        await act(session, key("ctrl+a"), TypeText(pages))
    await click_in(session, EXPORT, OPTIONS)
    await submit_dialog(session, "Export", f"~/{meta['out']}")
    await wait_path(session, meta["out"], lambda text: text is not None and text.rstrip().endswith("%%EOF"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await export(session, meta, f"{meta['first']}-{meta['last']}")


@cb.wrong_way
async def whole_drawing(task: cb.Task, session: cb.Session) -> None:
    """Range > All: every page of the drawing."""
    await export(session, task.metadata, None)


@cb.wrong_way
async def range_one_short(task: cb.Task, session: cb.Session) -> None:
    """The range's last page left out."""
    meta = task.metadata
    last = meta["last"] - 1
    await export(session, meta, f"{meta['first']}-{last}" if last > meta["first"] else str(last))


@cb.wrong_way
async def saved_as_odg(task: cb.Task, session: cb.Session) -> None:
    """File > Save As under the name with ``.odg``: a drawing, not a PDF."""
    await save_as(session, task.metadata["out"].removesuffix(".pdf") + ".odg")
