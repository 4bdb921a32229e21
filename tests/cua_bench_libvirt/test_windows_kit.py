"""The Windows provisioning kit: a valid answer file with its placeholders filled, the first-boot and logon
scripts, the server's payload for win_amd64, bad input refused before anything is written, and an ISO
that holds autounattend.xml at its root (where xorriso or genisoimage is installed). pip's downloads are
not run (they fetch ~40 MB of wheels): what they would fetch, and for which platform, is checked."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from cua_bench import BackendError
from cua_bench.backend_kit import payload
from cua_bench_libvirt.windows import WINDOWS_PINS, answer_file, kit_iso, windows_kit
from cua_bench_libvirt.windows import kit as kit_module

NS = {"u": "urn:schemas-microsoft-com:unattend"}
PASSWORD = "p<&>'\"w0rd"


@pytest.fixture
def installer(tmp_path: Path) -> Path:
    """A stand-in for python.org's installer: the kit only copies it (Windows runs it)."""
    path = tmp_path / "python-3.11.9-amd64.exe"
    path.write_bytes(b"MZ not really an installer")
    return path


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str], list[str]]]:
    asked: list[tuple[str, list[str], list[str]]] = []
    monkeypatch.setattr(payload, "_download_wheels",
                        lambda folder, log, pins, platforms: asked.append(("server", pins, platforms)))  # fmt: skip
    monkeypatch.setattr(kit_module, "_download_windows_pins",
                        lambda wheels, log: asked.append(("windows", list(WINDOWS_PINS), ["win_amd64"])))  # fmt: skip
    return asked


def test_the_answer_file_is_valid_xml_with_every_placeholder_filled_and_the_password_escaped() -> None:
    text = answer_file(password=PASSWORD, computer_name="bench-7", product_key="")
    assert "{{" not in text
    root = ElementTree.fromstring(text.encode())
    passes = [s.get("pass") for s in root.findall("u:settings", NS)]
    assert passes == ["windowsPE", "specialize", "oobeSystem"]
    assert {c.get("processorArchitecture") for c in root.iter(f"{{{NS['u']}}}component")} == {"amd64"}
    assert [e.text for e in root.iter(f"{{{NS['u']}}}Value") if e.text and "w0rd" in e.text] == [PASSWORD, PASSWORD]
    assert root.find(".//u:ComputerName", NS).text == "bench-7"  # type: ignore[union-attr]
    disk = root.find(".//u:Disk", NS)
    assert disk is not None and disk.findtext("u:DiskID", namespaces=NS) == "0"
    assert disk.findtext("u:WillWipeDisk", namespaces=NS) == "true"
    [partition] = disk.findall(".//u:ModifyPartition", NS)
    assert partition.findtext("u:Format", namespaces=NS) == "NTFS" and partition.findtext("u:Active", namespaces=NS)
    assert root.find(".//u:ProductKey/u:Key", NS) is None  # no key: none asked for, and Setup asks for none
    assert root.findtext(".//u:AutoLogon/u:Username", namespaces=NS) == "cua"
    [account] = root.findall(".//u:LocalAccount", NS)
    assert account.findtext("u:Name", namespaces=NS) == "cua"
    assert account.findtext("u:Group", namespaces=NS) == "Administrators"
    assert root.findtext(".//u:OOBE/u:HideOnlineAccountScreens", namespaces=NS) == "true"
    [command] = [e.text or "" for e in root.iter(f"{{{NS['u']}}}CommandLine")]
    assert "firstboot.ps1" in command and "-ExecutionPolicy Bypass" in command
    key = "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"
    keyed = ElementTree.fromstring(answer_file(password="x", computer_name="a", product_key=key).encode())
    assert keyed.findtext(".//u:ProductKey/u:Key", namespaces=NS) == key


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"password": ""}, "the password is empty"),
        ({"python_installer": Path("/nonexistent/python-3.11.9-amd64.exe")}, "is not a file"),
        ({"computer_name": "a-name-longer-than-15"}, "is not 1-15 letters"),
        ({"computer_name": "1234"}, "not digits only"),
        ({"product_key": "not-a-key"}, "is not five groups of five"),
        ({"image_index": 0}, "image index 0"),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(
    tmp_path: Path, options: dict[str, object], error: str, downloads: list[object]
) -> None:
    folder = tmp_path / "kit"
    with pytest.raises(BackendError, match=error):
        windows_kit(folder, **{"password": "pw", **options})  # type: ignore[arg-type]
    assert not folder.exists() and downloads == []


