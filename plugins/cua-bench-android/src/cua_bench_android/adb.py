"""Running adb for one device: its command line, and adb's own failures as errors that say the fix.

Every device command goes through ``adb -s SERIAL ...`` so that a second device plugged in later never
receives another environment's input. ``adb shell COMMAND`` (shell protocol, Android 7 and later) keeps
stdout and stderr apart, passes binary output through untouched when no terminal is attached, and
returns the command's exit code; ``exec-out`` gives raw bytes (the screen's PNG).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

from cua_bench import BackendError

__all__ = [
    "ADB_ENV",
    "FIXES",
    "INSTALL_HINT",
    "SERIAL_ENV",
    "Adb",
    "AdbResult",
    "AdbTimeout",
    "run_adb",
    "transport_problem",
]

ADB_ENV = "CUA_ANDROID_ADB"
SERIAL_ENV = "CUA_ANDROID_SERIAL"
INSTALL_HINT = (
    "install adb (`apt-get install adb` on Debian and Ubuntu, or Android's SDK platform-tools from "
    "https://developer.android.com/tools/releases/platform-tools), or point --backend-option adb=PATH "
    f"({ADB_ENV}) at it"
)
TIMEOUT = 30.0  # seconds for one device command that is not a task's own (input, capture, dumps)
# What the adb client itself says when the transport fails, before the device runs anything (old
# clients write "error:", newer ones "adb:"); a command's own stderr does not start so.
_TRANSPORT = re.compile(
    r"\A\s*(?:adb|error): (device unauthorized|device offline|device '[^']*' not found|no devices/emulators found|"
    r"insufficient permissions for device)",
    re.IGNORECASE,
)
# How to bring a device back, by what adb says of it (its state in `adb devices`, or the client's error).
FIXES = {
    "unauthorized": 'it has not authorized this computer: unlock it and accept the "Allow USB debugging?" prompt '
    '(tick "Always allow"), then check `adb devices`',
    "offline": "adb lost it: reconnect the cable or restart the emulator (`adb reconnect`), then check `adb devices`",
    "not found": "it is not attached: check `adb devices` (a phone needs USB debugging on; an emulator must be "
    "started; over Wi-Fi, `adb connect HOST:PORT`)",
    "no permissions": "this user may not open its USB device: add a udev rule for it (or join the plugdev group) "
    "and replug it; `adb devices` says more",
    "authorizing": "it is still authorizing this computer: accept the prompt on its screen and try again",
    "connecting": "adb is still connecting to it: try again in a moment",
}


@dataclass(frozen=True)
class AdbResult:
    """One adb run: its exit code and raw output."""

    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")


class AdbTimeout(BackendError):
    """An adb run that outlived its timeout (killed)."""


def run_adb(binary: str, args: list[str], *, timeout: float = TIMEOUT, data: bytes | None = None) -> AdbResult:
    """``binary args...``: the result whatever its exit code.

    Raises:
        BackendError: there is no such program (the message says how to install adb).
        AdbTimeout: it ran longer than ``timeout`` seconds.
    """
    try:
        done = subprocess.run(
            [binary, *args],
            input=data if data is not None else b"",  # never the server's stdin: adb would forward it
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise BackendError(f"adb is not installed ({binary!r} was not found): {INSTALL_HINT}") from None
    except PermissionError:
        raise BackendError(f"{binary!r} cannot be run (permission denied): {INSTALL_HINT}") from None
    except subprocess.TimeoutExpired:
        raise AdbTimeout(f"`{binary} {' '.join(args)}` did not finish within {timeout:g} s") from None
    return AdbResult(done.returncode, done.stdout, done.stderr)


def transport_problem(serial: str, result: AdbResult) -> str | None:
    """Why adb could not reach device ``serial`` (with the fix), when the result says so; None otherwise."""
    if result.returncode == 0:
        return None
    found = _TRANSPORT.match(result.err)
    if found is None:
        return None
    what = found.group(1).lower()
    key = next((key for key in ("unauthorized", "offline", "permissions") if key in what), "not found")
    fix = FIXES["no permissions" if key == "permissions" else key]
    return f"adb cannot reach Android device {serial!r} ({result.err.strip().splitlines()[0]}): {fix}"


class Adb:
    """The adb commands of one device."""

    def __init__(self, binary: str, serial: str) -> None:
        self.binary = binary
        self.serial = serial

    def run(self, *args: str, timeout: float = TIMEOUT, data: bytes | None = None) -> AdbResult:
        """``adb -s SERIAL args...``.

        Raises:
            BackendError: adb is missing, or the device is offline, unauthorized or gone (each names the fix).
            AdbTimeout: it ran longer than ``timeout`` seconds.
        """
        result = run_adb(self.binary, ["-s", self.serial, *args], timeout=timeout, data=data)
        problem = transport_problem(self.serial, result)
        if problem is not None:
            raise BackendError(problem)
        return result

    def shell(self, command: str, *, timeout: float = TIMEOUT, data: bytes | None = None) -> AdbResult:
        """``command`` in the device's shell (``sh -c``: the caller quotes for it), stdin from ``data``."""
        return self.run("shell", command, timeout=timeout, data=data)

    def exec_out(self, command: str, *, timeout: float = TIMEOUT) -> AdbResult:
        """``command``'s raw stdout (stderr is mixed into it: only for commands that write none)."""
        return self.run("exec-out", command, timeout=timeout)
