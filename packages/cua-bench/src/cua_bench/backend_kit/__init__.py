"""The backend kit: what a backend plugin is built from, public and stable.

A backend (``cua_bench.Backend``) provisions a computer, returns its env server's address and tears
it down; the kit holds the parts every backend needs so that none reaches into another's modules:
declared capabilities and options, liveness and owner labels for ``prune``, the ready handshake, a
provisioning context manager that undoes a half-made computer, a lock for a computer with one screen
(``hold_computer``), Debian root filesystems for images
and the env server's payload in them (``server_payload``: its wheels and our packages, beside the
desktop's Debian packages), the settings of the local desktop's env server that a container or VM
backend runs, whether local environments are isolated on this host (``isolating``), and starting a
process that dies with its server (``spawn``). Register a backend with ``hookimpl``
(``cua_bench_register_backends``), and import everything else a backend needs from ``cua_bench``
itself (``Backend``, ``ProcessBackend``, ``Computer``, ``Session`` ...).
"""

from cua_bench.backend_kit.capabilities import OS_NAMES, OS_PLUGINS, Capabilities, capabilities_of, os_family
from cua_bench.backend_kit.computer import (
    COMPUTER_ENV,
    COMPUTER_FILES,
    COMPUTER_PACKAGES,
    COMPUTER_USER,
    OSWORLD_APPS,
    computer_files,
)
from cua_bench.backend_kit.debootstrap import DEBIAN_MIRROR, debootstrap, rootfs_tar
from cua_bench.backend_kit.desktop import APP_ALIASES, PRIVATE_TMP, TASK_SETTINGS, serve_as, server_settings
from cua_bench.backend_kit.errors import BackendError
from cua_bench.backend_kit.locks import hold_computer
from cua_bench.backend_kit.options import (
    Option,
    check_options,
    export_options,
    options_env,
    parse_options,
    resolve_options,
)
from cua_bench.backend_kit.owners import (
    BACKEND_LABEL,
    OWNER_LABEL,
    RUN_LABEL,
    alive,
    labels,
    owner,
    owner_gone,
    stale,
)
from cua_bench.backend_kit.payload import DESKTOP_PACKAGES, IMAGE_PYTHON, OFFICE_PACKAGES, BuildResult, server_payload
from cua_bench.backend_kit.provisioning import provisioning
from cua_bench.backend_kit.ready import READY, read_ready_line, ready_address, wait_ready
from cua_bench.backends.local.isolate import isolating
from cua_bench.backends.local.procs import spawn
from cua_bench.hookspecs import hookimpl

__all__ = [
    "APP_ALIASES",
    "BACKEND_LABEL",
    "COMPUTER_ENV",
    "COMPUTER_FILES",
    "COMPUTER_PACKAGES",
    "COMPUTER_USER",
    "DEBIAN_MIRROR",
    "DESKTOP_PACKAGES",
    "IMAGE_PYTHON",
    "OFFICE_PACKAGES",
    "OSWORLD_APPS",
    "OS_NAMES",
    "OS_PLUGINS",
    "OWNER_LABEL",
    "PRIVATE_TMP",
    "READY",
    "RUN_LABEL",
    "TASK_SETTINGS",
    "BackendError",
    "BuildResult",
    "Capabilities",
    "Option",
    "alive",
    "capabilities_of",
    "check_options",
    "computer_files",
    "debootstrap",
    "export_options",
    "hold_computer",
    "hookimpl",
    "isolating",
    "labels",
    "options_env",
    "os_family",
    "owner",
    "owner_gone",
    "parse_options",
    "provisioning",
    "read_ready_line",
    "ready_address",
    "resolve_options",
    "rootfs_tar",
    "serve_as",
    "server_payload",
    "server_settings",
    "spawn",
    "stale",
    "wait_ready",
]
