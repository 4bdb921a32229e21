"""What task builders share (the sim taskset's ``_forms.py``, the desktop taskset's ``_gnumeric.py`` and
``_pcmanfm.py``): the shape of a task's functions, and making a wrong way.

A builder makes new functions at every call and marks them itself (``@setup_task``, ``@wrong_way``
and so on), as ``loaders`` and ``splits`` mark a task's variant loaders: the family's ``main.py``
binds them to module names (``setup, evaluate, solve = FORM.functions()``), where the loader finds
a task's functions by their marks. New functions, because a mark is kept on the function object:
one function shared by two tasks would carry both tasks' marks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from cua_bench.session import Session
from cua_bench.tasks import Task
from cua_bench.tasks import wrong_way as mark_wrong_way

__all__ = ["Evaluator", "Meta", "TaskFn", "wrong_way"]

Meta = dict[str, Any]
TaskFn = Callable[[Task, Session], Awaitable[None]]
Evaluator = Callable[[Task, Session], Awaitable[list[float]]]


def wrong_way(fn: TaskFn, name: str, doc: str | None) -> TaskFn:
    """``fn`` marked as the wrong way ``name`` (the loader names a wrong way after its function), with
    ``doc`` as its docstring: what the wrong way tries, as a function written in ``main.py`` says."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return mark_wrong_way(fn)
