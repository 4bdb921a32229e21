"""cua-bench-libvirt: desktops in virtual machines, on libvirt and QEMU.

Built so far: a machine's lifecycle on a qcow2 overlay with a memory snapshot to revert to
(``Domain``, ``Hypervisor``), the owner labels ``prune`` removes killed runs' machines by, and the
choice of accelerator from a probe guest that must really boot (``choose_accel``). Not yet: the
``libvirt`` backend itself (the desktop image, the env server in the guest), Windows guests.
"""

from cua_bench_libvirt.accel import Accel, boots, choose_accel
from cua_bench_libvirt.domains import LABELS_NS, Domain, Hypervisor, labels_of, make_overlay
from cua_bench_libvirt.guest import READY_LINE, ProbeGuest, newc, probe_guest

__all__ = [
    "LABELS_NS",
    "READY_LINE",
    "Accel",
    "Domain",
    "Hypervisor",
    "ProbeGuest",
    "boots",
    "choose_accel",
    "labels_of",
    "make_overlay",
    "newc",
    "probe_guest",
]
