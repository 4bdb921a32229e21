"""What a command line built over cua-bench reuses, so that it adds verbs and never a second way to run.

Cua's `cb` (in cua-bench-cua) is one: it translates Cua's flags and hands the work to these, the
pieces `cua-bench run`, `report` and `interact` are made of. A plugin's own subcommand
(``cua_bench_register_commands``) may use them too.
"""

from __future__ import annotations

from cua_bench.backend_choice import choose_backend
from cua_bench.cli import BACKEND_OPTION, interact, parse_options, report, run_and_report, use_backend_options
from cua_bench.runner import episodes_of

__all__ = [
    "BACKEND_OPTION",
    "choose_backend",
    "episodes_of",
    "interact",
    "parse_options",
    "report",
    "run_and_report",
    "use_backend_options",
]
