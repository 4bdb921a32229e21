"""Sim tasks that name a method or a window score it from the desktop's own records, and see every
file: cases no declared wrong way can play (they fit only some variants, or need a change no app on
the sim desktop makes), each scored against the oracle's 1.0 on the same variant."""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Awaitable, Callable

from cua_bench.nodes import center
from cua_bench.sim import SimDesktop, SimSession
from cua_bench.tasks import Task, load_task_module
from cua_bench_tasks_sim import FOLDER as SIM
from cua_bench_tasks_sim._desktop_common import Screen, holders, snapshot_files
from cua_core.actions import Click, KeyPress

Play = Callable[[Task, SimSession], Awaitable[None]]


def scores(family: str, difficulty: str, play: Play, count: int = 4) -> list[tuple[float, float]]:
    """(the oracle's reward, ``play``'s reward) on the first ``count`` test variants of ``difficulty``."""
    module = load_task_module(SIM / family)
    oracle = module.function("solve_task", "test")
    assert oracle is not None

    async def reward(task: Task, player: Play) -> float:
        session = SimSession()
        await module.run("setup_task", task, session)
        await player(task, session)
        return float((await module.run("evaluate_task", task, session))[0])

    tasks = [t for t in module.variants("test") if t.difficulty == difficulty][:count]
    return [(asyncio.run(reward(t, oracle)), asyncio.run(reward(t, play))) for t in tasks]


def test_the_file_snapshot_sees_dot_named_paths_at_every_depth() -> None:
    sim = SimDesktop()
    sim.fs.write("/home/user/.config/app/.state/.secret", "kept")
    sim.fs.write("/home/user/Documents/.hidden.txt", "kept")
    sim.fs.mkdir("/tmp/.cache")
    seen = snapshot_files(sim)
    assert {"/home/user/.config/", "/home/user/.config/app/.state/", "/tmp/.cache/"} <= set(seen)
    assert holders(seen, "kept") == ["/home/user/.config/app/.state/.secret", "/home/user/Documents/.hidden.txt"]


async def _delete_behind_the_browsers_back(task: Task, session: SimSession) -> None:
    for name in task.metadata["delete"]:
        session.sim.fs.delete(f"/home/user/Documents/{name}")


def test_delete_file_needs_the_file_browsers_delete() -> None:
    """The instruction says "in the file browser": files gone with no record of a browser deleting them score 0."""
    assert scores("delete-file", "medium", _delete_behind_the_browsers_back) == [(1.0, 0.0)] * 4


async def _rename_behind_the_browsers_back(task: Task, session: SimSession) -> None:
    meta = task.metadata
    session.sim.fs.rename(f"{meta['folder']}/{meta['old']}", meta["new"])


def test_rename_file_needs_the_file_browsers_rename() -> None:
    assert scores("rename-file", "easy", _rename_behind_the_browsers_back) == [(1.0, 0.0)] * 4


async def _typed_elsewhere_and_pasted(task: Task, session: SimSession) -> None:
    """The text typed into the hard variants' other editor, copied, pasted into the Untitled window
    and saved from there with Save As: the right window and method, but the text was not typed in it."""
    screen = Screen(session)
    other = await screen.window(f"{posixpath.basename(task.metadata['other'])} - Editor")
    await screen.front(other)
    await screen.click(await screen.find(other, "textbox", "Editor"))
    await screen.keys("ctrl", "a")
    await screen.type(task.metadata["text"])
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "c")
    untitled = await screen.front(await screen.window("Untitled - Editor"))
    await screen.click(await screen.find(untitled, "textbox", "Editor"))
    await screen.keys("ctrl", "v")
    await screen.save_as(task.metadata["path"])


def test_create_file_needs_the_text_typed_into_the_untitled_window() -> None:
    assert scores("create-file", "hard", _typed_elsewhere_and_pasted) == [(1.0, 0.0)] * 4


async def _answer_from_the_keyboard(task: Task, session: SimSession) -> None:
    """Tab to the asked-for button of the dialog and press Space: answered, but not clicked."""
    for _ in range(len(task.metadata["buttons"]) + 1):
        dialog = await session.find(role="dialog", name=task.metadata["title"])
        button = next(n for n in dialog["children"] if n["role"] == "button" and n["name"] == task.metadata["answer"])
        if "focused" in button["states"]:
            break
        await session.apply([KeyPress(("tab",))])
    await session.apply([KeyPress(("space",))])


async def _answer_by_clicking(task: Task, session: SimSession) -> None:
    dialog = await session.find(role="dialog", name=task.metadata["title"])
    button = next(n for n in dialog["children"] if n["role"] == "button" and n["name"] == task.metadata["answer"])
    await session.apply([Click(center(button))])


def test_dialog_answer_says_click_only_in_its_easy_variants() -> None:
    assert scores("dialog-answer", "easy", _answer_from_the_keyboard) == [(1.0, 0.0)] * 4
    # Medium variants ask to answer, not to click: the keyboard's answer counts there.
    assert scores("dialog-answer", "medium", _answer_from_the_keyboard) == [(1.0, 1.0)] * 4
    assert scores("dialog-answer", "easy", _answer_by_clicking) == [(1.0, 1.0)] * 4


def test_setup_leaves_no_records_of_its_own() -> None:
    """undo-edit's setup edits and saves through the editor: none of that may count as the agent's save."""
    module = load_task_module(SIM / "undo-edit")
    session = SimSession()
    asyncio.run(module.run("setup_task", module.variants("test")[0], session))
    assert not (session.sim.provenance.files or session.sim.provenance.keys or session.sim.provenance.clicks)
