"""The accessibility tree from ``uiautomator dump``: the dump's XML as our nodes, and how it is fetched.

The two dumps in fixtures/ were written in the form AOSP's ``AccessibilityNodeInfoDumper`` serialises (one
line, its attributes in its order), not recorded from a device; the form's node is the one it documents.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cua_bench.a11y_xml import to_osworld_xml
from cua_bench.nodes import center, find, walk
from cua_bench_android import AndroidSession, HierarchyError, parse_hierarchy
from cua_core import to_pixels

if TYPE_CHECKING:  # the fixture's class, for annotations only: pytest imports conftest files by itself
    from conftest import FakeAdb

FIXTURES = Path(__file__).parent / "fixtures"
NODE_KEYS = {"role", "name", "bounds", "states", "value", "children"}
DUMP_COMMAND = "rm -f /data/local/tmp/cua_window_dump.xml; uiautomator dump /data/local/tmp/cua_window_dump.xml"


def dump(name: str) -> list[dict[str, Any]]:
    return parse_hierarchy((FIXTURES / name).read_bytes(), 1080, 2400)


def test_the_active_window_is_a_window_node_holding_its_root() -> None:
    [window] = dump("window_settings.xml")
    assert {k: window[k] for k in ("role", "name", "bounds", "states", "value", "app", "id")} == {
        "role": "window", "name": "com.android.settings", "bounds": [0.0, 0.0, 1000.0, 1000.0],
        "states": ["showing", "visible", "active", "focused"], "value": None, "app": "com.android.settings",
        "id": "com.android.settings",
    }  # fmt: skip
    [root] = window["children"]
    assert (root["role"], root["class"]) == ("panel", "android.widget.FrameLayout")
    assert all(set(node) >= NODE_KEYS for node in walk([window]))


def test_nested_nodes_keep_their_order_and_depth() -> None:
    [window] = dump("window_settings.xml")
    listing = find([window], role="list")
    assert listing["resource_id"] == "com.android.settings:id/recycler_view"
    titles = [row["children"][1]["children"][0]["name"] for row in listing["children"]]
    assert titles == ["Network & internet", "Connected devices", "Apps"]  # &amp; unescaped
    summary = listing["children"][0]["children"][1]["children"][1]
    assert (summary["role"], summary["name"], summary["value"]) == ("label", "Mobile, Wi\u2011Fi, hotspot",
                                                                    "Mobile, Wi\u2011Fi, hotspot")  # fmt: skip
    assert len(list(walk([window]))) == 21  # the window and the dump's 20 nodes


def test_bounds_are_normalised_to_the_screen() -> None:
    [window] = dump("window_settings.xml")
    search = find([window], resource_id="com.android.settings:id/search_bar")
    # [42,189][1038,336] on 1080x2400
    assert search["bounds"] == [38.889, 78.75, 961.111, 140.0]
    # The middle of a node's bounds taps inside it, at any resolution.
    x, y = to_pixels(center(search), 1080, 2400)
    assert 42 <= x < 1038 and 189 <= y < 336
    # The last row runs past the bottom of the screen: [0,2282][1080,2513] is cut at 2400, and so is its
    # summary, [189,2392][791,2471].
    listing = find([window], role="list")
    assert listing["children"][2]["bounds"] == [0.0, 950.833, 1000.0, 1000.0]
    summary = find([window], name="Assistant, recent apps, default apps")
    assert summary["bounds"] == [175.0, 996.667, 732.407, 1000.0]


def test_roles_names_values_and_states_of_a_form() -> None:
    [window] = dump("window_form.xml")
    nodes = {node.get("resource_id") or node["name"]: node for node in walk(window["children"])}
    up = nodes["Navigate up"]
    assert (up["role"], up["value"]) == ("push button", None)  # named by its content description
    assert up["states"] == ["enabled", "sensitive", "focusable", "clickable", "showing", "visible"]
    email = nodes["com.example.notes:id/email"]
    assert (email["role"], email["name"], email["value"]) == ("text", "Email", "ada@example.com")
    assert email["states"] == ["enabled", "sensitive", "focusable", "focused", "clickable", "long_clickable",
                               "showing", "visible", "editable"]  # fmt: skip
    password = nodes["com.example.notes:id/password"]
    assert (password["role"], password["name"]) == ("password text", "")
    remember = nodes["com.example.notes:id/remember"]
    assert (remember["role"], remember["name"]) == ("check box", "Remember me")
    assert {"checkable", "checked"} <= set(remember["states"])
    sync = nodes["Sync over mobile data"]
    assert sync["role"] == "toggle button" and "checkable" in sync["states"] and "checked" not in sync["states"]
    sign_in = nodes["com.example.notes:id/sign_in"]
    assert sign_in["role"] == "push button" and "enabled" not in sign_in["states"]
    assert "sensitive" not in sign_in["states"]
    badge = next(node for node in walk(window["children"]) if node["class"] == "com.example.notes.widget.BadgeView")
    assert badge["role"] == "badgeview"  # a class AT-SPI has no role for: its short name
    assert badge["bounds"] is None  # [10,10][10,10]: nothing on screen


def test_bounds_past_the_screen_are_cut_to_it() -> None:
    [window] = dump("window_form.xml")
    naf = next(node for node in walk(window["children"]) if node["class"] == "android.view.View")
    # [900,2300][1200,2560]: cut to [900,2300][1080,2400]
    assert naf["bounds"] == [833.333, 958.333, 1000.0, 1000.0]


def test_the_tree_reads_as_osworld_xml() -> None:
    xml = to_osworld_xml(dump("window_form.xml"), 1080, 2400)
    assert '<application name="com.example.notes">' in xml
    assert 'name="Email"' in xml and ">ada@example.com<" in xml


@pytest.mark.parametrize(
    ("xml", "says"),
    [
        (b"", "not XML"),
        (b"ERROR: null root node returned by UiTestAutomationBridge.", "not XML"),
        (b"<?xml version='1.0' ?><window />", "holds <window>, not <hierarchy>"),
    ],
)
def test_what_is_not_a_hierarchy_is_an_error_quoting_it(xml: bytes, says: str) -> None:
    with pytest.raises(HierarchyError, match=says):
        parse_hierarchy(xml, 1080, 2400)


def test_the_session_dumps_to_a_file_and_reads_it_back(adb: FakeAdb) -> None:
    adb.load(
        adb.connect(),
        adb.shell(DUMP_COMMAND, file="dump_ok.txt"),
        adb.exec_out("cat /data/local/tmp/cua_window_dump.xml", file="window_settings.xml"),
    )
    session = AndroidSession.connect(str(adb.path))
    tree = asyncio.run(session.accessibility_tree())
    assert tree == dump("window_settings.xml")
    assert adb.calls()[2:] == [
        ["-s", "emulator-5554", "shell", DUMP_COMMAND],
        ["-s", "emulator-5554", "exec-out", "cat /data/local/tmp/cua_window_dump.xml"],
    ]
    adb.check()


def test_find_reads_the_tree_again(adb: FakeAdb) -> None:
    adb.load(
        adb.connect(),
        adb.shell(DUMP_COMMAND, file="dump_ok.txt", repeat=True),
        adb.exec_out("cat /data/local/tmp/cua_window_dump.xml", file="window_form.xml", repeat=True),
    )
    session = AndroidSession.connect(str(adb.path))
    button = asyncio.run(session.find(role="push button", name="Sign in"))
    assert button["resource_id"] == "com.example.notes:id/sign_in"
    assert asyncio.run(session.find(resource_id="com.example.notes:id/email"))["value"] == "ada@example.com"
    assert len(adb.calls()) == 2 + 4  # two dumps, each read back


def test_a_dump_that_fails_is_an_error_and_no_stale_file_is_read(adb: FakeAdb) -> None:
    adb.load(adb.connect(), adb.shell(DUMP_COMMAND, file="dump_idle.txt"))
    session = AndroidSession.connect(str(adb.path))
    with pytest.raises(HierarchyError, match=r"`uiautomator dump` failed on emulator-5554: 'ERROR: could not get idle"):
        asyncio.run(session.accessibility_tree())
    adb.check()  # and no `cat`: the fake would have failed the test on it
