"""The task contract (Cua Bench's): a folder with ``main.py`` that defines its variants, setup,
evaluation and optionally an oracle.

    import cua_bench as cb

    @cb.tasks_config(split="test")      # or @cb.tasks_config("test"), or bare: every split
    def load():
        return [cb.Task(description=f"Click {label}", metadata={"label": label}) for label in LABELS]

    @cb.setup_task(split="test")
    async def start(task: cb.Task, session: cb.Session) -> None: ...

    @cb.evaluate_task(split="test")
    async def evaluate(task: cb.Task, session: cb.Session) -> list[float]: ...

    @cb.solve_task(split="test")
    async def solve(task: cb.Task, session: cb.Session) -> None: ...

Setup, evaluation and solving run in the env server's process, next to the desktop; the decorators
only mark functions, so importing a task module has no side effects beyond defining them.

A task's split, when none is asked for, is ``test``; a task that declares one split only (Cua
Bench's declare ``train``, its default) runs in that one (``TaskModule.default_split``).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TypeVar, overload

from cua_bench.importing import FileImportError, import_file
from cua_core import CuaError

__all__ = [
    "REPLACE_COMPUTER",
    "TASK_FOLDER",
    "TRACEBACK_NOTE",
    "Task",
    "TaskError",
    "TaskFormat",
    "TaskModule",
    "evaluate_task",
    "find_tasks",
    "load_task_module",
    "setup_task",
    "solve_task",
    "tasks_config",
]

# Each ``@tasks_config``'s variants, by the loader (``TaskModule._loaded``): a module is imported once per
# process (``import_file``), so its loaders, and what they return, are the same for the process's life.
_LOADED: weakref.WeakKeyDictionary[Callable[..., Any], list[Task]] = weakref.WeakKeyDictionary()

_ROLES = ("tasks_config", "setup_task", "evaluate_task", "solve_task", "wrong_way")
DEFAULT_SPLIT = "test"
# A key setup may put in ``Task.metadata``: why this episode's computer must not serve another (it left
# state reset cannot undo: OSWorld's tasks given root). The runner and the RL loader then replace it.
REPLACE_COMPUTER = "replace_computer"
# The note a task function's error carries (``TaskModule.call``): the traceback of the task's own code,
# whose paths in the task's folder start with ``TASK_FOLDER``.
TRACEBACK_NOTE = "task traceback"
TASK_FOLDER = "<task>"


class TaskError(CuaError):
    """A task folder that breaks the contract, or a task function that failed."""


@dataclass
class Task:
    """One variant of a task: what the agent is told, and the parameters setup and evaluation use.

    The first four fields are Cua Bench's, in its order: ``task_id`` is the author's stable id of
    the variant; ``computer`` is ``{"provider": ..., "setup_config": {"os_type", "width", "height"}}``,
    whose size and OS the env server applies (``cua_bench.task_computer``)."""

    description: str
    task_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    computer: dict[str, Any] = field(default_factory=dict)
    difficulty: str = "medium"
    max_steps: int | None = None
    # Filled in when the task is loaded from its folder.
    name: str = ""
    variant: int = 0
    split: str = "test"
    # Set by the env server before evaluation: the action that ended the episode (done or fail, as
    # a dict), None while it runs or when it was truncated. OSWorld's infeasible tasks score on it.
    ended: dict[str, Any] | None = None
    # Set by the env server before evaluation: every action applied this episode, in order, as
    # dicts with the step they came in ({"step": 3, "kind": "click", ...}), so an evaluator can
    # check a method the instruction names ("using only the keyboard") from what was done.
    history: list[dict[str, Any]] = field(default_factory=list)
    # The reward a uniformly random choice earns (1/k for a choice among k); None when not a choice.
    chance: float | None = None
    # What setup keeps for evaluation in this episode (a snapshot of the state the instruction says
    # must stay as it was); emptied at every reset, never sent over the bus.
    scratch: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # Why the last evaluation scored what it did (``explain``); emptied before each, never sent to the agent.
    why: list[str] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Cua Bench's Task takes None for both (its defaults).
        self.metadata = self.metadata if self.metadata is not None else {}
        self.computer = self.computer if self.computer is not None else {}

    def explain(self, reason: str) -> None:
        """Say, from an evaluator, why this end state falls short (a file that changed, a cell that
        differs). ``cua-bench check`` prints it beside an oracle that failed or a wrong way that
        scored, so a failure on a loaded CI machine explains itself. The agent never sees it: it
        can name the answer."""
        self.why.append(reason)

    def to_dict(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "task_id": self.task_id,
            "metadata": self.metadata,
            "computer": self.computer,
            "difficulty": self.difficulty,
            "max_steps": self.max_steps,
            "name": self.name,
            "variant": self.variant,
            "split": self.split,
            "ended": self.ended,
            "history": self.history,
            "chance": self.chance,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        return cls(**data)


F = TypeVar("F", bound=Callable[..., Any])


def _mark(role: str, split: str | None) -> Callable[[F], F]:
    def decorate(fn: F) -> F:
        if role != "tasks_config" and not inspect.iscoroutinefunction(fn):
            raise TaskError(f"@{role} function {fn.__qualname__} must be `async def fn(task, session)`")
        marks = getattr(fn, "__cua_task__", [])
        fn.__cua_task__ = [*marks, (role, split)]  # type: ignore[attr-defined]
        return fn

    return decorate


class _Marker:
    """``@marker`` (every split), ``@marker("train")`` or ``@marker(split="train")`` (one split), as in
    Cua Bench; typed so decorated functions keep their types."""

    def __init__(self, role: str, doc: str) -> None:
        self.role = role
        self.__doc__ = doc

    @overload
    def __call__(self, fn: F, /) -> F: ...
    @overload
    def __call__(self, split: str, /) -> Callable[[F], F]: ...
    @overload
    def __call__(self, *, split: str | None = None) -> Callable[[F], F]: ...
    def __call__(self, *args: Any, split: str | None = None) -> Any:
        if len(args) > 1:
            raise TaskError(f"@{self.role} takes one split name, got {args!r}")
        fn = args[0] if args else None
        if isinstance(fn, str):
            if split is not None and split != fn:
                raise TaskError(f"@{self.role}({fn!r}, split={split!r}): give the split once")
            return _mark(self.role, _split_name(self.role, fn))
        if split is not None:
            split = _split_name(self.role, split)
        if fn is None:
            return _mark(self.role, split)
        if not callable(fn):
            raise TaskError(f"@{self.role}: the first argument is a split name (a string) or the function, got {fn!r}")
        return _mark(self.role, split)(fn)


def _split_name(role: str, split: object) -> str:
    if not isinstance(split, str) or not split:
        raise TaskError(f"@{role}(split=...): a split is a non-empty name like 'train' or 'test', got {split!r}")
    return split


tasks_config = _Marker("tasks_config", "Marks the function that returns the variants (a list of Task).")
setup_task = _Marker("setup_task", "Marks ``async def setup(task, session)``: prepares the computer for the variant.")
evaluate_task = _Marker(
    "evaluate_task", "Marks ``async def evaluate(task, session) -> float | list[float]``: the reward in [0, 1]."
)
solve_task = _Marker(
    "solve_task", "Marks ``async def solve(task, session)``: the oracle, acting through ``session.apply`` only."
)
wrong_way = _Marker(
    "wrong_way",
    "Marks ``async def name(task, session)``: a wrong solution, acting through ``session.apply`` only, that "
    "must score 0 (``cua-bench check`` runs every one). A task may declare several; the function's name "
    "names it.",
)


@dataclass
class TaskModule:
    """A loaded task folder: its functions found by their marks, per split."""

    name: str
    path: Path
    module: ModuleType
    functions: dict[tuple[str, str | None], Callable[..., Any]]

    def wrong_ways(self, split: str) -> dict[str, Callable[..., Any]]:
        """The wrong solutions declared for ``split`` (and for every split), by name."""
        return {
            role.removeprefix("wrong_way:"): fn
            for (role, marked), fn in self.functions.items()
            if role.startswith("wrong_way:") and marked in (None, split)
        }

    def function(self, role: str, split: str) -> Callable[..., Any] | None:
        return self.functions.get((role, split)) or self.functions.get((role, None))

    def splits(self) -> list[str]:
        marked = {split for role, split in self.functions if role == "tasks_config" and split}
        return sorted(marked) or [DEFAULT_SPLIT]

    def default_split(self) -> str:
        """The split run when none is asked for: ``test`` when the task has it (or a config for every
        split), else its only split (a Cua Bench task declares ``train``); several without ``test``
        is an error asking for one."""
        marked = {split for role, split in self.functions if role == "tasks_config"}
        if None in marked or DEFAULT_SPLIT in marked:
            return DEFAULT_SPLIT
        named = sorted(s for s in marked if s is not None)
        if len(named) == 1:
            return named[0]
        raise TaskError(
            f"{self.path}: declares splits {', '.join(named)} and no {DEFAULT_SPLIT!r}: choose one with "
            f"--split (split=...), e.g. --split {named[0]}"
        )

    def resolve_split(self, split: str | None) -> str:
        return self.default_split() if split is None else split

    def variants(self, split: str | None = None) -> list[Task]:
        """Every variant of ``split``, each a copy of its own to change."""
        split = self.resolve_split(split)
        return [self._named(copy.deepcopy(task), index, split) for index, task in enumerate(self._loaded(split))]

    def count(self, split: str | None = None) -> int:
        """How many variants ``split`` has."""
        return len(self._loaded(self.resolve_split(split)))

    def variant(self, split: str | None, index: int) -> Task:
        """Variant ``index`` of ``split``, a copy of its own to change (what an env server's reset plays)."""
        split = self.resolve_split(split)
        tasks = self._loaded(split)
        if not 0 <= index < len(tasks):
            raise TaskError(f"{self.path}: variant {index} does not exist (split {split!r} has {len(tasks)})")
        return self._named(copy.deepcopy(tasks[index]), index, split)

    def _named(self, task: Task, index: int, split: str) -> Task:
        task.name, task.variant, task.split = self.name, index, split
        return task

    def _loaded(self, split: str) -> list[Task]:
        """What ``split``'s ``@tasks_config`` returns, called once per loader in this process: a family of
        a hundred seeded variants takes up to half a second to build, and an env server resets often
        (``cua-bench check`` a dozen times per variant). Callers get copies, so nothing one episode
        changes reaches the next."""
        load = self.function("tasks_config", split)
        if load is None:
            declared = self.splits()
            raise TaskError(
                f"{self.path}: no @tasks_config for split {split!r}; this task declares "
                f"{', '.join(repr(s) for s in declared)}: run it with --split {declared[0]} (split={declared[0]!r})"
            )
        cached = _LOADED.get(load)
        if cached is not None:
            return cached
        try:
            tasks = load()
        except Exception as exc:
            raise TaskError(f"{self.path}: @tasks_config raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(tasks, list) or not all(isinstance(t, Task) for t in tasks):
            raise TaskError(f"{self.path}: @tasks_config must return a list of cua_bench.Task")
        try:
            copy.deepcopy(tasks[:1])
        except Exception as exc:
            raise TaskError(
                f"{self.path}: @tasks_config's tasks cannot be copied ({type(exc).__name__}: {exc}): keep "
                "plain data in Task.metadata (no open files, locks or sockets)"
            ) from exc
        _LOADED[load] = tasks
        return tasks

    async def run(self, role: str, task: Task, session: Any) -> Any:
        fn = self.function(role, task.split)
        if fn is None:
            raise TaskError(f"{self.path}: no @{role} for split {task.split!r}")
        return await self.call(fn, task, session)

    async def call(self, fn: Callable[..., Any], task: Task, session: Any) -> Any:
        """``await fn(task, session)``: one of this task's functions. What it raises carries the traceback
        of the task's own code as a note (``TRACEBACK_NOTE``), which travels with the error to the client."""
        try:
            return await fn(task, session)
        except Exception as exc:
            if not any(str(note).startswith(TRACEBACK_NOTE) for note in getattr(exc, "__notes__", [])):
                exc.add_note(self._traceback(exc))
            raise

    def _traceback(self, exc: BaseException) -> str:
        """From the task's function down to the raise: the frames above it (this method's caller, the env
        server, the RPC server, asyncio) are cua's and left out, because none of them is what went wrong.
        Paths in the task's folder read ``<task>/main.py``: the server may hold the folder anywhere (a
        bundle sent by content), and the client, which knows where it is, puts it back."""
        caught = traceback.TracebackException.from_exception(exc)  # source lines are read here, by path
        frames = list(caught.stack)[1:]  # [0]: ``call`` itself
        folder = self.path.resolve()
        for frame in frames:
            with contextlib.suppress(ValueError, OSError):
                inside = Path(frame.filename).resolve().relative_to(folder)
                frame.filename = f"{TASK_FOLDER}/{inside.as_posix()}"
        caught.stack = traceback.StackSummary.from_list(frames)
        lines = list(caught.format())
        if lines and lines[0].startswith("Traceback"):
            lines = lines[1:]  # its own header, said better below
        text = "".join(lines).rstrip("\n")
        return f"{TRACEBACK_NOTE} ({self.name}; most recent call last, cua's own frames left out):\n{text}"


class TaskFormat(Protocol):
    """Tasks written in another form than a folder with main.py (OSWorld's JSON files, say).

    Plugins register one with ``cua_bench_register_task_formats``; ``load_task_module`` and
    taskset discovery fall back to the registered formats for paths that are not task folders.
    """

    def find(self, path: Path) -> list[Path]:
        """The tasks of this format at ``path`` (the file itself, or those in a folder); [] if none."""
        ...

    def load(self, path: Path) -> TaskModule | None:
        """``path`` as a task module, or None when it is not a task of this format."""
        ...


def _formats() -> list[TaskFormat]:
    from cua_bench.registry import task_formats  # the registry imports plugins; not at import time

    registry = task_formats()
    return [registry[name] for name in registry.names()]


def find_tasks(path: Path | str) -> list[Path]:
    """Tasks of the registered formats at ``path`` (task folders with main.py are found by callers)."""
    found: list[Path] = []
    for fmt in _formats():
        found += [p for p in fmt.find(Path(path)) if p not in found]
    return found


def load_task_module(path: Path | str) -> TaskModule:
    """Import ``<path>/main.py`` (or ``path`` itself if it is a .py file) as a task module.

    Any other path is offered to the registered task formats (see ``TaskFormat``).
    """
    path = Path(path)
    main = path / "main.py" if path.is_dir() else path
    if not main.is_file() or main.suffix != ".py":
        for fmt in _formats():
            loaded = fmt.load(path)
            if loaded is not None:
                return loaded
        raise TaskError(f"{path}: not a task folder (no main.py), nor a task file of a registered format")
    folder = main.parent
    try:
        module = import_file(main, "cua_bench_task")
    except FileImportError as exc:
        raise TaskError(str(exc)) from exc.__cause__
    functions: dict[tuple[str, str | None], Callable[..., Any]] = {}
    for value in vars(module).values():
        for role, split in getattr(value, "__cua_task__", []):
            # A task declares many wrong ways: each is kept under its own name.
            key = (f"wrong_way:{value.__name__}" if role == "wrong_way" else role, split)
            if key in functions:
                raise TaskError(f"{main}: two @{role} functions for split {split!r}")
            functions[key] = value
    missing = [
        role for role in ("tasks_config", "setup_task", "evaluate_task") if not any(r == role for r, _ in functions)
    ]
    if missing:
        raise TaskError(f"{main}: missing {', '.join('@' + m for m in missing)} (see cua_bench.tasks)")
    return TaskModule(folder.name, folder, module, functions)
