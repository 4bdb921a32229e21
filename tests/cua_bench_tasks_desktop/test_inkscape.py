"""``_inkscape``'s pure parts: seeds written as SVG text and read back whole with lxml, a clear
reason (never a crash) for files that are not SVGs, and the comparison of a saved drawing with the
one expected, as Inkscape saves it (its own attributes and view settings aside)."""

from __future__ import annotations

import itertools
import random

import pytest

from cua_bench_tasks_desktop._inkscape import (
    INKSCAPE,
    LAYER,
    SVG,
    Drawing,
    Element,
    Shape,
    as_shapes,
    drawing_problems,
    expected_elements,
    previous,
    read_svg,
    right_of,
    seed_root,
    seed_shapes,
    selection_box,
    style,
    svg_bytes,
)

SHAPES = [
    Shape("rect", "lantern", "#d62728", (20, 30, 100, 60)),
    Shape("circle", "harbor", "#1f77b4", (200, 40, 80, 80)),
    Shape("ellipse", "meadow", "#2ca02c", (330, 50, 90, 40)),
]
VERSION = 'inkscape:version="1.2.2 (b0a8486541, 2022-12-01)" sodipodi:docname="logo.svg"'


def _as_saved(data: bytes, **replace: str) -> bytes:
    """The seed as Inkscape saves it: its version and the file's name on the root, a namedview of its own."""
    text = data.decode().replace('id="svg1">', f'id="svg1" {VERSION}>', 1)
    text = text.replace('inkscape:document-units="px" />', 'inkscape:document-units="px" inkscape:zoom="1.7" />')
    for old, new in replace.items():
        text = text.replace(old, new)
    return text.encode()


def test_a_seed_reads_back_as_its_shapes() -> None:
    drawing = read_svg(svg_bytes(480, 320, SHAPES))
    assert isinstance(drawing, Drawing)
    assert drawing.root == seed_root(480, 320) and drawing.inkscape_version is None
    assert [e.id for e in drawing.elements] == ["defs1", LAYER, "lantern", "harbor", "meadow"]
    assert drawing.by_id("harbor") == Element(
        f"{{{SVG}}}circle",
        {"id": "harbor", f"{{{INKSCAPE}}}label": "Harbor", "cx": "240", "cy": "80", "r": "40",
         "style": "fill:#1f77b4;stroke:none"},
        LAYER,
        "",
    )  # fmt: skip
    assert drawing.tail == b"\n"


def test_a_seed_as_inkscape_saves_it_has_no_problems_but_a_plain_one_is_not_inkscapes() -> None:
    seed = svg_bytes(480, 320, SHAPES)
    expected = expected_elements(SHAPES)
    saved = read_svg(_as_saved(seed))
    assert isinstance(saved, Drawing)
    assert drawing_problems(saved, seed_root(480, 320), expected) == []
    plain = read_svg(seed)
    assert isinstance(plain, Drawing)
    assert drawing_problems(plain, seed_root(480, 320), expected) == [
        "the file was not saved by Inkscape as Inkscape SVG (its root has no inkscape:version)"
    ]


def test_blank_lines_after_the_root_are_not_inkscapes_file() -> None:
    saved = read_svg(_as_saved(svg_bytes(480, 320, SHAPES)) + b"\n\n\n")
    assert isinstance(saved, Drawing)
    assert drawing_problems(saved, seed_root(480, 320), expected_elements(SHAPES)) == [
        "the file goes on after </svg> (b'\\n\\n\\n\\n')"
    ]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (None, "no such file"),
        (b"", "not XML"),
        (b"hello, world\n", "not XML"),
        (b"<html><body/></html>", "not an SVG"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'>", "not XML"),
        (b"<svg/>" + b" " * (9 << 20), "too large to read"),
    ],
    ids=["missing", "empty", "text", "html", "truncated", "huge"],
)
def test_what_is_not_an_svg_is_a_reason(data: bytes | None, why: str) -> None:
    found = read_svg(data)
    assert isinstance(found, str) and found.startswith(why)


def test_entities_are_not_expanded_nor_fetched() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<svg xmlns="http://www.w3.org/2000/svg"><text id="t">&b;&x;</text></svg>'
    )
    found = read_svg(bomb)
    assert isinstance(found, Drawing)
    assert "root:" not in found.text_of("t") and "aaaaaaaaaa" * 8 not in found.text_of("t")


