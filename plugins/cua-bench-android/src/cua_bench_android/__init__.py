"""cua-bench-android: Android phones and emulators as environments, driven through adb's command line.

The ``android`` backend (``AndroidBackend``) runs the env server on this host and chooses the device
(``choose_device``: the ``serial`` option, else the only one ``adb devices`` lists); the server's session
(``AndroidSession``) captures with ``screencap``, acts with Android's ``input`` tool (``input_command``),
reads the accessibility tree from ``uiautomator dump`` (``parse_hierarchy``), launches packages and
installs APKs. Written against AOSP's sources and adb's documented output and tested against transcripts
built from them; never run on a device or an emulator (see the README).
"""

from typing import TYPE_CHECKING

from cua_core import lazy_getattr

if TYPE_CHECKING:
    from cua_bench_android.adb import ADB_ENV, INSTALL_HINT, SERIAL_ENV, Adb, AdbResult, AdbTimeout
    from cua_bench_android.backend import AndroidBackend
    from cua_bench_android.devices import Device, choose_device, parse_devices
    from cua_bench_android.gestures import Refused, input_command
    from cua_bench_android.hierarchy import HierarchyError, parse_hierarchy
    from cua_bench_android.keycodes import BUTTON_KEYCODES, KEY_KEYCODES
    from cua_bench_android.paths import device_path
    from cua_bench_android.screen import ScreenError, parse_wm_size
    from cua_bench_android.session import AndroidSession, InstallError, LaunchError
    from cua_bench_android.text import Untypeable, text_commands

# Imported on first use: cua-bench loads this plugin (its ``backend`` entry point, and so this package) in
# every env server, which needs the session (pillow, numpy, the XML parser) only when it serves a device.
_LAZY = {
    "ADB_ENV": "cua_bench_android.adb",
    "INSTALL_HINT": "cua_bench_android.adb",
    "SERIAL_ENV": "cua_bench_android.adb",
    "Adb": "cua_bench_android.adb",
    "AdbResult": "cua_bench_android.adb",
    "AdbTimeout": "cua_bench_android.adb",
    "AndroidBackend": "cua_bench_android.backend",
    "Device": "cua_bench_android.devices",
    "choose_device": "cua_bench_android.devices",
    "parse_devices": "cua_bench_android.devices",
    "Refused": "cua_bench_android.gestures",
    "input_command": "cua_bench_android.gestures",
    "HierarchyError": "cua_bench_android.hierarchy",
    "parse_hierarchy": "cua_bench_android.hierarchy",
    "BUTTON_KEYCODES": "cua_bench_android.keycodes",
    "KEY_KEYCODES": "cua_bench_android.keycodes",
    "device_path": "cua_bench_android.paths",
    "ScreenError": "cua_bench_android.screen",
    "parse_wm_size": "cua_bench_android.screen",
    "AndroidSession": "cua_bench_android.session",
    "InstallError": "cua_bench_android.session",
    "LaunchError": "cua_bench_android.session",
    "Untypeable": "cua_bench_android.text",
    "text_commands": "cua_bench_android.text",
}

__getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = [
    "ADB_ENV",
    "BUTTON_KEYCODES",
    "INSTALL_HINT",
    "KEY_KEYCODES",
    "SERIAL_ENV",
    "Adb",
    "AdbResult",
    "AdbTimeout",
    "AndroidBackend",
    "AndroidSession",
    "Device",
    "HierarchyError",
    "InstallError",
    "LaunchError",
    "Refused",
    "ScreenError",
    "Untypeable",
    "choose_device",
    "device_path",
    "input_command",
    "parse_devices",
    "parse_hierarchy",
    "parse_wm_size",
    "text_commands",
]
