"""The accessibility tree as OSWorld's XML: its shape, and OSWorld's own metric reading it."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from cua_bench.a11y_xml import OSWORLD_NAMESPACES, to_osworld_xml
from cua_bench.sim import SimDesktop, TextField
from cua_bench_osworld.official import INSTALL_HINT, official_metrics

ST, CP = (f"{{{OSWORLD_NAMESPACES[p]}}}" for p in ("st", "cp"))


def node(role: str, name: str = "", children: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "role": role,
        "name": name,
        "bounds": None,
        "states": [],
        "value": None,
        "children": children or [],
        **extra,
    }


def tree() -> list[dict[str, Any]]:
    save = node("push button", "Save", bounds=[10.0, 10.0, 20.0, 20.0], states=["enabled", "showing"])
    text = node("text", value="hello\x01 world", states=["editable", "focused"])
    slider = node("slider", "Zoom", value=1.5)
    return [
        node("window", "notes.txt - Mousepad", [save, text, slider], app="mousepad", bounds=[0.0, 0.0, 500.0, 500.0]),
        node("window", "Find", app="mousepad"),
        node("window", "xterm", app="xterm"),
    ]


def test_shape_follows_osworld() -> None:
    root = ET.fromstring(to_osworld_xml(tree(), 1280, 800))
    assert root.tag == "desktop-frame"
    apps = [(app.tag, app.get("name"), [frame.get("name") for frame in app]) for app in root]
    assert apps == [
        ("application", "mousepad", ["notes.txt - Mousepad", "Find"]),  # one app, two windows
        ("application", "xterm", ["xterm"]),
    ]
    frame = root[0][0]
    assert frame.tag == "frame" and (frame.get(f"{CP}screencoord"), frame.get(f"{CP}size")) == ("(0, 0)", "(640, 400)")
    button, text, slider = frame
    assert button.tag == "push-button" and button.get(f"{ST}showing") == "true"
    assert (button.get(f"{CP}screencoord"), button.get(f"{CP}size")) == ("(13, 8)", "(13, 8)")
    assert text.text == "hello world"  # a control character XML cannot hold is dropped, not an error
    assert text.get(f"{CP}screencoord") is None  # no bounds, no coordinates
    assert slider.get(f"{{{OSWORLD_NAMESPACES['val']}}}value") == "1.5"


def test_odd_role_names_still_make_elements() -> None:
    xml = to_osworld_xml([node("window", "w", [node("2d canvas"), node(""), node("a/b")])], 100, 100)
    assert [child.tag for child in ET.fromstring(xml)[0][0]] == ["_2d-canvas", "unknown", "a-b"]


def test_the_sim_desktop_converts() -> None:
    desktop = SimDesktop(800, 600)
    window = desktop.open_window("Sign in", 300, 200)
    window.add(TextField("user", "ada"), label="User")
    root = ET.fromstring(to_osworld_xml(desktop.a11y(), 800, 600))
    assert root[0].get("name") == "Sign in"
    assert "ada" in "".join(root.itertext())


def osworld_check() -> Any:
    check = official_metrics().functions.get("check_accessibility_tree")
    if check is None:
        reason = f"OSWorld's check_accessibility_tree is not loaded: {official_metrics().error or INSTALL_HINT}"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}")
        pytest.skip(reason)
    return check


@pytest.mark.parametrize(
    ("rule", "want"),
    [
        ({"selectors": ['push-button[name="Save"]']}, 1.0),
        ({"selectors": ['push-button[name="Open"]']}, 0.0),
        ({"selectors": ['text[st|focused="true"]'], "text": "hello world", "exact": True}, 1.0),
        ({"xpath": '//application[@name="xterm"]/frame'}, 1.0),
        ({"xpath": '//application[@name="xterm"]/frame/push-button'}, 0.0),
        ({"xpath": "//text", "text": "hello", "exact": True}, 0.0),
    ],
)
def test_osworlds_metric_reads_our_xml(rule: dict[str, Any], want: float) -> None:
    assert osworld_check()(to_osworld_xml(tree(), 1280, 800), [rule]) == want
