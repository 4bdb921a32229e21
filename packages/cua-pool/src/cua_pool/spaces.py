"""Spaces: each member's own folder, process session, environment and limits.

A space is a folder ``<host home>/spaces/<member>`` holding ``member.json`` (what to run and how
it went), ``out.log`` (stdout and stderr), ``exit_code`` and the job's code unpacked in ``work/``
(the working directory and $HOME). A runtime starts the member there; everything a restarted
agent needs to find the member again is in the folder, so jobs outlive their agent.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["Handle", "Space", "SpaceRuntime", "unpack_code"]

# Passed through from the agent: what a program needs to find its tools and speak the locale.
# Nothing else (above all not the agent's keys or config folders) reaches a space.
_PASS_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH")


@dataclass
class Handle:
    """What a runtime needs to find its member again: written to member.json."""

    kind: str
    pid: int = 0
    start_time: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class SpaceRuntime(Protocol):
    """Starts, watches and stops members. Implementations register via cua_pool_register_space_runtimes.

    Two optional parts: a runtime whose class sets ``places_gangs = True`` is given every rank of a job
    on one host and places them itself (``ray``); and ``lost(space, handle) -> str | None`` says why a
    member that ended without an exit status went with its computer, which restarts the gang from
    ``--max-restarts`` as a lost host does.
    """

    name: str

    def start(self, space: Space, env: dict[str, str]) -> Handle:
        """Start ``python -m cua_pool.runner`` in ``space.work``, output to ``space.log``."""

    def running(self, space: Space, handle: Handle) -> bool:
        """Is the member still running? Must work on a handle read back after an agent restart."""

    def exit_code(self, space: Space, handle: Handle) -> int | None:
        """Its exit code once it ended, None if that is unknown (killed with its whole session)."""

    def stop(self, space: Space, handle: Handle, force: bool) -> None:
        """Ask it to stop (force: kill it now, with everything it started)."""


def unpack_code(archive: bytes, dest: Path) -> None:
    """Unpack the job's folder, refusing members that would land outside ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(dest, filter="data")


class Space:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.id = root.name

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def stash(self) -> Path:
        """Where an isolating runtime parks the space while it covers the pool's folders: outside
        them (beside the runtime folder's parent, in /tmp), one per space."""
        return Path("/tmp") / f".cua-space-{self.id}"

    @property
    def log(self) -> Path:
        return self.root / "out.log"

    @property
    def exit_file(self) -> Path:
        return self.root / "exit_code"

    @property
    def result_file(self) -> Path:
        return self.root / "result"

    @property
    def meta_file(self) -> Path:
        return self.root / "member.json"

    def read_meta(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.meta_file.read_text())
        return data

    def write_meta(self, meta: dict[str, Any]) -> None:
        tmp = self.meta_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(meta))
        tmp.replace(self.meta_file)

    @classmethod
    def create(cls, spaces: Path, spec: dict[str, Any], code: bytes) -> Space:
        root = spaces / spec["id"]
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(mode=0o700, parents=True)
        space = cls(root)
        unpack_code(code, space.work)
        (space.work / ".tmp").mkdir(exist_ok=True)
        space.log.touch()  # the agent ships from it whatever the runtime
        (space.root / "hostfile.json").write_text(json.dumps(spec.get("mlx_hostfile", [])))
        return space

    def environment(self, spec: dict[str, Any], agent_address: str, token: str) -> dict[str, str]:
        env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
        env.update(
            {
                "HOME": str(self.work),
                "TMPDIR": str(self.work / ".tmp"),
                "PYTHONUNBUFFERED": "1",
                "PYTHONDONTWRITEBYTECODE": "1",
                "CUA_POOL_SPACE": str(self.root),
                "CUA_POOL_FILE": spec["file"],
                "CUA_POOL_FN": spec["fn"],
                "CUA_POOL_ARGS": json.dumps(spec["args"]),
                "CUA_POOL_RESULT": str(self.result_file),
                "CUA_POOL_AGENT": agent_address,
                "CUA_POOL_TOKEN": token,
                "MLX_HOSTFILE": str(self.root / "hostfile.json"),
            }
        )
        env.update(spec["env"])
        return env

    def read_result(self) -> tuple[str, bytes] | None:
        try:
            raw = self.result_file.read_bytes()
        except FileNotFoundError:
            return None
        fmt, _, data = raw.partition(b"\n")
        return fmt.decode(), data

    def python(self) -> str:
        return sys.executable
