"""Pools for tests: every one private to its test, and everything it started is stopped after it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from poolkit import Cluster, LocalPool, stop_local_pool


@pytest.fixture
def local_pool() -> Iterator[LocalPool]:
    failed = False
    try:
        yield LocalPool()
    except BaseException:
        failed = True
        raise
    finally:
        strays = stop_local_pool()
    assert failed or not strays, f"processes outlived their pid files: {strays}"


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    pool = Cluster(tmp_path / "cluster")
    try:
        yield pool
    finally:
        pool.close()
