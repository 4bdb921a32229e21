"""A real libvirtd for the machine tests: the one running, or one these tests start (and stop) as root."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SOCKET = Path("/run/libvirt/libvirt-sock")
# QEMU under qemu:///system runs as libvirt-qemu: what it opens must be reachable by that user, and
# pytest's own temporary folders (mode 0700, root's) are not. This is libvirt's own images folder.
IMAGES = Path("/var/lib/libvirt/images/cua-bench-tests")


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "starting libvirtd for qemu:///system needs root"
    missing = [p for p in ("libvirtd", "virtlogd", "qemu-system-x86_64", "qemu-img", "apt-get") if not shutil.which(p)]
    if missing:
        return f"{', '.join(missing)} not installed (scripts/system-deps.sh installs the libvirt and QEMU packages)"
    return None


@pytest.fixture(scope="session")
def system_libvirt() -> Iterator[str]:
    """``qemu:///system``, with libvirtd and virtlogd running (started here when they are not)."""
    problem = _missing()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the libvirt machine tests cannot run: {problem}")
        pytest.skip(problem)
    started: list[str] = []
    if not SOCKET.exists():
        for daemon in ("virtlogd", "libvirtd"):
            subprocess.run([daemon, "-d"], check=True, timeout=60)
            started.append(daemon)
        deadline = time.monotonic() + 60
        while not SOCKET.exists():
            assert time.monotonic() < deadline, "libvirtd started but made no socket within 60 s"
            time.sleep(0.2)
    IMAGES.mkdir(parents=True, exist_ok=True)
    IMAGES.chmod(0o755)
    yield "qemu:///system"
    for daemon in reversed(started):
        pid = Path(f"/run/{daemon}.pid")
        if pid.exists():
            os.kill(int(pid.read_text().strip()), signal.SIGTERM)


@pytest.fixture(scope="session")
def images(system_libvirt: str) -> Path:
    """Where the machine tests keep their files (the probe guest's cache, one folder per test)."""
    return IMAGES


# The default image with a smaller desktop (no Gnumeric, Chromium, PCManFM or Mousepad): the same stages
# and code as `cua-bench image build libvirt`, minutes sooner.
SMALL_DESKTOP = (
    "xvfb", "openbox", "dbus", "at-spi2-core", "xterm", "xdotool", "xclip", "x11-xserver-utils",
    "fonts-dejavu-core", "libatk-adaptor", "python3", "python3-venv", "procps",
)  # fmt: skip


@pytest.fixture(scope="session")
def image_root(images: Path) -> Path:
    """A folder holding the small desktop's image, built when missing or made by other code than this
    checkout's (its stages are kept: a rebuild after a code change takes about a minute)."""
    from cua_bench_libvirt import build_image, current_image

    root = images / "backend"
    build_image(root, packages=SMALL_DESKTOP, log=lambda line: None)
    assert current_image(root) is not None
    return root
