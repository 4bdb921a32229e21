"""How often a process's threads wake: the count tests of idle servers assert on."""

from __future__ import annotations

import os


def wakeups(pid: int) -> int:
    """How many times the threads of process ``pid`` have been switched out, summed: a count of wake-ups,
    which a loaded machine does not change (CPU time it does)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as status:
                for line in status:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return total
