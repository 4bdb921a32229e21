"""Which OSWorld tasks we can run, and why the others are skipped.

A task is skipped — listed with its reason, never scored 0 — when it needs what we do not have:
a proxy, a live web page, Google Drive, a file from the network (without a local mirror), a setup step, getter or
metric we lack (a metric whose module did not load names the package to install), or, judged
against a backend, an app its desktop lacks (``apps``). Each skipped task has one primary reason
(the first in the order below), which is what the report counts; ``Support.reasons`` keeps every
one. "Supported" means "this backend can score it", so a run never turns a gap of ours into a 0.

Whether the backend has a shell, and what its computer really has installed, is known only when a
task runs: tasks that need a shell (``execute``, ``launch``, ``open``, ``vm_command_line`` ...) are
skipped then with ``backend has no shell``, and tasks whose apps the computer lacks with the app.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_bench.backend_kit import isolating
from cua_bench_osworld.apps import BACKEND_PACKAGES, apps_missing_on, host_reach, needed_apps
from cua_bench_osworld.loader import OSWorldTask
from cua_bench_osworld.metrics import BUILTIN_METRICS, COMPARE_TABLE_RULES
from cua_bench_osworld.sources import classify, default_mirror

__all__ = [
    "GETTERS",
    "LIVE_WEB_GETTERS",
    "METRICS_ENV",
    "SHELL_GETTERS",
    "SHELL_STEPS",
    "STEPS",
    "Support",
    "check_support",
    "host_reason",
    "official_names",
]

METRICS_ENV = "CUA_OSWORLD_METRICS"  # "auto" (OSWorld's where installed, else ours) or "builtin"

# Setup and postconfig steps we run (config.py), and those that start processes on the computer.
STEPS = frozenset(
    {
        "launch",
        "execute",
        "command",
        "open",
        "sleep",
        "download",
        "upload_file",
        "activate_window",
        "close_window",
        "chrome_open_tabs",
        "chrome_close_tabs",
    }
)
# Chrome's tab steps and the getters that speak HTTP to apps run python3 on the computer.
SHELL_STEPS = frozenset({"launch", "execute", "command", "open", "chrome_open_tabs", "chrome_close_tabs"})
# Getters we have (getters.py), and those that run commands.
GETTERS = frozenset(
    {
        "vm_file",
        "cloud_file",
        "cache_file",
        "vm_command_line",
        "vm_command_error",
        "rule",
        "vm_window_size",
        "vm_screen_size",
        "accessibility_tree",
        "vlc_config",
        "gimp_config_file",
        "default_video_player",
        "profile_name",
        "enable_do_not_track",
        "enable_safe_browsing",
        "new_startup_page",
        "chrome_font_size",
        "bookmarks",
        "vm_wallpaper",
        "list_directory",
        "audio_in_slide",
        "background_image_in_slide",
        "vlc_playing_info",
        "vm_terminal_output",
        "open_tabs_info",
        "active_tab_info",
        "active_tab_url_parse",
        "active_url_from_accessTree",
        "active_tab_html_parse",
        "url_path_parse",
        "chrome_appearance_mode_ui",
        "find_unpacked_extension_path",
        "find_installed_extension_name",
        "rule_relativeTime",
    }
)
SHELL_GETTERS = frozenset(
    {
        "vm_command_line",
        "vm_command_error",
        "default_video_player",
        "vm_wallpaper",
        "list_directory",
        "vlc_playing_info",
        "open_tabs_info",
        "active_tab_info",
        "active_tab_html_parse",
        "chrome_appearance_mode_ui",
        "rule_relativeTime",
    }
)
_GOOGLE_DRIVE_STEPS = frozenset({"googledrive", "login"})
_GOOGLE_DRIVE_GETTERS = frozenset({"googledrive_file"})
_PROXY_STEPS = frozenset({"proxy"})
# Getters that load a live web page on the computer to score it (recreation.gov, a task's URL): the network.
LIVE_WEB_GETTERS = frozenset(
    {"gotoRecreationPage_and_get_html_content", "info_from_website", "page_info", "pdf_from_url"}
)

# Primary reasons, in the order they win.
_ORDER = (
    "unsupported: proxy",
    "unsupported: live web page",
    "unsupported: Google Drive",
    "unsupported: network download",
    "unsupported config step",
    "unsupported getter",
    "unsupported metric",
    "unsupported on a",  # on local, before the app: installing sudo on the host is no fix
    "unsupported app",
)


@dataclass(frozen=True)
class Support:
    reasons: tuple[str, ...] = ()
    needs_shell: bool = False

    @property
    def supported(self) -> bool:
        return not self.reasons

    @property
    def reason(self) -> str | None:
        return self.reasons[0] if self.reasons else None


def official_names() -> frozenset[str]:
    """The OSWorld metric functions this process can use (none when forced to built-ins)."""
    if os.environ.get(METRICS_ENV, "auto").strip().lower() == "builtin":
        return frozenset()
    from cua_bench_osworld.official import official_metrics

    return frozenset(official_metrics().functions)


def _urls(task: OSWorldTask) -> list[str]:
    urls = []
    for step in task.steps():
        if step.type == "download":
            urls += [str(f.get("url", "")) for f in step.parameters.get("files", []) if isinstance(f, dict)]
    for getter in task.evaluator.getters():
        if getter["type"] == "cloud_file":
            paths = getter.get("path")
            urls += [str(p) for p in (paths if isinstance(paths, list) else [paths])]
    return urls


def _metric_reasons(task: OSWorldTask, official: Collection[str], why: Callable[[str], str | None]) -> list[str]:
    """``why(name)``: what keeps OSWorld's metric ``name`` from scoring here (a package to install)."""
    reasons = []
    for i, name in enumerate(task.evaluator.funcs):
        if name == "infeasible" and task.evaluator.single:
            continue
        if name in official:
            problem = why(name)  # loaded, but needs a module it imports on first use (easyocr)
            if problem is not None and name not in BUILTIN_METRICS:
                reasons.append(f"unsupported metric: {problem}")
            continue
        if name not in BUILTIN_METRICS:
            reasons.append(f"unsupported metric: {why(name) or name}")
        elif name == "compare_table":
            rules: Any = task.evaluator.options[i].get("rules", [])
            for rule in rules if isinstance(rules, list) else []:
                kind = rule.get("type") if isinstance(rule, dict) else None
                if kind not in COMPARE_TABLE_RULES:
                    reasons.append(f"unsupported metric: compare_table rule {kind} (needs desktop-env)")
    return reasons