def test_a_changed_fill_a_missing_or_extra_element_and_a_moved_shape_are_told() -> None:
    seed = svg_bytes(480, 320, SHAPES)
    expected = expected_elements(SHAPES)
    root = seed_root(480, 320)
    recoloured = read_svg(_as_saved(seed, **{"fill:#1f77b4;stroke:none": "fill:#ff7f0e;stroke:none;fill-opacity:1"}))
    assert isinstance(recoloured, Drawing)
    assert drawing_problems(recoloured, root, expected) == [
        "harbor has the style 'fill:#ff7f0e;stroke:none;fill-opacity:1', not 'fill:#1f77b4;stroke:none'"
    ]

    def wanted(element: Element) -> Element:
        if element.id != "harbor":
            return element
        return Element(element.tag, {**element.attrs, "style": "fill:#ff7f0e"}, element.parent, "")

    assert drawing_problems(recoloured, root, expected_elements(SHAPES, wanted)) == []
    moved = read_svg(_as_saved(seed, **{'x="20"': 'x="21"'}))
    assert isinstance(moved, Drawing)
    assert drawing_problems(moved, root, expected) == ["lantern differs in x='21' (not '20')"]
    extra = read_svg(_as_saved(seed, **{"</g>": '<rect id="rect1" width="5" height="5"/></g>'}))
    assert isinstance(extra, Drawing)
    assert drawing_problems(extra, root, expected) == ["an element more: rect 'rect1'"]
    dropped = expected_elements(SHAPES, lambda e: None if e.id == "meadow" else e)
    assert drawing_problems(recoloured, root, dropped)[-1] == "an element more: ellipse 'meadow'"
    resized = read_svg(_as_saved(seed, **{'width="480"': 'width="500"'}))
    assert isinstance(resized, Drawing)
    assert drawing_problems(resized, root, expected) == ["the page differs in width='500' (not '480')"]


def test_styles_read_as_properties_with_initial_values_unset() -> None:
    assert style("fill:#D62728; stroke:none;fill-opacity:1;;opacity:0.5") == {"fill": "#d62728", "opacity": "0.5"}
    assert style(None) == {} and style("display:none") == {"display": "none"}


def test_seed_shapes_vary_fit_the_page_and_never_overlap() -> None:
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        shapes = seed_shapes(rng, 480, 320, rng.randint(3, 5))
        assert as_shapes([s.as_json() for s in shapes]) == shapes
        assert len({s.id for s in shapes}) == len(shapes) == len({s.fill for s in shapes})
        for shape in shapes:
            x, y, w, h = shape.box
            assert x > 0 and x + w < 480 and y > 0 and y + h < 320 and w > 0 and h > 0
            assert shape.kind != "circle" or w == h
        boxes = sorted(s.box for s in shapes)
        assert all(a[0] + a[2] < b[0] for a, b in itertools.pairwise(boxes))
        seen.add(repr(shapes))
    assert len(seen) == 40


def _node(role: str, name: str, bounds: list[float], value: str | None = None, *states: str) -> dict[str, object]:
    return {"role": role, "name": name, "value": value, "bounds": bounds, "states": ["showing", *states]}


def test_fields_are_found_by_the_label_beside_them_and_the_toolbar_gives_the_selection_box() -> None:
    row = [
        _node("label", "X:", [385, 112, 395, 155], "X:"),
        _node("spin button", "", [397, 112, 500, 155], "264.000"),
        _node("label", "Y:", [505, 112, 513, 155], "Y:"),
        _node("spin button", "", [515, 112, 617, 155], "182.000"),
        _node("label", "W:", [623, 112, 635, 155], "W:"),
        _node("spin button", "", [638, 112, 736, 155], "64.000"),
        _node("label", "H:", [771, 112, 782, 155], "H:"),
        _node("spin button", "", [784, 112, 882, 155], "102.000"),
        # The status bar's X: (the pointer) is a label with a label beside it, no field.
        _node("label", "X:", [739, 957, 749, 978], "X:"),
        _node("label", "0.00", [757, 957, 791, 978], "0.00"),
    ]
    tree = [{"role": "window", "name": "logo.svg - Inkscape", "bounds": [0, 0, 1000, 1000], "children": row}]
    assert selection_box(tree) == (264.0, 182.0, 64.0, 102.0)
    found = right_of(tree, "W:", "spin button")
    assert found is not None and found["value"] == "64.000"
    assert right_of(tree, "Z:", "spin button") is None
    row[7]["value"] = "n/a"
    assert selection_box(tree) is None


def test_the_previous_version_sits_beside_the_drawing() -> None:
    assert previous("designs/logo_2027.svg") == "designs/logo_2027_old.svg"
