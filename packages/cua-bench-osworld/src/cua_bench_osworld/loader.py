"""OSWorld task files, as published: parse, validate, find them in a folder.

A task is ``evaluation_examples/examples/<domain>/<id>.json``: ``id``, ``instruction``, ``config``
(setup steps ``{"type", "parameters"}``) and ``evaluator`` (``func``, ``conj``, ``result``,
``expected``, ``options``, ``postconfig``). ``func`` is one metric name, or a list of them with
``result``, ``expected`` and ``options`` as lists of the same length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench import TaskError

__all__ = [
    "Evaluator",
    "OSWorldFormatError",
    "OSWorldTask",
    "PlatformError",
    "Step",
    "TaskSkipped",
    "find_task_files",
    "is_task_file",
    "load_task",
    "load_tasks",
    "substitute",
]


class OSWorldFormatError(TaskError):
    """A JSON file that is not an OSWorld task; the message says which field is wrong."""


class TaskSkipped(TaskError):
    """The task needs what this run cannot give it (a proxy, the network, a shell ...).

    Raised by setup before anything is scored, so the run lists the task as skipped with the
    reason (``skipped: <reason>``) instead of scoring it 0.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"skipped: {reason}")
        self.reason = reason


class PlatformError(TaskError):
    """The computer could not do what OSWorld's VM does for this task: a path it refuses, an app
    it lacks or that died, a command it cannot run.

    Raised instead of returning what OSWorld's getter returns for an absent file (None, which its
    metrics score 0): that 0 would blame the agent for the platform. The env server sends it to
    the runner as a task error, so the episode is recorded as an error with this message, never
    as a score.
    """


@dataclass(frozen=True)
class Step:
    """One setup (or postconfig) step: OSWorld's ``SetupController._<type>_setup(**parameters)``."""

    type: str
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Evaluator:
    funcs: list[str]
    # ``func`` was a plain string: its one metric's value is the score, as OSWorld returns it.
    single: bool
    conj: str
    results: list[dict[str, Any] | None]
    # None when the task has no ``expected``; entries may be None (that metric takes no expected).
    expected: list[dict[str, Any] | None] | None
    options: list[dict[str, Any]]
    postconfig: list[Step]

    @property
    def infeasible(self) -> bool:
        return self.single and self.funcs[0] == "infeasible"

    def getters(self) -> list[dict[str, Any]]:
        """Every getter config (results, then expected), without the empty ones."""
        return [g for g in [*self.results, *(self.expected or [])] if g]


@dataclass(frozen=True)
class OSWorldTask:
    id: str
    instruction: str
    domain: str
    path: Path
    config: list[Step]
    evaluator: Evaluator
    proxy: bool = False
    snapshot: str = ""
    related_apps: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    def steps(self) -> list[Step]:
        """Setup and postconfig steps together (what the support check looks at)."""
        return [*self.config, *self.evaluator.postconfig]


def _steps(value: Any, where: str, path: Path) -> list[Step]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise OSWorldFormatError(f"{path}: {where} must be a list of steps, got {type(value).__name__}")
    steps = []
    for i, raw in enumerate(value):
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            raise OSWorldFormatError(f"{path}: {where}[{i}] must be an object with a string 'type'")
        parameters = raw.get("parameters") or {}
        if not isinstance(parameters, dict):
            raise OSWorldFormatError(f"{path}: {where}[{i}].parameters must be an object")
        steps.append(Step(raw["type"], dict(parameters)))
    return steps


def _getter(value: Any, where: str, path: Path) -> dict[str, Any] | None:
    if value is None or value == {}:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise OSWorldFormatError(f"{path}: {where} must be a getter object with a string 'type'")
    return value


