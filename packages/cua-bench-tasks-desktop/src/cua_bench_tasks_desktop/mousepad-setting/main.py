"""mousepad-setting: turn one of Mousepad's view settings on or off; read from its saved settings.

Mousepad keeps its preferences in GSettings. The environment's apps use the in-memory backend
(nothing outlives them), so this task starts Mousepad with GSettings' keyfile backend: settings are
written at once to ``~/.config/glib-2.0/settings/keyfile``, which setup seeds with the opposite
value and the evaluator parses.

The evaluator checks every preference in the keyfile: the asked-for one has its new value and every
other one (the seeded ones and any Mousepad wrote since, such as the menubar's) is as setup left it;
Mousepad's own state (its session) is not a setting and may change.

Unlike PCManFM's config, the keyfile cannot be edited behind the app's back: GSettings watches it,
and an outside edit reaches the running Mousepad at once (its window shows the bar; a test pins
this), so the keyfile is the app's live setting. The window is still asked where it shows a
setting (``_a11y``): the status bar and the toolbar must be on screen exactly when their
preferences say so. (The desktop offers no terminal here either.) No other file under home may
change (a snapshot taken at setup, hidden files included).
Wrong ways: ``toggles_the_next_setting`` (another of the five instead) and
``oracle_then_hides_the_menubar`` (the setting, then ctrl+m: a preference nobody asked to change).
"""

from __future__ import annotations

import configparser
import random

import cua_bench as cb
from cua_bench_tasks_desktop._a11y import app_window, shows
from cua_bench_tasks_desktop._common import (
    act,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    read_text,
    remember_files,
    start,
    wait_for,
    wait_path,
    write_files,
)
from cua_core import Wait

NAME = "mousepad-setting"
KEYFILE = ".config/glib-2.0/settings/keyfile"
# setting: (keyfile group, key, menu label as the user sees it, menu, mnemonic)
SETTINGS = {
    "line numbers": ("org/xfce/mousepad/preferences/view", "show-line-numbers", "View > Line Numbers", "alt+v", "u"),
    "word wrap": ("org/xfce/mousepad/preferences/view", "word-wrap", "Document > Word Wrap", "alt+d", "w"),
    "auto indent": ("org/xfce/mousepad/preferences/view", "auto-indent", "Document > Auto Indent", "alt+d", "a"),
    "status bar": ("org/xfce/mousepad/preferences/window", "statusbar-visible", "View > Statusbar", "alt+v", "a"),
    "toolbar": ("org/xfce/mousepad/preferences/window", "toolbar-visible", "View > Toolbar", "alt+v", "t"),
}
VISIBLE = {"status bar": "statusbar", "toolbar": "tool bar"}  # settings the window shows: their widget's role
WAIVED = {
    "forged-write": "the keyfile is Mousepad's live settings store: GSettings watches it and the running app takes "
    "an outside write at once (test_mousepad_follows_its_keyfile_edited_from_outside), so writing the asked-for "
    "value is turning the setting, whoever's hands write it; and this desktop offers no shell to write it with",
    "trailing-blank-lines": "the keyfile is judged as settings, as GSettings reads it (blank lines mean nothing in "
    "a keyfile), not as text",
}


def build(rng: random.Random) -> cb.Task:
    setting = rng.choice(sorted(SETTINGS))
    turn_on = rng.random() < 0.5
    others = {name: rng.random() < 0.5 for name in SETTINGS if name != setting}
    state = "on" if turn_on else "off"
    return cb.Task(
        description=f"In Mousepad, turn {state} the {setting} setting ({SETTINGS[setting][2]}).",
        metadata={"setting": setting, "value": turn_on, "others": others},
        max_steps=10,
        chance=1 / len(SETTINGS),
    )


load_train, load_test = loaders(NAME, build)


def keyfile(values: dict[str, bool]) -> str:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    for name, value in values.items():
        group, option = SETTINGS[name][:2]
        if not parser.has_section(group):
            parser.add_section(group)
        parser.set(group, option, "true" if value else "false")
    lines = []
    for group in parser.sections():
        lines.append(f"[{group}]")
        lines += [f"{option}={value}" for option, value in parser.items(group)]
        lines.append("")
    return "\n".join(lines)


PREFERENCES = "org/xfce/mousepad/preferences"


def preferences(text: str | None) -> dict[tuple[str, str], str] | None:
    """Every preference in the keyfile's text, ``{(group, key): value}`` (None: no readable keyfile)."""
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return {
        (group, option): value.strip()
        for group in parser.sections()
        if group.startswith(PREFERENCES)
        for option, value in parser.items(group)
    }


def current(text: str | None, name: str) -> bool | None:
    """The setting's value in the keyfile's text (None: not there)."""
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    group, option = SETTINGS[name][:2]
    value = parser.get(group, option, fallback=None)
    return None if value is None else value.strip() == "true"


def mousepad(title: str) -> bool:
    return title.endswith(" - Mousepad")


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await write_files(session, {KEYFILE: keyfile({**meta["others"], meta["setting"]: not meta["value"]})})
    await start(session, "mousepad", env={"GSETTINGS_BACKEND": "keyfile"}, title=mousepad)
    await remember_files(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    group, option = SETTINGS[meta["setting"]][:2]
    seeded = preferences(keyfile({**meta["others"], meta["setting"]: not meta["value"]})) or {}
    expected = {**seeded, (group, option): "true" if meta["value"] else "false"}
    wanted = {**meta["others"], meta["setting"]: meta["value"]}
    window = await app_window(session, mousepad)
    seen = window is not None and all(shows(window, role) == wanted[name] for name, role in VISIBLE.items())
    before, after = await files_since_setup(task, session)
    untouched = nothing_else_changed(task, before, after, expect=[KEYFILE])
    return [1.0 if preferences(await read_text(session, KEYFILE)) == expected and seen and untouched else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await toggle(session, meta["setting"])
    await wait_path(session, KEYFILE, lambda text: current(text, meta["setting"]) == meta["value"])
    if meta["setting"] in VISIBLE:  # and the bar come or go, as a person would watch it

        async def drawn() -> bool:
            window = await app_window(session, mousepad)
            return window is not None and shows(window, VISIBLE[meta["setting"]]) == meta["value"]

        await wait_for(drawn, f"Mousepad's {meta['setting']} to show the setting")


async def toggle(session: cb.Session, setting: str) -> None:
    menu, mnemonic = SETTINGS[setting][3:]
    await act(session, key(menu))
    await act(session, key(mnemonic))


@cb.wrong_way
async def toggles_the_next_setting(task: cb.Task, session: cb.Session) -> None:
    """Another of the five settings (the next one by name) toggled instead."""
    names = sorted(SETTINGS)
    await toggle(session, names[(names.index(task.metadata["setting"]) + 1) % len(names)])
    await act(session, Wait(1.0))


@cb.wrong_way
async def oracle_then_hides_the_menubar(task: cb.Task, session: cb.Session) -> None:
    """The setting toggled, then ctrl+m (View > Menubar): a preference the task did not ask to change."""
    await toggle(session, task.metadata["setting"])
    await act(session, Wait(0.5), key("ctrl+m"), Wait(1.0))
