"""The Windows session against Windows' answers as Microsoft documents them (windows_fixtures/README.md):
no Windows machine runs here, so ``RecordedWinApi`` answers each ``WinApi`` call from the fixtures and keeps
what the session asked. The INPUT structures are packed by the real ``input_array`` (x64 layout)."""

from __future__ import annotations

import asyncio
import ctypes
import json
import ntpath
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cua_bench import BackendError, CommandFailed, NotSupported
from cua_bench_libvirt import LibvirtBackend, LibvirtWindowsBackend
from cua_bench_libvirt.windows import (
    CtypesApi,
    Input,
    LaunchError,
    UiaElement,
    WinApi,
    WindowsSession,
    element_from,
    input_array,
)
from cua_bench_libvirt.windows.ctypes_api import INPUT, KEYBDINPUT, MOUSEINPUT
from cua_bench_libvirt.windows.keys import chord_keys
from cua_core import Click, KeyDown, KeyPress, MouseUp, Point, Scroll, SecurityError, TypeText

FIXTURES = Path(__file__).parent / "windows_fixtures"
DESKTOP = json.loads((FIXTURES / "notepad_uia.json").read_text(encoding="utf-8"))
SENDINPUT = json.loads((FIXTURES / "sendinput.json").read_text(encoding="utf-8"))
VKSCAN = json.loads((FIXTURES / "vkkeyscan.json").read_text(encoding="utf-8"))["answers"]
POWERSHELL = json.loads((FIXTURES / "powershell.json").read_text(encoding="utf-8"))
HOME, TEMP = DESKTOP["env"]["USERPROFILE"], DESKTOP["env"]["TEMP"]
NOTEPAD = 658220


def _truncate(element: UiaElement, depth: int | None) -> UiaElement:
    if depth is None:
        return element
    children = [_truncate(child, depth - 1) for child in element.children] if depth > 0 else []
    return UiaElement(**{**element.__dict__, "children": children})


class RecordedWinApi:
    """Answers from the fixtures; keeps the inputs, commands and window calls it was given."""

    def __init__(self) -> None:
        self.screen = tuple(DESKTOP["screen"])
        self.modes = {self.screen, (1280, 800)}
        self.root = element_from(DESKTOP["root"])
        self.inputs: list[list[Input]] = []
        self.commands: list[tuple[list[str], float, str]] = []
        self.closed: list[int] = []
        self.activated: list[int] = []
        self.files: dict[str, bytes] = {}
        self.links = {ntpath.normcase(f"{HOME}\\Documents\\system"): "C:\\Windows\\System32"}  # a junction
        self.started_window: dict[str, Any] | None = None  # what Start-Process makes appear

    def send_input(self, events: Sequence[Input]) -> int:
        self.inputs.append(list(events))
        return len(events)

    def screen_size(self) -> tuple[int, int]:
        return self.screen  # type: ignore[return-value]

    def set_screen_size(self, width: int, height: int) -> bool:
        if (width, height) in self.modes:
            self.screen = (width, height)
        return self.screen == (width, height)

    def cursor_pos(self) -> tuple[int, int]:
        return (512, 384)

    def vk_scan(self, char: str) -> int:
        return int(VKSCAN.get(char, -1))

    def grab(self, left: int, top: int, width: int, height: int) -> bytes:
        pixels = np.zeros((height, width, 4), np.uint8)
        pixels[0, 0] = (255, 0, 0, 255)  # BGRA: blue
        pixels[0, 1] = (0, 0, 255, 255)  # BGRA: red
        return pixels.tobytes()

    def uia_root(self, depth: int | None = None) -> UiaElement:
        return _truncate(self.root, depth)

    def foreground_window(self) -> int:
        return int(DESKTOP["foreground_window"])

    def activate(self, hwnd: int) -> None:
        self.activated.append(hwnd)

    def close_window(self, hwnd: int) -> None:
        self.closed.append(hwnd)
        self.root.children = [w for w in self.root.children if w.native_window_handle != hwnd]

    def run(self, argv: Sequence[str], timeout: float, cwd: str) -> tuple[int, bytes, bytes]:
        self.commands.append((list(argv), timeout, cwd))
        if argv[0] == "powershell.exe" and argv[-1].endswith(POWERSHELL["command"]):
            return POWERSHELL["returncode"], POWERSHELL["stdout"].encode(), POWERSHELL["stderr"].encode()
        if argv[0] == "powershell.exe" and "Start-Process" in argv[-1]:
            if self.started_window is not None:
                self.root.children.insert(0, element_from(self.started_window))
            return 0, b"6060\r\n", b""
        if argv[0] == "taskkill.exe":
            pid = int(argv[-1])
            self.root.children = [w for w in self.root.children if w.process_id != pid]
        return (1 if argv[0] == "robocopy.exe" else 0), b"", b""  # robocopy: 1 is "files were copied"

    def env(self, name: str) -> str | None:
        return str(DESKTOP["env"].get(name)) if name in DESKTOP["env"] else None

    def realpath(self, path: str) -> str:
        normal = ntpath.normpath(path)
        for link, target in self.links.items():
            if ntpath.normcase(normal) == link or ntpath.normcase(normal).startswith(link + "\\"):
                return target + normal[len(link) :]
        return normal

    def read_bytes(self, path: str) -> bytes:
        if ntpath.normcase(path) not in self.files:
            raise FileNotFoundError(path)
        return self.files[ntpath.normcase(path)]

    def write_bytes(self, path: str, data: bytes) -> None:
        self.files[ntpath.normcase(path)] = data

    def is_file(self, path: str) -> bool:
        return ntpath.normcase(path) in self.files

    def is_dir(self, path: str) -> bool:
        return ntpath.basename(path) in ("Desktop", "Documents", "Downloads")

    def list_dir(self, path: str) -> list[str]:
        return []


