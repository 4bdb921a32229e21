"""The gnumeric, mousepad and chromium desktop tasks on the train split, what each declares, and the
evaluator helpers that tell a right formula, a followed link or a shown setting from a look-alike.

``test_tasks.py`` runs ``check_task`` (the oracle 1, doing nothing 0, every declared wrong
way 0) on the first test variants of every desktop task; this adds a train variant of each task whose
wrong ways hold the red team's exploits, so an evaluator or a wrong way that only holds on the test
split's seeds shows. A wrong way that
scores above 0 is a hole an RL policy would find: ``check_task`` reports it and the test fails.
The helper tests need no desktop: they pin the cases the tester found (``=SUM(<the total>)``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from support.local_envs import check_desktop_task, desktop_task_problem

from cua_bench.backends.local import LocalBackend
from cua_bench.client import EnvClient
from cua_bench.tasks import load_task_module
from cua_bench.taskset import task_folders
from cua_bench_tasks_desktop._a11y import lists, shows
from cua_bench_tasks_desktop._sheets import call, cells, product_of, refers_to

APPS = ("gnumeric", "mousepad", "chromium")
FOLDERS = [folder for folder in task_folders("desktop") if folder.name.split("-", 1)[0] in APPS]
TRAIN_VARIANTS = int(os.environ.get("CUA_DESKTOP_TRAIN_VARIANTS", "1"))
# Tasks whose variants are a choice among k options: chance is 1/k there, 0 for open-ended work.
CHOICES = {"chromium-click-link", "chromium-checkboxes", "mousepad-setting"}


def test_twenty_app_tasks() -> None:
    assert len(FOLDERS) == 20, [folder.name for folder in FOLDERS]


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_wrong_ways_and_chance_are_declared(folder: Path) -> None:
    module = load_task_module(folder)
    for split in ("test", "train"):
        assert module.wrong_ways(split), f"{folder.name} declares no wrong way for {split}"
        chances = [task.chance for task in module.variants(split)]
        assert all(chance is not None and 0.0 <= chance < 1.0 for chance in chances), folder.name
        if folder.name not in CHOICES:
            assert set(chances) == {0.0}, folder.name


def test_chance_of_the_choices() -> None:
    desktop = Path(FOLDERS[0]).parent
    for task in load_task_module(desktop / "chromium-click-link").variants("test"):
        assert task.chance == pytest.approx(1 / len(task.metadata["titles"]))
    for task in load_task_module(desktop / "chromium-checkboxes").variants("test"):
        assert task.chance == pytest.approx(0.5 ** len(task.metadata["topics"]))


# The red team's spreadsheet exploits (issue 31), each scored 1.0 when sheets were compared as CSV
# text of sheet 1; each is a declared wrong way now, so check_task plays it live and it must score 0.
RED_TEAM = {
    "gnumeric-edit-cell": {"typed_as_text", "exported_as_csv_under_its_name"},
    "gnumeric-add-row": {"numbers_typed_as_text"},
    "gnumeric-fill-cells": {"numbers_typed_as_text", "exported_as_csv_under_the_name"},
    "gnumeric-sum-formula": {"junk_in_a_second_sheet"},
}


@pytest.mark.parametrize("task", sorted(RED_TEAM))
def test_the_red_teams_sheet_exploits_are_wrong_ways(task: str) -> None:
    folder = next(folder for folder in FOLDERS if folder.name == task)
    for split in ("test", "train"):
        assert RED_TEAM[task] <= set(load_task_module(folder).wrong_ways(split)), task


# The red team's exploits of the reward channels (issue 31): each scored 1.0 live when the chromium tasks
# read a request log in TMPDIR and the Referer, and pcmanfm-setting its config alone. Each is a declared
# wrong way, so check_task plays it (train here, test in test_tasks.py) and it must score 0.
CHANNEL_RED_TEAM = {
    "chromium-click-link": {"forged_request_log", "javascript_location", "javascript_click"},
    "chromium-open-url": {"forged_request_log", "linked_from_a_data_page"},
    "chromium-fill-form": {"forged_request_log", "posted_from_a_data_page"},
    "chromium-checkboxes": {"forged_request_log", "posted_from_a_data_page"},
    "chromium-select-option": {"forged_request_log", "posted_from_a_data_page"},
    "pcmanfm-setting": {"config_edited_in_a_terminal"},
}


@pytest.mark.parametrize("task", sorted(CHANNEL_RED_TEAM))
def test_the_red_teams_channel_exploits_are_wrong_ways(task: str) -> None:
    folder = next(folder for folder in task_folders("desktop") if folder.name == task)
    for split in ("test", "train"):
        assert CHANNEL_RED_TEAM[task] <= set(load_task_module(folder).wrong_ways(split)), task


def test_a_window_shows_what_is_on_screen() -> None:
    bar = {"role": "statusbar", "name": "2 items", "states": ["visible"], "children": []}
    icon = {"role": "icon", "name": "", "value": ".cache", "states": ["showing"], "children": []}
    window = {"role": "window", "name": "Notes", "states": ["showing"], "children": [bar, icon]}
    assert not shows(window, "statusbar")  # there, but hidden: its widget is not showing
    bar["states"] = ["visible", "showing"]
    assert shows(window, "statusbar") and not shows(window, "tool bar")
    assert lists(window, ".cache") and not lists(window, ".secret")
    assert not lists(window, "Notes")  # the window's own title is not an item in it


def test_mousepad_follows_its_keyfile_edited_from_outside(root: Path) -> None:
    """Why mousepad-setting may trust its keyfile: GSettings watches it, so an edit behind Mousepad's back
    is Mousepad's setting at once (its window shows it), unlike PCManFM's config."""
    reason = desktop_task_problem("mousepad-setting")
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but mousepad-setting cannot run here: {reason}")
        pytest.skip(reason)
    folder = next(folder for folder in FOLDERS if folder.name == "mousepad-setting")
    variant = next(
        i for i, t in enumerate(load_task_module(folder).variants("test")) if t.metadata["setting"] == "status bar"
    )
    backend = LocalBackend()
    computer = backend.provision()
    try:
        with EnvClient(computer.address, step_timeout=60) as env:
            _, info = env.reset(options={"task": str(folder), "variant": variant, "split": "test", "observes": "none"})
            shown = info["task"]["metadata"]["value"]

            def statusbar() -> bool | None:
                window = next((w for w in env.session("accessibility_tree") if w["name"].endswith(" - Mousepad")), None)
                return None if window is None else shows(window, "statusbar")

            assert statusbar() is (not shown)
            value = "true" if shown else "false"
            sed = f"sed -i 's/^statusbar-visible=.*/statusbar-visible={value}/' ~/.config/glib-2.0/settings/keyfile"
            assert env.session("run_command", command=sed)["returncode"] == 0
            deadline = time.monotonic() + 15
            while statusbar() is not shown and time.monotonic() < deadline:
                time.sleep(0.1)
            assert statusbar() is shown
    finally:
        backend.teardown(computer)


def test_a_formula_is_judged_by_what_it_is_over() -> None:
    amounts = cells("B2:B6")
    assert amounts == {"B2", "B3", "B4", "B5", "B6"}
    assert refers_to("=SUM(B2:B6)", "SUM", amounts)
    assert refers_to("=sum( $B$2:B4 , B5,B6 )", "SUM", amounts)
    # The tester's case: the total typed inside SUM has the right value and refers to nothing.
    assert not refers_to("=SUM(31.5)", "SUM", amounts)
    # A wider range gives the same value when the extra cells are empty; it is not the range asked for.
    assert not refers_to("=SUM(B2:B7)", "SUM", amounts)
    assert not refers_to("=SUM(B2:B5)+B6", "SUM", amounts)
    assert not refers_to("=AVERAGE(B2:B6)", "SUM", amounts)
    assert not refers_to("=SUM(B2:B6,1)", "SUM", amounts)
    assert call("=SUM(B2:B6)") == ("SUM", ["B2:B6"])
    assert call("=SUM(ABS(B2))") is None


def test_a_product_is_of_the_rows_two_cells() -> None:
    row = {"B2", "C2"}
    assert product_of("=B2*C2", row) and product_of("=C2*B2", row) and product_of("=$B$2*C2", row)
    assert product_of("=PRODUCT(B2:C2)", row) and product_of("=PRODUCT(B2,C2)", row)
    assert not product_of("=4*2.5", row)  # typed numbers: the right value, no references
    assert not product_of("=B2*C2*1", row)
    assert not product_of("=B2*B2", row)
    assert not product_of("=B3*C3", row)
    assert not product_of("B2*C2", row)  # text, not a formula


# The tasks whose declared wrong ways hold the red team's exploits (above) play them on a train variant too;
# the suite's time keeps the other tasks' wrong ways to bench/rewards.py --desktop (and test_tasks.py's FULL).
TRAIN_CHECKED = [folder for folder in FOLDERS if folder.name in RED_TEAM or folder.name in CHANNEL_RED_TEAM]


@pytest.mark.parametrize("folder", TRAIN_CHECKED, ids=[folder.name for folder in TRAIN_CHECKED])
def test_train_variants_oracle_1_nothing_0_wrong_ways_0(folder: Path, root: Path) -> None:
    # The adversary's mutations run on the test split's sample (test_tasks.py).
    check_desktop_task(folder, root, "train", TRAIN_VARIANTS, adversary=False)
