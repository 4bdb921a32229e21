"""What every typed config (TrainConfig, TrainerConfig, SFTConfig, PipelineConfig) says of a key it lacks."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

__all__ = ["unknown_keys"]


def unknown_keys(cls: Any, data: dict[str, Any], what: str = "setting") -> str | None:
    """``unknown setting(s) a, b; known: ...`` when ``data`` has keys ``cls``'s fields lack, else None:
    a typo is named with the right spellings instead of being dropped or failing in a constructor."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if not unknown:
        return None
    return f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