def _evaluator(raw: Any, path: Path) -> Evaluator:
    if not isinstance(raw, dict):
        raise OSWorldFormatError(f"{path}: 'evaluator' must be an object")
    func = raw.get("func")
    single = isinstance(func, str)
    funcs = [func] if single else func
    if not isinstance(funcs, list) or not funcs or not all(isinstance(f, str) for f in funcs):
        raise OSWorldFormatError(f"{path}: evaluator.func must be a metric name or a non-empty list of them")
    conj = raw.get("conj", "and")
    if conj not in ("and", "or"):
        raise OSWorldFormatError(f"{path}: evaluator.conj must be 'and' or 'or', got {conj!r}")
    n = len(funcs)
    postconfig = _steps(raw.get("postconfig"), "evaluator.postconfig", path)
    if single and func == "infeasible":
        return Evaluator(funcs, True, conj, [None], None, [{}], postconfig)

    def per_metric(key: str, required: bool) -> list[Any] | None:
        value = raw.get(key)
        if value is None or (key != "options" and isinstance(value, list | dict) and len(value) == 0):
            if required:
                raise OSWorldFormatError(f"{path}: evaluator.{key} is missing")
            return None
        if single:
            return [value]
        if isinstance(value, dict) and key == "options":
            return [value] * n  # one options object for every metric
        if not isinstance(value, list) or len(value) != n:
            raise OSWorldFormatError(f"{path}: evaluator.{key} must be a list of {n} (one per metric in func)")
        return value

    results = [_getter(g, f"evaluator.result[{i}]", path) for i, g in enumerate(per_metric("result", True) or [])]
    expected_raw = per_metric("expected", False)
    expected = (
        [_getter(g, f"evaluator.expected[{i}]", path) for i, g in enumerate(expected_raw)]
        if expected_raw is not None
        else None
    )
    options_raw = per_metric("options", False) or [{}] * n
    options = []
    for i, opt in enumerate(options_raw):
        if opt is not None and not isinstance(opt, dict):
            raise OSWorldFormatError(f"{path}: evaluator.options[{i}] must be an object")
        options.append(dict(opt or {}))
    return Evaluator(list(funcs), single, conj, results, expected, options, postconfig)


def load_task(path: Path | str, data: dict[str, Any] | None = None) -> OSWorldTask:
    """Parse and check one task file (``data``: its already-parsed JSON, when the caller has it)."""
    path = Path(path)
    if data is None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise OSWorldFormatError(f"{path}: cannot be read as JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise OSWorldFormatError(f"{path}: an OSWorld task is a JSON object")
    for key in ("id", "instruction"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise OSWorldFormatError(f"{path}: '{key}' must be a non-empty string")
    if "evaluator" not in data:
        raise OSWorldFormatError(f"{path}: 'evaluator' is missing")
    apps = data.get("related_apps") or []
    return OSWorldTask(
        id=data["id"],
        instruction=data["instruction"],
        domain=path.parent.name or str(data.get("snapshot", "")),
        path=path,
        config=_steps(data.get("config"), "config", path),
        evaluator=_evaluator(data["evaluator"], path),
        proxy=bool(data.get("proxy", False)),
        snapshot=str(data.get("snapshot", "")),
        related_apps=[str(a) for a in apps] if isinstance(apps, list) else [],
        raw=data,
    )


def _looks_like_task(data: Any) -> bool:
    return isinstance(data, dict) and {"id", "instruction", "evaluator"} <= data.keys()


def is_task_file(path: Path) -> bool:
    """A .json file holding an object with id, instruction and evaluator (others are not tasks)."""
    if path.suffix != ".json" or not path.is_file():
        return False
    try:
        return _looks_like_task(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return False


def find_task_files(path: Path | str) -> list[Path]:
    """The task files at ``path``: itself, or every one below it (e.g. ``examples/<domain>/<id>.json``)."""
    path = Path(path)
    if path.is_file():
        return [path] if is_task_file(path) else []
    if not path.is_dir():
        return []
    return sorted((p for p in path.rglob("*.json") if is_task_file(p)), key=lambda p: p.relative_to(path).parts)


def load_tasks(path: Path | str) -> list[OSWorldTask]:
    return [load_task(p) for p in find_task_files(path)]


def substitute(command: str | list[str], *, width: int, height: int, password: str) -> str | list[str]:
    """OSWorld's placeholders in ``execute`` commands, from the computer's screen size and password."""
    values = {
        "{CLIENT_PASSWORD}": password,
        "{SCREEN_WIDTH_HALF}": str(width // 2),
        "{SCREEN_HEIGHT_HALF}": str(height // 2),
        "{SCREEN_WIDTH}": str(width),
        "{SCREEN_HEIGHT}": str(height),
    }

    def one(text: str) -> str:
        for key, value in values.items():  # in OSWorld's order: _HALF before the bare names
            text = text.replace(key, value)
        return text

    return one(command) if isinstance(command, str) else [one(str(item)) for item in command]
