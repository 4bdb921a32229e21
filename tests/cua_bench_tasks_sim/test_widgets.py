"""The MiniWoB-like widget families of the sim taskset: many distinct seeded variants per split, an
oracle that scores 1.0 acting through the screen only, 0 for doing nothing, and 0 for every declared
wrong way (each of which acts through the screen only and really changes something)."""

from __future__ import annotations

import asyncio

import pytest
from support.screen_only import ScreenOnly

import cua_bench as cb
from cua_bench.nodes import walk
from cua_bench.sim import Button, SimSession
from cua_bench.tasks import TaskModule
from cua_bench.taskset import task_folders
from cua_bench_tasks_sim import FOLDER as SIM
from cua_bench_tasks_sim._widgets_common import as_before_but, desktop

FAMILIES = [
    "click-button", "click-checkboxes", "enter-text", "fill-form", "choose-dropdown", "choose-radio", "set-slider",
    "navigate-menu", "scroll-list", "drag-to-target", "login", "tab-focus", "dialog-answer",
]  # fmt: skip


def module(family: str) -> TaskModule:
    return cb.load_task_module(SIM / family)


@pytest.mark.parametrize("split", ["test", "train"])
@pytest.mark.parametrize("family", FAMILIES)
def test_the_family_passes_check_task(family: str, split: str) -> None:
    """Oracle 1, nothing 0 and every wrong way 0, on the first variants of both splits (each difficulty)."""
    assert cb.check_task(SIM / family, backend="sim", split=split, variants=6 if split == "test" else 3) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_every_variant_states_its_chance_and_the_family_declares_wrong_ways(family: str) -> None:
    task = module(family)
    for split in ("test", "train"):
        ways = task.wrong_ways(split)
        assert len(ways) >= 2, (split, sorted(ways))
        assert any(name.startswith("oracle_then_") for name in ways), sorted(ways)  # the destructive extra step
        for variant in task.variants(split):
            assert variant.chance is not None and 0 <= variant.chance < 1, (split, variant.variant, variant.chance)


def _changed(task: cb.Task, session: SimSession) -> bool:
    """Anything a wrong way can leave: an input or a window changed, a button pressed, a command or
    answer recorded (so a wrong way that scores 0 did so by its wrong end state, not by doing nothing)."""
    windows = desktop(session).windows()
    pressed = any(w.clicks for window in windows for w in window.all_widgets() if isinstance(w, Button))
    recorded = any(window.data.get(key) for window in windows for key in ("submissions", "chosen", "answers"))
    return pressed or recorded or not as_before_but(task, session, {})


@pytest.mark.parametrize("family", FAMILIES)
def test_every_wrong_way_acts_through_the_screen_and_leaves_a_wrong_end_state(family: str) -> None:
    task_module = module(family)

    async def episode(task: cb.Task, name: str) -> tuple[bool, float]:
        session = SimSession(width=1024, height=768)
        task.history, task.scratch = [], {}
        await task_module.run("setup_task", task, session)
        screen = ScreenOnly(session)
        await task_module.wrong_ways(task.split)[name](task, screen)
        assert screen.refused == [], (name, task.description, screen.refused)
        task.history = screen.history
        return _changed(task, session), (await task_module.run("evaluate_task", task, session))[0]

    for task in task_module.variants("test")[6:15] + task_module.variants("train")[3:9]:
        for name in task_module.wrong_ways(task.split):
            assert asyncio.run(episode(task, name)) == (True, 0.0), (name, task.split, task.variant)


@pytest.mark.parametrize("family", FAMILIES)
def test_both_splits_have_many_distinct_deterministic_variants(family: str) -> None:
    task = module(family)
    assert task.splits() == ["test", "train"]
    test, train = task.variants("test"), task.variants("train")
    assert len(test) >= 100 and len(train) >= 100
    for tasks in (test, train):
        assert len({t.description for t in tasks}) >= 10
        assert len({repr(t.metadata) for t in tasks}) == len(tasks)  # every layout differs
        assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
        assert all(t.max_steps for t in tasks)
    assert [t.to_dict() for t in test] == [t.to_dict() for t in task.variants("test")]  # seeded
    assert {repr(t.metadata) for t in test}.isdisjoint(repr(t.metadata) for t in train)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_oracle_needs_only_the_screen_and_starts_from_a_clean_desktop(family: str) -> None:
    """Setup clears what an earlier episode left; the oracle never reaches for ``session.sim``."""
    task_module = module(family)

    async def episode(task: cb.Task, session: SimSession) -> tuple[float, float]:
        task.history, task.scratch = [], {}
        await task_module.run("setup_task", task, session)
        before = await task_module.run("evaluate_task", task, session)
        screen = ScreenOnly(session)
        await task_module.run("solve_task", task, screen)
        assert screen.refused == [], (task.description, screen.refused)
        task.history = screen.history
        return before[0], (await task_module.run("evaluate_task", task, session))[0]

    session = SimSession(width=1024, height=768)  # one desktop for every episode, as an env server has
    session.sim.open_window("Left over", 10, 10, 300, 200).add(Button("Stray"))
    for task in task_module.variants("test")[20:32] + task_module.variants("train")[:6]:
        assert asyncio.run(episode(task, session)) == (0.0, 1.0), task.description
        assert "Left over" not in [w["title"] for w in asyncio.run(session.windows())]


def test_scroll_list_targets_start_out_of_view() -> None:
    task_module = module("scroll-list")
    for task in task_module.variants("test"):
        session = SimSession()
        asyncio.run(task_module.run("setup_task", task, session))
        shown = [n["name"] for n in walk(asyncio.run(session.accessibility_tree())) if n["role"] == "listitem"]
        assert shown and task.metadata["target"] not in shown


def test_the_sim_taskset_lists_every_family_and_not_the_shared_module() -> None:
    names = {folder.name for folder in task_folders("sim")}
    assert set(FAMILIES) <= names
    assert not any(name.startswith("_") for name in names)
