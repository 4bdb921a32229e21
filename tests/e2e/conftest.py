"""Fixtures the journeys share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def local_pool() -> Iterator[None]:
    """This test's own pool of this computer (the CLI starts it on first use); stopped after."""
    from cua_pool.client import stop_local_pool

    try:
        yield
    finally:
        stop_local_pool()
