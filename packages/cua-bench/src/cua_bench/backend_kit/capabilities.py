"""What a backend's computers offer tasks, declared once on the backend class and typed.

Declared, not probed: choosing a backend for a task (``cua_bench.backend_choice``) and placing a
backend's servers on pool hosts read it without starting a computer. It is a promise about every
computer of the backend in its default settings; a setting that adds something (docker's ``osworld``
variant adds ``root``) is not reflected here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["OS_NAMES", "OS_PLUGINS", "Capabilities", "capabilities_of", "os_family"]

# "none": no operating system a task could reach (the sim's pure-Python desktop).
OS_NAMES = ("linux", "macos", "windows", "android", "none")
# Where machines of an OS come from, for the message a task gets when no installed backend serves its OS.
OS_PLUGINS = {
    "windows": "Windows machines come from cua-bench-libvirt's libvirt-windows backend, on an image of your own "
    "Windows (`cua-bench image build libvirt-windows --backend-option media=PATH`; its README says how)",
    "macos": "macOS machines come from the macos backend (plugins/cua-bench-macos: Lume or tart on an Apple silicon "
    "Mac, after `cua-bench image build macos`); its README says what was verified: it has not run on a Mac",
    "android": "phones and emulators come from the android backend (plugins/cua-bench-android: adb and a device "
    "or emulator it lists); its README says what was verified: it has not run on a device",
    "linux": "install the local backend's desktop (scripts/system-deps.sh), or cua-bench-docker or cua-bench-libvirt",
}


def os_family(name: str) -> str:
    """The OS a task's ``os_type`` names, as backends declare it: Cua's tasks say ``win11`` or ``macOS``."""
    lowered = name.lower()
    for family, prefixes in (("windows", ("win",)), ("macos", ("mac", "osx")), ("linux", ("ubuntu", "debian"))):
        if lowered.startswith(prefixes):
            return family
    return lowered


@dataclass(frozen=True)
class Capabilities(Mapping[str, Any]):
    """What tasks may rely on.

    ``os``: the system the task's computer runs (one of ``OS_NAMES``). ``shell``: ``run_command``
    works. ``root``: the task's commands can become root (sudo) inside the environment. ``browser``:
    a Chromium the session drives (HTML windows, web pages). ``apps``: the generic app names
    ``launch()`` knows (``terminal``, ``editor`` ...); a real OS also starts any program by its name.
    ``snapshots``: the whole machine can be saved and restored (a VM's snapshot reset).

    Also a read-only mapping by field name, so that readers written for the free-form dict backends
    declared before (``capabilities.get("os")``) keep working.
    """

    os: str = "none"
    shell: bool = False
    root: bool = False
    browser: bool = False
    apps: frozenset[str] = frozenset()
    snapshots: bool = False

    def __post_init__(self) -> None:
        if self.os not in OS_NAMES:
            raise ValueError(f"Capabilities(os={self.os!r}): os must be one of {', '.join(OS_NAMES)}")
        apps: Any = self.apps  # a list or set a declaration wrote despite the type: made hashable and immutable
        if not isinstance(apps, frozenset):
            object.__setattr__(self, "apps", frozenset(_names(apps)))

    @classmethod
    def from_mapping(cls, declared: Mapping[str, Any]) -> Capabilities:
        """The typed form of a free-form dict (``{"os": "linux", "shell": True}``); unknown keys are dropped,
        and an os this does not know counts as none."""
        os_name = str(declared.get("os", "none")).lower()
        return cls(
            os=os_name if os_name in OS_NAMES else "none",
            shell=declared.get("shell") is True,
            root=declared.get("root") is True,
            browser=declared.get("browser") is True,
            apps=frozenset(_names(declared.get("apps") or ())),
            snapshots=declared.get("snapshots") is True,
        )

    def __getitem__(self, key: str) -> Any:
        if key not in _FIELDS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_FIELDS)

    def __len__(self) -> int:
        return len(_FIELDS)


_FIELDS = tuple(field.name for field in fields(Capabilities))


def _names(apps: Iterable[Any]) -> list[str]:
    return [str(app) for app in apps]


def capabilities_of(backend: Any) -> Capabilities:
    """The typed capabilities ``backend`` (a class or an instance) declares: its ``Capabilities``, the typed
    form of a plain dict it declares instead, or nothing at all (``Capabilities()``)."""
    declared = getattr(backend, "capabilities", None)
    if isinstance(declared, Capabilities):
        return declared
    if isinstance(declared, Mapping):
        return Capabilities.from_mapping(declared)
    return Capabilities()
