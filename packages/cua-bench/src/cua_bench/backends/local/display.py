"""One environment's X display: its own Xvfb (unix socket only), a light window manager (openbox),
and its own D-Bus session bus (through which apps find the accessibility bus, see ``atspi``).

Xvfb picks a free display number itself (``-displayfd``), so parallel environments never race for
one. That probing relies on the abstract-namespace socket (binding it fails while another server
holds the number; the socket file alone is unlinked and re-bound), so ``-nolisten local`` must not
be given: the display listens on unix sockets only, never TCP. Xvfb gets SIGTERM when the env
server dies (so it removes its socket and lock file), and the display number and pid are written
into the env root so the backend can clean up after a server that was killed before it could.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cua_bench.backends.base import BackendError
from cua_bench.backends.local.procs import spawn, wait_gone

__all__ = [
    "KEYBINDS",
    "REQUIRED_PROGRAMS",
    "Desktop",
    "missing_programs",
    "open_display",
    "openbox_rc",
    "remove_stale_display",
    "start_bus",
    "start_desktop",
]

REQUIRED_PROGRAMS = ("Xvfb", "openbox")

# Click-to-focus, move and resize by the frame, the title bar buttons; no key bindings (every key
# goes to the apps) unless KEYBINDS names some, no menus, one desktop.
OPENBOX_RC = """<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <placement><policy>Smart</policy></placement>
  <desktops><number>1</number></desktops>
  <margins><top>0</top><bottom>0</bottom><left>0</left><right>0</right></margins>
  <keyboard>{keybinds}</keyboard>
  <mouse>
    <dragThreshold>1</dragThreshold><doubleClickTime>500</doubleClickTime>
    <context name="Client"><mousebind button="Left" action="Press">
      <action name="Focus"/><action name="Raise"/></mousebind></context>
    <context name="Titlebar Top Right Bottom Left TLCorner TRCorner BRCorner BLCorner">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind></context>
    <context name="Titlebar"><mousebind button="Left" action="Drag"><action name="Move"/></mousebind>
      <mousebind button="Left" action="DoubleClick"><action name="ToggleMaximize"/></mousebind></context>
    <context name="Top"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="Bottom"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="Left"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="Right"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="BRCorner"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="Close"><mousebind button="Left" action="Click"><action name="Close"/></mousebind></context>
    <context name="Maximize"><mousebind button="Left" action="Click">
      <action name="ToggleMaximize"/></mousebind></context>
    <context name="Iconify"><mousebind button="Left" action="Click"><action name="Iconify"/></mousebind></context>
  </mouse>
</openbox_config>
"""


# Keys the window manager itself answers, ``KEY=COMMAND`` separated by ``;`` in openbox's key syntax:
# the osworld image sets ``C-A-t=gnome-terminal``, the shortcut OSWorld's tasks open a terminal with
# (Ubuntu's GNOME binds it; a bare window manager binds nothing).
KEYBINDS = "CUA_LOCAL_KEYBINDS"
_KEY = re.compile(r"^(?:[SCAMW]-)*[A-Za-z0-9_]+$")


def openbox_rc(keybinds: str | None = None) -> str:
    """The window manager's configuration, with the key bindings ``keybinds`` (see ``KEYBINDS``)."""
    binds = []
    for entry in filter(None, (piece.strip() for piece in (keybinds or "").split(";"))):
        key, _, command = entry.partition("=")
        if not _KEY.match(key.strip()) or not command.strip():
            raise BackendError(
                f"{KEYBINDS}: {entry!r} is not KEY=COMMAND in openbox's key syntax, such as C-A-t=gnome-terminal "
                "(modifiers S- C- A- M- W-, then a key name; entries separated by ;)"
            )
        # Here, not at the top: xml.sax pulls in urllib.request and http.client (~1 MiB in every env server).
        from xml.sax.saxutils import escape

        binds.append(
            f'<keybind key="{key.strip()}"><action name="Execute"><command>{escape(command.strip())}</command>'
            "</action></keybind>"
        )
    return OPENBOX_RC.format(keybinds="".join(binds))


def missing_programs() -> list[str]:
    return [name for name in REQUIRED_PROGRAMS if shutil.which(name) is None]


