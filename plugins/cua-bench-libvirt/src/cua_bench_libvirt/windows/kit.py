"""The Windows provisioning kit: what turns the user's Windows install media into a cua-bench guest.

No Windows image can be fetched (Microsoft's licence and downloads), so the user brings one, and we
bring a kit to attach beside it: an answer file that installs Windows unattended (``autounattend.xml``,
which Windows Setup looks for at the root of every drive), a first-boot script that installs Python
and the env server (``firstboot.ps1``), the script a logon task runs the server with
(``start-server.ps1``), the Python installer (the user's: python.org is not a registry we use), and the
env server's payload: the backend kit's ``server_payload`` with wheels for ``win_amd64`` plus comtypes
(UI Automation from Python, the Windows session's one dependency of its own), and our packages with
this plugin among them, since the server inside serves ``--backend libvirt-windows``.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from xml.etree import ElementTree

from cua_bench import BackendError
from cua_bench.backend_kit import IMAGE_PYTHON, server_payload

__all__ = ["KIT_FILES", "WINDOWS_PINS", "answer_file", "kit_iso", "windows_kit"]

KIT_FILES = Path(__file__).parent / "kit_files"
WINDOWS_PLATFORMS = ("win_amd64",)
WINDOWS_PINS = ("comtypes==1.4.17",)  # not a dependency of the host: pinned here, pure Python
INSTALLER = re.compile(r"python-3\.11\.\d+-amd64\.exe")
PRODUCT_KEY = re.compile(r"[A-Z0-9]{5}(-[A-Z0-9]{5}){4}")
COMPUTER_NAME = re.compile(r"[A-Za-z0-9-]{1,15}")  # NetBIOS: 15 characters at most
PLUGIN = "cua_bench_libvirt"

Log = Callable[[str], None]


def _check(password: str, computer_name: str, product_key: str, python_installer: Path | None, index: int) -> None:
    """Every input checked before anything is written: a kit that Setup would stop on is no kit."""
    if not password:
        raise BackendError("windows_kit: the password is empty; the `cua` account needs one to log on by itself")
    if len(password) > 127 or any(ord(c) < 32 for c in password):
        raise BackendError("windows_kit: the password must be at most 127 characters, with no control characters")
    if not COMPUTER_NAME.fullmatch(computer_name) or computer_name.isdigit():
        raise BackendError(f"windows_kit: computer name {computer_name!r} is not 1-15 letters, digits and hyphens "
                           "(not digits only), as Windows requires")  # fmt: skip
    if product_key and not PRODUCT_KEY.fullmatch(product_key):
        raise BackendError(f"windows_kit: product key {product_key!r} is not five groups of five (XXXXX-XXXXX-...)")
    if index < 1:
        raise BackendError(f"windows_kit: image index {index} must be 1 or more (`dism /Get-WimInfo` lists them)")
    if python_installer is not None:
        if not python_installer.is_file():
            raise BackendError(f"windows_kit: the Python installer {python_installer} is not a file")
        if not INSTALLER.fullmatch(python_installer.name):
            raise BackendError(f"windows_kit: {python_installer.name} is not python-3.11.N-amd64.exe (the kit's "
                               "wheels are for CPython 3.11 on 64-bit Windows)")  # fmt: skip


def answer_file(*, password: str, computer_name: str, product_key: str = "", image_index: int = 1) -> str:
    """The kit's ``autounattend.xml`` with its placeholders filled (text XML-escaped); parsed to be sure."""
    # Here: xml.sax pulls in urllib.request and http.client, and every env server imports this module (through
    # the libvirt plugin's registration hook).
    from xml.sax.saxutils import escape

    key = (f"<ProductKey><Key>{product_key}</Key><WillShowUI>OnError</WillShowUI></ProductKey>" if product_key
           else "<ProductKey><WillShowUI>Never</WillShowUI></ProductKey>")  # fmt: skip
    text = (KIT_FILES / "autounattend.xml").read_text(encoding="utf-8")
    for name, value in (("PASSWORD", escape(password)), ("COMPUTER_NAME", computer_name),
                        ("PRODUCT_KEY", key), ("IMAGE_INDEX", str(image_index))):  # fmt: skip
        text = text.replace("{{" + name + "}}", value)
    ElementTree.fromstring(text.encode("utf-8"))
    return text


