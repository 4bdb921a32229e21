"""Provisioning that leaves nothing behind when it fails half way.

A provision takes several steps (a socket folder, a container, a lock, the wait for the server),
and each failure must undo the steps before it, in reverse, however the failure came (an error, a
timeout, Ctrl-C); on success nothing is undone, since teardown owns the computer from then on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["provisioning"]


@contextlib.contextmanager
def provisioning() -> Iterator[contextlib.ExitStack]:
    """Register each step's undo with ``undo.callback(fn, *args)``; the undos run, newest first, only if the
    block raises (anything, ``KeyboardInterrupt`` too), and the exception goes on.

        with provisioning() as undo:
            sockets.mkdir()
            undo.callback(shutil.rmtree, sockets, ignore_errors=True)
            computer = start(sockets)
            undo.callback(self.teardown, computer)
            wait_ready(...)
        return computer
    """
    with contextlib.ExitStack() as undo:
        yield undo
        undo.pop_all()  # it succeeded: teardown owns every step now
