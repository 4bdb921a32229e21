"""The ``phone`` taskset: every family on a portrait phone, many distinct seeded variants per split, an
oracle that scores 1.0 acting through the screen only, 0 for doing nothing, and 0 for every declared
wrong way (each acts through the screen only and really changes the phone's state)."""

from __future__ import annotations

import asyncio
import random

import pytest
from support.screen_only import ScreenOnly

import cua_bench as cb
from cua_bench.sim import SimSession
from cua_bench.sim.phone import PHONE_APPS, Phone
from cua_bench.tasks import TaskModule
from cua_bench.taskset import task_folders
from cua_bench_tasks_sim import FOLDER as SIM
from cua_bench_tasks_sim._phone import apps
from cua_bench_tasks_sim._phone.kit import SIZE, kept, phone

PHONE = SIM / "phone"
FAMILIES = [folder.name for folder in task_folders("phone")]


def module(family: str) -> TaskModule:
    return cb.load_task_module(PHONE / family)


def test_the_taskset_is_registered_with_its_families() -> None:
    assert task_folders("phone") == sorted(p for p in PHONE.iterdir() if (p / "main.py").is_file())
    assert len(FAMILIES) >= 5


@pytest.mark.parametrize("split", ["test", "train"])
@pytest.mark.parametrize("family", FAMILIES)
def test_the_family_passes_check_task(family: str, split: str) -> None:
    """Oracle 1, nothing 0, every wrong way and every generic mutation 0, on the test split's first three
    variants (one of each difficulty) and the train split's first (another seed; the suite's time is
    kept for the rest); bench/rewards.py --only phone sweeps more."""
    assert cb.check_task(PHONE / family, backend="sim", split=split, variants=3 if split == "test" else 1) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_both_splits_have_many_distinct_deterministic_variants_on_a_phone(family: str) -> None:
    task = module(family)
    assert task.splits() == ["test", "train"]
    assert len(task.wrong_ways("test")) >= 2
    test, train = task.variants("test"), task.variants("train")
    for tasks in (test, train):
        assert len(tasks) >= 100
        assert len({t.description for t in tasks}) >= 10
        assert len({repr(t.metadata) for t in tasks}) == len(tasks)
        assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
        for t in tasks:
            assert t.computer == {"setup_config": SIZE} and t.max_steps
            assert t.chance is not None and 0 <= t.chance < 1, (t.variant, t.chance)
    assert [t.to_dict() for t in test] == [t.to_dict() for t in task.variants("test")]  # seeded
    assert {repr(t.metadata) for t in test}.isdisjoint(repr(t.metadata) for t in train)


async def _episode(task_module: TaskModule, task: cb.Task, role: str) -> tuple[float, float, bool, list[str]]:
    """Reward before and after ``role`` (solve, or a wrong way's name) acted through the screen alone,
    whether the phone's state changed, and what the phone refused."""
    session = SimSession(**SIZE)
    task.history, task.scratch = [], {}
    await task_module.run("setup_task", task, session)
    before = (await task_module.run("evaluate_task", task, session))[0]
    screen = ScreenOnly(session)
    act = (
        task_module.function("solve_task", task.split) if role == "solve" else task_module.wrong_ways(task.split)[role]
    )
    assert act is not None
    await act(task, screen)
    task.history = screen.history
    after = (await task_module.run("evaluate_task", task, session))[0]
    return before, after, phone(session).state() != kept(task), screen.refused


@pytest.mark.parametrize("family", FAMILIES)
def test_the_oracle_and_the_wrong_ways_act_through_the_screen_alone(family: str) -> None:
    """On variants check_task does not play: the oracle turns 0 into 1; each wrong way changes the
    phone's state and scores 0; nothing any of them did was refused."""
    task_module = module(family)
    for task in task_module.variants("test")[3:9] + task_module.variants("train")[3:6]:
        assert asyncio.run(_episode(task_module, task, "solve"))[:2] == (0.0, 1.0), (task.split, task.variant)
        for name in task_module.wrong_ways(task.split):
            _, after, changed, refused = asyncio.run(_episode(task_module, task, name))
            assert (after, changed, refused) == (0.0, True, []), (name, task.split, task.variant)


@pytest.mark.parametrize("app", sorted(PHONE_APPS))
def test_an_app_that_is_only_looked_at_keeps_its_state(app: str) -> None:
    """Opening an app on its sample, walking into each row of its first list and back, and going home
    leave every app's state as it was: the evaluators' "nothing else changed" holds for a look."""
    sim = SimSession(**SIZE).sim
    installed = Phone.install(sim, [app])
    installed.app_data(app).update(getattr(apps, app).sample(random.Random(app), 5))
    before = installed.state()
    opened = installed.open_app(app)
    assert installed.state() == before
    lists = [w for w in opened.top.all_widgets() if w.role == "list"]
    for index in range(len(lists[0].items) if lists else 0):
        lists[0].select(index)
        installed.system_button("back")
        if installed.current != app:
            opened = installed.open_app(app)
        assert installed.state() == before, (app, index)
    installed.system_button("home")
    assert installed.state() == before
