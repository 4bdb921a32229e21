"""The macOS session against macOS's answers as Apple documents them (fixtures/README.md): no Mac runs here, so
``RecordedMacApi`` answers each ``MacApi`` call from the fixtures and keeps what the session asked. Files are
real files in a home and /tmp made for the test (the session's file calls are plain POSIX ones)."""

from __future__ import annotations

import asyncio
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from cua_bench import BackendError, CommandFailed
from cua_bench_macos import AXElement, LaunchError, MacApi, MacSession, WindowInfo, element_from, window_from
from cua_bench_macos.macapi import KeyEvent, MouseEvent, QuartzEvent
from cua_core import Click, KeyDown, KeyPress, Point, SecurityError, TypeText

FIXTURES = Path(__file__).parent / "fixtures"
DESKTOP = json.loads((FIXTURES / "desktop.json").read_text())
COMMANDS = json.loads((FIXTURES / "commands.json").read_text())["runs"]
TEXTEDIT, FINDER = 812, 402


class RecordedMacApi:
    """Answers from the fixtures; keeps the events, commands and window calls it was given."""

    def __init__(self, capture: tuple[int, int] = (1024, 768)) -> None:
        self.screen: tuple[float, float] = (float(DESKTOP["screen"][0]), float(DESKTOP["screen"][1]))
        self.listed = [window_from(info) for info in DESKTOP["windows"]]
        self.ax = {int(pid): [element_from(w) for w in tree] for pid, tree in DESKTOP["ax"].items()}
        self.trust: tuple[bool, bool] = (bool(DESKTOP["trusted"][0]), bool(DESKTOP["trusted"][1]))
        self.front = int(DESKTOP["frontmost_pid"])
        self.capture = capture
        self.posted: list[list[QuartzEvent]] = []
        self.commands: list[tuple[list[str], float, str]] = []
        self.activated: list[int] = []
        self.closed: list[int] = []
        self.opens: dict[str, dict[str, Any]] = {}  # app -> the window `open -a` makes appear
        self.ignores_term: set[int] = set()

    def post(self, events: Sequence[QuartzEvent]) -> None:
        self.posted.append(list(events))

    def screen_size(self) -> tuple[float, float]:
        return self.screen

    def cursor_pos(self) -> tuple[float, float]:
        return (10.0, 20.0)

    def capture_png(self) -> bytes:
        pixels = np.zeros((self.capture[1], self.capture[0], 3), np.uint8)
        pixels[0, 0] = (255, 0, 0)
        out = io.BytesIO()
        Image.fromarray(pixels).save(out, format="PNG")
        return out.getvalue()

    def windows(self) -> list[WindowInfo]:
        return list(self.listed)

    def ax_windows(self, pid: int, depth: int | None) -> list[AXElement]:
        return self.ax.get(pid, [])

    def frontmost_pid(self) -> int:
        return self.front

    def activate(self, pid: int) -> None:
        self.activated.append(pid)

    def close_window(self, window: WindowInfo) -> bool:
        self.closed.append(window.number)
        self.listed = [w for w in self.listed if w.number != window.number]
        return True

    def run(self, argv: Sequence[str], timeout: float, cwd: str) -> tuple[int, bytes, bytes]:
        self.commands.append((list(argv), timeout, cwd))
        for recorded in COMMANDS:
            if recorded["argv"] == list(argv):
                return recorded["exit"], recorded["stdout"].encode(), recorded["stderr"].encode()
        if argv[:2] == ["/usr/bin/open", "-a"] and argv[2] in self.opens:
            self.listed.insert(0, window_from(self.opens[argv[2]]))
            return 0, b"", b""
        if argv[:2] == ["/usr/bin/open", "-a"]:
            return 1, b"", f"Unable to find application named '{argv[2]}'\n".encode()
        if argv[0] == "/bin/kill":
            pids = {int(p) for p in argv[2:]}
            if argv[1] == "-TERM":
                pids -= self.ignores_term
            self.listed = [w for w in self.listed if w.pid not in pids]
        return 0, b"", b""

    def env(self, name: str) -> str | None:
        return {"HOME": "/Users/lume"}.get(name)

    def trusted(self) -> tuple[bool, bool]:
        return self.trust


def session(tmp_path: Path, api: RecordedMacApi | None = None, size: tuple[int, int] = (1024, 768)) -> MacSession:
    api = api or RecordedMacApi()
    recorded: MacApi = api  # the fake satisfies the protocol (mypy checks it here)
    home, tmp = tmp_path / "Users" / "lume", tmp_path / "private" / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    return MacSession(recorded, width=size[0], height=size[1], home=str(home), tmp=str(tmp))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_windows_are_the_apps_windows_front_first_with_the_front_apps_focused(tmp_path: Path) -> None:
    rows = run(session(tmp_path).windows())
    assert rows == [
        {
            "id": "97",
            "title": "Untitled",
            "app": "TextEdit",
            "bounds": [97.656, 104.167, 683.594, 690.104],
            "focused": True,
        },
        {
            "id": "45",
            "title": "Documents",
            "app": "Finder",
            "bounds": [195.312, 195.312, 878.906, 742.188],
            "focused": False,
        },
    ]  # fmt: skip  (the Dock and the menu bar are the system's, not windows)