def _why_not(official: Collection[str] | None) -> Callable[[str], str | None]:
    """What keeps a metric from scoring: from the loaded desktop-env when we judge by it, else nothing
    to add (a caller that names the metrics itself, or ``CUA_OSWORLD_METRICS=builtin``)."""
    if official is not None or os.environ.get(METRICS_ENV, "auto").strip().lower() == "builtin":
        return lambda name: None
    from cua_bench_osworld.official import official_metrics

    return official_metrics().needs


def host_reason(task: OSWorldTask, *, shared: bool = True) -> str | None:
    """Why ``task`` must not run where its commands run on the host itself (``shared``: the local backend
    without isolation, where they would take root, kill the host's processes or touch the host's
    /home/user), or in an isolated local environment, which has no root (not ``shared``); or None."""
    reach = [need for need in host_reach(task) if shared or need.startswith("root")]
    if not reach:
        return None
    where = "a shared host: its commands need {}, and here they would run on this host itself"
    if not shared:
        where = "an isolated local environment: its commands need {}, which it does not give"
    fix = "use --backend docker with CUA_DOCKER_VARIANT=osworld (OSWorld's computer, isolated)"
    if shared and not any(need.startswith("root") for need in reach):
        # An isolated local environment gives all but root: its own /home/user, /tmp, processes and dconf.
        fix += (
            ", or an isolated local environment: as root on Linux with CUA_LOCAL_ISOLATE=auto (the default) "
            "or 1, each one is a user with namespaces of its own"
        )
    return f"unsupported on {where.format(', '.join(reach))}; {fix}"


def check_support(
    task: OSWorldTask,
    *,
    official: Collection[str] | None = None,
    mirror: Path | bool | None = True,
    backend: str | None = None,
) -> Support:
    """Why ``task`` cannot run here, if it cannot. ``official``: the OSWorld metric names available
    (default: those installed, with the package each missing one needs); ``mirror``: the local copy
    of remote files (True: ``CUA_OSWORLD_FILES``); ``backend``: judge its desktop's apps too (a name
    in ``apps.BACKEND_PACKAGES``; None: apps are not judged here, only when the task runs)."""
    if backend is not None and backend not in BACKEND_PACKAGES:
        known = ", ".join(sorted(BACKEND_PACKAGES))
        raise ValueError(f"no table of apps for backend {backend!r} (known: {known}); add it to osworld/apps.py")
    why = _why_not(official)
    official = official_names() if official is None else official
    files = default_mirror() if mirror is True else (mirror or None)
    found: list[str] = []
    if task.proxy or any(s.type in _PROXY_STEPS for s in task.steps()):
        found.append("unsupported: proxy")
    found += [
        f"unsupported: live web page (the {g['type']} getter loads one to score the task)"
        for g in task.evaluator.getters()
        if g["type"] in LIVE_WEB_GETTERS
    ]
    if any(s.type in _GOOGLE_DRIVE_STEPS for s in task.steps()) or any(
        g["type"] in _GOOGLE_DRIVE_GETTERS for g in task.evaluator.getters()
    ):
        found.append("unsupported: Google Drive")
    if any(not classify(url, base=task.path.parent, mirror=files).reachable for url in _urls(task)):
        found.append("unsupported: network download")
    found += [
        f"unsupported config step: {s.type}"
        for s in task.steps()
        if s.type not in STEPS | _GOOGLE_DRIVE_STEPS | _PROXY_STEPS
    ]
    found += [
        f"unsupported getter: {g['type']}"
        for g in task.evaluator.getters()
        if g["type"] not in GETTERS | _GOOGLE_DRIVE_GETTERS | LIVE_WEB_GETTERS
    ]
    found += _metric_reasons(task, official, why)
    if backend is not None:
        found += [
            f"unsupported app: {app.name} (not on the {backend} backend's desktop; {app.how()})"
            for app in apps_missing_on(backend, needed_apps(task))
        ]
        if backend == "local":  # judged as the backend will run it: isolated where this host allows it
            found += [reason for reason in [host_reason(task, shared=not isolating())] if reason is not None]
    unique = list(dict.fromkeys(found))
    unique.sort(key=lambda r: next(i for i, p in enumerate(_ORDER) if r.startswith(p)))
    needs_shell = any(s.type in SHELL_STEPS for s in task.steps()) or any(
        g["type"] in SHELL_GETTERS for g in task.evaluator.getters()
    )
    return Support(tuple(unique), needs_shell)
