"""The image build's chroot: the packages' scripts run with a /dev of the chroot's own. Through the host's /dev bound
in, a package's script once changed the host's /dev/kvm to the image's kvm gid, which is another group here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench_libvirt.image import _chroot

pytestmark = [pytest.mark.xdist_group("libvirt"), pytest.mark.timeout(600)]


def test_what_runs_in_the_chroot_changes_no_device_of_the_host(image_root: Path) -> None:
    debian = image_root / "build" / "debian"  # the build's debootstrap stage, kept by conftest's build
    before = os.stat("/dev/null")
    with _chroot(debian) as run:
        run("chown", "1:1", "/dev/null", what="chown of the chroot's /dev/null")
        run("sh", "-c", "echo x > /dev/null && test $(head -c 4 /dev/urandom | wc -c) -eq 4 && test -c /dev/ptmx",
            what="the chroot's devices")  # fmt: skip
    after = os.stat("/dev/null")
    assert (after.st_uid, after.st_gid, after.st_mode) == (before.st_uid, before.st_gid, before.st_mode)
    with open("/proc/mounts") as mounts:
        assert [line for line in mounts if f"{debian}/" in line] == []  # nothing stays mounted
