"""The ``desktop`` taskset: real Debian apps on the local backend, every oracle scores 1 and doing nothing 0.

Each task runs ``check_task`` (the oracle, doing nothing, every declared wrong way, and every
mutation of the oracle's end state the adversary of ``cua_bench.adversary`` applies; for the
LibreOffice tasks, the mutations on one task per app: ``OFFICE_ADVERSARY``) on its first test
variant (``CUA_DESKTOP_VARIANTS``, 1 by default; the apps' and files' test modules add a
train variant each), so CI keeps a sample and stays within a few minutes on two cores; the sweep of
every variant of both splits is ``bench/rewards.py --desktop``. Needs Xvfb and openbox, and each task its
app (apt-get install xvfb openbox xterm mousepad gnumeric pcmanfm chromium libreoffice-calc
libreoffice-writer libreoffice-impress libreoffice-gtk3). Without them the tests
skip, unless CI is set: there a missing program is a broken CI image and must fail.
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
        # Seeded variants really vary (names, contents, values), and are the same every time.
        assert len({repr(task.metadata) for task in tasks}) >= 15, folder.name
        assert [t.metadata for t in tasks] == [t.metadata for t in load_task_module(folder).variants("test")]


# The LibreOffice tasks cost 40-100 s each with the adversary (about 2 s an episode, each mutation an
# episode): here the adversary plays on one task per app and on each multi-app builder's first use, and the
# rest get the oracle, nothing and every wrong way; bench/rewards.py plays every mutation on all of them.
OFFICE_ADVERSARY = {
    "calc-sum-formula",
    "calc-save-as-xlsx",
    "writer-bold-word",
    "impress-edit-title",
    "multi-notes-to-calc",
}


def adversary_here(name: str) -> bool:
    return name.split("-", 1)[0] not in ("calc", "writer", "impress", "multi") or name in OFFICE_ADVERSARY


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_oracle_scores_1_and_doing_nothing_0(folder: Path, root: Path) -> None:
    check_desktop_task(folder, root, "test", VARIANTS, adversary=adversary_here(folder.name))


def test_the_adversary_plays_here_on_every_app_and_on_most_tasks() -> None:
    assert {name.split("-", 1)[0] for name in OFFICE_ADVERSARY} == {"calc", "writer", "impress", "multi"}
    assert {folder.name for folder in FOLDERS} >= OFFICE_ADVERSARY  # a renamed task is not silently dropped
    assert sum(adversary_here(folder.name) for folder in FOLDERS) >= 40
