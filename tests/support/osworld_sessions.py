"""A Session over this machine's own shell and files, for testing OSWorld's getters and steps on real
programs (Chromium, gsettings, python3) without a desktop backend."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cua_bench.commands import CommandResult
from cua_bench.session import NotSupported, Session
from cua_core.actions import Action

__all__ = ["LocalShell"]


class LocalShell(Session):
    """This machine's bash, with ``env`` over this process's environment (a value of None removes the
    variable), and its files; a scripted accessibility tree (``tree``); no screen, input or launcher."""

    def __init__(self, env: dict[str, str | None] | None = None) -> None:
        self.width, self.height = 1280, 800
        self.env = env or {}
        self.tree: list[dict[str, Any]] = []

    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        env = {k: v for k, v in {**os.environ, **self.env}.items() if v is not None}
        proc = await asyncio.create_subprocess_exec(
            "/bin/bash", "-c", command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
        return CommandResult(proc.returncode or 0, out.decode(), err.decode())

    async def accessibility_tree(self) -> list[dict[str, Any]]:
        return self.tree

    async def apply(self, actions: Sequence[Action]) -> list[str | None]:
        raise NotSupported("no input here")

    async def screenshot(self) -> bytes:
        raise NotSupported("no screen here")

    async def windows(self) -> list[dict[str, Any]]:
        return []

    async def launch(self, app: str, **params: Any) -> str:
        raise NotSupported("launch through the shell")

    async def read_bytes(self, path: str) -> bytes:
        return Path(path).read_bytes()

    async def write_file(self, path: str, content: bytes | str) -> None:
        Path(path).write_bytes(content.encode() if isinstance(content, str) else content)
