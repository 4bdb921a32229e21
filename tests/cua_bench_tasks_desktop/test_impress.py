"""The Impress tasks' typed reading of a saved presentation (``_impress``), and the seeds they write.

A presentation is judged whole, in its real format: every slide in order with its layout, title,
bullet lines (and their levels), speaker notes, whether it is hidden, and every other shape on it.
The files here are built with odfpy and python-pptx the way LibreOffice saves them (placeholder
frames with ``presentation:class``, nested lists for indented bullets, a hidden slide's page style,
an empty placeholder kept as ``presentation:placeholder``), so each case is one an agent could leave.
"""

from __future__ import annotations

import io
import random
import zipfile
from typing import Any

import pytest
from odf import draw, presentation, style, text
from odf.opendocument import OpenDocumentPresentation, OpenDocumentSpreadsheet
from pptx import Presentation
from pptx.util import Inches

from cua_bench.documents import as_text, with_extra_slide
from cua_bench_tasks_desktop._impress import (
    BLANK,
    CONTENT,
    ONLY_TITLE,
    TITLE_SLIDE,
    Deck,
    Format,
    Shape,
    Slide,
    altered,
    deck_bytes,
    deck_differences,
    duplicated,
    fmt,
    format_of,
    neighbour,
    notes_line,
    parse,
    parse_as,
    seed_deck,
    seed_slide,
    slides_of,
)

PRESENTATIONNS = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
SEEDS = [seed_slide("Quiet Harbor Plan", ["The green rocket turns the river", "The early kitten reads"])]
SEEDS += [seed_slide("Golden Bridge Risks", ["The heavy anchor keeps the meadow"])]

# --- building files as LibreOffice saves them -----------------------------------------------------


def frame(kind: str | None, *paragraphs: str | tuple[int, str], placeholder: bool = False) -> Any:
    """A ``draw:frame`` of ``presentation:class`` ``kind`` (None: a plain text box) holding ``paragraphs``;
    an outline's are bullets, a ``(level, text)`` one indented into nested lists as Impress writes them."""
    made = draw.Frame(width="20cm", height="3cm", x="1cm", y="1cm")
    if kind is not None:
        made.setAttrNS(PRESENTATIONNS, "class", kind)
    if placeholder:
        made.setAttrNS(PRESENTATIONNS, "placeholder", "true")
    box = draw.TextBox()
    for paragraph in paragraphs:
        level, line = paragraph if isinstance(paragraph, tuple) else (0, paragraph)
        if kind != "outline":
            box.addElement(text.P(text=line))
            continue
        outer = inner = text.List()
        for _ in range(level):
            item = text.ListItem()
            nested = text.List()
            item.addElement(nested)
            inner.addElement(item)
            inner = nested
        item = text.ListItem()
        item.addElement(text.P(text=line))
        inner.addElement(item)
        box.addElement(outer)
    made.addElement(box)
    return made


def image() -> Any:
    made = draw.Frame(width="5cm", height="5cm", x="1cm", y="1cm")
    made.addElement(draw.Image(href="Pictures/x.png"))
    return made


def notes(line: str) -> Any:
    """A page's ``presentation:notes`` with its notes frame holding ``line`` (an empty placeholder for "")."""
    made = presentation.Notes()
    made.addElement(frame("notes", line) if line else frame("notes", placeholder=True))
    return made


