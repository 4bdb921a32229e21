"""Fixtures the cua-bench test modules share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every local environment of a module lives under here, so leftovers are ours to find."""
    path = tmp_path_factory.mktemp("desktop-envs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CUA_LOCAL_ROOT", str(path))
        yield path
