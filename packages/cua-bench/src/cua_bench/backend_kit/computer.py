"""OSWorld's computer, as an image carries it: the docker and libvirt backends' ``osworld`` variants.

OSWorld's tasks expect the Ubuntu VM they were written on: user ``user`` (password ``password``, sudo),
home /home/user, python3 with pyautogui, a real settings backend, google-chrome, GNOME's terminal and
schemas, its apps, a time zone that is not UTC. An image gets that from ``COMPUTER_PACKAGES`` (and
``OSWORLD_APPS``) and from ``computer_files``: ``setup.sh``, run once as root at build time with the
files at /opt/cua/computer, makes the user and the rest; ``reset-machine`` puts back at every reset
what a task may change as root outside home. The env server then runs as ``user`` with ``COMPUTER_ENV``
(the whole machine is the environment; its reset runs ``reset-machine`` through sudo).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from cua_bench.backend_kit.errors import BackendError

__all__ = ["COMPUTER_ENV", "COMPUTER_FILES", "COMPUTER_PACKAGES", "COMPUTER_USER", "OSWORLD_APPS", "computer_files"]

COMPUTER_FILES = Path(__file__).with_name("computer_files")  # copied to /opt/cua/computer in the image
COMPUTER_USER = "user"
# The env server's settings on OSWorld's computer: the whole machine is the environment (its real /tmp and
# home), its folders off /tmp, ctrl+alt+t opens GNOME Terminal as on OSWorld's Ubuntu, and every reset puts
# back what a task may have changed as root outside home (the clock's time zone).
COMPUTER_ENV = {
    "CUA_LOCAL_WHOLE_MACHINE": "1",
    "CUA_LOCAL_ROOT": "/var/lib/cua",
    "CUA_LOCAL_KEYBINDS": "C-A-t=gnome-terminal",
    "CUA_LOCAL_RESET_HOOK": "sudo -n /opt/cua/computer/reset-machine",
}
# OSWorld's computer: sudo, python3 with what pyautogui needs from Debian (Xlib, Pillow, tk), the
# ``python`` command, a real settings backend (dconf on the session bus; dbus-x11 for dbus-launch),
# socat (OSWorld forwards Chrome's debugging port with it), passwd (useradd, chpasswd, usermod), xsel
# (OSWorld's getters read the clipboard with it), gnome-shell-common (GNOME Shell's settings schemas, which
# OSWorld's tasks set and read, such as org.gnome.shell favorite-apps; not the shell itself), gnome-terminal
# (the terminal OSWorld's tasks start by name and open with ctrl+alt+t, whose text ``vm_terminal_output`` reads),
# gnome-settings-daemon-common (the schemas of GNOME's power, media-keys ... settings, which OSWorld's tasks
# set and read, such as org.gnome.settings-daemon.plugins.power idle-dim; not the daemon).
COMPUTER_PACKAGES = (
    "sudo", "passwd", "python3-xlib", "python3-pil", "python3-tk", "python-is-python3", "dbus-x11",
    "dconf-service", "dconf-cli", "libglib2.0-bin", "gsettings-desktop-schemas", "socat", "x11-utils", "wmctrl",
    "xsel", "gnome-shell-common", "gnome-terminal", "gnome-settings-daemon-common",
)  # fmt: skip
# OSWorld's apps from Debian (Chromium stands in for Chrome, VS Code has no Debian package), Totem (GNOME's
# video player, the default one on OSWorld's VM, so that making VLC the default is work) and the fonts its
# documents use (Liberation and Carlito/Caladea for Office's metrics, Noto for other scripts).
OSWORLD_APPS = (
    "libreoffice-calc", "libreoffice-writer", "libreoffice-impress", "libreoffice-gtk3", "gimp", "vlc", "totem",
    "thunderbird", "fonts-liberation", "fonts-liberation2", "fonts-dejavu", "fonts-crosextra-carlito",
    "fonts-crosextra-caladea", "fonts-noto-core",
)  # fmt: skip
# pyautogui and its pure-Python dependencies (Debian has no python3-pyautogui), for the system python3.
PYAUTOGUI_WHEELS = (
    "pyautogui==0.9.54", "pymsgbox==2.0.1", "pytweening==1.2.0", "pyscreeze==1.0.1", "pygetwindow==0.0.9",
    "pyrect==0.2.0", "mouseinfo==0.1.3", "pyperclip==1.11.0",
)  # fmt: skip


def computer_files(folder: Path, log: Callable[[str], None] = print) -> Path:
    """The files ``setup.sh`` needs at /opt/cua/computer, written into ``folder`` (new): the scripts, and
    pyautogui's wheels (downloaded on this host, as the payload's are) in ``pywheels``, which setup.sh
    installs into the system python3 and removes."""
    shutil.copytree(COMPUTER_FILES, folder, ignore=shutil.ignore_patterns("__pycache__"))
    log(f"pip wheel {' '.join(PYAUTOGUI_WHEELS)}")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder / "pywheels"), *PYAUTOGUI_WHEELS],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise BackendError(f"pip wheel of pyautogui for OSWorld's computer failed:\n{done.stderr[-2000:]}")
    return folder