def odp(*pages: list[Any], hidden: tuple[int, ...] = ()) -> bytes:
    """An ``.odp`` of ``pages`` (each a list of shapes); the pages numbered in ``hidden`` (from 1) use
    a page style that leaves them out of the show, as Slide > Hide Slide saves it."""
    doc = OpenDocumentPresentation()
    layout = style.PageLayout(name="PM1")
    doc.automaticstyles.addElement(layout)
    master = style.MasterPage(name="Default", pagelayoutname=layout)
    doc.masterstyles.addElement(master)
    shown, gone = style.Style(name="dp1", family="drawing-page"), style.Style(name="dp2", family="drawing-page")
    shown.addElement(style.DrawingPageProperties(backgroundvisible="true"))
    gone_props = style.DrawingPageProperties(backgroundvisible="true")
    gone_props.setAttrNS(PRESENTATIONNS, "visibility", "hidden")
    gone.addElement(gone_props)
    doc.automaticstyles.addElement(shown)
    doc.automaticstyles.addElement(gone)
    for number, shapes in enumerate(pages, start=1):
        page = draw.Page(masterpagename=master, stylename=gone if number in hidden else shown)
        for shape in shapes:
            page.addElement(shape)
        doc.presentation.addElement(page)
    out = io.BytesIO()
    doc.write(out)
    return out.getvalue()


def pptx(build: Any) -> bytes:
    deck = Presentation()
    build(deck)
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def content_slide(deck: Any, title: str, *lines: str | tuple[int, str]) -> Any:
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = title
    body = slide.placeholders[1].text_frame
    for number, entry in enumerate(lines):
        level, line = entry if isinstance(entry, tuple) else (0, entry)
        paragraph = body.paragraphs[0] if number == 0 else body.add_paragraph()
        paragraph.text, paragraph.level = line, level
    return slide


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100f5e2a7260000000049454e44ae426082"
)

# --- the seeds ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["odp", "pptx"])
def test_a_seed_reads_back_as_its_slides(kind: Any) -> None:
    deck = parse(deck_bytes(SEEDS, kind))
    assert deck == Deck(kind, tuple(SEEDS))
    assert deck.slides[0].layout == CONTENT and deck.slides[0].levels == (0, 0)


def test_a_seed_holds_real_placeholders() -> None:
    """Impress shows title and outline boxes only for placeholder frames; the pages name the Title,
    Content layout, so a new slide after one gets it too."""
    with zipfile.ZipFile(io.BytesIO(deck_bytes(SEEDS, "odp"))) as archive:
        content, styles = archive.read("content.xml").decode(), archive.read("styles.xml").decode()
    assert content.count('presentation:class="title"') == 2 and content.count('presentation:class="outline"') == 2
    assert 'presentation:presentation-page-layout-name="AL1T1"' in content
    assert 'presentation:object="outline"' in styles
    assert parse(deck_bytes([seed_slide("Only Title", [])], "odp")) == Deck("odp", (Slide("Only Title"),))


def test_variants_are_seeded_and_distinct() -> None:
    path, slides, fresh = seed_deck(random.Random("x"), 5)
    assert (path, slides, fresh) == seed_deck(random.Random("x"), 5)
    titles = [slide["title"] for slide in slides] + fresh
    assert len(titles) == 7 and all(not a.startswith(b) for a in titles for b in titles if a != b)
    assert all(1 <= len(slide["body"]) <= 3 for slide in slides)
    assert slides_of(slides)[0] == seed_slide(slides[0]["title"], slides[0]["body"])
    assert fmt(path) == ("pptx" if path.endswith(".pptx") else "odp") and fmt("a/B.PPTX") == "pptx"


# --- reading: the format is the content's, not the name's ----------------------------------------


def test_the_format_is_what_parses_not_the_name() -> None:
    both = {kind: deck_bytes(SEEDS, kind) for kind in ("odp", "pptx")}
    assert format_of(both["odp"]) == "odp" and format_of(both["pptx"]) == "pptx"
    assert parse_as(both["odp"], "pptx") is None  # an .odp saved under talk.pptx
    assert parse_as(both["pptx"], "odp") is None
    assert parse_as(both["pptx"], "pptx") is not None
    spreadsheet = io.BytesIO()
    OpenDocumentSpreadsheet().write(spreadsheet)
    assert parse(spreadsheet.getvalue()) is None  # an ODF zip, but not a presentation
    assert parse(b"Quiet Harbor Plan\n") is None
    assert parse(b"PK\x03\x04 broken") is None
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("ppt/presentation.xml", "<not a package/>")
    assert format_of(broken.getvalue()) == "pptx" and parse(broken.getvalue()) is None


