"""Helpers of the docker backend's tests."""

from __future__ import annotations

import os
from typing import Any

from cua_bench_docker.backend import LABEL, OWNER


def ours(client: Any) -> list[Any]:
    """The docker backend's containers started by this test process (others may share the engine)."""
    mine = f"{OWNER}={os.uname().nodename}:{os.getpid()}"
    return list(client.containers.list(all=True, filters={"label": [f"{LABEL}=docker", mine]}))