def windows_kit(
    folder: Path,
    *,
    password: str,
    computer_name: str = "cua-guest",
    product_key: str = "",
    python_installer: Path | None = None,
    image_index: int = 1,
    log: Log = print,
) -> Path:
    """Write the provisioning kit into ``folder`` (new, or empty) and return it.

    Args:
        folder: where the kit goes; ``kit_iso`` makes a drive of it.
        password: the local administrator ``cua``'s, which also logs on by itself (kept in plain text
            in the answer file and, after first boot, in Winlogon's registry: a test machine's password).
        computer_name: the guest's name (1-15 letters, digits, hyphens).
        product_key: a key for Setup; empty for none (evaluation media need none).
        python_installer: python.org's ``python-3.11.N-amd64.exe``; without it the kit is written but
            ``kit_iso`` refuses it until the installer is copied into ``folder``.
        image_index: the edition in the media's install.wim (1: the first; ``dism /Get-WimInfo`` lists them).
        log: called with each line of progress.

    Raises:
        BackendError: bad input (before anything is written), ``folder`` holds files, or pip could not
            download a wheel for Windows.
    """
    _check(password, computer_name, product_key, python_installer, image_index)
    if folder.exists() and any(folder.iterdir()):
        raise BackendError(f"windows_kit: {folder} is not empty; give a new folder")
    answers = answer_file(password=password, computer_name=computer_name, product_key=product_key,
                          image_index=image_index)  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "autounattend.xml").write_text(answers, encoding="utf-8")
    for script in ("firstboot.ps1", "start-server.ps1"):  # CRLF: PowerShell reads either, Notepad shows them
        text = (KIT_FILES / script).read_text(encoding="utf-8")
        (folder / script).write_bytes(text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8"))
    if python_installer is not None:
        shutil.copyfile(python_installer, folder / python_installer.name)
    else:
        log("windows_kit: no Python installer given: copy python-3.11.N-amd64.exe into the kit before kit_iso")
    server_payload(folder, log=log, platforms=WINDOWS_PLATFORMS)
    _download_windows_pins(folder / "wheels", log)
    _copy_plugin(folder / "lib")
    log(f"windows_kit: the kit is in {folder}")
    return folder


def _download_windows_pins(wheels: Path, log: Log) -> None:
    log(f"pip download {' '.join(WINDOWS_PINS)} (win_amd64)")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "--python-version",
         IMAGE_PYTHON, "--implementation", "cp", *(arg for tag in WINDOWS_PLATFORMS for arg in ("--platform", tag)),
         "-d", str(wheels), *WINDOWS_PINS],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise BackendError(f"pip download of the Windows session's wheels failed:\n{done.stderr[-2000:]}")


def _copy_plugin(lib: Path) -> None:
    """This plugin into ``lib`` with a dist-info holding its entry points, as the kit copies cua's packages:
    the server inside finds ``--backend libvirt-windows`` by its entry point."""
    source = Path(importlib.import_module(PLUGIN).__file__ or "").parent
    shutil.copytree(source, lib / PLUGIN, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = metadata.distribution("cua-bench-libvirt")
    info = lib / f"{PLUGIN}-{dist.version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist.metadata['Name']}\nVersion: {dist.version}\n")
    (info / "entry_points.txt").write_text(dist.read_text("entry_points.txt") or "")


def kit_iso(folder: Path, iso: Path) -> Path:
    """An ISO of the kit (Joliet names, so Windows sees the files as named), to attach as a CD-ROM.

    Raises:
        BackendError: ``folder`` is not a complete kit, or neither xorriso nor genisoimage is installed.
    """
    missing = [name for name in ("autounattend.xml", "firstboot.ps1", "start-server.ps1", "wheels", "lib")
               if not (folder / name).exists()]  # fmt: skip
    if not any(INSTALLER.fullmatch(path.name) for path in folder.glob("python-3.11.*-amd64.exe")):
        missing.append("python-3.11.N-amd64.exe")
    if missing:
        raise BackendError(f"kit_iso: {folder} is not a whole kit (no {', '.join(missing)}): make it with windows_kit")
    flags = ["-J", "-joliet-long", "-r", "-V", "CUA_KIT", "-o", str(iso), str(folder)]
    if shutil.which("xorriso"):
        argv = ["xorriso", "-as", "mkisofs", *flags]
    elif shutil.which("genisoimage"):
        argv = ["genisoimage", *flags]
    else:
        raise BackendError("kit_iso needs xorriso or genisoimage: apt-get install xorriso")
    iso.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackendError(f"{argv[0]} could not make {iso}:\n{done.stderr[-2000:]}")
    return iso
