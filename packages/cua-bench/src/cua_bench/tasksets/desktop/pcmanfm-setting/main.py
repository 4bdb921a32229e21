"""pcmanfm-setting: show or hide hidden files, or the status bar, in PCManFM; read from its saved config.

PCManFM writes ``~/.config/pcmanfm/default/pcmanfm.conf`` as soon as a view setting changes; setup
seeds it with the opposite value and the evaluator parses it. It also checks the other setting kept
its value, and that no file under home changed (a snapshot taken at setup; hidden paths, the
config among them, left out). Wrong ways: ``both_toggled`` (the other setting's shortcut too) and
``file_deleted`` (the oracle's key, then a file of the folder deleted).
"""

from __future__ import annotations

import configparser
import random

import cua_bench as cb
from cua_bench.tasksets.desktop._common import (
    act,
    distinct,
    file_name,
    files_since_setup,
    key,
    loaders,
    read_text,
    remember_files,
    sentence,
    start,
    trash_file,
    wait_path,
    write_files,
)
from cua_core.actions import Wait

NAME = "pcmanfm-setting"
CONFIG = ".config/pcmanfm/default/pcmanfm.conf"
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


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    values = {meta["setting"]: not meta["value"], meta["other"]: meta["other_value"]}
    await write_files(session, {**meta["files"], CONFIG: config(values)})
    await start(session, "pcmanfm", meta["folder"], title=meta["folder"])
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    text = await read_text(session, CONFIG)
    before, after = await files_since_setup(task, session)
    asked = current(text, meta["setting"]) == meta["value"]
    kept = current(text, meta["other"]) == meta["other_value"] and after == before
    return [1.0 if asked and kept else 0.0]


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