@dataclass
class Desktop:
    """The running display of one environment."""

    display: str
    number: int
    xvfb: subprocess.Popen[bytes]
    wm: subprocess.Popen[bytes]
    log: IO[Any]
    bus: subprocess.Popen[bytes] | None = None  # None where dbus-daemon is not installed
    bus_address: str = "disabled:"

    @property
    def pids(self) -> list[int]:
        """The processes that live as long as the desktop (reset keeps them)."""
        return [proc.pid for proc in (self.xvfb, self.wm, self.bus) if proc is not None]

    def stop(self, timeout: float = 2.0) -> None:
        """Window manager and bus first, then Xvfb with SIGTERM (it removes its socket), SIGKILL if it hangs."""
        procs = [proc for proc in (self.wm, self.bus, self.xvfb) if proc is not None]
        for proc in procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout / 2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        remove_stale_display(self.number, self.xvfb.pid)
        self.log.close()


def _read_display_number(fd: int, proc: subprocess.Popen[bytes], timeout: float) -> int:
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or proc.poll() is not None:
            break
        ready, _, _ = select.select([fd], [], [], min(left, 0.1))
        if ready:
            chunk = os.read(fd, 64)
            if not chunk:
                break
            data += chunk
    if not data.strip().isdigit():
        raise BackendError(f"Xvfb did not report a display within {timeout:g} s (exit code {proc.poll()})")
    return int(data)


def open_display(name: str) -> Any:
    """A python-xlib connection to display ``name``, with the core X errors its RandR support overwrites
    put back.

    python-xlib (0.33) registers RandR's three errors under their bare numbers (0, 1, 2) instead of
    the extension's first error code plus them, so a core BadRequest or BadValue (XKillClient on a
    client that has just gone, say) is parsed as RandR's error class, a plain Exception, and the call
    fails with "'BadRRModeError' object has no attribute 'sequence_number'" (4 OSWorld resets on
    docker). Damage does the same with its one error under 0, which no core error uses.
    """
    from Xlib import display as xdisplay
    from Xlib import error

    conn = xdisplay.Display(name)
    table = conn.display.error_classes
    table.update(error.xerror_class)
    table.pop(0, None)  # not an error code: anything arriving so is parsed as a plain XError
    return conn


def _wait_for_wm(display: str, wm: subprocess.Popen[bytes], ready: Path, timeout: float) -> None:
    """Until openbox has claimed the screen (``_NET_SUPPORTING_WM_CHECK`` on the root window) and finished
    starting (it runs its ``--startup`` command, which makes ``ready``, once its key bindings are grabbed:
    a bound key pressed before that would be lost)."""
    conn = open_display(display)
    try:
        root = conn.screen().root
        atom = conn.intern_atom("_NET_SUPPORTING_WM_CHECK")
        deadline = time.monotonic() + timeout
        while root.get_full_property(atom, 0) is None or not ready.exists():
            if wm.poll() is not None or time.monotonic() > deadline:
                raise BackendError(f"openbox did not start within {timeout:g} s (exit code {wm.poll()})")
            time.sleep(0.01)
    finally:
        conn.close()


def _abandon(procs: list[subprocess.Popen[bytes]], log: IO[Any]) -> None:
    """Kill what a desktop that failed to start had started, and close its log."""
    for proc in procs:
        proc.kill()
        proc.wait()
    log.close()


