"""cua-bench-libvirt: desktops in virtual machines, on libvirt and QEMU.

The ``libvirt`` backend (``LibvirtBackend``): the local desktop and the env server in a Linux guest
booted from an image built from Debian's packages (``build_image``), reached over a forwarded loopback
port with CURVE, reset by reverting a memory snapshot. Beneath it: a machine's lifecycle on a qcow2
overlay (``Domain``, ``Hypervisor``), the owner labels ``prune`` removes killed runs' machines by, and
the choice of accelerator from a probe guest that must really boot (``choose_accel``).

The ``libvirt-windows`` backend (``LibvirtWindowsBackend``): machines of the user's own Windows, its
image made once from their install ISO with the provisioning kit, or imported as a provisioned qcow2;
``cua_bench_libvirt.windows`` holds the kit and the env server's Windows session. No Windows has
booted here (none can be fetched): the README says what was and was not run.
"""

from cua_bench_libvirt.accel import Accel, boots, choose_accel
from cua_bench_libvirt.backend import LibvirtBackend
from cua_bench_libvirt.domains import LABELS_NS, Domain, Hypervisor, labels_of, make_overlay
from cua_bench_libvirt.guest import READY_LINE, ProbeGuest, newc, probe_guest
from cua_bench_libvirt.image import VARIANTS, GuestImage, Variant, build_image, current_image
from cua_bench_libvirt.windows.machines import LibvirtWindowsBackend, media_kind

__all__ = [
    "LABELS_NS",
    "READY_LINE",
    "VARIANTS",
    "Accel",
    "Domain",
    "GuestImage",
    "Hypervisor",
    "LibvirtBackend",
    "LibvirtWindowsBackend",
    "ProbeGuest",
    "Variant",
    "boots",
    "build_image",
    "choose_accel",
    "current_image",
    "labels_of",
    "make_overlay",
    "media_kind",
    "newc",
    "probe_guest",
]
