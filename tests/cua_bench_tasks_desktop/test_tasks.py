"""The ``desktop`` taskset: real Debian apps on the local backend, every oracle scores 1 and doing nothing 0.

Each task runs ``check_task`` on its first test variant (``CUA_DESKTOP_VARIANTS``, 1 by default): the
oracle and doing nothing, and on one named task of each app (``FULL``) every declared wrong way and every
mutation of the oracle's end state the adversary of ``cua_bench.adversary`` applies. Of the heavy apps
(``HEAVY``) only that task plays unless ``CUA_DESKTOP_ALL=1``. The light apps'
test modules add a train variant each with its wrong ways. So CI keeps a sample and stays within a few
minutes on two cores; the sweep of every variant of both splits is ``bench/rewards.py --desktop``. Needs
Xvfb and openbox, and each task its app (``support.local_envs.PROGRAMS``; scripts/system-deps.sh installs
them all). Without them the tests skip, unless CI is set: there a missing program is a broken CI image
and must fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.local_envs import PROGRAMS, check_desktop_task

from cua_bench.registry import tasksets
from cua_bench.tasks import load_task_module
from cua_bench.taskset import task_folders

DESKTOP = Path(tasksets()["desktop"])
FOLDERS = task_folders("desktop")
VARIANTS = int(os.environ.get("CUA_DESKTOP_VARIANTS", "1"))


def test_the_desktop_taskset_is_registered() -> None:
    assert "desktop" in tasksets().names()
    assert DESKTOP.is_dir() and (DESKTOP / "xterm-copy-file" / "main.py").is_file()


def test_at_least_50_tasks_with_20_test_variants_on_every_app() -> None:
    assert len(FOLDERS) >= 50
    assert {folder.name.split("-", 1)[0] for folder in FOLDERS} == set(PROGRAMS)
    for folder in FOLDERS:
        module = load_task_module(folder)
        tasks = module.variants("test")
        assert len(tasks) >= 20, folder.name
        assert module.function("solve_task", "test") is not None, f"{folder.name} has no oracle"
        for split in ("test", "train"):
            assert len(module.wrong_ways(split)) >= 2, f"{folder.name} declares fewer than 2 wrong ways for {split}"
            assert all(task.chance is not None and 0.0 <= task.chance < 1.0 for task in module.variants(split))
        # Seeded variants really vary (names, contents, values), and are the same every time.
        assert len({repr(task.metadata) for task in tasks}) >= 15, folder.name
        assert [t.metadata for t in tasks] == [t.metadata for t in load_task_module(folder).variants("test")]


# A full check (every wrong way and every mutation of the adversary) costs 20-170 s a task: here it plays on
# one task of each app (FULL, and one of the multi-app tasks), and every other task gets its oracle and doing
# nothing (test_tasks_files.py and test_tasks_apps.py play the light apps' wrong ways on a train variant);
# bench/rewards.py --desktop plays everything on every variant.
# The heavy apps' episodes cost 15-150 s each on two cores (LibreOffice, Inkscape, GIMP, Thunderbird, VLC, QGIS,
# Blender and Kate start for seconds and their oracles wait on many dialogs): the suite plays the full check on
# one task of each and leaves their other tasks, and the multi-app tasks that open them, to CUA_DESKTOP_ALL=1
# and bench/rewards.py --desktop, so that the whole suite stays within 30 minutes.
HEAVY = ("calc", "writer", "impress", "draw", "inkscape", "gimp", "thunderbird", "vlc", "qgis", "blender", "kate")
EVERY_TASK = os.environ.get("CUA_DESKTOP_ALL") == "1"
# Named, not "the first by name", so that a new task does not silently take an app's place here. The multi-app
# one is between two light apps: one that opens LibreOffice twice costs three times as much.
FULL = {
    "blender-delete-object", "calc-edit-cell", "chromium-checkboxes", "draw-bring-to-front", "evince-add-note",
    "fileroller-add-file", "galculator-base-convert", "gedit-go-to-line", "gimp-export-jpeg", "gnumeric-add-row",
    "impress-delete-slide", "inkscape-add-text", "kate-bom-crlf", "mousepad-append-line",
    "multi-fileroller-to-mousepad", "pcmanfm-copy-file", "qgis-edit-attribute", "thunderbird-delete-message",
    "vlc-edit-metadata", "writer-append-paragraph", "xterm-append-line",
}  # fmt: skip


def _heavy(name: str) -> bool:
    return any(app in name.split("-") for app in HEAVY)


# The heavy apps' full checks take minutes: marked slow, their module is handed out first (tests/conftest.py).
CASES = [
    pytest.param(f, id=f.name, marks=[pytest.mark.slow] if f.name in FULL and _heavy(f.name) else []) for f in FOLDERS
]


@pytest.mark.parametrize("folder", CASES)
def test_oracle_scores_1_and_doing_nothing_0(folder: Path, root: Path) -> None:
    full = folder.name in FULL
    if not (full or EVERY_TASK) and _heavy(folder.name):
        pytest.skip(f"{folder.name} drives a heavy app: CUA_DESKTOP_ALL=1 plays it (the suite plays each one's FULL)")
    check_desktop_task(folder, root, "test", VARIANTS, adversary=full, wrong_ways=full)


def test_the_full_check_plays_here_on_every_app() -> None:
    assert {name.split("-", 1)[0] for name in FULL} == set(PROGRAMS)
    assert not FULL - {folder.name for folder in FOLDERS}, "a FULL task that is not in the taskset"
