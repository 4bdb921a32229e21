"""What the OpenCUA and Aguvis tests share (conftest modules cannot be imported under importlib mode)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from cua_core import actions as ua

Pixelised = Callable[[ua.Action, tuple[int, int]], tuple[str, dict[str, Any]]]


def _pixelised(action: ua.Action, frame: tuple[int, int]) -> tuple[str, dict[str, Any]]:
    fields = {}
    for field in dataclasses.fields(action):
        value = getattr(action, field.name)
        fields[field.name] = ua.to_pixels(value, *frame) if isinstance(value, ua.Point) else value
    return action.kind, fields


@pytest.fixture(scope="session")
def pixelised() -> Pixelised:
    """The action with each point replaced by the pixel it falls in on a frame: round trips compare these."""
    return _pixelised
