"""gedit-replace-all: replace every occurrence of a word in a file open in gedit, then save.

The oracle opens Find and Replace (ctrl+h), types the word into Find (alt+f) and the new word into
Replace with (alt+w), checks both fields read so in the accessibility tree, clicks "Replace All" (found
in the tree), closes the dialog and saves with ctrl+s, waiting for gedit's title to lose its ``*``.

The evaluator checks the file's whole text (every occurrence replaced, nothing else changed), that it
is the same plain file (one link), and that no other file under home changed.
Wrong ways: ``replaces_only_the_first`` ("Replace" once instead of "Replace All") and
``oracle_then_deletes_the_last_line``.
"""

from __future__ import annotations

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench.nodes import walk
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    act,
    key,
    loaders,
    no_window,
    replace_word_task,
    replaced,
    saved_text_is,
    wait_for,
    window,
)
from cua_bench_tasks_desktop._gedit import click_node, open_in_gedit, save
from cua_core import TypeText

NAME = "gedit-replace-all"
WAIVED = OUTPUT_IS_THE_WORK
load_train, load_test = loaders(NAME, lambda rng: replace_word_task(rng, "gedit"))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_gedit(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await saved_text_is(task, session, replaced(task.metadata))


async def _fields(session: cb.Session) -> list[str | None]:
    """The values of the Find and Replace dialog's editable one-line fields (Replace with, then Find)."""
    dialogs = [window for window in await session.accessibility_tree() if window.get("name") == "Find and Replace"]
    return [n.get("value") for n in walk(dialogs[:1]) if n.get("role") == "text" and "editable" in n.get("states", [])]


async def _fill_dialog(session: cb.Session, meta: Meta) -> None:
    """Find and Replace open, the word in Find and the new word in Replace with (alt+w, its label's
    mnemonic), typed again while the fields do not read so (keys typed while the dialog was still
    taking the focus can go nowhere)."""
    await act(session, key("ctrl+h"))
    await window(session, "Find and Replace")
    for _attempt in range(4):
        await act(session, key("alt+f"), key("ctrl+a"), TypeText(meta["old"]))
        await act(session, key("alt+w"), key("ctrl+a"), TypeText(meta["new"]))
        try:
            await wait_for(lambda: _filled(session, meta), "the Find and Replace fields", timeout=10)
            return
        except cb.TaskError:
            continue
    # Going on would wait a minute for a "Replace All" that an empty Find leaves insensitive: say what the fields read.
    raise cb.TaskError(f"the Find and Replace fields read {await _fields(session)}, not {[meta['new'], meta['old']]}")


async def _filled(session: cb.Session, meta: Meta) -> bool:
    return await _fields(session) == [meta["new"], meta["old"]]


async def _close_and_save(session: cb.Session, meta: Meta) -> None:
    await window(session, lambda title: title.startswith("*"))
    await click_node(session, "push button", "Close")
    await no_window(session, "Find and Replace")
    await save(session, meta["path"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _fill_dialog(session, meta)
    await click_node(session, "push button", "Replace All", "sensitive")
    await _close_and_save(session, meta)


@cb.wrong_way
async def replaces_only_the_first(task: cb.Task, session: cb.Session) -> None:
    """ "Replace" (find, then replace the found one) instead of "Replace All": one occurrence replaced."""
    meta = task.metadata
    await _fill_dialog(session, meta)
    await click_node(session, "push button", "Find", "sensitive")
    await click_node(session, "push button", "Replace", "sensitive")
    await _close_and_save(session, meta)


@cb.wrong_way
async def oracle_then_deletes_the_last_line(task: cb.Task, session: cb.Session) -> None:
    """Every occurrence replaced, then the last line deleted and saved again."""
    await solve(task, session)
    await act(session, key("ctrl+end"), key("shift+up"), key("shift+end"), key("delete"))
    await save(session, task.metadata["path"])
