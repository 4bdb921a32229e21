"""The xterm and pcmanfm desktop tasks on the train split, and what every one of them declares.

``test_tasks.py`` runs ``check_task`` (the oracle 1, doing nothing 0, every declared wrong
way 0) on the first test variants of every desktop task; this adds a train variant of each file
task, so an evaluator or a wrong way that only holds on the test split's seeds shows, and checks
without a desktop that each declares wrong ways and a chance on every variant. A wrong way that
scores above 0 is a hole an RL policy would find: ``check_task`` reports it and the test fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.local_envs import check_desktop_task

from cua_bench.tasks import load_task_module
from cua_bench.taskset import task_folders

FOLDERS = [folder for folder in task_folders("desktop") if folder.name.split("-", 1)[0] in ("xterm", "pcmanfm")]
TRAIN_VARIANTS = int(os.environ.get("CUA_DESKTOP_TRAIN_VARIANTS", "1"))


def test_fifteen_file_tasks() -> None:
    assert len(FOLDERS) == 15, [folder.name for folder in FOLDERS]


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_wrong_ways_and_chance_are_declared(folder: Path) -> None:
    module = load_task_module(folder)
    for split in ("test", "train"):
        assert len(module.wrong_ways(split)) >= 2, f"{folder.name} declares fewer than 2 wrong ways for {split}"
        # Files, names and titles are open-ended work: a random choice earns nothing.
        assert {task.chance for task in module.variants(split)} == {0.0}, folder.name


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_train_variants_oracle_1_nothing_0_wrong_ways_0(folder: Path, root: Path) -> None:
    # The adversary's mutations run on the test split's sample (test_tasks.py): the train
    # variant adds other seeds for the oracle and the wrong ways, not another pass of the mutations.
    check_desktop_task(folder, root, "train", TRAIN_VARIANTS, adversary=False)
