"""tart's command line: the calls a machine's life takes, where Lume is not installed.

Written from tart's documentation (docs/quick-start.md, docs/integrations/vm-management.md in
cirruslabs/tart) and its commands' help (Sources/tart/Commands): ``tart clone SOURCE NAME`` (a remote
OCI image is pulled first; a local clone is an APFS copy-on-write copy, fast), ``tart set NAME --cpu N
--memory MIB --display WxH``, ``tart run --no-graphics NAME`` (the VM lives as long as that process),
``tart ip NAME --wait SECONDS``, ``tart list --format json --source local`` (``Name``, ``Running``...),
``tart stop NAME`` and ``tart delete NAME``. A failing command exits non-zero with its reason on its
output, which the error here quotes.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path
from typing import Any

from cua_bench import BackendError

__all__ = ["TartClient"]

CLONE_TIMEOUT = 3600.0  # cloning a remote image pulls it first (25 GB)
COMMAND_TIMEOUT = 120.0
MAX_WAIT = 65535  # `tart ip --wait` takes a UInt16
STOP_GRACE = 40.0  # `tart stop` waits 30 s for a graceful shutdown by default, then kills


class TartClient:
    """The VMs of this user's tart. ``runs`` is the folder for each ``tart run``'s output."""

    name = "tart"
    default_image = "ghcr.io/cirruslabs/macos-sequoia-base:latest"  # Cirrus Labs' image: SSH on, user admin
    default_user = default_password = "admin"

    def __init__(self, runs: Path, binary: str = "tart") -> None:
        self.runs = runs
        self.binary = binary
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def _tart(self, *args: str, timeout: float = COMMAND_TIMEOUT) -> str:
        argv = [self.binary, *args]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        except FileNotFoundError as exc:
            raise BackendError(f"{self.binary} is not installed: brew install cirruslabs/cli/tart") from exc
        except subprocess.TimeoutExpired as exc:
            raise BackendError(f"`{' '.join(argv)}` did not finish within {timeout:g} s") from exc
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip())[-1000:]
            raise BackendError(f"`{' '.join(argv)}` failed (exit {done.returncode}): {said}")
        return done.stdout

    def _list(self) -> list[dict[str, Any]]:
        listed = json.loads(self._tart("list", "--format", "json", "--source", "local") or "[]")
        return [entry for entry in listed if isinstance(entry, dict)]

    def names(self) -> list[str]:
        return [str(entry["Name"]) for entry in self._list() if "Name" in entry]

    def exists(self, vm: str) -> bool:
        return vm in self.names()

    def create(self, image: str, vm: str) -> None:
        """The golden VM from an OCI image (``tart clone`` pulls it first)."""
        self._tart("clone", image, vm, timeout=CLONE_TIMEOUT)

    def clone(self, source: str, vm: str) -> None:
        self._tart("clone", source, vm)

    def configure(self, vm: str, cpus: int, memory_mib: int, width: int, height: int) -> None:
        self._tart("set", vm, "--cpu", str(cpus), "--memory", str(memory_mib), "--display", f"{width}x{height}")

    def start(self, vm: str) -> None:
        """``tart run --no-graphics``: the VM runs as long as that process, whose output is kept in ``runs``."""
        self.runs.mkdir(parents=True, exist_ok=True)
        with open(self.runs / f"{vm}.log", "wb") as log:
            self.procs[vm] = subprocess.Popen(
                [self.binary, "run", "--no-graphics", vm], stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True,  # Ctrl-C reaches the runner, which stops VMs in order
            )  # fmt: skip

    def run_log(self, vm: str) -> str:
        try:
            return (self.runs / f"{vm}.log").read_text(errors="replace").strip()[-2000:] or "(it printed nothing)"
        except OSError:
            return "(no output kept)"

    def wait_ip(self, vm: str, timeout: float) -> str:
        proc = self.procs.get(vm)
        if proc is not None and proc.poll() is not None:
            raise BackendError(f"`tart run {vm}` exited with {proc.returncode}: {self.run_log(vm)}")
        try:
            return self._tart("ip", vm, "--wait", str(min(int(timeout), MAX_WAIT)), timeout=timeout + 30).strip()
        except BackendError as exc:
            if proc is not None:  # a run that is ending gets a moment to say why
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(2.0)
            raise BackendError(f"{exc}; `tart run` said: {self.run_log(vm)}") from exc

    def running(self, vm: str) -> bool:
        return any(entry.get("Name") == vm and entry.get("Running") is True for entry in self._list())

    def stop(self, vm: str) -> None:
        self._tart("stop", vm, timeout=STOP_GRACE + 30)
        proc = self.procs.pop(vm, None)
        if proc is not None:  # `tart run` ends with its VM
            try:
                proc.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                proc.wait()

    def delete(self, vm: str) -> None:
        self._tart("delete", vm)