def session(api: RecordedWinApi | None = None) -> tuple[WindowsSession, RecordedWinApi]:
    api = api or RecordedWinApi()
    recorded: WinApi = api  # the fake satisfies the protocol (mypy checks it here)
    return WindowsSession(recorded, width=1024, height=768), api


def structs(events: Sequence[Input]) -> list[dict[str, Any]]:
    """The INPUT structures as SendInput reads them, through the real ctypes layout."""
    out = []
    for entry in input_array(events):
        name, kind = ("mi", MOUSEINPUT) if entry.type == 0 else ("ki", KEYBDINPUT)
        fields = getattr(entry.u, name)
        out.append({"type": entry.type, name: {f: getattr(fields, f) for f, _ in kind._fields_}})
    return out


def test_the_input_structure_has_windows_x64_layout() -> None:
    assert ctypes.sizeof(INPUT) == 40 and INPUT.u.offset == 8
    assert ctypes.sizeof(MOUSEINPUT) == 32 and MOUSEINPUT.dwExtraInfo.offset == 24
    assert ctypes.sizeof(KEYBDINPUT) == 24 and KEYBDINPUT.dwFlags.offset == 4


def test_a_click_is_an_absolute_move_then_the_button_down_and_up() -> None:
    windows, api = session()
    assert asyncio.run(windows.apply([Click(Point(500, 500))])) == [None]
    [events] = api.inputs
    assert structs(events) == SENDINPUT["click_500_500_on_1024x768"]
    raw = bytes(input_array(events)[0])  # as SendInput reads the memory: type, padding, dx, dy
    assert int.from_bytes(raw[0:4], "little") == 0 and int.from_bytes(raw[8:12], "little") == 32800


def test_typing_sends_unicode_units_and_a_chord_sends_virtual_keys_in_order() -> None:
    windows, api = session()
    asyncio.run(windows.apply([TypeText("Hé"), KeyPress(("ctrl", "s")), Scroll("down", 2, Point(0, 0))]))
    typed, chord, scrolled = api.inputs
    assert structs(typed) == SENDINPUT["type_He_acute"]
    assert structs(chord) == SENDINPUT["key_ctrl_s"]
    assert structs(scrolled) == SENDINPUT["scroll_down_2_at_0_0"]


def test_a_glyph_takes_the_modifiers_its_layout_needs_or_is_sent_as_a_character() -> None:
    windows, api = session()
    asyncio.run(windows.apply([KeyPress(("ctrl", "+")), KeyPress(("shift", "home")), TypeText("a\r\nb😀")]))
    plus, home, text = ([(e.vk, e.scan, e.flags) for e in events] for events in api.inputs)  # type: ignore[union-attr]
    # VkKeyScanW('+') = 0x01BB: VK_OEM_PLUS with Shift, pressed inside ctrl and released before it.
    assert plus == [(0x11, 0, 0), (0x10, 0, 0), (0xBB, 0, 0), (0xBB, 0, 2), (0x10, 0, 2), (0x11, 0, 2)]
    assert home == [(0x10, 0, 0), (0x24, 0, 1), (0x24, 0, 3), (0x10, 0, 2)]  # Home is an extended key
    enter, surrogates = [(0x0D, 0, 0), (0x0D, 0, 2)], [(0, 0xD83D, 4), (0, 0xD83D, 6), (0, 0xDE00, 4), (0, 0xDE00, 6)]
    assert text == [(0, 97, 4), (0, 97, 6), *enter, (0, 98, 4), (0, 98, 6), *surrogates]  # CRLF: one Enter
    # A layout with no key for a glyph (VkKeyScanW answers -1): the character itself.
    downs, ups = chord_keys(("ctrl", "~"), lambda char: -1)
    assert [(e.vk, e.scan, e.flags) for e in downs + ups] == [(0x11, 0, 0), (0, 0x7E, 4), (0, 0x7E, 6), (0x11, 0, 2)]