# --- reading .odp ---------------------------------------------------------------------------------


def test_odp_titles_bodies_levels_and_notes() -> None:
    data = odp(
        [frame("title", "Quiet Harbor Plan"), frame("outline", "One", (1, "One a"), "Two", ""), notes("Say hi")],
        [frame("title", "Golden", "Bridge"), frame("outline", placeholder=True), notes("")],
    )
    deck = parse(data)
    assert deck is not None and deck.format == "odp"
    assert deck.slides[0] == Slide("Quiet Harbor Plan", ("One", "One a", "Two"), levels=(0, 1, 0), notes="Say hi")
    # A title of two paragraphs is one title with a line break; an empty outline placeholder is no bullet.
    assert deck.slides[1] == Slide("Golden\nBridge", ())
    assert deck.titles() == ["Quiet Harbor Plan", "Golden\nBridge"]


def test_odp_layouts_by_the_placeholders_a_slide_has() -> None:
    deck = parse(
        odp(
            [frame("title", "A"), frame("subtitle", "Sub")],
            [frame("title", "B")],
            [],
            [frame("title", placeholder=True), frame("outline", "Line")],
            [frame("title", "C"), frame("graphic", placeholder=True)],
        )
    )
    assert deck is not None
    assert [slide.layout for slide in deck.slides] == [TITLE_SLIDE, ONLY_TITLE, BLANK, CONTENT, "graphic+title"]
    assert deck.slides[0].body == ("Sub",)
    assert deck.slides[3].title == ""  # an empty title placeholder: a title, with no text
    assert deck.slides[2].title is None


def test_odp_other_shapes_and_hidden_slides() -> None:
    deck = parse(
        odp(
            [frame("title", "A"), frame("outline", "Line"), frame(None, "Stray"), image(), frame("title", "A")],
            [frame("title", "B"), frame("outline", "Line")],
            hidden=(2,),
        )
    )
    assert deck is not None
    assert deck.slides[0].others == (Shape("text box", "Stray"), Shape("image"), Shape("title", "A"))
    assert [slide.hidden for slide in deck.slides] == [False, True]


# --- reading .pptx --------------------------------------------------------------------------------


def test_pptx_titles_bodies_levels_notes_and_hidden() -> None:
    def build(deck: Any) -> None:
        first = content_slide(deck, "Quiet Harbor Plan", "One", (1, "One a"), "Two")
        first.notes_slide.notes_text_frame.text = "Say hi"
        content_slide(deck, "Golden Bridge Risks").element.set("show", "0")

    deck = parse(pptx(build))
    assert deck is not None and deck.format == "pptx"
    assert deck.slides[0] == Slide("Quiet Harbor Plan", ("One", "One a", "Two"), levels=(0, 1, 0), notes="Say hi")
    assert deck.slides[1] == Slide("Golden Bridge Risks", (), hidden=True)


def test_pptx_layouts_and_other_shapes() -> None:
    def build(deck: Any) -> None:
        title = deck.slides.add_slide(deck.slide_layouts[0])
        title.shapes.title.text = "Opening"
        title.placeholders[1].text = "Sub"
        deck.slides.add_slide(deck.slide_layouts[5]).shapes.title.text = "Only"
        deck.slides.add_slide(deck.slide_layouts[6])
        busy = content_slide(deck, "Busy", "Line")
        busy.shapes.add_textbox(Inches(1), Inches(5), Inches(3), Inches(1)).text_frame.text = "Stray"
        busy.shapes.add_picture(io.BytesIO(PNG), Inches(5), Inches(5))
        busy.shapes.add_table(1, 2, Inches(1), Inches(6), Inches(4), Inches(1)).table.cell(0, 1).text = "Cell"

    deck = parse(pptx(build))
    assert deck is not None
    assert [slide.layout for slide in deck.slides] == [TITLE_SLIDE, ONLY_TITLE, BLANK, CONTENT]
    assert deck.slides[0].body == ("Sub",) and deck.slides[2].title is None
    assert deck.slides[3].others == (Shape("text box", "Stray"), Shape("image"), Shape("table", "\nCell"))


