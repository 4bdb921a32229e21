"""A real folder with a real bash, standing in for a Session's home in the file-state tests."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

from cua_bench.commands import CommandResult
from cua_bench.filestate import Snapshot, shell_snapshot


class Home:
    """The part of a Session the snapshot and the adversary use: ``run_command`` from the folder, and reads."""

    def __init__(self, root: Path) -> None:
        self.root = root

    async def run_command(self, command: str, timeout: float = 30.0) -> CommandResult:
        env = {**os.environ, "HOME": str(self.root)}  # as an environment's programs see their home
        done = subprocess.run(
            command, shell=True, cwd=self.root, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        return CommandResult(done.returncode, done.stdout, done.stderr)

    async def read_bytes(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    async def write_file(self, path: str, content: str | bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def snap(root: Path) -> Snapshot:
    return asyncio.run(shell_snapshot(Home(root)))
