"""``cua_pool.checkpoints()``: a job's own checkpoint store, kept by the controller.

Inside a space, the job talks to its host agent (a loopback socket named in the space folder,
re-read on every call so a restarted agent is found again) with the space's token; the agent
forwards to the controller for this job only. So any rank on any host saves and loads the same
job-scoped checkpoints, and a gang restarted elsewhere resumes from the newest one.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from cua_core import RpcClient

__all__ = ["Checkpoints", "checkpoints"]


class Checkpoints:
    """A job's checkpoints, seen from inside the job: ``save(state, step)``, ``latest()``, ``load(step=None)``.

    This is the store cua-bench-rl's SFT trainers get in a ``cua run`` job: it implements
    ``cua_bench_rl.checkpoints.Checkpoints`` by its methods (the pool never imports cua-bench-rl). The
    controller keeps the bytes (:class:`cua_pool.checkpoint_store.CheckpointStore`).
    """

    def __init__(self, space: Path, token: str) -> None:
        self.space = space
        self.token = token

    def _call(self, method: str, **params: Any) -> Any:
        address = (self.space / "agent_address").read_text().strip()
        with RpcClient(address, timeout=120, heartbeat_timeout=10, retries=0) as client:
            return client.call(f"ckpt.{method}", {"token": self.token, **params})

    def save(self, state: Any, step: int) -> None:
        """Keep ``state`` (anything picklable: a dict of tensors, numbers, bytes) as ``step``."""
        if not isinstance(step, int) or step < 0:
            raise ValueError(f"checkpoint step must be an int >= 0, got {step!r}")
        self._call("save", step=step, data=pickle.dumps(state, protocol=5))

    def latest(self) -> int | None:
        """The newest saved step, or None when this job saved nothing yet."""
        step = self._call("latest")
        return None if step is None else int(step)

    def load(self, step: int | None = None) -> Any:
        """The state saved at ``step`` (default: the newest), or None when there is none."""
        reply = self._call("load", step=step)
        if reply is None:
            return None
        return pickle.loads(reply["data"])  # this job's own data, saved by this job


def checkpoints() -> Checkpoints:
    """The checkpoint store of the job this code runs in."""
    space, token = os.environ.get("CUA_POOL_SPACE"), os.environ.get("CUA_POOL_TOKEN")
    if not space or not token:
        raise RuntimeError(
            "cua_pool.checkpoints() works inside a job started by `cua run` "
            "(CUA_POOL_SPACE and CUA_POOL_TOKEN are unset)"
        )
    return Checkpoints(Path(space), token)
