"""OSWorld's getters, ours: each reads the computer through the Session.

A getter turns a config like ``{"type": "vm_file", "path": ..., "dest": ...}`` into what the
metric takes: a value, or the path of a local copy of a file in the episode's cache folder. They
return what OSWorld's return (``None`` for a file the computer does not have, a list when
``multi``/``gives`` ask for several), so OSWorld's own metric functions can score them.

That ``None`` means "the agent did not make it", and OSWorld's metrics score it 0. A getter that
fails because of the computer (a path the backend refuses, a file it cannot read, a program it
lacks, an app or accessibility bus that is gone) raises ``PlatformError`` instead, so the episode
is an error with the reason rather than a 0 the agent did not earn.
"""

from __future__ import annotations

import ast
import asyncio
import base64
import datetime as dt
import json
import os
import shlex
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote, urlparse

from cua_bench import NotSupported
from cua_bench.a11y_xml import to_osworld_xml
from cua_bench.nodes import walk
from cua_bench_osworld.chrome import CHROME_GETTERS
from cua_bench_osworld.chrome_pages import PAGE_GETTERS
from cua_bench_osworld.config import (
    Context,
    cached,
    find_window,
    missing_program,
    program_of,
    run_shell,
    shell_command,
)
from cua_bench_osworld.loader import PlatformError, TaskSkipped
from cua_bench_osworld.relative_time import RELATIVE_TIME_GETTERS
from cua_bench_osworld.remote import on_computer
from cua_bench_osworld.slides import SLIDE_GETTERS
from cua_bench_osworld.sources import classify, read_source

__all__ = ["GETTERS", "TERMINAL_APP", "get"]

TERMINAL_APP = "gnome-terminal-server"  # GNOME Terminal's process, as AT-SPI and the window manager name it
A11Y_WAIT = 5.0  # seconds a window just opened gets to show its widgets on the accessibility bus


def _files(config: dict[str, Any]) -> tuple[list[str], list[str], set[int]]:
    if config.get("multi", False):
        paths, dests = list(config["path"]), list(config["dest"])
    else:
        paths, dests = [config["path"]], [config["dest"]]
    return paths, dests, set(config.get("gives", [0]))


