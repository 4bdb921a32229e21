"""Children that take Ctrl-C: a test sends SIGINT and expects Python's KeyboardInterrupt.

A shell runs background commands (``cmd &``) with SIGINT ignored, children inherit that, and Python
keeps an ignored SIGINT ignored: a test suite started that way saw every SIGINT to a child ignored
(a run not interrupted, a server that never stopped, a client that never left). ``ctrl_c(...)``
is the command that runs a module or a script with Python's KeyboardInterrupt handler put back, as
in a terminal. (``preexec_fn`` would do it too, but is unsafe in a process with threads.)
"""

from __future__ import annotations

import sys

__all__ = ["CTRL_C", "ctrl_c"]

CTRL_C = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)"


def ctrl_c(module: str, *args: str) -> list[str]:
    """``python -m module args...`` with SIGINT raising KeyboardInterrupt, whatever the parent ignores."""
    code = f"{CTRL_C}; import runpy, sys; sys.argv[0] = {module!r}; runpy.run_module({module!r}, run_name='__main__')"
    return [sys.executable, "-c", code, *args]