def test_held_keys_and_buttons_are_remembered_and_misuse_is_a_reason() -> None:
    windows, api = session()
    errors = asyncio.run(windows.apply([KeyDown("shift"), KeyDown("shift"), MouseUp("left")]))
    assert errors[0] is None and "already held" in str(errors[1]) and "not down" in str(errors[2])
    api.inputs.clear()
    asyncio.run(windows.reset())
    released = [e for batch in api.inputs for e in batch]
    assert (released[0].vk, released[0].flags) == (0x10, 2)  # type: ignore[union-attr]  # shift let go at reset


def test_the_notepad_tree_becomes_our_nodes() -> None:
    windows, _ = session()
    tree = asyncio.run(windows.accessibility_tree())
    assert [(n["role"], n["name"], n["app"], n["id"]) for n in tree] == [
        ("window", "Untitled - Notepad", "notepad", "0xa0b2c"),
        ("window", "notes.txt - Notepad", "notepad", "0xb0d3d"),
        ("panel", "Taskbar", "explorer", "0x10116"),
    ]  # Program Manager (the desktop's wallpaper) is no window
    notepad, minimised, taskbar = tree
    assert notepad["bounds"] == [97.656, 65.104, 722.656, 690.104]
    assert notepad["states"] == ["enabled", "sensitive", "focusable", "showing", "visible", "focused"]
    edit, title_bar, menu_bar = notepad["children"]
    assert (edit["role"], edit["name"], edit["value"]) == ("text", "Text Editor", "Hello from Windows")
    assert edit["states"] == ["enabled", "sensitive", "focusable", "focused", "showing", "visible", "editable"]
    assert [(c["role"], c["name"]) for c in title_bar["children"]] == [
        ("menu bar", "System Menu Bar"), ("push button", "Minimize"), ("push button", "Maximize"),
        ("push button", "Close"),
    ]  # fmt: skip
    assert title_bar["role"] == "title bar" and menu_bar["role"] == "menu bar"
    assert [c["name"] for c in menu_bar["children"]] == ["File", "Edit", "Format", "View", "Help"]
    assert {c["role"] for c in menu_bar["children"]} == {"menu item"}
    assert minimised["children"] == [] and "showing" not in minimised["states"]  # off screen: nothing to act on
    assert taskbar["children"][0]["name"] == "Start"
    close = asyncio.run(windows.find(role="push button", name="Close"))
    assert close["bounds"] == [669.922, 66.406, 714.844, 105.469]


def test_windows_lists_app_windows_with_their_handles_front_first() -> None:
    windows, _ = session()
    rows = asyncio.run(windows.windows())
    assert [(r["id"], r["title"], r["app"], r["focused"]) for r in rows] == [
        ("0xa0b2c", "Untitled - Notepad", "notepad", True),
        ("0xb0d3d", "notes.txt - Notepad", "notepad", False),
    ]


def test_run_command_is_powershell_from_home_with_windows_output_and_exit_code() -> None:
    windows, api = session()
    result = asyncio.run(windows.run_command(POWERSHELL["command"], timeout=20))
    assert result.returncode == 1 and result["return_code"] == 1 and not result["success"]
    assert result.stdout == "Desktop\r\nDocuments\r\nDownloads\r\n"  # as Windows writes it: CRLF kept
    assert result.stdout.splitlines() == ["Desktop", "Documents", "Downloads"]
    assert "ItemNotFoundException" in result.stderr
    argv, timeout, cwd = api.commands[-1]
    assert argv[:4] == ["powershell.exe", "-NoProfile", "-NonInteractive", "-Command"]
    assert "UTF8Encoding $false" in argv[4] and (timeout, cwd) == (20, HOME)
    with pytest.raises(CommandFailed, match="exited with code 1"):
        asyncio.run(windows.run_command(POWERSHELL["command"], check=True))


@pytest.mark.parametrize(
    "path",
    ["C:\\Windows\\win.ini", "..\\..\\..\\Windows\\win.ini", "~/../Public/x", "Documents\\system\\drivers\\etc\\hosts",
     "\\\\server\\share\\x", "C:notes.txt", "\\Windows\\win.ini", "D:\\data.txt", "/etc/passwd"],
)  # fmt: skip
def test_a_path_outside_home_and_temp_is_refused(path: str) -> None:
    windows, api = session()
    with pytest.raises(SecurityError):
        asyncio.run(windows.write_file(path, "x"))
    assert api.files == {}


