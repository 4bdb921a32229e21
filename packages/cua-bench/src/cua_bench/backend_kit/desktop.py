"""The local backend's desktop as another backend runs it: in a container, in a VM, behind a computer-server.

The docker backend runs ``cua_bench.server --backend local`` inside its container, and a VM backend
would do the same inside its guest; what they set for that server, and how the image starts it as
an unprivileged user, lives here so they need nothing of the local backend's own modules.
"""

from __future__ import annotations

import ctypes
import os
import struct

__all__ = ["APP_ALIASES", "PRIVATE_TMP", "TASK_SETTINGS", "serve_as"]

# The sim desktop's app names, and a few generic ones, to the programs installed for them.
APP_ALIASES = {
    "terminal": "xterm",
    "editor": "mousepad",
    "files": "pcmanfm",
    "spreadsheet": "gnumeric",
}

# Set where /tmp is the environment's own (a shared host's namespace, a container): the session's file
# calls then take /tmp as it is, as ``run_command`` sees it, and reset empties it.
PRIVATE_TMP = "CUA_LOCAL_PRIVATE_TMP"

# What the task layer in an env server reads from its environment, and whether each names a host folder.
# A backend whose server runs elsewhere (a container, a VM) passes them on, and makes those folders
# readable there at the same path: set on the host, they must hold where the task runs.
TASK_SETTINGS = {
    "CUA_OSWORLD_FILES": True,  # the local mirror of OSWorld's remote files
    "CUA_OSWORLD_TASKS": True,  # OSWorld's task files, for tasks named osworld/<id>
    "CUA_OSWORLD_METRICS": False,
    "CUA_OSWORLD_PASSWORD": False,
}


DISPLAY_SETTINGS = ("CUA_LOCAL_SETTLE_", "CUA_LOCAL_GLX")  # the local desktop's own, passed on by prefix


def server_settings(env_root: str | None, *, folders: bool) -> dict[str, str]:
    """The host's settings that the local desktop's env server gets where it runs elsewhere (a container, a
    VM), so every backend behaves alike: settle tuning (``CUA_LOCAL_SETTLE_*``), GLX on the display
    (``CUA_LOCAL_GLX``: Blender's tasks), and the task layer's
    settings (``TASK_SETTINGS``), its folders made absolute where the server sees the host's paths
    (``folders``: a container's mounts; a VM sees none, so they are left out). With ``env_root`` the server's
    /tmp is the environment's own (``PRIVATE_TMP``), which reset empties, so its folders live under
    ``env_root`` instead; None for a whole machine whose /tmp and home are the real ones."""
    passed = {key: value for key, value in os.environ.items() if key.startswith(DISPLAY_SETTINGS)}
    if env_root is not None:
        passed |= {PRIVATE_TMP: "1", "CUA_LOCAL_ROOT": env_root}
    for key, is_folder in TASK_SETTINGS.items():
        value = os.environ.get(key)
        if value and (folders or not is_folder):
            passed[key] = os.path.abspath(value) if is_folder else value
    return passed


_PR_SET_KEEPCAPS, _CAP_VERSION_3, _CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 8, 0x20080522, 1, 2


def _permitted() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1], 16) for line in status if line.startswith("CapPrm:"))


def serve_as(uid: int, gid: int, args: list[str]) -> None:
    """Run the env server (``args``: its options) in this process as ``uid``, keeping one capability,
    CAP_DAC_READ_SEARCH, in the server alone: it reads task files wherever the host's user keeps them
    (a 0700 temp folder of root's), while its children (apps, the task's commands) lose it at exec.
    The local backend's isolated environments start this way, and so does an image's entrypoint that
    runs the server as its ``user`` (docker's osworld image)."""
    libc = ctypes.CDLL(None, use_errno=True)
    held = _permitted()
    # Docker's default set lacks DAC_READ_SEARCH; there DAC_OVERRIDE does (task folders are mounted read-only).
    keep = next((1 << cap for cap in (_CAP_DAC_READ_SEARCH, _CAP_DAC_OVERRIDE) if held >> cap & 1), 0)
    os.setgroups([])
    os.setgid(gid)
    libc.prctl(_PR_SET_KEEPCAPS, 1, 0, 0, 0)
    os.setuid(uid)
    header = struct.pack("Ii", _CAP_VERSION_3, 0)
    data = ctypes.create_string_buffer(struct.pack("6I", keep, keep, 0, 0, 0, 0))  # effective, permitted, inheritable
    if libc.capset(ctypes.c_char_p(header), data) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"capset: {os.strerror(error)}")
    from cua_bench.server import main as server

    raise SystemExit(server(args))
