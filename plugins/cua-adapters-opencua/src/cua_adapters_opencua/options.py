"""Option checks the families here share: an option's value is validated once, with the adapter named."""

from __future__ import annotations

__all__ = ["choice", "pixels"]


def choice(adapter: str, option: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{adapter}: {option} {value!r} is not one of {', '.join(allowed)}")
    return value


def pixels(adapter: str, option: str, value: object) -> int:
    """A pixel budget given as a number or as command-line text (``--adapter-option max_pixels=1000000``)."""
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or int(text) < 1:
        raise ValueError(f"{adapter}: {option} must be a positive whole number of pixels, got {value!r}")
    return int(text)