def start_desktop(root: Path, width: int, height: int, env: Mapping[str, str], *, timeout: float = 10.0) -> Desktop:
    """Xvfb at ``width`` x ``height`` and openbox on it; returns once the window manager runs."""
    missing = missing_programs()
    if missing:
        raise BackendError(f"the local backend needs {', '.join(missing)}; install them: apt-get install xvfb openbox")
    rc_text = openbox_rc(os.environ.get(KEYBINDS))
    log = open(root / "desktop.log", "ab")  # noqa: SIM115 - lives as long as the desktop
    # GLX loads Mesa into every Xvfb (~25 MiB PSS each); the apps of interest render with cairo.
    glx = [] if os.environ.get("CUA_LOCAL_GLX") == "1" else ["-extension", "GLX"]
    read_fd, write_fd = os.pipe()
    try:
        xvfb = spawn(
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x24",
             "-nolisten", "tcp", "-noreset", "-dpi", "96", *glx],
            env, log=log, sig=signal.SIGTERM, pass_fds=[write_fd], cwd=root,
        )  # fmt: skip
        os.close(write_fd)
        write_fd = -1
        try:
            number = _read_display_number(read_fd, xvfb, timeout)
        except BackendError:
            _abandon([xvfb], log)
            raise
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)
    display = f":{number}"
    (root / "display").write_text(f"{number} {xvfb.pid}\n")
    bus: subprocess.Popen[bytes] | None = None
    bus_env: dict[str, str] = {}
    rc, ready = root / "openbox-rc.xml", root / "openbox-ready"
    try:
        # The bus first: what the window manager starts (its key bindings) must reach it, as the apps do.
        if shutil.which("dbus-daemon", path=env.get("PATH")):
            bus, address = start_bus(root, {**env, "DISPLAY": display}, log, timeout)
            bus_env = {"DBUS_SESSION_BUS_ADDRESS": address}
        rc.write_text(rc_text)
        ready.unlink(missing_ok=True)
        wm = spawn(
            ["openbox", "--config-file", str(rc), "--sm-disable", "--startup", shlex.join(["touch", str(ready)])],
            {**env, "DISPLAY": display, **bus_env}, log=log, cwd=root,
        )  # fmt: skip
    except BaseException:
        _abandon([proc for proc in (bus, xvfb) if proc is not None], log)
        raise
    desktop = Desktop(display, number, xvfb, wm, log, bus, bus_env.get("DBUS_SESSION_BUS_ADDRESS", "disabled:"))
    try:
        _wait_for_wm(display, wm, ready, timeout)
    except Exception:
        desktop.stop()
        raise
    return desktop


# libdbus refuses a socket path over 99 bytes (_DBUS_MAX_SUN_PATH_LENGTH): under a deep env root the bus
# gets an abstract socket named for the root instead (no file; its name lives in the network namespace).
_DBUS_PATH_MAX = 99


def start_bus(root: Path, env: Mapping[str, str], log: IO[Any], timeout: float) -> tuple[subprocess.Popen[bytes], str]:
    """A private session bus on ``root/bus``; returns once it accepts connections.

    The services it activates (the accessibility bus and registry) inherit its environment, the
    env's marker included, so reset kills them with the apps; the next app activates fresh ones.
    """
    socket = root / "bus"
    if len(str(socket)) <= _DBUS_PATH_MAX:
        address, ready = f"unix:path={socket}", socket.exists
    else:
        name = f"/cua/bus-{hashlib.sha1(str(root).encode()).hexdigest()[:16]}"
        address, ready = f"unix:abstract={name}", lambda: _bound(f"@{name}")
    argv = ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={address}"]
    bus = spawn(argv, {**env, "DBUS_SESSION_BUS_ADDRESS": address}, log=log, cwd=root)
    deadline = time.monotonic() + timeout
    while not ready():
        if bus.poll() is not None or time.monotonic() > deadline:
            bus.kill()
            bus.wait()
            raise BackendError(f"dbus-daemon did not start within {timeout:g} s (exit {bus.poll()}); see {log.name}")
        time.sleep(0.002)
    return bus, address


def _bound(name: str) -> bool:
    """Whether some process has bound the unix socket ``name`` (``@...`` for an abstract one)."""
    try:
        with open("/proc/net/unix") as table:
            return any(parts[7:8] == [name] for parts in (line.split() for line in table))
    except OSError:
        return True  # cannot tell


def _listening(number: int) -> bool:
    """Whether some X server holds display ``number`` (its abstract socket is bound); when that
    cannot be told, it counts as held, so the socket is left alone."""
    return _bound(f"@/tmp/.X11-unix/X{number}")


def remove_stale_display(number: int, xvfb_pid: int) -> None:
    """Remove the socket (and lock) of display ``number`` if Xvfb ``xvfb_pid`` died without doing so.

    With ``-displayfd`` Xvfb writes no lock file; the display is stale when our Xvfb is gone and
    no server has bound the number's abstract socket since (another env may have reused it).
    """
    if wait_gone([xvfb_pid], 2.0) or _listening(number):
        return
    for path in (f"/tmp/.X11-unix/X{number}", f"/tmp/.X{number}-lock"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
