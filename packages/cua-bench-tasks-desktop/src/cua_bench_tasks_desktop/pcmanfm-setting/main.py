"""pcmanfm-setting: show or hide hidden files, or the status bar, in PCManFM; read from its config and its window.

PCManFM writes ``~/.config/pcmanfm/default/pcmanfm.conf`` as soon as a view setting changes; setup
seeds it with the opposite value. The file alone is not the evidence: ``sed`` in a terminal (F4
opens one) once rewrote it while the window never changed, and scored 1.0. So the evaluator needs
the file and the running window to agree (``_a11y``): the status bar showing or not, the folder's
hidden file listed or not. PCManFM is GTK 2, whose widgets reach the accessibility bus only
through the gail and atk-bridge modules (Debian's libgail-common, libatk-adaptor), which setup loads
and checks for. It also checks the other setting kept its value, in both places, and that no other file under home
changed (a snapshot taken at setup, hidden files included; libfm's config may be saved again, unchanged).
Wrong ways: ``both_toggled`` (the other setting's shortcut too), ``file_deleted`` (the oracle's key,
then a file of the folder deleted) and ``config_edited_in_a_terminal`` (the setting written into
the config with ``sed`` from PCManFM's terminal, the window left as it was) and
``hidden_file_deleted`` (the setting, then setup's dot file removed).
"""

from __future__ import annotations

import configparser
import random
from typing import Any

import cua_bench as cb
from cua_bench import TaskError
from cua_bench_tasks_desktop._a11y import app_window, lists, nodes, shows
from cua_bench_tasks_desktop._common import (
    act,
    distinct,
    file_name,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    read_text,
    remember_files,
    sentence,
    shell,
    start,
    wait_for,
    wait_path,
    write_files,
)
from cua_bench_tasks_desktop._pcmanfm import in_folder_terminal, trash_file
from cua_core import Wait

NAME = "pcmanfm-setting"
CONFIG = ".config/pcmanfm/default/pcmanfm.conf"
LIBFM = ".config/libfm/libfm.conf"  # saved again, its content the same, whenever a view setting changes
# GTK 2 exports its widgets to AT-SPI only with these modules loaded (gail: the widgets' accessible
# objects, from Debian's libgail-common; atk-bridge: the bus, from Debian's libatk-adaptor).
ACCESSIBLE = {"GTK_MODULES": "gail:atk-bridge"}
WAIVED = {
    "trailing-blank-lines": "the config is judged as settings, as PCManFM reads it (blank lines mean nothing in "
    "its INI file), and together with the window; its text is not the work",
}
# setting: (key in [ui], how the user turns it, shortcut)
SETTINGS = {
    "hidden files": ("show_hidden", "View > Show Hidden", "ctrl+h"),
    "status bar": ("show_statusbar", "View > Show Status Bar", "ctrl+b"),
}


def build(rng: random.Random) -> cb.Task:
    setting = rng.choice(sorted(SETTINGS))
    show = rng.random() < 0.5
    other = next(name for name in SETTINGS if name != setting)
    other_value = rng.random() < 0.5
    folder = rng.choice(["Documents", "Projects", "Notes"])
    names = distinct(rng, rng.randint(2, 4), file_name)
    files = {f"{folder}/{name}": sentence(rng) + "\n" for name in names}
    files[f"{folder}/.{rng.choice(['cache', 'secret', 'settings'])}"] = "hidden\n"
    verb = "show" if show else "hide"
    return cb.Task(
        description=f"In the file manager, {verb} the {setting} ({SETTINGS[setting][1]}) so that it stays that way.",
        metadata={
            "setting": setting,
            "value": show,
            "other": other,
            "other_value": other_value,
            "folder": folder,
            "files": files,
        },
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def config(values: dict[str, bool]) -> str:
    lines = ["[ui]", *(f"{SETTINGS[name][0]}={int(value)}" for name, value in values.items()), ""]
    return "\n".join(lines)


def current(text: str | None, name: str) -> bool | None:
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    value = parser.get("ui", SETTINGS[name][0], fallback=None)
    return None if value is None else value.strip() == "1"


def hidden_file(meta: dict[str, Any]) -> str:
    """The name of the dot file setup puts in the folder: listed in the window only while hidden files show."""
    return next(path for path in meta["files"] if "/." in path).rsplit("/", 1)[1]


def shown(window: dict[str, Any], name: str, meta: dict[str, Any]) -> bool:
    """Whether the window shows the setting ``name`` turned on."""
    return lists(window, hidden_file(meta)) if name == "hidden files" else shows(window, "statusbar")


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    values = {meta["setting"]: not meta["value"], meta["other"]: meta["other_value"]}
    await write_files(session, {**meta["files"], CONFIG: config(values)})
    await start(session, "pcmanfm", meta["folder"], title=meta["folder"], env=ACCESSIBLE)

    async def accessible() -> bool:
        window = await app_window(session, meta["folder"])
        return window is not None and any(node.get("role") == "icon" for node in nodes(window))

    try:
        await wait_for(accessible, "PCManFM's folder view in the accessibility tree", timeout=20)
    except TaskError:
        raise TaskError(
            "PCManFM shows no widgets on the accessibility bus, so its window cannot be read: GTK 2 needs the "
            "gail and atk-bridge modules (apt-get install libgail-common libatk-adaptor)"
        ) from None
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    text = await read_text(session, CONFIG)
    window = await app_window(session, meta["folder"])
    before, after = await files_since_setup(task, session)
    wanted = {meta["setting"]: meta["value"], meta["other"]: meta["other_value"]}
    saved = all(current(text, name) == value for name, value in wanted.items())
    showing = window is not None and all(shown(window, name, meta) == value for name, value in wanted.items())
    kept = LIBFM in before and LIBFM in after and before[LIBFM].sha256 == after[LIBFM].sha256
    untouched = kept and nothing_else_changed(task, before, after, expect=[CONFIG, LIBFM])
    return [1.0 if saved and showing and untouched else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, key(SETTINGS[meta["setting"]][2]))
    await wait_path(session, CONFIG, lambda text: current(text, meta["setting"]) == meta["value"])


@cb.wrong_way
async def both_toggled(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, key(SETTINGS[meta["setting"]][2]), key(SETTINGS[meta["other"]][2]), Wait(1.0))


@cb.wrong_way
async def file_deleted(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, key(SETTINGS[meta["setting"]][2]), Wait(0.5))
    name = next(path for path in meta["files"] if "/." not in path).split("/", 1)[1]
    await trash_file(session, meta["folder"], name)


@cb.wrong_way
async def config_edited_in_a_terminal(task: cb.Task, session: cb.Session) -> None:
    """F4 opens a terminal in the folder; ``sed`` writes the asked-for value into the config. PCManFM
    does not read its config again, so its window goes on showing the old setting."""
    meta = task.metadata
    option = SETTINGS[meta["setting"]][0]
    await in_folder_terminal(session, f"sed -i 's/^{option}=.*/{option}={int(meta['value'])}/' ~/{shell(CONFIG)}")


@cb.wrong_way
async def hidden_file_deleted(task: cb.Task, session: cb.Session) -> None:
    """The red team's collateral: the setting asked for, and setup's own hidden file gone with it
    (snapshots that skipped dot files never saw it go)."""
    meta = task.metadata
    await solve(task, session)
    await in_folder_terminal(session, f"rm -- {shell(hidden_file(meta))}")
