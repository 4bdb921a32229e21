"""Which hypervisor front end makes the machines: Lume (its HTTP API) or tart (its command line).

Both run macOS on Apple's Virtualization framework, so a machine's life is the same calls in either
(``Provider``). ``auto`` takes Lume when its API answers, else tart when it is installed, and says how
to install either when neither is there. The check is a 2-second HTTP request and a PATH lookup,
made before anything costly (a clone, a payload build).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from cua_bench import BackendError
from cua_bench_macos.lume import LumeClient
from cua_bench_macos.tart import TartClient

__all__ = ["INSTALL_HINT", "PROVIDERS", "Provider", "choose_provider"]

PROVIDERS = ("auto", "lume", "tart")
INSTALL_HINT = (
    'install Lume (/bin/bash -c "$(curl -fsSL https://raw.githubusercontent.com/trycua/cua/main/libs/lume/scripts/'
    'install.sh)", which starts its API on port 7777) or tart (brew install cirruslabs/cli/tart), on an Apple '
    "silicon Mac"
)


class Provider(Protocol):
    """One front end's VMs. Names are the provider's own VM names; ``image`` is what ``create`` pulls."""

    name: str
    default_image: str
    default_user: str
    default_password: str

    def names(self) -> list[str]: ...

    def exists(self, vm: str) -> bool: ...

    def create(self, image: str, vm: str) -> None: ...

    def clone(self, source: str, vm: str) -> None: ...

    def configure(self, vm: str, cpus: int, memory_mib: int, width: int, height: int) -> None: ...

    def start(self, vm: str) -> None: ...

    def wait_ip(self, vm: str, timeout: float) -> str: ...

    def running(self, vm: str) -> bool: ...

    def stop(self, vm: str) -> None: ...

    def delete(self, vm: str) -> None: ...


def choose_provider(
    kind: str, lume_url: str, runs: Path, *, which: Callable[[str], str | None] = shutil.which
) -> Provider:
    """The provider ``kind`` names (``auto``: Lume if its API answers at ``lume_url``, else tart if it is on
    PATH); a BackendError naming both and how to install them when the one asked for is missing."""
    if kind not in PROVIDERS:
        raise BackendError(f"provider {kind!r} is not one of {', '.join(PROVIDERS)}")
    if kind in ("auto", "lume"):
        lume = LumeClient(lume_url)
        if lume.answers():
            return lume
        if kind == "lume":
            raise BackendError(f"Lume's API does not answer at {lume_url}: start it with `lume serve` (or set "
                               f"lume_url), or use provider=tart; to install one, {INSTALL_HINT}")  # fmt: skip
    binary = which("tart")
    if binary is not None:
        return TartClient(runs, binary)
    if kind == "tart":
        raise BackendError(f"tart is not on PATH: {INSTALL_HINT}, or use provider=lume")
    raise BackendError(f"the macos backend found neither Lume (no API at {lume_url}) nor tart (not on PATH): "
                       f"{INSTALL_HINT}")  # fmt: skip
