"""``libvirt-windows``: the machine as Windows' own drivers need it, the image made from the user's Windows, and
the choice of backend for a Windows task.

No Windows can be fetched here, so no Windows boots: what runs for real is everything around it. The
layout (SATA, e1000e, VGA, SeaBIOS, the settings ISO) is started on QEMU through qemu:///system, snapshotted
with its memory and reverted; an image is imported with qemu-img; an install from an ISO runs until its
wait for Setup, where a machine that does not answer is an error that keeps its screen; bad input is
refused before anything is built or booted.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench import BackendError
from cua_bench.backend_choice import choose_backend
from cua_bench.backend_kit import labels
from cua_bench_libvirt import Domain, Hypervisor, LibvirtWindowsBackend, current_image, media_kind
from cua_bench_libvirt.backend import free_port
from cua_bench_libvirt.seed import iso_drive

WINDOWS_TASK = """
import cua_bench as cb

@cb.tasks_config(split="train")
def load():
    return [cb.Task(description="Open Notepad", computer={"provider": "native", "setup_config": {"os_type": "win11"}})]

@cb.setup_task(split="train")
async def setup(task_cfg, session):
    await session.launch("notepad")

@cb.evaluate_task(split="train")
async def evaluate(task_cfg, session):
    return [0.0]