def test_paths_in_home_and_temp_take_windows_and_linux_spellings() -> None:
    windows, api = session()
    asyncio.run(windows.write_file("Documents/a.txt", "one"))
    asyncio.run(windows.write_file("/tmp/answer.txt", b"two"))
    asyncio.run(windows.write_file("C:\\USERS\\CUA\\Desktop\\b.txt", "three"))  # Windows paths ignore case
    asyncio.run(windows.write_file("/home/user/c.txt", "four"))
    assert sorted(api.files) == sorted(ntpath.normcase(p) for p in (
        f"{HOME}\\Documents\\a.txt", f"{TEMP}\\answer.txt", f"{HOME}\\Desktop\\b.txt", f"{HOME}\\c.txt"))  # fmt: skip
    assert asyncio.run(windows.read_file("~\\Documents\\a.txt")) == "one"
    assert asyncio.run(windows.file_exists(f"{TEMP}\\answer.txt"))
    assert not asyncio.run(windows.file_exists("missing.txt"))


def test_the_frame_is_rgb_from_windows_bgra() -> None:
    windows, _ = session()
    frame = windows.frame()
    assert frame.shape == (768, 1024, 3) and frame.flags["C_CONTIGUOUS"]
    assert frame[0, 0].tolist() == [0, 0, 255] and frame[0, 1].tolist() == [255, 0, 0]
    assert asyncio.run(windows.screenshot()).startswith(b"\x89PNG")


def test_launch_waits_for_the_new_window_and_reset_removes_what_the_episode_opened() -> None:
    windows, api = session()
    api.started_window = {
        "ControlType": 50032, "Name": "Calculator", "ClassName": "ApplicationFrameWindow",
        "BoundingRectangle": [200, 100, 520, 600], "ProcessId": 7070, "NativeWindowHandle": 852000,
        "ProcessName": "C:\\Windows\\System32\\ApplicationFrameHost.exe",
    }  # fmt: skip
    assert asyncio.run(windows.launch("calc", args=["a b"])) == "0xd0020"  # calc.exe (6060) handed over
    command = api.commands[-1][0][-1]
    assert "Start-Process -FilePath 'calc.exe' -PassThru -ArgumentList '\"a b\"'" in command
    assert api.activated == [852000]
    api.started_window = None
    api.commands.clear()
    asyncio.run(windows.reset())
    ran = [argv for argv, _, _ in api.commands]
    # A window of the shell's frame host is asked to close; the launcher's pid is killed with its tree.
    assert api.closed == [852000] and ["taskkill.exe", "/F", "/T", "/PID", "6060"] in ran
    assert ["taskkill.exe", "/F", "/T", "/PID", "4242"] not in ran  # Notepad was there before: it stays
    restored = [argv[1:3] for argv in ran if argv[0] == "robocopy.exe"]
    assert restored == [[f"C:\\cua\\skel\\{f}", f"{HOME}\\{f}"] for f in ("Desktop", "Documents", "Downloads")]
    assert any("Remove-Item" in argv[-1] and "StartsWith('cua-')" in argv[-1] for argv in ran)
    assert [(e.dx, e.dy) for e in api.inputs[-1]] == [(32800, 32810)]  # type: ignore[union-attr]  # centred


def test_a_launch_that_shows_no_window_names_the_app() -> None:
    windows, _ = session()
    with pytest.raises(LaunchError, match=r"notepad \(pid 6060\) showed no window within 0.2 s"):
        asyncio.run(windows.launch("notepad", timeout=0.2))


def test_the_screen_is_set_to_the_asked_size_or_refused_by_name() -> None:
    api = RecordedWinApi()
    windows = WindowsSession(api, width=1280, height=800)
    assert (windows.width, windows.height, api.screen) == (1280, 800, (1280, 800))
    with pytest.raises(NotSupported, match="refused 1600x900"):
        asyncio.run(windows.resize(1600, 900))
    with pytest.raises(BackendError, match="is 1280x800 and refused 800x600"):
        WindowsSession(api, width=800, height=600)


def test_the_backend_serves_no_session_outside_a_windows_guest() -> None:
    with pytest.raises(BackendError, match="runs inside a Windows guest only"):
        LibvirtWindowsBackend.create_session(width=1024, height=768)
    with pytest.raises(
        BackendError, match="guests serve --backend local; Windows guests serve --backend libvirt-windows"
    ):
        LibvirtBackend.create_session(width=1024, height=768)
    with pytest.raises(AttributeError):  # the real API needs Windows' DLLs: nothing of it loads here
        CtypesApi()