def test_an_empty_body_placeholder_is_part_of_the_layout() -> None:
    deck = parse(pptx(lambda deck: content_slide(deck, "Alone")))
    assert deck is not None and deck.slides[0] == Slide("Alone", (), layout=CONTENT)


# --- judging --------------------------------------------------------------------------------------


def test_the_whole_deck_is_compared() -> None:
    deck = parse(deck_bytes(SEEDS, "pptx"))
    assert deck_differences(deck, SEEDS) == []
    assert deck_differences(None, SEEDS) == ["not a presentation of the format its name asks for"]
    assert deck_differences(deck, SEEDS[:1]) == [
        "2 slides (['Quiet Harbor Plan', 'Golden Bridge Risks']), not 1",
    ]
    swapped = [SEEDS[1], SEEDS[0]]
    assert "slide 1's title is 'Quiet Harbor Plan', not 'Golden Bridge Risks'" in deck_differences(deck, swapped)


@pytest.mark.parametrize(
    "changed",
    [
        Slide("Quiet Harbor Plan", ("The green rocket turns the river", "The early kitten reads"), notes="x"),
        Slide("Quiet Harbor Plan", ("The green rocket turns the river", "The early kitten reads"), hidden=True),
        Slide("Quiet Harbor Plan", ("The green rocket turns the river", "The early kitten reads"), layout=TITLE_SLIDE),
        Slide("Quiet Harbor Plan", ("The green rocket turns the river", "The early kitten reads"), levels=(0, 1)),
        Slide(
            "Quiet Harbor Plan",
            ("The green rocket turns the river", "The early kitten reads"),
            others=(Shape("text box", "Quiet Harbor Plan"),),
        ),
    ],
    ids=["notes", "hidden", "layout", "levels", "extra shape"],
)
def test_any_field_of_a_slide_counts(changed: Slide) -> None:
    deck = Deck("odp", (changed, SEEDS[1]))
    assert len(deck_differences(deck, SEEDS)) == 1


@pytest.mark.parametrize("kind", ["odp", "pptx"])
def test_the_adversarys_presentation_mutations_are_differences(kind: Format) -> None:
    data = deck_bytes(SEEDS, kind)
    assert deck_differences(parse(with_extra_slide(data) or b""), SEEDS) != []
    assert parse(as_text(data) or b"") is None


# --- one slide's change: its notes, hidden, or copied right after it ---------------------------------

THIRD = seed_slide("Bright Pillow Results", ["The frozen pepper moves the river at noon"])


def test_the_expected_deck_after_one_slides_change() -> None:
    seeds = [*SEEDS, THIRD]
    assert altered(seeds, 2, notes="Say hi") == [SEEDS[0], Slide(SEEDS[1].title, SEEDS[1].body, notes="Say hi"), THIRD]
    assert altered(seeds, 3, hidden=True)[2].hidden and not any(slide.hidden for slide in seeds)  # a copy
    assert duplicated(seeds, 1) == [SEEDS[0], SEEDS[0], SEEDS[1], THIRD]
    assert duplicated(seeds, 3) == [*seeds, THIRD]
    assert [neighbour(1, 3), neighbour(2, 3), neighbour(3, 3)] == [2, 3, 2]
    lines = [notes_line(random.Random(seed)) for seed in range(200)]
    assert all("monday" not in line and line[0].isupper() for line in lines) and len(set(lines)) > 100
    assert notes_line(random.Random(7)) == notes_line(random.Random(7))