def test_the_accessibility_tree_is_one_node_per_window_with_at_spi_roles(tmp_path: Path) -> None:
    nodes = run(session(tmp_path).accessibility_tree())
    assert [(n["role"], n["name"], n["app"], n["id"]) for n in nodes] == [
        ("window", "Untitled", "TextEdit", "97"), ("window", "Documents", "Finder", "45")
    ]  # fmt: skip
    text = nodes[0]["children"][0]["children"][0]
    assert text["role"] == "text" and text["value"] == "Hello from TextEdit"
    assert {"focused", "editable", "enabled"} <= set(text["states"])
    close = nodes[0]["children"][1]
    assert (close["role"], close["name"]) == ("push button", "close button")  # AXDescription names it
    assert close["bounds"] == [104.492, 111.979, 118.164, 132.812]  # AXPosition/AXSize in points, over the screen's
    assert "focused" in nodes[0]["states"] and "focused" not in nodes[1]["states"]
    toolbar = nodes[1]["children"][0]["children"]
    assert (toolbar[0]["name"], "enabled" in toolbar[0]["states"]) == ("Back", False)
    assert (toolbar[1]["role"], "checked" in toolbar[1]["states"], toolbar[1]["value"]) == ("check box", True, None)
    row = nodes[1]["children"][1]["children"][0]["children"][0]["children"][0]
    assert row["role"] == "table row" and "selected" in row["states"]
    name = nodes[1]["children"][1]["children"][2]["children"][0]["children"][0]
    assert (name["role"], name["value"], "read_only" in name["states"]) == ("text", "notes.txt", True)


def test_a_window_the_ax_api_does_not_list_is_a_bare_node(tmp_path: Path) -> None:
    api = RecordedMacApi()
    api.ax[FINDER] = []
    nodes = run(session(tmp_path, api).accessibility_tree())
    assert nodes[1] == {"role": "window", "name": "Documents", "bounds": [195.312, 195.312, 878.906, 742.188],
                        "states": ["showing"], "value": None, "children": [], "app": "Finder", "id": "45"}  # fmt: skip


def test_a_click_is_a_move_then_a_press_and_release_at_the_pixels_centre(tmp_path: Path) -> None:
    mac = session(tmp_path)
    api: Any = mac.api
    assert run(mac.apply([Click(Point(500, 500)), Click(Point(0, 0), button="right", clicks=2)])) == [None, None]
    assert api.posted[0] == [
        MouseEvent(5, 512.5, 384.5),
        MouseEvent(1, 512.5, 384.5, 0, 1),
        MouseEvent(2, 512.5, 384.5, 0, 1),
    ]
    assert api.posted[1] == [MouseEvent(5, 0.5, 0.5), MouseEvent(3, 0.5, 0.5, 1, 1), MouseEvent(4, 0.5, 0.5, 1, 1),
                             MouseEvent(3, 0.5, 0.5, 1, 2), MouseEvent(4, 0.5, 0.5, 1, 2)]  # fmt: skip


def test_on_a_retina_capture_pixels_become_points(tmp_path: Path) -> None:
    mac = session(tmp_path, RecordedMacApi(capture=(2048, 1536)), size=(2048, 1536))
    run(mac.apply([Click(Point(500, 500))]))
    assert mac.api.posted[0][0] == MouseEvent(5, 512.25, 384.25)  # type: ignore[attr-defined]
    assert Image.open(io.BytesIO(run(mac.screenshot()))).size == (2048, 1536)


def test_text_is_unicode_events_and_a_chord_carries_its_modifier_flags(tmp_path: Path) -> None:
    mac = session(tmp_path)
    api: Any = mac.api
    run(mac.apply([TypeText("Hé", press_enter=True), KeyPress(("cmd", "s")), KeyPress(("cmd", "+"))]))
    assert api.posted[0] == [KeyEvent(0, True, 0, "H"), KeyEvent(0, False, 0, "H"), KeyEvent(0, True, 0, "é"),
                             KeyEvent(0, False, 0, "é"), KeyEvent(0x24, True), KeyEvent(0x24, False)]  # fmt: skip
    command, shift = 0x100000, 0x20000
    assert api.posted[1] == [KeyEvent(0x37, True, command), KeyEvent(0x01, True, command),
                             KeyEvent(0x01, False, command), KeyEvent(0x37, False, 0)]  # fmt: skip
    assert api.posted[2] == [KeyEvent(0x37, True, command), KeyEvent(0x38, True, command | shift),
                             KeyEvent(0x18, True, command | shift), KeyEvent(0x18, False, command | shift),
                             KeyEvent(0x38, False, command), KeyEvent(0x37, False, 0)]  # fmt: skip


