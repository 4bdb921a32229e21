"""Which apps an OSWorld task needs, and which each backend's desktop has.

OSWorld's tasks were written for one VM image with Chrome, LibreOffice, GIMP, VLC, Thunderbird, VS
Code, ``sudo``, ``python`` with pyautogui and more. On a desktop without one of them a task cannot
be done and its score would be a 0 the agent did not earn, so such a task is skipped, naming the
app. What a task needs is read off the task file: the programs its steps and getters run, the files
its ``open`` steps hand the desktop, and its domain (a ``gimp`` task drives GIMP).

What each backend has is data, not code: ``BACKEND_PACKAGES`` lists the Debian packages of each
backend's desktop (``local``: what ``scripts/system-deps.sh`` installs on the host; ``docker``: the
image's ``APT_PACKAGES``; ``docker-osworld``: the osworld image's, ``CUA_DOCKER_VARIANT=osworld``,
plus what that image adds beyond Debian, named ``cua:...``; the tests hold the lists to their
sources), and each app names the packages that give it. At run time the computer itself is asked
(``command -v``), so a desktop that differs from its table is judged by what it really has.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from cua_bench import NotSupported, Session
from cua_bench_osworld.config import missing_program
from cua_bench_osworld.loader import OSWorldTask

__all__ = [
    "APPS",
    "BACKEND_PACKAGES",
    "App",
    "apps_lacking",
    "apps_missing_on",
    "host_reach",
    "needed_apps",
    "programs_in",
]


@dataclass(frozen=True)
class App:
    name: str
    programs: tuple[str, ...] = ()  # commands whose use in a step or getter shows the task needs it
    packages: tuple[str, ...] = ()  # Debian packages that give it (any one); () when Debian has none
    opens: tuple[str, ...] = ()  # file extensions an ``open`` step hands it
    domains: tuple[str, ...] = ()  # OSWorld domain folders whose tasks drive it
    module: str | None = None  # a Python module the task's python code imports (pyautogui)
    probe: str | None = None  # the program whose presence shows the app is there (default: programs[0])
    note: str = ""  # how to get it, where Debian does not have it
    stand_in: str | None = None  # what an image of ours installs for it where Debian has none (``cua:...``)
    getters: tuple[str, ...] = ()  # getters that read this app (a task using one needs it)

    @property
    def check(self) -> str | None:
        return self.probe or (self.programs[0] if self.programs else None)

    def how(self) -> str:
        """How to get the app onto a desktop (for a skip's reason)."""
        if self.packages:
            return f"Debian: {' or '.join(self.packages)}"
        return self.note or "not packaged by Debian"


APPS: tuple[App, ...] = (
    App("Google Chrome", ("google-chrome", "google-chrome-stable"), domains=("chrome",),
        note="Google's build, not in Debian (its chromium answers only to its own name); the docker backend's "
             "osworld image runs chromium as google-chrome: CUA_DOCKER_VARIANT=osworld",
        stand_in="cua:google-chrome"),
    App("LibreOffice", ("libreoffice", "soffice"),  # each of its apps' packages brings the core
        ("libreoffice-core", "libreoffice-calc", "libreoffice-writer", "libreoffice-impress"), probe="soffice"),
    App("LibreOffice Calc", ("localc",), ("libreoffice-calc",), (".xlsx", ".xls", ".ods", ".csv"),
        ("libreoffice_calc",)),
    App("LibreOffice Writer", ("lowriter",), ("libreoffice-writer",), (".docx", ".doc", ".odt", ".rtf"),
        ("libreoffice_writer",)),
    App("LibreOffice Impress", ("loimpress",), ("libreoffice-impress",), (".pptx", ".ppt", ".odp"),
        ("libreoffice_impress",)),
    App("GIMP", ("gimp",), ("gimp",), domains=("gimp",)),
    App("VLC", ("vlc", "cvlc"), ("vlc",), (".mp4", ".mkv", ".avi", ".mov", ".mp3", ".wav"), ("vlc",)),
    App("Thunderbird", ("thunderbird", "/usr/bin/thunderbird"), ("thunderbird",), domains=("thunderbird",)),
    App("VS Code", ("code",), domains=("vs_code",), note="Microsoft's build, not in Debian"),
    App("Files (nautilus)", ("nautilus",), ("nautilus",)),
    App("GNOME Terminal", ("gnome-terminal", "gnome-terminal-server"), ("gnome-terminal",),
        getters=("vm_terminal_output",)),
    App("socat", ("socat",), ("socat",)),
    App("sudo", ("sudo",), ("sudo",)),
    App("gsettings", ("gsettings",), ("libglib2.0-bin",), getters=("vm_wallpaper",)),
    App("timedatectl", ("timedatectl",),  # systemd's package has the program, but it answers only under systemd
        note="systemd as the computer's init, with its timedated service: not in a container, nor on our desktops; "
             "a host booted with systemd has it, and the docker backend's osworld image a stand-in "
             "(CUA_DOCKER_VARIANT=osworld)",
        stand_in="cua:timedatectl"),
    App("python (the command OSWorld calls)", ("python",), ("python-is-python3",)),
    App("pyautogui", module="pyautogui",
        note="python3 with pyautogui on the display; not in Debian: pip install pyautogui on the computer",
        stand_in="cua:pyautogui"),
)  # fmt: skip

# The Debian packages on each backend's desktop. ``local``: scripts/system-deps.sh; ``docker``:
# cua_bench_docker.image.APT_PACKAGES (tests/cua_bench_osworld/test_report.py holds both to them).
BACKEND_PACKAGES: dict[str, frozenset[str]] = {
    "local": frozenset(
        {
            "xvfb", "openbox", "dbus", "at-spi2-core", "xterm", "xdotool", "xclip", "x11-xserver-utils", "mousepad",
            "gnumeric", "pcmanfm", "chromium", "fonts-dejavu-core", "docker.io", "debootstrap", "gnome-screenshot",
            "dconf-service", "libglib2.0-bin", "gsettings-desktop-schemas", "libatk-adaptor", "libgail-common",
            "libreoffice-calc", "libreoffice-writer", "libreoffice-impress", "libreoffice-gtk3", "gedit", "galculator",
            "file-roller", "zip", "unzip", "xz-utils", "evince", "inkscape", "gimp", "thunderbird",
            "vlc", "qgis", "blender", "kate", "libreoffice-draw", "ffmpeg",
        }
    ),
    "docker": frozenset(
        {
            "xvfb", "openbox", "dbus", "at-spi2-core", "xterm", "xdotool", "xclip", "x11-xserver-utils", "mousepad",
            "gnumeric", "pcmanfm", "chromium", "fonts-dejavu-core", "libatk-adaptor", "libgail-common", "python3",
            "python3-venv", "procps",
        }
    ),
    "docker-osworld": frozenset(
        {
            "xvfb", "openbox", "dbus", "at-spi2-core", "xterm", "xdotool", "xclip", "x11-xserver-utils", "mousepad",
            "gnumeric", "pcmanfm", "chromium", "fonts-dejavu-core", "libatk-adaptor", "libgail-common", "python3",
            "python3-venv", "procps", "sudo", "passwd", "python3-xlib", "python3-pil", "python3-tk",
            "python-is-python3", "dbus-x11",
            "dconf-service", "dconf-cli", "libglib2.0-bin", "gsettings-desktop-schemas", "socat", "x11-utils", "wmctrl",
            "xsel", "gnome-shell-common", "gnome-terminal", "gnome-settings-daemon-common",
            "libreoffice-calc", "libreoffice-writer", "libreoffice-impress", "libreoffice-gtk3", "gimp", "vlc", "totem",
            "thunderbird", "fonts-liberation", "fonts-liberation2", "fonts-dejavu", "fonts-crosextra-carlito",
            "fonts-crosextra-caladea", "fonts-noto-core",
            "cua:google-chrome", "cua:pyautogui", "cua:timedatectl",
        }
    ),
    "sim": frozenset(),  # the embedded desktop: none of OSWorld's apps
}  # fmt: skip

_SEPARATORS = re.compile(r"\|\||&&|[|;&()`\n]|\$\(")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def programs_in(command: str | list[str]) -> list[str]:
    """The programs a command line starts: the first word of each piece between ``|``, ``;``,
    ``&&``, ``$(`` ..., past ``VAR=value`` words and a ``sudo``'s own options (sudo counts too)."""
    if not isinstance(command, str):
        command = shlex.join(str(c) for c in command)
    found = []
    for piece in _SEPARATORS.split(command):
        try:
            words = shlex.split(piece)
        except ValueError:
            words = piece.split()
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        if not words:
            continue
        found.append(words[0])
        if words[0] == "sudo":
            rest = [w for w in words[1:] if not w.startswith("-")]
            if rest:
                found.append(rest[0])
    return found


def _commands(task: OSWorldTask) -> Iterable[str | list[str]]:
    for step in task.steps():
        if step.type in ("execute", "command", "launch"):
            command = step.parameters.get("command")
            if isinstance(command, str | list) and command:
                yield command
    for getter in task.evaluator.getters():
        if getter["type"] in ("vm_command_line", "vm_command_error"):
            command = getter.get("command")
            if isinstance(command, str | list) and command:
                yield command


def needed_apps(task: OSWorldTask) -> list[App]:
    """The apps ``task`` needs, in ``APPS`` order."""
    programs: set[str] = set()
    modules: set[str] = set()
    for command in _commands(task):
        programs.update(programs_in(command))
        text = command if isinstance(command, str) else " ".join(str(c) for c in command)
        modules.update(_imports(text))
    opened = {
        "." + str(step.parameters.get("path", "")).rsplit(".", 1)[-1].lower()
        for step in task.steps()
        if step.type == "open" and "." in str(step.parameters.get("path", "")).rsplit("/", 1)[-1]
    }
    getters = {str(getter.get("type")) for getter in task.evaluator.getters()}
    return [
        app
        for app in APPS
        if programs & set(app.programs)
        or getters & set(app.getters)
        or (app.module is not None and app.module in modules)
        or opened & set(app.opens)
        or task.domain in app.domains
    ]


def _imports(text: str) -> set[str]:
    found = set()
    for plain, source in re.findall(r"\bimport\s+([\w, ]+)|\bfrom\s+(\w+)\s+import", text):
        if source:
            found.add(source)
        for part in plain.split(","):
            name = part.strip().split(" ")[0]
            if name:
                found.add(name)
    return found


# What a task's commands reach beyond the environment when they run on the host itself (the local
# backend without a namespace of its own): root, other processes by name, settings (kept in memory
# there, or they would land in the host user's dconf), and absolute paths other than the programs'
# own folders (``/home/user`` there is the host's, and so is ``/tmp``).
_HOST_PROGRAMS = {
    "sudo": "root (sudo)", "su": "root (su)", "pkexec": "root (pkexec)",
    "killall": "processes by name (killall)", "pkill": "processes by name (pkill)",
    "gsettings": "settings that persist (gsettings)", "dconf": "settings that persist (dconf)",
}  # fmt: skip
# Getters that read what the host would keep for its own user (settings kept in memory on a shared host).
_HOST_GETTERS = {"vm_wallpaper": "settings that persist (gsettings)"}
_ABSOLUTE = re.compile(r"(?<![\w.:/~$-])/[A-Za-z][^\s'\"`;|&)(<>,]*")
_SYSTEM_PATHS = ("/usr/", "/bin/", "/sbin/", "/lib", "/opt/", "/dev/null", "/proc/self", "/snap/bin/")


def host_reach(task: OSWorldTask) -> list[str]:
    """What ``task``'s commands would do to the host if they ran on it: the root they take and the
    paths outside the environment's home they name (each once, in order); and the settings its getters
    read, which a shared host keeps in memory."""
    found = [_HOST_GETTERS[g["type"]] for g in task.evaluator.getters() if g.get("type") in _HOST_GETTERS]
    for command in _commands(task):
        found += [_HOST_PROGRAMS[p] for p in programs_in(command) if p in _HOST_PROGRAMS]
        text = command if isinstance(command, str) else " ".join(str(c) for c in command)
        found += [f"the path {path}" for path in _ABSOLUTE.findall(text) if not path.startswith(_SYSTEM_PATHS)]
    return list(dict.fromkeys(found))


def apps_missing_on(backend: str, apps: Iterable[App]) -> list[App]:
    """Of ``apps``, those the ``backend``'s desktop does not have (per ``BACKEND_PACKAGES``)."""
    packages = BACKEND_PACKAGES[backend]
    return [app for app in apps if not packages & {*app.packages, app.stand_in}]


async def apps_lacking(session: Session, apps: Iterable[App]) -> list[App]:
    """Of ``apps``, those the computer itself lacks: its program is not on PATH, or its module does
    not import in python3. A computer without a shell cannot be asked: nothing is reported."""
    lacking = []
    for app in apps:
        if app.module is not None:
            probe = f"python3 -c {shlex.quote(f'import {app.module}')} >/dev/null 2>&1"
            try:
                result = await session.run_command(probe, timeout=30)
            except NotSupported:
                return []
            if result.returncode != 0:
                lacking.append(app)
        elif app.check is not None and await missing_program(session, app.check):
            lacking.append(app)
    return lacking