def saved_pptx(notes: dict[int, str], hidden: tuple[int, ...] = (), copies: tuple[int, ...] = ()) -> bytes:
    """The seeds (and ``THIRD``) as a ``.pptx`` the way an agent could leave it: ``notes`` on slides by
    number, slides ``hidden``, and slides in ``copies`` written twice in a row."""
    order = [number for number in (1, 2, 3) for _ in range(2 if number in copies else 1)]

    def build(deck: Any) -> None:
        for number in order:
            seed = [*SEEDS, THIRD][number - 1]
            slide = content_slide(deck, seed.title or "", *seed.body)
            if number in notes:
                slide.notes_slide.notes_text_frame.text = notes[number]
            if number in hidden:
                slide.element.set("show", "0")

    return pptx(build)


page_notes = notes  # the builders below take a ``notes`` argument


def saved_odp(notes: dict[int, str], hidden: tuple[int, ...] = (), copies: tuple[int, ...] = ()) -> bytes:
    """``saved_pptx`` in ``.odp``: title and outline frames, a notes frame on every page."""
    order = [number for number in (1, 2, 3) for _ in range(2 if number in copies else 1)]
    pages = []
    for number in order:
        seed = [*SEEDS, THIRD][number - 1]
        pages.append(
            [frame("title", seed.title or ""), frame("outline", *seed.body), page_notes(notes.get(number, ""))]
        )
    return odp(*pages, hidden=tuple(place for place, number in enumerate(order, start=1) if number in hidden))


@pytest.mark.parametrize("saved", [saved_odp, saved_pptx], ids=["odp", "pptx"])
def test_notes_on_one_slide_and_nothing_else(saved: Any) -> None:
    want = altered([*SEEDS, THIRD], 2, notes="Say hi to the board")
    assert deck_differences(parse(saved({2: "Say hi to the board"})), want) == []
    assert deck_differences(parse(saved({3: "Say hi to the board"})), want) != []  # the wrong slide
    assert deck_differences(parse(saved({2: "Say hi to the board", 1: "x"})), want) != []
    assert deck_differences(parse(saved({2: "Say hi"})), want) != []  # part of the sentence
    assert deck_differences(parse(saved({})), want) != []  # never written


@pytest.mark.parametrize("saved", [saved_odp, saved_pptx], ids=["odp", "pptx"])
def test_exactly_one_slide_hidden(saved: Any) -> None:
    want = altered([*SEEDS, THIRD], 1, hidden=True)
    assert deck_differences(parse(saved({}, hidden=(1,))), want) == []
    assert deck_differences(parse(saved({}, hidden=(2,))), want) != []
    assert deck_differences(parse(saved({}, hidden=(1, 2))), want) != []
    assert deck_differences(parse(saved({})), want) != []
    deleted = Deck("pptx", (SEEDS[1], THIRD))
    assert deck_differences(deleted, want) != []


@pytest.mark.parametrize("saved", [saved_odp, saved_pptx], ids=["odp", "pptx"])
def test_one_slide_twice_in_a_row(saved: Any) -> None:
    want = duplicated([*SEEDS, THIRD], 2)
    assert deck_differences(parse(saved({}, copies=(2,))), want) == []
    assert deck_differences(parse(saved({}, copies=(1,))), want) != []  # the wrong slide copied
    assert deck_differences(parse(saved({})), want) != []  # never copied
    moved = Deck("odp", (SEEDS[0], SEEDS[1], THIRD, SEEDS[1]))  # the copy at the end
    assert deck_differences(moved, want) != []
    empty = Deck("odp", (SEEDS[0], SEEDS[1], Slide(""), THIRD))  # a new slide, not a copy
    assert deck_differences(empty, want) != []
    assert deck_differences(parse(saved({2: "Say hi"}, copies=(2,))), want) != []  # the copy's notes
