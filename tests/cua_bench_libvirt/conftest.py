"""A real libvirtd for the machine tests: the one running, or one these tests start (and stop) as root."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cua_bench.backend_kit import COMPUTER_PACKAGES

# virtlogd first: libvirtd hands QEMU's console to it.
DAEMONS = (("virtlogd", Path("/run/libvirt/virtlogd-sock")), ("libvirtd", Path("/run/libvirt/libvirt-sock")))
# QEMU under qemu:///system runs as libvirt-qemu: what it opens must be reachable by that user, and
# pytest's own temporary folders (mode 0700, root's) are not. This is libvirt's own images folder.
IMAGES = Path("/var/lib/libvirt/images/cua-bench-tests")


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


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
    for daemon, socket_path in DAEMONS:
        if _answers(socket_path):
            continue
        # A socket file with no daemon behind it is left by one that was killed (seen here and in CI): the
        # daemon replaces it, so only a connection says whether one runs.
        subprocess.run([daemon, "-d"], check=True, timeout=60)
        started.append(daemon)
        deadline = time.monotonic() + 60
        while not _answers(socket_path):
            assert time.monotonic() < deadline, f"{daemon} started but did not answer on {socket_path} within 60 s"
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
# and code as `cua-bench image build libvirt`, minutes sooner. It has OSWorld's computer's packages too, so
# that the osworld variant without OSWorld's apps (``computer_root``) shares its apt stage.
SMALL_DESKTOP = (
    "xvfb", "openbox", "dbus", "at-spi2-core", "xterm", "xdotool", "xclip", "x11-xserver-utils",
    "fonts-dejavu-core", "libatk-adaptor", "python3", "python3-venv", "procps", *COMPUTER_PACKAGES,
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


@pytest.fixture(scope="session")
def computer_root(image_root: Path) -> Path:
    """``image_root`` holding the osworld variant too, as CI builds it: OSWorld's computer (its user, sudo,
    pyautogui, setup.sh) on the small desktop, without OSWorld's apps and metric modules."""
    from cua_bench_libvirt import build_image, current_image

    build_image(image_root, variant="osworld", packages=SMALL_DESKTOP, metrics=False, log=lambda line: None)
    assert current_image(image_root, "osworld") is not None
    return image_root


@pytest.fixture
def session_keys(private_session_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This session's key pair as the client's: a machine allows the key of whoever provisioned it."""
    monkeypatch.setenv("CUA_CONFIG_DIR", str(private_session_dirs / "config"))
