"""Which rank of how many this process is, read once from the variables every launcher sets.

``cua run --nodes`` (a pool gang), ``torchrun`` and ``mlx.launch`` all export ``RANK``/``WORLD_SIZE``
(or ``MLX_RANK``/``MLX_WORLD_SIZE``) and the rendezvous address; a plain ``python`` run sets none and
is rank 0 of 1. Trainers read this instead of each parsing the environment their own way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from cua_core import CuaError

__all__ = ["World"]


def _int(env: Mapping[str, str], names: tuple[str, ...], default: int) -> int:
    for name in names:
        value = env.get(name)
        if value is None or value == "":
            continue
        try:
            return int(value)
        except ValueError:
            raise CuaError(f"{name}={value!r} is not an integer; unset it or give the number") from None
    return default


@dataclass(frozen=True)
class World:
    rank: int = 0
    size: int = 1
    local_rank: int = 0
    master_addr: str = "127.0.0.1"
    master_port: int = 29500
    attempt: int = 1  # the pool's attempt (1 = first start; > 1 after a gang restart)
    pool_job: str | None = None  # set when this process is a member of a `cua run` job

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> World:
        env = os.environ if env is None else env
        world = cls(
            rank=_int(env, ("RANK", "MLX_RANK"), 0),
            size=_int(env, ("WORLD_SIZE", "MLX_WORLD_SIZE"), 1),
            local_rank=_int(env, ("LOCAL_RANK",), 0),
            master_addr=env.get("MASTER_ADDR") or "127.0.0.1",
            master_port=_int(env, ("MASTER_PORT",), 29500),
            attempt=_int(env, ("CUA_POOL_ATTEMPT",), 1),
            pool_job=env.get("CUA_POOL_JOB") or None,
        )
        if world.size < 1 or not 0 <= world.rank < world.size:
            raise CuaError(f"rank {world.rank} of world size {world.size} is impossible; check RANK and WORLD_SIZE")
        return world

    @property
    def main(self) -> bool:
        """Rank 0: the one that saves checkpoints and writes results."""
        return self.rank == 0
