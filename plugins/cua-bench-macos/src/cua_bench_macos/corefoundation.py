"""Core Foundation through ctypes, as far as ``QuartzApi`` needs it: CoreGraphics' geometry structures,
CFStrings made from and read into Python, CFNumbers and CFBooleans read, CFArrays walked.

Importable anywhere; the framework is loaded when a ``CoreFoundation`` is made (inside a macOS guest).
CGFloat is a double on 64-bit macOS, so the structures have the same layout on every 64-bit host, and
their sizes are checked where no Mac is.
"""

from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["FRAMEWORKS", "CGPoint", "CGRect", "CGSize", "CoreFoundation", "bind"]

FRAMEWORKS = "/System/Library/Frameworks/{0}.framework/{0}"
UTF8 = 0x08000100  # kCFStringEncodingUTF8
NUMBER_DOUBLE = 13  # kCFNumberDoubleType


class CGPoint(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


class CGSize(ctypes.Structure):
    _fields_ = [("width", ctypes.c_double), ("height", ctypes.c_double)]


class CGRect(ctypes.Structure):
    _fields_ = [("origin", CGPoint), ("size", CGSize)]


def bind(lib: Any, name: str, restype: Any, *argtypes: Any) -> Any:
    """``lib``'s C function ``name`` with its signature declared (ctypes guesses int otherwise)."""
    function = getattr(lib, name)
    function.restype, function.argtypes = restype, list(argtypes)
    return function


class CoreFoundation:
    """The CoreFoundation framework's calls for reading what CoreGraphics and the AX API return."""

    def __init__(self) -> None:
        vp, b, long = ctypes.c_void_p, ctypes.c_bool, ctypes.c_long
        lib = ctypes.CDLL(FRAMEWORKS.format("CoreFoundation"))
        self.release = bind(lib, "CFRelease", None, vp)
        self.type_id = bind(lib, "CFGetTypeID", ctypes.c_ulong, vp)
        self.string_type, self.number_type = lib.CFStringGetTypeID(), lib.CFNumberGetTypeID()
        self.boolean_type = lib.CFBooleanGetTypeID()
        self.create_string = bind(lib, "CFStringCreateWithCString", vp, vp, ctypes.c_char_p, ctypes.c_uint32)
        self.string_length = bind(lib, "CFStringGetLength", long, vp)
        self.string_max = bind(lib, "CFStringGetMaximumSizeForEncoding", long, long, ctypes.c_uint32)
        self.string_get = bind(lib, "CFStringGetCString", b, vp, ctypes.c_char_p, long, ctypes.c_uint32)
        self.number_get = bind(lib, "CFNumberGetValue", b, vp, ctypes.c_int, vp)
        self.boolean_get = bind(lib, "CFBooleanGetValue", b, vp)
        self.array_count = bind(lib, "CFArrayGetCount", long, vp)
        self.array_at = bind(lib, "CFArrayGetValueAtIndex", vp, vp, long)
        self.dict_get = bind(lib, "CFDictionaryGetValue", vp, vp, vp)
        self.true = vp.in_dll(lib, "kCFBooleanTrue")
        self._strings: dict[str, int] = {}  # names as CFStrings, made once and kept for the process's life

    def string(self, text: str) -> int:
        if text not in self._strings:
            self._strings[text] = self.create_string(None, text.encode(), UTF8)
        return self._strings[text]

    def py(self, ref: int | None) -> Any:
        """A CFString, CFNumber or CFBoolean as Python; None for NULL and any other type (an AXValue's
        range, an element: nothing a node shows)."""
        if not ref:
            return None
        kind = self.type_id(ref)
        if kind == self.string_type:
            size = self.string_max(self.string_length(ref), UTF8) + 1
            buffer = ctypes.create_string_buffer(size)
            return buffer.value.decode() if self.string_get(ref, buffer, size, UTF8) else ""
        if kind == self.boolean_type:
            return bool(self.boolean_get(ref))
        if kind == self.number_type:
            number = ctypes.c_double()
            self.number_get(ref, NUMBER_DOUBLE, ctypes.byref(number))
            return int(number.value) if number.value.is_integer() else number.value
        return None

    def items(self, array: int) -> list[int]:
        """A CFArray's elements (borrowed: valid while the array is)."""
        return [self.array_at(array, i) for i in range(self.array_count(array))]
