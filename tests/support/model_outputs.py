"""The real model outputs in ``../shared/fixtures/model_outputs``: one example per block."""

from __future__ import annotations

from pathlib import Path


def model_outputs(shared_fixtures: Path, name: str) -> list[str]:
    """The examples of ``model_outputs/<name>``: blocks between ``----`` lines after the ``#`` provenance header."""
    parts = (shared_fixtures / "model_outputs" / name).read_text(encoding="utf-8").split("\n----\n")
    assert parts[0].startswith("#"), f"{name}: the first block is the provenance header"
    return parts[1:]