"""


def qcow2(path: Path, size: str = "64M") -> Path:
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(path), size], check=True)
    return path


def iso(path: Path, files: dict[str, bytes]) -> Path:
    return iso_drive(path, {name: (data, 0o644) for name, data in files.items()})


def windows_domain(folder: Path, name: str, accel: str = "tcg", cdroms: tuple[Path, ...] = ()) -> Domain:
    return Domain(
        name, qcow2(folder / "disk.qcow2"), folder / "serial.log", None, None, "", 256, 1, accel,
        labels("libvirt-windows", "windows-tests"), {}, iso(folder / "seed.iso", {"env": b"A=1\n"}),
        windows=True, cdroms=cdroms,
    )  # fmt: skip


def test_media_is_told_apart_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    assert media_kind(qcow2(tmp_path / "windows.iso")) == "qcow2"  # a misnamed disk is still a disk
    assert media_kind(iso(tmp_path / "Win11.img", {"setup.exe": b"MZ"})) == "iso"
    (tmp_path / "notes.iso").write_text("not an image")
    with pytest.raises(BackendError, match=r"neither an ISO 9660 image nor a qcow2 disk: give Windows' install ISO"):
        media_kind(tmp_path / "notes.iso")
    with pytest.raises(BackendError, match="no such file"):
        media_kind(tmp_path / "missing.iso")


def test_the_layout_is_what_windows_inbox_drivers_drive(tmp_path: Path) -> None:
    made = windows_domain(tmp_path, "cua-win", cdroms=(tmp_path / "media.iso",))
    root = ElementTree.fromstring(made.xml())
    assert root.find("os/kernel") is None and [b.get("dev") for b in root.iterfind("os/boot")] == ["hd", "cdrom"]
    disks = [(d.get("device"), d.find("target").get("bus"), d.find("readonly") is not None)  # type: ignore[union-attr]
             for d in root.iterfind("devices/disk")]  # fmt: skip
    assert disks == [("disk", "sata", False), ("cdrom", "sata", True), ("cdrom", "sata", True)]
    assert root.findtext("on_reboot") == "restart" and root.find("clock").get("offset") == "localtime"  # type: ignore[union-attr]
    assert root.find("devices/video/model").get("type") == "vga"  # type: ignore[union-attr]
    assert root.find("features/hyperv") is None  # TCG has no Hyper-V enlightenments to give
    assert ElementTree.fromstring(windows_domain(tmp_path, "k", "kvm").xml()).find("features/hyperv") is not None
    linux = Domain("cua-linux", tmp_path / "d", tmp_path / "s", None, None)
    with pytest.raises(ValueError, match="a Linux machine boots a kernel and initrd directly"):
        linux.xml()


def test_an_image_build_refuses_bad_input_before_it_builds_or_boots(tmp_path: Path) -> None:
    def build(**options: str) -> None:
        LibvirtWindowsBackend(uri="test:///default", images=str(tmp_path / "root"), **options).build_image(
            log=lambda _line: None
        )

    with pytest.raises(BackendError, match="the Windows image is made from your Windows: --backend-option media=PATH"):
        build()
    media = iso(tmp_path / "win.iso", {"setup.exe": b"MZ"})
    with pytest.raises(BackendError, match="an install ISO needs the kit beside it: --backend-option kit=FOLDER"):
        build(media=str(media))
    (tmp_path / "kit").mkdir()
    with pytest.raises(BackendError, match=r"is not a whole kit \(no autounattend.xml, .*python-3.11.N-amd64.exe"):
        build(media=str(media), kit=str(tmp_path / "kit"))
    with pytest.raises(BackendError, match="libvirt-windows builds one image, 'windows'"):
        LibvirtWindowsBackend(images=str(tmp_path / "root")).build_image(variant="osworld")
    assert current_image(tmp_path / "root", "windows") is None
    assert list((tmp_path / "root" / "images" / "windows").iterdir()) == []  # the failed build left no folder


def test_a_windows_task_picks_the_backend_once_an_image_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = tmp_path / "tasks" / "notepad"
    task.mkdir(parents=True)
    (task / "main.py").write_text(WINDOWS_TASK)
    root = tmp_path / "root"
    monkeypatch.setenv("CUA_LIBVIRT_IMAGES", str(root))
    assert LibvirtWindowsBackend.unavailable() == (
        f"no Windows image under {root}: make one from your Windows with `cua-bench image build libvirt-windows "
        "--backend-option media=PATH` (the plugin's README says how)"
    )
    assert choose_backend([task], "train")[0] != "libvirt-windows"  # none can start: the run's server says why
    provisioned = qcow2(tmp_path / "provisioned.qcow2")
    built = LibvirtWindowsBackend(media=str(provisioned)).build_image(log=lambda _line: None)
    image = current_image(root, "windows")
    assert image is not None and str(image.folder) == built.image and str(image.info["how"]).startswith("imported")
    info = subprocess.run(
        ["qemu-img", "info", "--output=json", str(image.base)], capture_output=True, text=True, check=True
    )
    assert '"backing-filename"' not in info.stdout  # flattened: it names no file of the user's
    assert LibvirtWindowsBackend.unavailable() is None
    assert choose_backend([task], "train") == ("libvirt-windows", "the task wants os_type windows")


def test_the_layout_lives_through_the_test_drivers_lifecycle(tmp_path: Path) -> None:
    hv = Hypervisor("test:///default")
    try:
        hv.start(windows_domain(tmp_path, "cua-win-life"))
        hv.snapshot("cua-win-life", "ready")
        hv.revert("cua-win-life", "ready")
        assert hv.running("cua-win-life") and hv.remove("cua-win-life")
    finally:
        hv.close()


# -- on QEMU (qemu:///system): one worker with the other machine tests ---------------------------------------

machines = pytest.mark.xdist_group("libvirt")


@pytest.fixture
def folder(images: Path) -> Iterator[Path]:
    made = images / f"windows-{uuid.uuid4().hex[:8]}"
    made.mkdir()
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


@machines
@pytest.mark.timeout(600)
def test_qemu_runs_the_layout_and_snapshots_it_with_its_cd_roms_attached(system_libvirt: str, folder: Path) -> None:
    """SATA through an AHCI controller on i440fx, e1000e in its slot, three CD-ROMs (a memory snapshot skips
    read-only drives), and a screen to take: SeaBIOS finds nothing to boot, which is all a blank disk has."""
    hv = Hypervisor(system_libvirt)
    name = f"cua-win-{uuid.uuid4().hex[:8]}"
    media = iso(folder / "media.iso", {"setup.exe": b"MZ"})
    machine = windows_domain(folder, name, cdroms=(media, iso(folder / "kit.iso", {"firstboot.ps1": b""})))
    try:
        hv.start(dataclasses.replace(machine, forwards={free_port(): 5555}))
        live = ElementTree.fromstring(hv.conn.lookupByName(name).XMLDesc(0))
        assert live.find("devices/controller[@type='sata']") is not None
        assert any(
            "e1000e," in (arg.get("value") or "")
            for arg in live.iter("{http://libvirt.org/schemas/domain/qemu/1.0}arg")
        )
        hv.snapshot(name, "ready")
        hv.revert(name, "ready")
        assert hv.running(name)
        shot = hv.screenshot(name, folder / "screen")
        assert shot is not None and shot.read_bytes().startswith((b"\x89PNG", b"P6"))  # of the VGA screen
    finally:
        hv.remove(name)
        hv.close()


@machines
@pytest.mark.timeout(900)
def test_an_install_that_never_answers_keeps_its_screen_and_leaves_nothing(
    system_libvirt: str, folder: Path, tmp_path: Path
) -> None:
    """The install path up to Windows Setup: kit ISO, settings ISO, a blank disk, the user's media; the media
    here boots nothing, so the wait ends in an error with the screen, and no machine, drive or image stays."""
    kit = tmp_path / "kit"
    for name in ("autounattend.xml", "firstboot.ps1", "start-server.ps1", "python-3.11.9-amd64.exe"):
        (kit / name).parent.mkdir(parents=True, exist_ok=True)
        (kit / name).write_text("stand-in")
    (kit / "wheels").mkdir()
    (kit / "lib").mkdir()
    media = iso(folder / "win.iso", {"setup.exe": b"MZ"})
    backend = LibvirtWindowsBackend(
        uri=system_libvirt, images=str(folder / "root"), media=str(media), kit=str(kit), accel="tcg", memory=256,
        cpus=1, disk_gib=1, install_timeout=8.0,
    )  # fmt: skip
    with pytest.raises(
        BackendError, match=r"Windows Setup in machine cua-build-\w+ was not ready within 8 s"
    ) as raised:
        backend.build_image(log=lambda _line: None)
    message = str(raised.value)
    assert "C:\\cua\\logs\\firstboot.log" in message, message
    kept = re.search(r"its screen is kept at (\S+);", message)
    assert kept and Path(kept[1]).read_bytes().startswith((b"\x89PNG", b"P6")), message  # libvirt 9 sends PNG
    assert Path(kept[1]).parent == folder / "root" / "failed"
    assert [n for n, _, _ in backend.hypervisor.ours() if n.startswith("cua-build-")] == []
    assert list((folder / "root" / "build").iterdir()) == []  # the build's machine folder and drives are gone
    assert current_image(folder / "root", "windows") is None
