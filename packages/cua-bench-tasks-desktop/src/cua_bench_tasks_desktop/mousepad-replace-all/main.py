"""mousepad-replace-all: replace every occurrence of a word in a file open in Mousepad, then save.

The oracle uses Search > Find and Replace (ctrl+r) with "Replace all in document"; the dialog has no
mnemonics, so it clicks the checkbox and the button where the accessibility tree shows them, and
waits for the box to read checked (a click at a fixed place in the dialog once landed before the
dialog had settled, on a busy machine, and only the first occurrence was replaced).

The evaluator checks the file's whole text (every occurrence replaced, nothing else changed) and
that no other file under home changed.
Wrong ways: ``replaces_only_the_first`` (the first occurrence retyped, the others left) and
``oracle_then_deletes_the_first_line``.
"""

from __future__ import annotations

import re
from typing import Any

import cua_bench as cb
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    act,
    caret_to,
    edit_and_save,
    key,
    loaders,
    no_window,
    open_in_mousepad,
    press,
    replace_word_task,
    replaced,
    save_and_wait,
    saved_text_is,
    wait_for,
    window,
)
from cua_core import Click, TypeText

NAME = "mousepad-replace-all"
WAIVED = OUTPUT_IS_THE_WORK
load_train, load_test = loaders(NAME, lambda rng: replace_word_task(rng, "Mousepad"))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_mousepad(task, session, meta["text"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await saved_text_is(task, session, replaced(task.metadata))


async def _replace_all_button(session: cb.Session, meta: dict[str, str]) -> dict[str, Any]:
    """ "Replace All" once the dialog takes it (sensitive: the search field holds text). Keys typed
    while the dialog was still taking the focus can go nowhere on a busy machine (CI once waited 60 s
    for a button that stayed grey); a person would see the empty field and type again, and so does this."""
    for _attempt in range(3):
        try:
            return await wait_for(
                lambda: _node(session, "push button", "Replace All", "sensitive"), "Replace All", timeout=10
            )
        except cb.TaskError:
            field = await wait_for(lambda: _search_field(session), "the search field")
            await act(session, Click(center(field)), key("ctrl+a"), TypeText(meta["old"]))
            await act(session, key("tab"), key("ctrl+a"), TypeText(meta["new"]))
    return await wait_for(lambda: _node(session, "push button", "Replace All", "sensitive"), "Replace All")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await press(session, "ctrl+r")
    await window(session, "Find and Replace")
    await act(session, TypeText(meta["old"]), key("tab"), TypeText(meta["new"]))
    # "Replace all in: Document" ticked (clicked again if a click went nowhere), then "Replace All".
    for _attempt in range(3):
        box = await wait_for(lambda: _node(session, "check box", "Replace all in:"), "the Replace all box")
        if "checked" in box["states"]:
            break
        await act(session, Click(center(box)))
        try:
            await wait_for(lambda: _node(session, "check box", "Replace all in:", "checked"), "a tick", timeout=3)
            break
        except cb.TaskError:
            continue
    button = await _replace_all_button(session, meta)
    await act(session, Click(center(button)))
    await window(session, lambda title: title.startswith("*") and title.endswith(" - Mousepad"))
    await press(session, "escape")
    await no_window(session, "Find and Replace")
    await save_and_wait(session, meta["path"], "Mousepad")


@cb.wrong_way
async def replaces_only_the_first(task: cb.Task, session: cb.Session) -> None:
    """The first occurrence selected and retyped; the others are left."""
    meta = task.metadata
    index = _first_word(meta["text"], meta["old"])
    await edit_and_save(
        session, meta["path"], *caret_to(meta["text"], index, select=len(meta["old"])), TypeText(meta["new"])
    )


async def _node(session: cb.Session, role: str, name: str, state: str | None = None) -> dict[str, Any] | None:
    """The dialog's widget of that role and name (with ``state``, when given), as the screen reader sees it."""
    for node in walk(await session.accessibility_tree()):
        if node.get("role") == role and node.get("name") == name and (state is None or state in node["states"]):
            return node
    return None


async def _search_field(session: cb.Session) -> dict[str, Any] | None:
    """The dialog's "Search for:" entry: its first editable text (the tree lists the front window, the
    dialog, first; the entries have no names of their own, only labels beside them)."""
    return next(
        (n for n in walk(await session.accessibility_tree()) if n.get("role") == "text" and "editable" in n["states"]),
        None,
    )


def _first_word(text: str, word: str) -> int:
    return next(m.start() for m in re.finditer(rf"\b{re.escape(word)}\b", text))


@cb.wrong_way
async def oracle_then_deletes_the_first_line(task: cb.Task, session: cb.Session) -> None:
    """Every occurrence replaced, then the first line deleted."""
    await solve(task, session)
    await edit_and_save(session, task.metadata["path"], key("ctrl+home"), key("shift+down"), key("delete"))
