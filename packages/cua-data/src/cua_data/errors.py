"""cua-data's errors: a bad row, and a bad file or folder."""

from __future__ import annotations

from cua_core import CuaError

__all__ = ["SampleError", "StoreError"]


class SampleError(CuaError, ValueError):
    """A row that is not a valid LiteSample; the message names the row and the field."""


class StoreError(CuaError):
    """A dataset folder or file that cannot be read or written; the message names the path."""
