"""The adversary of ``cua-bench check``: generic end-state mutations that every task's reward must refuse.

A red team earns reward without doing the task by leaving an end state that is *nearly* the
oracle's: the deleted file renamed to ``.name``, a hard link where a copy was asked, an untouched
file chmod'ed, three blank lines after "exactly the line", a number stored as text, a CSV under a
workbook's name, a junk second sheet, an untouched box ticked, a forged write to the file the
reward reads or a forged request to the server that keeps its record. Each such
trick is a mutation here, applied after the task's own oracle (or, for a forged write, instead of
it) by the env server, as the desktop's own user would do it. The reward of every mutation that
applies must be 0, unless the task waives it with a written reason (``WAIVED`` in its module).

The env server keeps an ``Adversary`` per episode: ``begin`` (after reset) records the files as
setup left them, ``plan`` (after the oracle) names the mutations that apply to its end state, and
``mutate`` applies one. Mutations see the files through ``cua_bench.filestate`` snapshots and act
through ``Hands``: a shell as the desktop's user, or the sim's own file system.
"""

from typing import TYPE_CHECKING

# Eager: the function shares its module's name, and a lazy one would be shadowed by the submodule once
# anything imports it (``from cua_bench.adversary import channels`` then gave the module). It is tiny.
from cua_bench.adversary.channels import Channel, channels
from cua_core import lazy_getattr

if TYPE_CHECKING:
    from cua_bench.adversary.episode import Adversary
    from cua_bench.adversary.hands import Hands, NotApplicable, ShellHands, SimHands
    from cua_bench.adversary.mutations import MUTATIONS, Mutation, State, waivers

# Imported on first use: every env server imports ``Adversary`` for its ``adversary.*`` methods, and only
# ``cua-bench check`` ever calls them; the mutations (with gnumeric, gzip and filestate) would cost each
# idle server ~1 MiB.
_LAZY = {
    "Adversary": "cua_bench.adversary.episode",
    "Hands": "cua_bench.adversary.hands",
    "NotApplicable": "cua_bench.adversary.hands",
    "ShellHands": "cua_bench.adversary.hands",
    "SimHands": "cua_bench.adversary.hands",
    "MUTATIONS": "cua_bench.adversary.mutations",
    "Mutation": "cua_bench.adversary.mutations",
    "State": "cua_bench.adversary.mutations",
    "waivers": "cua_bench.adversary.mutations",
}

__getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = [
    "MUTATIONS",
    "Adversary",
    "Channel",
    "Hands",
    "Mutation",
    "NotApplicable",
    "ShellHands",
    "SimHands",
    "State",
    "channels",
    "waivers",
]
