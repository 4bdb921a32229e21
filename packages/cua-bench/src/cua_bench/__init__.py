"""cua-bench: verifiable computer-use tasks, the env server and client, backends, the runner."""

from typing import TYPE_CHECKING

from cua_bench import backend_kit  # the public backend kit: backends import it by name
from cua_bench.agents.base import Agent
from cua_bench.backends.base import Backend, BackendError, Computer, ProcessBackend
from cua_bench.client import AsyncEnvClient, EnvClient
from cua_bench.commands import CommandFailed, CommandResult
from cua_bench.connect import client_for, security_for
from cua_bench.hookspecs import hookimpl
from cua_bench.nodes import center, find, find_all
from cua_bench.session import DesktopSession, MobileSession, NotSupported, Session
from cua_bench.spec import EpisodeSpec, Observes
from cua_bench.tasks import (
    Task,
    TaskError,
    TaskFormat,
    TaskModule,
    evaluate_task,
    load_task_module,
    setup_task,
    solve_task,
    tasks_config,
    wrong_way,
)
from cua_bench.types import (
    Action,
    ClickAction,
    DoneAction,
    DoubleClickAction,
    DragAction,
    HotkeyAction,
    KeyAction,
    MiddleClickAction,
    MoveToAction,
    RightClickAction,
    ScrollAction,
    TypeAction,
    WaitAction,
    repr_to_action,
)
from cua_core import lazy_getattr

if TYPE_CHECKING:
    from cua_bench import (
        a11y_xml,
        builders,
        command_kit,
        events,
        filestate,
        gnumeric,
        nodes,
        registry,
        server,
        settings,
        sim,
        taskset,
    )
    from cua_bench.agents.model import ModelAgent, make_adapter
    from cua_bench.agents.openai import OpenAIAgent
    from cua_bench.checks import check_task
    from cua_bench.conformance import check_backend
    from cua_bench.episode import EpisodeOutcome, StepRecord, run_episode
    from cua_bench.importing import load_named
    from cua_bench.make_env import make
    from cua_bench.run_marker import marker_alive, read_run_marker, write_run_marker
    from cua_bench.runner import RunConfig, Runner
    from cua_bench.settings import load_settings
    from cua_bench.summary import load_results
    from cua_bench.tasks import REPLACE_COMPUTER

__version__ = "0.1.0"

# Imported on first use: the env server imports this package, and the runner's dependencies
# (cua-data, pyarrow) would cost every environment ~30 MiB it never uses.
_LAZY = {
    "OpenAIAgent": "cua_bench.agents.openai",
    "ModelAgent": "cua_bench.agents.model",
    "make_adapter": "cua_bench.agents.model",
    "REPLACE_COMPUTER": "cua_bench.tasks",
    "load_named": "cua_bench.importing",
    "read_run_marker": "cua_bench.run_marker",
    "write_run_marker": "cua_bench.run_marker",
    "marker_alive": "cua_bench.run_marker",
    "load_results": "cua_bench.summary",
    "load_settings": "cua_bench.settings",
    "RunConfig": "cua_bench.runner",
    "Runner": "cua_bench.runner",
    "check_task": "cua_bench.checks",
    "check_backend": "cua_bench.conformance",
    "EpisodeOutcome": "cua_bench.episode",
    "StepRecord": "cua_bench.episode",
    "run_episode": "cua_bench.episode",
    "make": "cua_bench.make_env",
    # Public submodules: what other packages use of the bus topics, plugin registries, env server,
    # settings file and task sets, by module; and what taskset distributions build their tasks from
    # (task builders, the file-state snapshot, Gnumeric's file format, tree nodes, the sim desktop).
    "a11y_xml": "cua_bench.a11y_xml",
    "builders": "cua_bench.builders",
    "command_kit": "cua_bench.command_kit",  # what Cua's `cb` (cua-bench-cua) runs through
    "filestate": "cua_bench.filestate",
    "gnumeric": "cua_bench.gnumeric",
    "nodes": "cua_bench.nodes",
    "sim": "cua_bench.sim",
    "events": "cua_bench.events",
    "registry": "cua_bench.registry",
    "server": "cua_bench.server",
    "settings": "cua_bench.settings",
    "taskset": "cua_bench.taskset",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "REPLACE_COMPUTER",
    "Action",
    "Agent",
    "AsyncEnvClient",
    "Backend",
    "BackendError",
    "ClickAction",
    "CommandFailed",
    "CommandResult",
    "Computer",
    "DesktopSession",
    "DoneAction",
    "DoubleClickAction",
    "DragAction",
    "EnvClient",
    "EpisodeOutcome",
    "EpisodeSpec",
    "HotkeyAction",
    "KeyAction",
    "MiddleClickAction",
    "MobileSession",
    "ModelAgent",
    "MoveToAction",
    "NotSupported",
    "Observes",
    "OpenAIAgent",
    "ProcessBackend",
    "RightClickAction",
    "RunConfig",
    "Runner",
    "ScrollAction",
    "Session",
    "StepRecord",
    "Task",
    "TaskError",
    "TaskFormat",
    "TaskModule",
    "TypeAction",
    "WaitAction",
    "__version__",
    "a11y_xml",
    "backend_kit",
    "builders",
    "center",
    "check_backend",
    "check_task",
    "client_for",
    "command_kit",
    "evaluate_task",
    "events",
    "filestate",
    "find",
    "find_all",
    "gnumeric",
    "hookimpl",
    "load_named",
    "load_results",
    "load_settings",
    "load_task_module",
    "make",
    "make_adapter",
    "marker_alive",
    "nodes",
    "read_run_marker",
    "registry",
    "repr_to_action",
    "run_episode",
    "security_for",
    "server",
    "settings",
    "setup_task",
    "sim",
    "solve_task",
    "tasks_config",
    "taskset",
    "write_run_marker",
    "wrong_way",
]
