"""``CtypesApi``: the real ``WinApi``, user32 through ctypes and UI Automation through comtypes.

Importable anywhere (the session's tests import the INPUT layout from here): Windows' DLLs, mss and
comtypes are loaded when a ``CtypesApi`` is made, which only happens inside a Windows guest. The
INPUT structures use fixed-width fields (``c_int32`` where winuser.h says LONG), so their layout is
the x64 one on any 64-bit host and ``input_array`` can be checked here: 40 bytes an INPUT, the union
at offset 8, as Windows x64 has it.

UI Automation is a COM API: each thread that calls it must have joined a COM apartment, and the
server calls from asyncio's worker threads. So every UIA call runs on one thread of this object's
own, which joins the multithreaded apartment once and keeps the CUIAutomation object. The tree is
read with cache requests (one cross-process call per window, not one per property) in UIA's control
view, the elements a person sees as controls.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cua_bench_libvirt.windows.uia import MAX_NODES
from cua_bench_libvirt.windows.winapi import INPUT_KEYBOARD, INPUT_MOUSE, Input, MouseInput, UiaElement, element_from

__all__ = ["INPUT", "CtypesApi", "input_array"]

CREATE_NO_WINDOW = 0x08000000  # subprocess's constant exists on Windows only
WM_CLOSE = 0x0010
SW_RESTORE = 9
ENUM_CURRENT_SETTINGS = -1
DM_PELSWIDTH, DM_PELSHEIGHT = 0x00080000, 0x00100000
PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2 = -4
TREE_SCOPE_ELEMENT, TREE_SCOPE_CHILDREN, TREE_SCOPE_SUBTREE = 1, 2, 7
AUTOMATION_ELEMENT_MODE_NONE = 0  # cached properties only: no live reference kept per element


class MOUSEINPUT(ctypes.Structure):
    _fields_ = [("dx", ctypes.c_int32), ("dy", ctypes.c_int32), ("mouseData", ctypes.c_uint32),
                ("dwFlags", ctypes.c_uint32), ("time", ctypes.c_uint32), ("dwExtraInfo", ctypes.c_size_t)]  # fmt: skip


class KEYBDINPUT(ctypes.Structure):
    _fields_ = [("wVk", ctypes.c_uint16), ("wScan", ctypes.c_uint16), ("dwFlags", ctypes.c_uint32),
                ("time", ctypes.c_uint32), ("dwExtraInfo", ctypes.c_size_t)]  # fmt: skip


class HARDWAREINPUT(ctypes.Structure):
    _fields_ = [("uMsg", ctypes.c_uint32), ("wParamL", ctypes.c_uint16), ("wParamH", ctypes.c_uint16)]


class _INPUTUNION(ctypes.Union):
    _fields_ = [("mi", MOUSEINPUT), ("ki", KEYBDINPUT), ("hi", HARDWAREINPUT)]


class INPUT(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("u", _INPUTUNION)]


class _DEVMODEW(ctypes.Structure):
    """DEVMODEW (wingdi.h), 220 bytes on any host (WCHAR names as 16-bit units: never read); the printer/display
    union as raw bytes."""

    _fields_ = [
        ("dmDeviceName", ctypes.c_uint16 * 32), ("dmSpecVersion", ctypes.c_uint16),
        ("dmDriverVersion", ctypes.c_uint16), ("dmSize", ctypes.c_uint16), ("dmDriverExtra", ctypes.c_uint16),
        ("dmFields", ctypes.c_uint32), ("dmUnion", ctypes.c_byte * 16), ("dmColor", ctypes.c_int16),
        ("dmDuplex", ctypes.c_int16), ("dmYResolution", ctypes.c_int16), ("dmTTOption", ctypes.c_int16),
        ("dmCollate", ctypes.c_int16), ("dmFormName", ctypes.c_uint16 * 32), ("dmLogPixels", ctypes.c_uint16),
        ("dmBitsPerPel", ctypes.c_uint32), ("dmPelsWidth", ctypes.c_uint32), ("dmPelsHeight", ctypes.c_uint32),
        ("dmDisplayFlags", ctypes.c_uint32), ("dmDisplayFrequency", ctypes.c_uint32),
        ("dmRest", ctypes.c_uint32 * 8),  # ICM method/intent, media and dither type, reserved, panning
    ]  # fmt: skip


def input_array(events: Sequence[Input]) -> ctypes.Array[INPUT]:
    """The INPUT array ``SendInput`` takes (a wheel's negative ``mouse_data`` as its 32-bit two's complement)."""
    array = (INPUT * len(events))()
    for slot, event in zip(array, events, strict=True):
        if isinstance(event, MouseInput):
            slot.type = INPUT_MOUSE
            slot.u.mi = MOUSEINPUT(event.dx, event.dy, event.mouse_data & 0xFFFFFFFF, event.flags, 0, 0)
        else:
            slot.type = INPUT_KEYBOARD
            slot.u.ki = KEYBDINPUT(event.vk, event.scan, event.flags, 0, 0)
    return array


class CtypesApi:
    """Windows' answers for a WindowsSession (construct it inside the Windows guest only)."""

    def __init__(self) -> None:
        loader: Any = ctypes  # WinDLL exists on Windows only: typed loosely so the module checks anywhere
        self.user32: Any = loader.WinDLL("user32", use_last_error=True)
        self.kernel32: Any = loader.WinDLL("kernel32", use_last_error=True)
        self.user32.SendInput.argtypes = (ctypes.c_uint, ctypes.POINTER(INPUT), ctypes.c_int)
        self.user32.VkKeyScanW.restype = ctypes.c_short
        self.user32.GetForegroundWindow.restype = ctypes.c_void_p
        self.user32.SetForegroundWindow.argtypes = (ctypes.c_void_p,)
        self.user32.IsIconic.argtypes = (ctypes.c_void_p,)
        self.user32.ShowWindow.argtypes = (ctypes.c_void_p, ctypes.c_int)
        self.user32.PostMessageW.argtypes = (ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t, ctypes.c_ssize_t)
        self.kernel32.OpenProcess.restype = ctypes.c_void_p
        self.kernel32.QueryFullProcessImageNameW.argtypes = (
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_wchar_p,
            ctypes.POINTER(ctypes.c_uint32),
        )
        self.kernel32.CloseHandle.argtypes = (ctypes.c_void_p,)
        # Physical pixels everywhere (metrics, UIA rectangles, capture), whatever the display's scaling.
        self.user32.SetProcessDpiAwarenessContext(ctypes.c_void_p(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2))
        self._grab_lock = threading.Lock()
        self._mss: Any = None
        self._uia_thread = ThreadPoolExecutor(1, thread_name_prefix="uia")
        self._uia: tuple[Any, Any] | None = None  # (the generated UIAutomationClient module, CUIAutomation)

    # -- input and screen ----------------------------------------------------------------------

    def send_input(self, events: Sequence[Input]) -> int:
        array = input_array(events)
        return int(self.user32.SendInput(len(events), array, ctypes.sizeof(INPUT)))

    def screen_size(self) -> tuple[int, int]:
        return int(self.user32.GetSystemMetrics(0)), int(self.user32.GetSystemMetrics(1))

    def set_screen_size(self, width: int, height: int) -> bool:
        mode = _DEVMODEW()
        mode.dmSize = ctypes.sizeof(_DEVMODEW)
        if not self.user32.EnumDisplaySettingsW(None, ENUM_CURRENT_SETTINGS, ctypes.byref(mode)):
            return False
        mode.dmPelsWidth, mode.dmPelsHeight = width, height
        mode.dmFields = DM_PELSWIDTH | DM_PELSHEIGHT
        changed = self.user32.ChangeDisplaySettingsW(ctypes.byref(mode), 0) == 0  # DISP_CHANGE_SUCCESSFUL
        return changed and self.screen_size() == (width, height)

    def cursor_pos(self) -> tuple[int, int]:
        point = (ctypes.c_int32 * 2)()
        self.user32.GetCursorPos(ctypes.byref(point))
        return int(point[0]), int(point[1])

    def vk_scan(self, char: str) -> int:
        return int(self.user32.VkKeyScanW(ctypes.c_wchar(char)))

    def grab(self, left: int, top: int, width: int, height: int) -> bytes:
        with self._grab_lock:
            if self._mss is None:
                mss: Any = importlib.import_module("mss")
                self._mss = (getattr(mss, "MSS", None) or mss.mss)()  # mss < 10.2 only has mss.mss
            return bytes(self._mss.grab({"left": left, "top": top, "width": width, "height": height}).raw)

    # -- windows -------------------------------------------------------------------------------

    def foreground_window(self) -> int:
        return int(self.user32.GetForegroundWindow() or 0)

    def activate(self, hwnd: int) -> None:
        """SetForegroundWindow, which Windows grants only to the process that received the last input: when
        refused, a motionless mouse event of ours is that input, and it is asked again."""
        if self.user32.IsIconic(hwnd):
            self.user32.ShowWindow(hwnd, SW_RESTORE)
        if not self.user32.SetForegroundWindow(hwnd):
            self.send_input([MouseInput(0, 0, 0, 0x0001)])  # MOUSEEVENTF_MOVE by (0, 0)
            self.user32.SetForegroundWindow(hwnd)

    def close_window(self, hwnd: int) -> None:
        self.user32.PostMessageW(hwnd, WM_CLOSE, 0, 0)

    def uia_root(self, depth: int | None = None) -> UiaElement:
        return self._uia_thread.submit(self._read_tree, depth).result()

    def _automation(self) -> tuple[Any, Any]:
        if self._uia is None:
            # comtypes joins the importing thread to COM as it loads, in the apartment sys.coinit_flags names:
            # the multithreaded one, which UI Automation's clients should use (this thread pumps no messages).
            system: Any = sys
            system.coinit_flags = 0  # COINIT_MULTITHREADED
            comtypes: Any = importlib.import_module("comtypes")
            with contextlib.suppress(OSError):  # imported earlier elsewhere: this thread joins now
                comtypes.CoInitializeEx(comtypes.COINIT_MULTITHREADED)
            client: Any = importlib.import_module("comtypes.client")
            client.GetModule("UIAutomationCore.dll")  # generates comtypes.gen.UIAutomationClient once
            module: Any = importlib.import_module("comtypes.gen.UIAutomationClient")
            self._uia = (module, client.CreateObject(module.CUIAutomation, interface=module.IUIAutomation))
        return self._uia

    def _request(self, scope: int) -> Any:
        uia, automation = self._automation()
        request = automation.CreateCacheRequest()
        for name in ("ControlType", "Name", "BoundingRectangle", "IsEnabled", "HasKeyboardFocus",
                     "IsKeyboardFocusable", "IsOffscreen", "ProcessId", "NativeWindowHandle", "ClassName",
                     "AutomationId", "IsTogglePatternAvailable", "ToggleToggleState", "IsValuePatternAvailable",
                     "ValueValue", "ValueIsReadOnly"):  # fmt: skip
            request.AddProperty(getattr(uia, f"UIA_{name}PropertyId"))
        request.TreeScope = scope
        request.TreeFilter = automation.ControlViewCondition
        if scope == TREE_SCOPE_SUBTREE:
            request.AutomationElementMode = AUTOMATION_ELEMENT_MODE_NONE
        return request

    def _read_tree(self, depth: int | None) -> UiaElement:
        uia, automation = self._automation()
        root = automation.GetRootElement()
        found = root.FindAllBuildCache(TREE_SCOPE_CHILDREN, automation.ControlViewCondition,
                                       self._request(TREE_SCOPE_ELEMENT))  # fmt: skip
        windows = []
        for index in range(found.Length if found else 0):
            live = found.GetElement(index)
            try:
                cached = live if depth == 1 else live.BuildUpdatedCache(self._request(TREE_SCOPE_SUBTREE))
                budget = [MAX_NODES]
                props = self._properties(uia, cached, None if depth is None else depth - 1, budget)
            except Exception as exc:  # COMError: the window closed meanwhile
                if type(exc).__name__ != "COMError":
                    raise
                continue
            props["ProcessName"] = self._process_name(int(props["ProcessId"]))
            windows.append(props)
        return element_from({"ControlType": root.CurrentControlType, "Name": root.CurrentName, "children": windows})

    def _properties(self, uia: Any, element: Any, depth: int | None, budget: list[int]) -> dict[str, Any]:
        rect = element.CachedBoundingRectangle
        value = element.GetCachedPropertyValue
        props: dict[str, Any] = {
            "ControlType": element.CachedControlType, "Name": element.CachedName,
            "BoundingRectangle": (rect.left, rect.top, rect.right, rect.bottom), "IsEnabled": element.CachedIsEnabled,
            "HasKeyboardFocus": element.CachedHasKeyboardFocus, "IsOffscreen": element.CachedIsOffscreen,
            "IsKeyboardFocusable": element.CachedIsKeyboardFocusable, "ProcessId": element.CachedProcessId,
            "NativeWindowHandle": element.CachedNativeWindowHandle, "ClassName": element.CachedClassName,
            "AutomationId": element.CachedAutomationId, "children": [],
        }  # fmt: skip
        if value(uia.UIA_IsTogglePatternAvailablePropertyId):
            props["ToggleState"] = int(value(uia.UIA_ToggleToggleStatePropertyId))
        if value(uia.UIA_IsValuePatternAvailablePropertyId):
            props["Value"] = str(value(uia.UIA_ValueValuePropertyId) or "")
            props["ValueIsReadOnly"] = bool(value(uia.UIA_ValueIsReadOnlyPropertyId))
        budget[0] -= 1
        if depth is not None and depth <= 0:
            return props
        children: Any = element.GetCachedChildren()  # a NULL pointer (falsy) when there are none
        for index in range(children.Length if children else 0):
            if budget[0] <= 0:
                break
            below = None if depth is None else depth - 1
            props["children"].append(self._properties(uia, children.GetElement(index), below, budget))
        return props

    def _process_name(self, pid: int) -> str:
        handle = self.kernel32.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
        if not handle:
            return ""
        try:
            size = ctypes.c_uint32(1024)
            buffer = ctypes.create_unicode_buffer(size.value)
            ok = self.kernel32.QueryFullProcessImageNameW(handle, 0, buffer, ctypes.byref(size))
            return buffer.value if ok else ""
        finally:
            self.kernel32.CloseHandle(handle)

    # -- programs and files --------------------------------------------------------------------

    def run(self, argv: Sequence[str], timeout: float, cwd: str) -> tuple[int, bytes, bytes]:
        proc = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, creationflags=CREATE_NO_WINDOW)  # fmt: skip
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:  # the whole tree: PowerShell's children outlive PowerShell otherwise
            subprocess.run(["taskkill.exe", "/F", "/T", "/PID", str(proc.pid)], capture_output=True,
                           creationflags=CREATE_NO_WINDOW, check=False)  # fmt: skip
            out, err = proc.communicate()
            return 124, out, err
        return proc.returncode, out, err

    def env(self, name: str) -> str | None:
        return os.environ.get(name)

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as file:
            return file.read()

    def write_bytes(self, path: str, data: bytes) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as file:
            file.write(data)

    def is_file(self, path: str) -> bool:
        return os.path.isfile(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def list_dir(self, path: str) -> list[str]:
        return os.listdir(path)