def test_a_held_key_is_released_by_reset_and_refused_twice(tmp_path: Path) -> None:
    mac = session(tmp_path)
    api: Any = mac.api
    assert run(mac.apply([KeyDown("shift"), KeyDown("shift")])) == [
        None,
        "key_down: 'shift' is already held; send key_up first",
    ]
    run(mac.reset())
    assert KeyEvent(0x38, False, 0) in api.posted[-2]
    assert api.posted[-1] == [MouseEvent(5, 512.5, 384.5)]  # the pointer centred


def test_the_screenshot_is_the_capture_and_a_frame_its_pixels(tmp_path: Path) -> None:
    mac = session(tmp_path)
    png = run(mac.screenshot())
    assert png == mac.api.capture_png()  # the right size already: sent as macOS made it
    frame = mac.frame()
    assert frame.shape == (768, 1024, 3) and tuple(frame[0, 0]) == (255, 0, 0)


def test_commands_run_in_bash_from_home(tmp_path: Path) -> None:
    mac = session(tmp_path)
    api: Any = mac.api
    result = run(mac.run_command("sw_vers -productVersion"))
    assert (result.returncode, result.stdout) == (0, "15.2\n")
    assert api.commands[-1] == (["/bin/bash", "-c", "sw_vers -productVersion"], 30.0, mac.home)
    with pytest.raises(CommandFailed, match="No such file or directory"):
        run(mac.run_command("ls /nonexistent", check=True))
    assert run(mac.clipboard()) == "copied text"


def test_files_live_in_home_and_tmp_and_nowhere_else(tmp_path: Path) -> None:
    mac = session(tmp_path)
    run(mac.write_file("/home/user/Desktop/note.txt", "hi"))
    run(mac.write_file("/tmp/scratch.bin", b"\x00\x01"))
    assert (Path(mac.home) / "Desktop" / "note.txt").read_text() == "hi"
    assert (tmp_path / "private" / "tmp" / "scratch.bin").read_bytes() == b"\x00\x01"
    assert run(mac.read_file("~/Desktop/note.txt")) == "hi" and run(mac.file_exists("Desktop/note.txt"))
    assert run(mac.list_dir("Desktop")) == ["note.txt"] and run(mac.directory_exists("/home/user/Desktop"))
    os.symlink("/etc", Path(mac.home) / "etc-link")
    for outside in ("../../../etc/passwd", "/etc/passwd", "etc-link/passwd"):
        with pytest.raises(SecurityError, match="outside the user's home and /tmp"):
            run(mac.read_bytes(outside))


def test_launch_opens_the_app_and_returns_its_new_window(tmp_path: Path) -> None:
    api = RecordedMacApi()
    api.opens["Terminal"] = {"kCGWindowNumber": 130, "kCGWindowOwnerPID": 990, "kCGWindowOwnerName": "Terminal",
                             "kCGWindowName": "lume — -zsh — 80×24", "kCGWindowLayer": 0,
                             "kCGWindowBounds": {"X": 50, "Y": 60, "Width": 570, "Height": 380}}  # fmt: skip
    mac = session(tmp_path, api)
    assert run(mac.launch("terminal")) == "130"
    assert api.commands[-1][0] == ["/usr/bin/open", "-a", "Terminal"] and api.activated == [990]
    with pytest.raises(LaunchError, match="Unable to find application named 'Pages'"):
        run(mac.launch("Pages", args=["a.pages"]))
    assert api.commands[-1][0] == ["/usr/bin/open", "-a", "Pages", "--args", "a.pages"]


def test_reset_kills_the_apps_the_episode_opened_and_closes_finder_windows(tmp_path: Path) -> None:
    api = RecordedMacApi()
    api.listed = [w for w in api.listed if w.owner != "Finder"]  # the episode starts with TextEdit alone
    mac = session(tmp_path, api)
    api.listed.insert(0, window_from({"kCGWindowNumber": 150, "kCGWindowOwnerPID": 402, "kCGWindowOwnerName": "Finder",
                                      "kCGWindowName": "Downloads", "kCGWindowLayer": 0}))  # fmt: skip
    api.listed.insert(0, window_from({"kCGWindowNumber": 160, "kCGWindowOwnerPID": 1200, "kCGWindowOwnerName": "Preview",
                                      "kCGWindowName": "a.pdf", "kCGWindowLayer": 0}))  # fmt: skip
    api.ignores_term.add(1200)
    run(mac.reset())
    assert api.closed == [150]
    assert [c[0] for c in api.commands] == [["/bin/kill", "-TERM", "1200"], ["/bin/kill", "-KILL", "1200"]]
    assert [w.number for w in api.windows()] == [97, 21, 3]  # TextEdit, there before the episode, stays


def test_a_process_macos_has_not_allowed_is_refused_naming_the_settings(tmp_path: Path) -> None:
    api = RecordedMacApi()
    api.trust = (True, False)
    with pytest.raises(BackendError, match=r"not allowed .* Screen Recording: allow it in System Settings"):
        session(tmp_path, api)
