"""Field checks shared by every action record.

Each check takes a ``label`` such as ``"click.button"`` so that the message an agent reads in its
next observation names the action, the field, the value it sent and what would have been accepted.
Checks also normalise: numpy scalars become plain ``int``/``float`` so that every record survives
msgpack and JSON unchanged.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import TypeGuard

from cua_core.errors import ActionError

__all__ = [
    "check_bool",
    "check_choice",
    "check_int",
    "check_number",
    "check_optional_text",
    "check_text",
    "describe",
    "is_integer",
    "is_real",
]


def describe(value: object) -> str:
    """Show a rejected value briefly: long reprs would drown the agent's next observation."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def is_integer(value: object) -> TypeGuard[numbers.Integral]:
    """An integer that is not a bool (numpy integers included).

    bool is an int subclass in Python, but ``clicks=True`` is a bug, never a count.
    """
    return not isinstance(value, bool) and isinstance(value, numbers.Integral)


def is_real(value: object) -> TypeGuard[numbers.Real]:
    """A real number that is not a bool (numpy scalars included)."""
    return not isinstance(value, bool) and isinstance(value, numbers.Real)


def check_number(
    value: object,
    label: str,
    low: float,
    high: float,
    *,
    low_open: bool = False,
) -> int | float:
    """A finite real number in ``[low, high]`` (``(low, high]`` when ``low_open``)."""
    if not is_real(value):
        raise ActionError(f"{label}: {describe(value)} is not a number")
    try:
        number: int | float = int(value) if is_integer(value) else float(value)
    except OverflowError:
        number = math.inf
    if isinstance(number, float) and not math.isfinite(number):
        raise ActionError(f"{label}: {describe(value)} is not a finite number")
    too_low = number <= low if low_open else number < low
    if too_low or number > high:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise ActionError(f"{label}: {describe(value)} is outside {interval}")
    return number


def check_int(value: object, label: str, low: int, high: int) -> int:
    """An integer in ``[low, high]``; ``2.0`` is refused so that a float never hides a bug."""
    if not is_integer(value):
        raise ActionError(f"{label}: {describe(value)} is not an integer")
    number = int(value)
    if not low <= number <= high:
        raise ActionError(f"{label}: {describe(value)} is outside [{low}, {high}]")
    return number


def check_choice(value: object, label: str, choices: Iterable[str]) -> str:
    """One of a fixed set of names, compared exactly (records store the canonical spelling)."""
    allowed = tuple(choices)
    if not isinstance(value, str) or value not in allowed:
        raise ActionError(f"{label}: {describe(value)} is not one of {', '.join(allowed)}")
    return value


def check_bool(value: object, label: str) -> bool:
    """A real ``bool``: ``1`` or ``"true"`` would hide a model's formatting mistake."""
    if not isinstance(value, bool):
        raise ActionError(f"{label}: {describe(value)} is not true or false")
    return value


def check_text(value: object, label: str) -> str:
    """Any string, the empty one included."""
    if not isinstance(value, str):
        raise ActionError(f"{label}: {describe(value)} is not a string")
    return value


def check_optional_text(value: object, label: str) -> str | None:
    """A string or ``None``."""
    return None if value is None else check_text(value, label)