def test_an_installer_of_another_python_is_refused(tmp_path: Path, downloads: list[object]) -> None:
    other = tmp_path / "python-3.12.1-amd64.exe"
    other.write_bytes(b"MZ")
    with pytest.raises(BackendError, match=r"not python-3\.11\.N-amd64\.exe"):
        windows_kit(tmp_path / "kit", password="pw", python_installer=other)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "something").write_text("x")
    with pytest.raises(BackendError, match="is not empty"):
        windows_kit(tmp_path / "full", password="pw")


def test_the_kit_holds_the_answer_file_the_scripts_and_the_windows_payload(
    tmp_path: Path, installer: Path, downloads: list[tuple[str, list[str], list[str]]]
) -> None:
    kit = windows_kit(tmp_path / "kit", password=PASSWORD, python_installer=installer, log=lambda line: None)
    assert ElementTree.parse(kit / "autounattend.xml").getroot().tag == f"{{{NS['u']}}}unattend"
    firstboot = (kit / "firstboot.ps1").read_bytes()
    assert b"\r\n" in firstboot and b"\n" not in firstboot.replace(b"\r\n", b"")  # CRLF throughout
    text = firstboot.decode()
    assert "Register-ScheduledTask" in text and "-AtLogOn" in text and "-RunLevel Highest" in text
    assert "--no-index" in text and "cua.pth" in text and "session 0" in text
    server = (kit / "start-server.ps1").read_text()
    assert "--backend', 'libvirt-windows'" in server and "tcp://0.0.0.0:$port" in server and "--curve" in server
    assert (kit / installer.name).read_bytes() == installer.read_bytes()
    [(_, pins, platforms), windows] = downloads
    assert platforms == ["win_amd64"] and any(pin.startswith("pyzmq==") for pin in pins)
    assert windows[1] == list(WINDOWS_PINS) and WINDOWS_PINS[0].startswith("comtypes==")
    lib = kit / "lib"
    assert (lib / "cua_bench" / "server.py").is_file()
    plugin = lib / "cua_bench_libvirt" / "windows"
    assert (plugin / "session.py").is_file() and (plugin / "kit_files" / "firstboot.ps1").is_file()
    [info] = lib.glob("cua_bench_libvirt-*.dist-info")
    assert "libvirt = cua_bench_libvirt.backend" in (info / "entry_points.txt").read_text()


def test_an_iso_needs_a_whole_kit_and_a_tool_named_by_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installer: Path, downloads: list[object]
) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(BackendError, match=r"no autounattend.xml, .*python-3.11.N-amd64.exe"):
        kit_iso(tmp_path / "empty", tmp_path / "kit.iso")
    kit = windows_kit(tmp_path / "kit", password="pw", python_installer=installer, log=lambda line: None)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(BackendError, match="apt-get install xorriso"):
        kit_iso(kit, tmp_path / "kit.iso")


def test_the_iso_holds_the_answer_file_at_its_root(tmp_path: Path, installer: Path, downloads: list[object]) -> None:
    if not (shutil.which("xorriso") or shutil.which("genisoimage")):
        why = "neither xorriso nor genisoimage is installed (scripts/system-deps.sh installs xorriso)"
        pytest.fail(f"CI is set but {why}") if os.environ.get("CI") else pytest.skip(why)
    kit = windows_kit(tmp_path / "kit", password=PASSWORD, python_installer=installer, log=lambda line: None)
    iso = kit_iso(kit, tmp_path / "out" / "kit.iso")
    if shutil.which("xorriso"):
        listed = subprocess.run(["xorriso", "-indev", str(iso), "-find", "/", "-maxdepth", "1"],
                                capture_output=True, text=True, check=True).stdout  # fmt: skip
        extracted = tmp_path / "autounattend.xml"
        subprocess.run(["xorriso", "-osirrox", "on", "-indev", str(iso), "-extract", "/autounattend.xml",
                        str(extracted)], capture_output=True, check=True)  # fmt: skip
        assert extracted.read_bytes() == (kit / "autounattend.xml").read_bytes()
    else:
        argv = ["isoinfo", "-J", "-f", "-i", str(iso)]  # genisoimage's package has isoinfo
        listed = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    names = {line.strip().strip("'").lstrip("/") for line in listed.splitlines()}
    assert {"autounattend.xml", "firstboot.ps1", "start-server.ps1", installer.name} <= names
