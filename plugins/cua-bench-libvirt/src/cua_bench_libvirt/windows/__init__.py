"""Windows guests for the libvirt backend: the provisioning kit, and the env server's Windows session.

The user brings Windows install media; ``windows_kit`` writes a kit (an unattended-install answer
file, a first-boot script that installs Python and the env server, and the server's payload with
Windows wheels), ``kit_iso`` makes a drive of it. Inside the guest the env server serves
``--backend libvirt-windows``, whose ``create_session`` is a ``WindowsSession``: SendInput, mss capture, the
UI Automation tree as nodes, PowerShell for commands, Windows paths in the file calls. All Windows
calls go through ``WinApi``; ``CtypesApi`` is the real one, importable anywhere and usable on Windows.
Built and unit-tested against Windows' documented answers; never run on Windows (see the README).
"""

from cua_bench_libvirt.windows.ctypes_api import CtypesApi, input_array
from cua_bench_libvirt.windows.kit import KIT_FILES, WINDOWS_PINS, answer_file, kit_iso, windows_kit
from cua_bench_libvirt.windows.session import APPS, KNOWN_FOLDERS, LaunchError, WindowsSession, powershell_quote
from cua_bench_libvirt.windows.winapi import Input, KeyInput, MouseInput, UiaElement, WinApi, element_from

__all__ = [
    "APPS",
    "KIT_FILES",
    "KNOWN_FOLDERS",
    "WINDOWS_PINS",
    "CtypesApi",
    "Input",
    "KeyInput",
    "LaunchError",
    "MouseInput",
    "UiaElement",
    "WinApi",
    "WindowsSession",
    "answer_file",
    "element_from",
    "input_array",
    "kit_iso",
    "powershell_quote",
    "windows_kit",
]
