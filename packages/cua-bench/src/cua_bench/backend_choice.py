"""Which backend ``cb run`` uses when not told: one that serves what the tasks use.

Cua's ``cb run`` just works on its tasks; ours defaulted to ``sim``, which cannot run shell commands
or HTML windows, so most Cua tasks failed until the user found ``--backend local``. What a task
uses is read from its computer block and from the source of its setup, solve and evaluate
functions. That is a *choice* of backend, never a guarantee and never an input to a reward.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from pathlib import Path
from typing import Any

from cua_bench.backend_kit.capabilities import capabilities_of, os_family
from cua_bench.registry import backends
from cua_bench.task_computer import task_computer
from cua_bench.tasks import TaskError, TaskModule, load_task_module

__all__ = ["backend_unavailable", "choose_backend", "task_needs"]

# What a task's functions call that the sim cannot serve: the session method, and what it needs in words.
SIM_LACKS = {
    "run_command": "a shell",
    "run_shell": "a shell",
    "launch_window": "HTML windows",
    "execute_javascript": "HTML windows",
    "get_element_rect": "HTML windows",
    "click_element": "HTML windows",
    "right_click_element": "HTML windows",
    "clipboard": "a clipboard",
    "set_clipboard": "a clipboard",
    "close_window": "window management",
}
APPS = "apps the sim lacks"  # launch("xterm"); the sim's own apps (launch("editor")) it has
SIM_DESKTOP = "the sim desktop"  # session.sim: only the sim serves it
_ROLES = ("setup_task", "solve_task", "evaluate_task")


def choose_backend(folders: list[Path], split: str) -> tuple[str, str]:
    """The backend ``cb run`` uses when not told, and why in words: the sim when the tasks need nothing
    it lacks, else ``local`` where this host can run it, else ``docker``.

    What the tasks need is read from their computer block and from the source of their setup, solve
    and evaluate functions (and the task module's functions they call): a scan of the text for the
    session methods the sim lacks. That is a *choice* of backend, not a guarantee the task runs there
    (code can call a method by another name); it decides nothing about rewards, and ``--backend``
    overrides it. A dataset gets one backend, from the union of its tasks' needs.
    """
    registry = backends()
    counts: dict[str, int] = {}
    oses: dict[str, int] = {}
    for folder in folders:
        try:
            module = load_task_module(folder)
            needs, wanted = task_needs(module, split)
        except TaskError:
            continue  # the run reports it, on whatever backend
        if SIM_DESKTOP in needs:
            needs = {SIM_DESKTOP}  # it drives the sim desktop itself: nothing else can serve it anyway
        for need in needs:
            counts[need] = counts.get(need, 0) + 1
        for os_type in wanted:
            oses[os_type] = oses.get(os_type, 0) + 1
    one = len(folders) == 1

    def said(names: list[str]) -> str:
        if one:
            return f"the task needs {_and(names)}"
        return f"its tasks need {_and([f'{n} ({counts[n]} of {len(folders)})' for n in names])}"

    for os_type in sorted(oses):  # a machine of that OS: a backend that declares it
        serving = [n for n in registry.names() if _declares_os(registry[n], os_type) and backend_unavailable(n) is None]
        if serving:
            return serving[0], f"{'the task wants' if one else 'its tasks want'} os_type {os_type}"
    lacking = sorted(n for n in counts if n != SIM_DESKTOP)
    if not lacking:
        if SIM_DESKTOP in counts:
            return "sim", said([SIM_DESKTOP])
        return "sim", f"{'the task needs' if one else 'its tasks need'} nothing the sim lacks"
    why = said(lacking)
    if SIM_DESKTOP in counts:
        why += f"; {counts[SIM_DESKTOP]} use the sim desktop itself and fail elsewhere: run those with --backend sim"
    problem = backend_unavailable("local") if "local" in registry else "it is not installed"
    if problem is None:
        return "local", why
    if "docker" in registry:
        return "docker", f"{why}; local cannot run here: {problem}"
    return "local", why  # the run says why it cannot start


def task_needs(module: TaskModule, split: str) -> tuple[set[str], set[str]]:
    """What one task needs that the sim lacks (words of ``SIM_LACKS``, ``APPS``, ``SIM_DESKTOP``), and the
    machine OSes its variants' computer blocks name (a theme, provider "simulated", is not one).

    Read from its setup, solve and evaluate functions and the helpers they use that live with the
    task (in its folder or its dataset's, as a dataset's shared ``_common.py`` does)."""
    registry = backends()
    sim_apps = capabilities_of(registry["sim"]).apps if "sim" in registry else frozenset()
    root = module.path.resolve().parent
    needs: set[str] = set()
    seen: set[Any] = set()
    todo = [fn for role in _ROLES if (fn := module.function(role, split)) is not None]
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.add(fn)
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):
            continue  # no source to read (built at run time): nothing to go on
        names = getattr(fn, "__globals__", {})
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                if node.attr in SIM_LACKS:
                    needs.add(SIM_LACKS[node.attr])
                elif node.attr == "sim":
                    needs.add(SIM_DESKTOP)
                if isinstance(node.value, ast.Name) and inspect.ismodule(names.get(node.value.id)):
                    todo += _with_task(getattr(names[node.value.id], node.attr, None), root)  # common.start
            elif isinstance(node, ast.Name):
                todo += _with_task(names.get(node.id), root)
                if str(getattr(names.get(node.id), "__module__", "")).startswith("cua_bench.sim"):
                    needs.add(SIM_DESKTOP)  # SimDesktop, its widgets: built for session.sim
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "launch":
                app = _literal(node.args[0], names) if node.args else None
                if isinstance(app, str) and app not in sim_apps:  # an app named elsewhere: no evidence
                    needs.add(APPS)
            elif isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) > 1:
                method = _literal(node.args[1], names)  # getattr(session, "sim", None)
                if method == "sim":
                    needs.add(SIM_DESKTOP)
                elif method in SIM_LACKS:
                    needs.add(SIM_LACKS[method])
    oses = set()
    for variant in module.variants(split):
        wanted = task_computer(variant).os_type
        if wanted is not None and os_family(wanted) != "linux":
            oses.add(os_family(wanted))
    return needs, oses


def _with_task(obj: Any, root: Path) -> list[Any]:
    """``obj`` when it is a function whose source lies with the task (under ``root``), else nothing."""
    if not inspect.isfunction(obj):
        return []
    try:
        source = inspect.getsourcefile(obj)
    except TypeError:
        return []
    return [obj] if source is not None and Path(source).resolve().is_relative_to(root) else []


def _literal(node: ast.expr, names: dict[str, Any]) -> Any:
    """A call's argument when the text says what it is: a constant, or a module-level name bound to one."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and isinstance(names.get(node.id), str | int | float):
        return names[node.id]
    return None


def _declares_os(backend: Any, os_type: str) -> bool:
    return capabilities_of(backend).os == os_type


def backend_unavailable(name: str) -> str | None:
    """Why backend ``name`` cannot run on this host, where it can say: an ``unavailable()`` of its class or
    of its module (the local backend has one); None when it cannot tell (docker: it says when it starts)."""
    backend = backends()[name]
    check = getattr(backend, "unavailable", None) or getattr(sys.modules.get(backend.__module__), "unavailable", None)
    if not callable(check):
        return None
    try:
        problem = check()
    except TypeError:  # an instance method: nothing to ask before one is made
        return None
    return problem if isinstance(problem, str) else None


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
