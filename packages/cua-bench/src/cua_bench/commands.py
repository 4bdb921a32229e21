"""A command's result as a session's ``run_command`` gives it: ours (``returncode``) and Cua Bench's dict
(``result["stdout"]``, ``["return_code"]``, ``["success"]``) at once, so Cua's tasks run unchanged."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from cua_core import CuaError

__all__ = ["CommandFailed", "CommandResult"]


_RESULT_KEYS = ("success", "stdout", "stderr", "return_code", "returncode")


@dataclass(eq=False)
class CommandResult(Mapping[str, Any]):
    """A finished command. Also a read-only mapping with Cua Bench's keys (``success``, ``stdout``,
    ``stderr``, ``return_code``) and ``returncode``, so code written for Cua's dict works as is."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def return_code(self) -> int:
        return self.returncode

    @property
    def success(self) -> bool:
        return self.returncode == 0

    def __getitem__(self, key: str) -> Any:
        if key not in _RESULT_KEYS:
            raise KeyError(f"{key!r}: a command result has {', '.join(_RESULT_KEYS)}")
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_RESULT_KEYS)

    def __len__(self) -> int:
        return len(_RESULT_KEYS)

    def __repr__(self) -> str:
        return f"CommandResult(returncode={self.returncode}, stdout={self.stdout!r}, stderr={self.stderr!r})"


class CommandFailed(CuaError, RuntimeError):
    """``run_command(..., check=True)`` of a command that exited non-zero (a ``RuntimeError``, as in Cua)."""

    def __init__(self, command: str, result: CommandResult) -> None:
        super().__init__(
            f"command exited with code {result.returncode}: {command}\nstdout: {result.stdout}\nstderr: {result.stderr}"
        )
        self.command = command
        self.result = result
