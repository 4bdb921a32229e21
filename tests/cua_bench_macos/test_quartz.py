"""The real ``QuartzApi`` can only run on macOS; here: that it imports anywhere, refuses plainly off macOS,
and lays out CoreGraphics' structures as 64-bit macOS does (CGFloat is a double)."""

from __future__ import annotations

import ctypes
import sys

import pytest

from cua_bench_macos import QuartzApi
from cua_bench_macos.corefoundation import CGPoint, CGRect, CGSize


def test_the_geometry_structures_have_macos_layout() -> None:
    assert (ctypes.sizeof(CGPoint), ctypes.sizeof(CGSize), ctypes.sizeof(CGRect)) == (16, 16, 32)
    assert CGRect.size.offset == 16


@pytest.mark.skipif(sys.platform == "darwin", reason="off macOS only")
def test_off_macos_the_frameworks_are_not_there() -> None:
    with pytest.raises(OSError, match="CoreFoundation"):
        QuartzApi()
