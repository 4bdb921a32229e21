"""Which device an environment drives: ``adb devices -l`` read, and one device chosen or a refusal that says why.

``adb devices -l`` prints ``List of devices attached`` and then one line per device: its serial, its state
(``device`` when usable; ``unauthorized``, ``offline``, ``no permissions (...)``, ``recovery``...) and
``key:value`` details (``product:``, ``model:``, ``device:``, ``transport_id:``, ``usb:``). Lines starting
with ``*`` are the adb server starting, not devices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cua_bench import BackendError
from cua_bench_android.adb import FIXES, SERIAL_ENV, run_adb

__all__ = ["Device", "choose_device", "parse_devices", "state_problem"]

READY = "device"


@dataclass(frozen=True)
class Device:
    """One line of ``adb devices -l``."""

    serial: str
    state: str
    details: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        model = self.details.get("model")
        return f"{self.serial} ({self.state}{f', {model}' if model else ''})"


def parse_devices(text: str) -> list[Device]:
    """The devices ``adb devices -l`` lists, in its order."""
    found = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("*", "List of devices")):
            continue
        serial, rest = re.split(r"\s+", line, maxsplit=1) if re.search(r"\s", line) else (line, "")
        if rest.startswith("no permissions"):
            # "no permissions (user ... plugdev group; are your udev rules wrong?); see [URL] usb:1-1 ..."
            state, words = "no permissions", rest.split()
        else:
            state, *words = rest.split() or ["unknown"]
        details = dict(word.split(":", 1) for word in words if ":" in word and not word.startswith(("[", "(")))
        found.append(Device(serial, state, details))
    return found


def state_problem(device: Device) -> str | None:
    """Why ``device`` cannot be driven now (with the fix), or None when it is ready."""
    if device.state == READY:
        return None
    fix = FIXES.get(device.state, f"adb says it is in {device.state!r}, not a booted system: boot it normally")
    return f"Android device {device.serial!r} is not ready (adb says {device.state}): {fix}"


def _listing(devices: list[Device]) -> str:
    return ", ".join(device.describe() for device in devices)


def choose_device(adb: str, serial: str = "") -> str:
    """The serial of the device to drive: ``serial`` when given, else the only device adb lists.

    Raises:
        BackendError: adb is missing; ``serial`` is not attached; none or several are attached and
            ``serial`` is empty; or the device is not ready (unauthorized, offline...). Each names the fix.
    """
    result = run_adb(adb, ["devices", "-l"])
    if result.returncode != 0:
        raise BackendError(f"`{adb} devices -l` failed (code {result.returncode}): {result.err.strip()}")
    devices = parse_devices(result.out)
    if serial:
        chosen = next((device for device in devices if device.serial == serial), None)
        if chosen is None:
            listed = _listing(devices) or "none"
            raise BackendError(
                f"Android device {serial!r} ({SERIAL_ENV}) is not attached; `adb devices` lists {listed}: "
                "plug it in with USB debugging on, start the emulator, or `adb connect HOST:PORT`"
            )
    elif not devices:
        raise BackendError(
            "no Android device or emulator is attached (`adb devices` lists none): plug in a phone with USB "
            "debugging on, start an emulator (`emulator -avd NAME`), or `adb connect HOST:PORT`"
        )
    elif len(devices) > 1:
        raise BackendError(
            f"{len(devices)} Android devices are attached ({_listing(devices)}): choose one with "
            f"--backend-option serial=SERIAL ({SERIAL_ENV})"
        )
    else:
        chosen = devices[0]
    problem = state_problem(chosen)
    if problem is not None:
        raise BackendError(problem)
    return chosen.serial
