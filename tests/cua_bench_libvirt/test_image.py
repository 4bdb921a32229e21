"""The image build's chroot: the packages' scripts run with a /dev of the chroot's own. Through the host's /dev bound
in, a package's script once changed the host's /dev/kvm to the image's kvm gid, which is another group here.
And builds that nothing uses any more go when a new one is made (every test run left 2.8 GiB behind)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench_libvirt.domains import make_overlay
from cua_bench_libvirt.image import _chroot, current_image, new_build

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


@pytest.mark.skipif(shutil.which("qemu-img") is None, reason="qemu-img is not installed (scripts/system-deps.sh)")
def test_a_new_build_removes_the_old_ones_no_machine_uses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stamps = iter(f"2026-{n}" for n in range(5))
    monkeypatch.setattr("cua_bench_libvirt.image.time.strftime", lambda _: next(stamps))

    def build() -> Path:
        with new_build(tmp_path, "default") as (folder, _):
            subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(folder / "base.qcow2"), "16M"], check=True)
        return folder

    first, second = build(), build()
    machine = tmp_path / "machines" / "cua-env-1"
    machine.mkdir(parents=True)
    make_overlay(first / "base.qcow2", machine / "disk.qcow2")  # a machine still runs on the first build
    (tmp_path / "machines" / "cua-env-2").mkdir()
    (tmp_path / "machines" / "cua-env-2" / "seed.qcow2").write_bytes(b"not a qcow2")
    third = build()
    builds = tmp_path / "images" / "default"
    assert sorted(p.name for p in builds.iterdir()) == ["2026-0", "2026-1", "2026-2", "current"]
    image = current_image(tmp_path)
    assert image is not None and image.folder == third

    (machine / "disk.qcow2").unlink()  # that machine is gone
    build()  # keeps itself and the one it replaced
    assert sorted(p.name for p in builds.iterdir()) == ["2026-2", "2026-3", "current"]
    assert not first.exists() and not second.exists()