def _one_or_list(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else values


async def vm_file(ctx: Context, config: dict[str, Any]) -> Any:
    paths, dests, gives = _files(config)
    if not config.get("multi", False) and config.get("time_suffix", False):
        stamp = dt.datetime.now().strftime(config.get("time_format", "%Y%m%d_%H%M%S"))
        dests = [f"{os.path.splitext(d)[0]}_{stamp}{os.path.splitext(d)[1]}" for d in dests]
    out: list[str | None] = []
    for i, (path, dest) in enumerate(zip(paths, dests, strict=False)):
        try:
            data = await ctx.session.read_bytes(path)
        except NotSupported as exc:
            raise TaskSkipped(f"backend cannot read files: {exc}") from exc
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            data = None  # not there (or a folder): OSWorld's getter gives None, its metric a 0
        except Exception as exc:  # refused (outside home), unreadable: the computer's fault
            raise PlatformError(f"vm_file: the computer cannot read {path}: {type(exc).__name__}: {exc}") from exc
        if data is None:
            if i in gives:
                out.append(None)
            continue
        local = cached(ctx, dest)
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(data)
        if i in gives:
            out.append(str(local))
    return _one_or_list(out)


async def cloud_file(ctx: Context, config: dict[str, Any]) -> Any:
    paths, dests, gives = _files(config)
    out = []
    for i, (url, dest) in enumerate(zip(paths, dests, strict=False)):
        local = cached(ctx, dest)
        if i in gives:
            out.append(str(local))
        if local.exists():  # OSWorld's cache: fetched once per episode
            continue
        source = classify(url, base=ctx.task_dir, mirror=ctx.mirror)
        try:
            data = await read_source(source)
        except TaskSkipped:
            raise
        except Exception as exc:  # the task's own file is missing, the loopback server is down
            # Not OSWorld's "no result file" (a FileNotFoundError here would score 0): an error.
            why = f"{type(exc).__name__}: {exc}"
            raise PlatformError(f"cloud_file: cannot read {url} ({source.location}): {why}") from exc
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(data)
    return _one_or_list(out)


async def cache_file(ctx: Context, config: dict[str, Any]) -> str:
    path = cached(ctx, config["path"])
    if not path.exists():
        # OSWorld asserts; a missing result file scores 0 under "and" either way.
        raise FileNotFoundError(f"{config['path']} is not in the episode's cache")
    return str(path)


# What a command prints when the computer, not the agent, lacks something: a settings schema or key
# that no installed package declares (the agent's own settings are values, never schemas), no display,
# a library a program needs. OSWorld turns each into '' or a traceback's text, which its metric scores 0.
COMPUTER_FAULTS = (
    "No such schema", "No such key", "cannot open display", "Can't open display",
    "error while loading shared libraries",
)  # fmt: skip


async def _command(ctx: Context, config: dict[str, Any]) -> Any:
    line = shell_command(config["command"])
    result = await run_shell(ctx, line)
    fault = next((text for text in COMPUTER_FAULTS if text in result.stderr), None) if result.returncode else None
    if fault is not None:
        raise PlatformError(
            f"{config['type']}: `{line[:160]}` failed on this computer ({_last_line(result.stderr)}): the computer "
            "lacks what the task reads (a settings schema, a display, a library), so its answer would be a silent ''"
        )
    if result.returncode in (126, 127):
        # The shell could not run it. A program the computer lacks is the platform's fault; a
        # script the agent was to write and did not is the agent's, and is scored as OSWorld does.
        program = program_of(config["command"])
        if program is not None and "/" not in program and await missing_program(ctx.session, program):
            raise PlatformError(f"{config['type']}: {program} is not on this computer (`{line[:160]}`)")
    return result


async def vm_command_line(ctx: Context, config: dict[str, Any]) -> str:
    result = await _command(ctx, config)
    return str(result.stdout)


async def vm_command_error(ctx: Context, config: dict[str, Any]) -> str:
    result = await _command(ctx, config)
    return str(result.stderr)


async def rule(ctx: Context, config: dict[str, Any]) -> Any:
    return config["rules"]


async def vm_screen_size(ctx: Context, config: dict[str, Any]) -> dict[str, int]:
    return {"width": ctx.session.width, "height": ctx.session.height}


async def vm_window_size(ctx: Context, config: dict[str, Any]) -> dict[str, int] | None:
    """The pixel size of the first window of app ``app_class_name`` (None when there is none)."""
    window = await find_window(ctx.session, config["app_class_name"], by_class=True)
    if window is None:
        return None
    left, top, right, bottom = window["bounds"]
    return {
        "width": round((right - left) * ctx.session.width / 1000),
        "height": round((bottom - top) * ctx.session.height / 1000),
    }


# Where OSWorld's getters find the apps' settings on its computer (``os.path.expanduser`` there).
VLC_CONFIG = "/home/user/.config/vlc/vlcrc"
GIMP_CONFIG_DIR = "/home/user/.config/GIMP/2.10"
# The video types whose default app ``default_video_player`` asks xdg-mime for (OSWorld's list).
VIDEO_TYPES = (
    "3gp", "3gpp", "3gpp2", "avi", "divx", "dv", "fli", "flv", "mp2t", "mp4", "mp4v-es", "mpeg", "mpeg-system",
    "msvideo", "ogg", "quicktime", "vnd.divx", "vnd.mpegurl", "vnd.rn-realvideo", "webm", "x-anim", "x-avi", "x-flc",
    "x-fli", "x-flv", "x-m4v", "x-matroska", "x-mpeg", "x-mpeg-system", "x-mpeg2", "x-ms-asf", "x-ms-asf-plugin",
    "x-ms-asx", "x-ms-wm", "x-ms-wmv", "x-ms-wmx", "x-ms-wvx", "x-msvideo", "x-nsv", "x-ogm", "x-ogm+ogg", "x-theora",
    "x-theora+ogg",
)  # fmt: skip


async def vlc_config(ctx: Context, config: dict[str, Any]) -> Any:
    """VLC's settings file (vlcrc), copied as ``dest``; None when VLC never saved one."""
    return await vm_file(ctx, {"path": VLC_CONFIG, "dest": config["dest"]})


# VLC's web interface as OSWorld's VM has it (vlcrc: ``extraintf=http``, ``http-password=password``,
# the default port), which ``vlc_playing_info`` reads as OSWorld's host does (user "", that password).
VLC_HTTP = "http://127.0.0.1:8080/requests/status.xml"
VLC_PASSWORD = "password"


async def vlc_playing_info(ctx: Context, config: dict[str, Any]) -> str | None:
    """VLC's ``status.xml`` copied as ``dest``; None when VLC answers other than 200, as OSWorld's."""
    answer = await on_computer(
        ctx.session, {"op": "get", "url": VLC_HTTP, "auth": f":{VLC_PASSWORD}"}, timeout=ctx.command_timeout
    )
    if "error" in answer:  # OSWorld's requests.get raises: VLC or its web interface is not there
        raise PlatformError(
            f"vlc_playing_info: VLC's web interface does not answer at {VLC_HTTP} ({answer['error']}); OSWorld's "
            f"VM runs VLC with extraintf=http and http-password={VLC_PASSWORD} in its vlcrc"
        )
    if answer["status"] != 200:
        return None
    local = cached(ctx, config["dest"])
    local.parent.mkdir(parents=True, exist_ok=True)
    local.write_bytes(base64.b64decode(answer["body"]))
    return str(local)


async def gimp_config_file(ctx: Context, config: dict[str, Any]) -> Any:
    """One of GIMP 2.10's settings files (``file_name``: gimprc, sessionrc ...), copied as ``dest``."""
    return await vm_file(ctx, {"path": f"{GIMP_CONFIG_DIR}/{config['file_name']}", "dest": config["dest"]})


async def default_video_player(ctx: Context, config: dict[str, Any]) -> str:
    """The desktop file most video types open with (xdg-mime's answer), or ``unknown``, as OSWorld's."""
    if await missing_program(ctx.session, "xdg-mime"):
        raise PlatformError("default_video_player: xdg-mime is not on this computer (Debian: xdg-utils)")
    types = " ".join(f"video/{t}" for t in VIDEO_TYPES)
    result = await run_shell(ctx, f"for t in {types}; do xdg-mime query default $t; echo; done")
    apps = [a.strip() for a in str(result.stdout).splitlines() if a.strip()]
    return Counter(apps).most_common(1)[0][0] if apps else "unknown"


def _last_line(text: str) -> str:
    return (text.strip().splitlines() or ["no output"])[-1][:300]


# The setting OSWorld's server reads for the wallpaper on Linux (not picture-uri-dark, as there).
WALLPAPER_SETTING = "org.gnome.desktop.background picture-uri"


def _wallpaper_path(value: str) -> str | None:
    """The file gsettings' ``picture-uri`` names: a ``file://`` URI (percent-decoded) or a path; None
    for an empty value or any other URI."""
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:  # GVariant prints a string as Python writes one: quoted, with backslash escapes
            text = str(ast.literal_eval(text))
        except (ValueError, SyntaxError):
            text = text[1:-1]
    if text.startswith("file://"):
        return unquote(urlparse(text).path) or None
    return text if text.startswith("/") else None


async def vm_wallpaper(ctx: Context, config: dict[str, Any]) -> str | None:
    """The desktop's wallpaper (the file gsettings' ``picture-uri`` names), copied as ``dest``; None when
    it names no file the computer has (OSWorld's getter then writes an empty file its metric cannot open).

    The file is read through the shell: the default wallpapers live outside home (/usr/share/backgrounds),
    where a backend's ``read_bytes`` may not reach."""
    if await missing_program(ctx.session, "gsettings"):
        raise PlatformError("vm_wallpaper: gsettings is not on this computer (Debian: libglib2.0-bin)")
    result = await run_shell(ctx, f'echo "${{GSETTINGS_BACKEND:-}}"; gsettings get {WALLPAPER_SETTING}')
    backend, _, value = result.stdout.partition("\n")
    if backend.strip() == "memory" or "'memory' GSettings backend" in result.stderr:
        # Each process has its own settings there: a wallpaper the agent set is not what this one reads.
        raise PlatformError(
            "vm_wallpaper: this computer keeps settings in memory (GSETTINGS_BACKEND=memory, or no dconf), so a "
            "wallpaper set on it cannot be read back; OSWorld's VM keeps them in dconf (docker backend, "
            "CUA_DOCKER_VARIANT=osworld)"
        )
    if result.returncode != 0:
        raise PlatformError(f"vm_wallpaper: gsettings get {WALLPAPER_SETTING} failed: {_last_line(result.stderr)}")
    path = _wallpaper_path(value)
    if path is None:
        return None
    quoted = shlex.quote(path)
    result = await run_shell(ctx, f"test -f {quoted} || exit 3; base64 < {quoted}")
    if result.returncode == 3:
        return None
    if result.returncode != 0:
        raise PlatformError(f"vm_wallpaper: the computer cannot read {path}: {_last_line(result.stderr)}")
    local = cached(ctx, config["dest"])
    local.parent.mkdir(parents=True, exist_ok=True)
    local.write_bytes(base64.b64decode(result.stdout))
    return str(local)


# What ``list_directory`` runs on the computer with its python3, to give the tree OSWorld's server
# (``/list_directory``) gives: a folder for what ``os.path.isdir`` calls one, an unreadable folder as
# ``{"error": why}``. Names are sorted (os.listdir's order is arbitrary), and a link back to a folder
# above is such an error node, not a loop.
_DIRECTORY_TREE = """
import json, os, sys

def folder(path, above):
    real = os.path.realpath(path)
    if real in above:
        return {"error": path + ": a link to a folder above it"}
    try:
        names = sorted(os.listdir(path))
    except OSError as error:
        return {"error": str(error)}
    children = []
    for name in names:
        full = os.path.join(path, name)
        children.append(folder(full, above | {real}) if os.path.isdir(full) else {"type": "file", "name": name})
    return {"type": "directory", "name": os.path.basename(path), "children": children}

start = sys.argv[1]
print(json.dumps(folder(start, frozenset()) if os.path.isdir(start) else None))
"""


async def list_directory(ctx: Context, config: dict[str, Any]) -> dict[str, Any] | None:
    """The tree under folder ``path`` on the computer: ``{"type": "directory", "name", "children"}``, each
    child a folder alike or ``{"type": "file", "name"}``; None when ``path`` is no folder, as OSWorld's."""
    path = str(config["path"])
    result = await run_shell(ctx, f"python3 -c {shlex.quote(_DIRECTORY_TREE)} {shlex.quote(path)}")
    if result.returncode in (126, 127):
        raise PlatformError(f"list_directory: python3 is not on this computer (exit {result.returncode})")
    if result.returncode != 0:
        why = _last_line(result.stderr)
        raise PlatformError(f"list_directory: listing {path} failed (exit {result.returncode}): {why}")
    try:
        tree = json.loads((result.stdout.strip().splitlines() or [""])[-1])
    except ValueError as exc:
        raise PlatformError(f"list_directory: the listing of {path} is no JSON: {_last_line(result.stdout)!r}") from exc
    if isinstance(tree, dict) and "error" in tree:  # OSWorld gives this, and its metric fails on it
        raise PlatformError(f"list_directory: the computer cannot read {path}: {tree['error']}")
    return tree if isinstance(tree, dict) else None


# Chrome's profile as OSWorld's getters read it, then Chromium's: the docker osworld image's
# google-chrome is Chromium, which keeps its own profile folder unless told otherwise.
CHROME_PROFILES = ("/home/user/.config/google-chrome/Default", "/home/user/.config/chromium/Default")


async def _chrome_json(ctx: Context, name: str) -> Any:
    """The browser's ``name`` file (Preferences, Bookmarks) as JSON: from the first profile that has
    it; None when none has it or it does not parse (OSWorld's getters then give their fallback)."""
    for folder in CHROME_PROFILES:
        path = f"{folder}/{name}"
        try:
            data = await ctx.session.read_bytes(path)
        except NotSupported as exc:
            raise TaskSkipped(f"backend cannot read files: {exc}") from exc
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            continue
        except Exception as exc:
            raise PlatformError(f"the computer cannot read {path}: {type(exc).__name__}: {exc}") from exc
        try:
            return json.loads(data)
        except ValueError:
            return None
    return None


async def _preferences(ctx: Context) -> dict[str, Any] | None:
    data = await _chrome_json(ctx, "Preferences")
    return data if isinstance(data, dict) else None


# OSWorld's getters of Chrome's settings, each with the value OSWorld's gives when the file is
# missing or unreadable (its ``except Exception`` fallbacks).
async def profile_name(ctx: Context, config: dict[str, Any]) -> Any:
    prefs = await _preferences(ctx)
    return None if prefs is None else prefs.get("profile", {}).get("name", None)


async def enable_do_not_track(ctx: Context, config: dict[str, Any]) -> str:
    prefs = await _preferences(ctx)
    return "true" if prefs is not None and prefs.get("enable_do_not_track", {}) else "false"


async def enable_safe_browsing(ctx: Context, config: dict[str, Any]) -> str:
    prefs = await _preferences(ctx)
    safe = {} if prefs is None else prefs.get("safebrowsing", {})
    return "true" if bool(safe.get("enhanced", False)) or bool(safe.get("enabled", False)) else "false"


async def new_startup_page(ctx: Context, config: dict[str, Any]) -> str:
    prefs = await _preferences(ctx)
    if prefs is None:
        return "Google"
    if "session" not in prefs:  # a fresh profile opens the new tab page
        return "true"
    return "true" if prefs.get("session", {}).get("restore_on_startup", {}) == 5 else "false"


async def chrome_font_size(ctx: Context, config: dict[str, Any]) -> Any:
    defaults = {"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13}
    prefs = await _preferences(ctx)
    if prefs is None:
        return {"default_fixed_font_size": 13, "default_font_size": 16}
    return prefs.get("webkit", {}).get("webprefs", defaults)


async def bookmarks(ctx: Context, config: dict[str, Any]) -> Any:
    data = await _chrome_json(ctx, "Bookmarks")
    return [] if not data else data.get("roots", {})


async def accessibility_tree(ctx: Context, config: dict[str, Any]) -> str:
    """The whole desktop's accessibility tree in OSWorld's XML (what ``check_accessibility_tree`` reads)."""
    nodes = await ctx.session.accessibility_tree()
    return to_osworld_xml(nodes, ctx.session.width, ctx.session.height)


async def vm_terminal_output(ctx: Context, config: dict[str, Any]) -> str | None:
    """The text of GNOME Terminal's focused terminal in its active window, right-stripped, read from the
    accessibility tree as OSWorld's ``/terminal`` does (``application[@name="gnome-terminal-server"]/
    frame[active]//terminal[focused]``); None unless exactly one such terminal, as OSWorld gives. A window
    that shows no widgets yet gets ``A11Y_WAIT`` seconds; then it is the computer's fault, an error."""
    deadline = time.monotonic() + A11Y_WAIT
    while True:
        nodes = await ctx.session.accessibility_tree()
        windows = [n for n in nodes if n.get("app") == TERMINAL_APP]
        if not windows or any(n.get("children") for n in windows):
            break
        # Its windows are there but show no widgets: a window just opened (its widgets reach the
        # accessibility bus a moment after it maps), or the bus does not reach it, which is the
        # computer's fault, not a terminal the agent left empty.
        if time.monotonic() > deadline:
            raise PlatformError(
                f"vm_terminal_output: GNOME Terminal's windows expose no accessibility tree (waited {A11Y_WAIT:g} s)"
            )
        await asyncio.sleep(0.1)
    terminals = [
        node
        for window in windows
        if "active" in window.get("states", ())
        for node in walk(window.get("children") or [])
        if node.get("role") == "terminal" and "focused" in node.get("states", ())
    ]
    return str(terminals[0].get("value") or "").rstrip() if len(terminals) == 1 else None


GETTERS: dict[str, Callable[[Context, dict[str, Any]], Awaitable[Any]]] = {
    "vm_file": vm_file,
    "cloud_file": cloud_file,
    "cache_file": cache_file,
    "vm_command_line": vm_command_line,
    "vm_command_error": vm_command_error,
    "rule": rule,
    "vm_screen_size": vm_screen_size,
    "vm_window_size": vm_window_size,
    "accessibility_tree": accessibility_tree,
    "vlc_config": vlc_config,
    "gimp_config_file": gimp_config_file,
    "default_video_player": default_video_player,
    "profile_name": profile_name,
    "enable_do_not_track": enable_do_not_track,
    "enable_safe_browsing": enable_safe_browsing,
    "new_startup_page": new_startup_page,
    "chrome_font_size": chrome_font_size,
    "bookmarks": bookmarks,
    "vm_wallpaper": vm_wallpaper,
    "list_directory": list_directory,
    **SLIDE_GETTERS,
    **RELATIVE_TIME_GETTERS,
    "vlc_playing_info": vlc_playing_info,
    "vm_terminal_output": vm_terminal_output,
    **CHROME_GETTERS,
    **PAGE_GETTERS,
}


async def get(ctx: Context, config: dict[str, Any]) -> Any:
    """What the getter ``config`` gives. FileNotFoundError passes through (``cache_file``'s absent
    result, which OSWorld scores 0); any other failure is a skip or a ``PlatformError``."""
    getter = GETTERS.get(config["type"])
    if getter is None:
        raise TaskSkipped(f"unsupported getter: {config['type']}")
    try:
        return await getter(ctx, config)
    except (TaskSkipped, PlatformError, FileNotFoundError):
        raise
    except NotSupported as exc:
        raise TaskSkipped(f"backend cannot do getter {config['type']}: {exc}") from exc
    except Exception as exc:  # the window list, the accessibility bus, a command that hung
        raise PlatformError(f"getter {config['type']} failed: {type(exc).__name__}: {exc}") from exc
