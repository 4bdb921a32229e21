"""The desktop-like families of the sim taskset: enough seeded variants per split, variants that
differ, every oracle scoring 1.0, doing nothing and every declared wrong way scoring 0 on both
splits (through a real sim env server), and a chance level on every variant."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import cua_bench
from cua_bench.nodes import center, find_all
from cua_bench.sim import SimSession, form_values
from cua_bench.tasks import Task, load_task_module
from cua_bench_tasks_sim import FOLDER as SIM
from cua_bench_tasks_sim._desktop_common import Screen
from cua_core.actions import Drag, KeyPress, Point

FAMILIES = [
    "copy-paste",
    "rename-file",
    "delete-file",
    "edit-and-save",
    "create-file",
    "open-file",
    "close-window",
    "move-window",
    "find-line",
    "transfer-code",
    "undo-edit",
    "save-dialog",
]


@pytest.mark.parametrize("family", FAMILIES)
def test_family_has_seeded_train_and_test_variants_that_differ(family: str) -> None:
    module = load_task_module(SIM / family)
    assert module.splits() == ["test", "train"]
    test, train = module.variants("test"), module.variants("train")
    assert len(test) >= 100 and len(train) >= 100
    assert {t.difficulty for t in test} == {"easy", "medium", "hard"}
    for tasks in (test, train):
        assert len({json.dumps(t.metadata, sort_keys=True) for t in tasks}) == len(tasks)
        assert all(t.description and t.max_steps for t in tasks)
    seen = {json.dumps(t.metadata, sort_keys=True) for t in test}
    assert not seen & {json.dumps(t.metadata, sort_keys=True) for t in train}
    # Deterministic: loading again gives the same variants.
    again = load_task_module(SIM / family).variants("test")
    assert [t.to_dict() for t in again] == [t.to_dict() for t in test]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(("split", "count"), [("test", 20), ("train", 3)])
def test_oracle_solves_and_doing_nothing_and_every_wrong_way_fail(family: str, split: str, count: int) -> None:
    # check_task plays every declared wrong way too: one scoring above 0 is a problem it reports.
    assert cua_bench.check_task(SIM / family, backend="sim", split=split, variants=count) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_family_declares_wrong_ways_and_chance(family: str) -> None:
    module = load_task_module(SIM / family)
    for split in ("test", "train"):
        ways = module.wrong_ways(split)
        # At least one plausible wrong end state, and the oracle followed by one destructive step.
        assert len(ways) >= 2 and any(name.startswith("oracle_then_") for name in ways), sorted(ways)
        assert all(t.chance is not None and 0 <= t.chance < 1 for t in module.variants(split))


def test_copy_paste_is_scored_on_where_the_pasted_text_came_from() -> None:
    """The tester's and the red team's ways (the value typed, in pieces or backwards, then copied and
    pasted) leave every field and the clipboard as the oracle does; only the desktop's record of
    where the target's text came from tells them apart."""
    module = load_task_module(SIM / "copy-paste")
    ways = ["retype_copy_paste", "typed_in_pairs_with_backspace", "typed_backwards_with_left",
            "retyped_in_source_then_copy_paste"]  # fmt: skip
    oracle = module.function("solve_task", "test")
    assert oracle is not None

    async def play(task: Task, player: Callable[[Task, SimSession], Awaitable[None]]) -> tuple[Any, list[float]]:
        session = SimSession()
        await module.run("setup_task", task, session)
        await player(task, session)
        seen = ({w.title: form_values(w) for w in session.sim.windows()}, session.sim.clipboard)
        return seen, await module.run("evaluate_task", task, session)

    async def run() -> None:
        for task in module.variants("test")[:6]:
            right, reward = await play(task, oracle)
            assert reward == [1.0]
            for way in ways:
                assert await play(task, module.wrong_ways("test")[way]) == (right, [0.0]), (task.variant, way)

    asyncio.run(run())


# --- wrong ways score 0 --------------------------------------------------------------------


async def _retype_instead_of_paste(task: Task, session: SimSession) -> None:
    screen = Screen(session)
    target = await screen.front(await screen.window(task.metadata["target_title"]))
    await screen.click(await screen.find(target, "textbox", task.metadata["into"]))
    await screen.keys("ctrl", "a")
    await screen.type(task.metadata["source"][task.metadata["copy"]])


async def _delete_one_more(task: Task, session: SimSession) -> None:
    screen = Screen(session)
    browser = await screen.open_in_browser([])
    rows = find_all([await screen.find(browser, "list", "Files")], role="listitem", value="file")
    spare = next(r for r in rows if r["name"] not in task.metadata["delete"])
    await screen.click(spare)
    await screen.keys("delete")


async def _close_them_all(task: Task, session: SimSession) -> None:
    screen = Screen(session)
    while await session.windows():
        await screen.click(await screen.find(await screen.window(), "button", "Close"))


async def _undo_without_saving(task: Task, session: SimSession) -> None:
    for _ in range(5):
        await session.apply([KeyPress(("ctrl", "z"))])


async def _save_first(task: Task, session: SimSession) -> None:
    await session.apply([KeyPress(("ctrl", "s"))])


async def _move_the_zone_instead(task: Task, session: SimSession) -> None:
    screen = Screen(session)
    zone = await screen.front(await screen.window(task.metadata["zone"]))
    target = await screen.window(task.metadata["target"])
    grab = center(await screen.find(zone, "button", "Close"))
    grab = Point(grab.x - 30, grab.y)
    dx, dy = target["bounds"][0] - zone["bounds"][0] - 10, target["bounds"][1] - zone["bounds"][1] - 10
    await session.apply([Drag(grab, Point(min(1000, max(0, grab.x + dx)), min(1000, max(0, grab.y + dy))))])


# Wrong ways that fit only some variants (declared ones must fit every variant), played here directly.
WRONG = [
    ("copy-paste", "easy", _retype_instead_of_paste, False),
    ("delete-file", "medium", _delete_one_more, True),
    ("close-window", "hard", _close_them_all, False),
    ("undo-edit", "medium", _undo_without_saving, False),
    ("save-dialog", "hard", _save_first, True),
    ("move-window", "hard", _move_the_zone_instead, False),
]


@pytest.mark.parametrize(("family", "difficulty", "wrong", "then_oracle"), WRONG, ids=[w[0] for w in WRONG])
def test_doing_it_the_wrong_way_scores_0(
    family: str, difficulty: str, wrong: Callable[[Task, SimSession], Awaitable[None]], then_oracle: bool
) -> None:
    module = load_task_module(SIM / family)
    tasks = [t for t in module.variants("test") if t.difficulty == difficulty][:5]

    async def run() -> None:
        for task in tasks:
            session = SimSession()
            await module.run("setup_task", task, session)
            await wrong(task, session)
            if then_oracle:  # the oracle's way finishes the job, but the damage is done
                await module.run("solve_task", task, session)
            assert await module.run("evaluate_task", task, session) == [0.0], (family, task.variant)

    asyncio.run(run())
