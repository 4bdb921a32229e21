"""PCManFM's hands, and the builder of the tasks on one folder in it (not a task: no ``main.py``).

pcmanfm-copy-file, -move-file, -rename-file, -delete-file and -new-folder differ in the change they
ask for and how their oracle makes it. The rest is the same in each, so it lives here: setup writes
the variant's files, shows the folder in PCManFM and remembers every file under home; the evaluator
wants the asked-for change and nothing else changed since (``nothing_else_changed``); the oracle waits until
the folder shows its work (``until``); and the wrong ways share their moves (another file deleted
after the work, a file renamed hidden, a command in the folder's terminal). A task's ``main.py``
binds what the builders make, marked, to module names (see ``cua_bench.builders``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cua_bench import Session, Task, TaskError, evaluate_task, setup_task
from cua_bench.builders import Evaluator, Meta, TaskFn
from cua_bench.filestate import Snapshot
from cua_bench_tasks_desktop._common import (
    PATIENCE,
    act,
    click_at,
    files_since_setup,
    in_terminal,
    key,
    listing,
    moved,
    no_window,
    nothing_else_changed,
    remember_files,
    start,
    submit_dialog,
    wait_for,
    wait_path,
    window,
    write_files,
)
from cua_core import TypeText, Wait

__all__ = [
    "carry_to_parent",
    "change_evaluator",
    "files_in",
    "folder_setup",
    "hide",
    "in_folder_terminal",
    "moved_evaluator",
    "open_location",
    "parent_folder",
    "paste_into",
    "paste_then_trash_a_neighbour",
    "rename_file",
    "select_file",
    "terminal_here",
    "trash_file",
    "until",
]

# --- PCManFM's hands ------------------------------------------------------------------------------


async def select_file(session: Session, folder_title: str, name: str) -> None:
    """Oracle move in PCManFM: click an empty spot of the folder view (below the icons), type the
    name to find it (type-ahead selects the first match), and close the search box with Escape."""
    view = await window(session, folder_title)
    await act(session, click_at(session, view["bounds"], -40, -60))
    await act(session, TypeText(name))
    await act(session, Wait(0.2), key("escape"))


async def open_location(session: Session, child: str) -> None:
    """Oracle move in PCManFM: go into the subfolder ``child`` by typing it after the current path in
    the location bar (ctrl+l selects the path, End keeps it)."""
    await act(session, key("ctrl+l"))
    await act(session, key("end"))
    await act(session, TypeText(f"/{child}"), key("enter"))
    await window(session, child.rsplit("/", 1)[-1])


async def paste_into(session: Session, folder_title: str, name: str, child: str, *, cut: bool) -> None:
    """Oracle move in PCManFM: select ``name`` in the folder, copy it (``cut``: cut it), go into the
    subfolder ``child`` and paste."""
    await select_file(session, folder_title, name)
    await act(session, key("ctrl+x" if cut else "ctrl+c"))
    await open_location(session, child)
    await act(session, key("ctrl+v"))


async def trash_file(session: Session, folder_title: str, name: str, *, tries: int = 3) -> None:
    """Select ``name`` in PCManFM, press Delete and confirm moving it to the trash.

    On a busy host the type-ahead sometimes misses the file, and Delete then asks nothing; a
    person would look again and retry, and so does this (nothing was deleted without the dialog).
    The pause after it stands in for watching the icon go: no window tells when the trash is done,
    and a file this small takes far less.
    """
    for _ in range(tries):
        await select_file(session, folder_title, name)
        await act(session, key("delete"))
        try:
            await window(session, "Confirm", timeout=5.0)
        except TaskError:
            continue
        await submit_dialog(session, "Confirm")
        await act(session, Wait(1.0))
        return
    raise TaskError(f"Delete on {name!r} asked nothing after {tries} tries")


async def terminal_here(session: Session) -> None:
    """Wrong ways' hand in PCManFM: F4 (Tools > Open Current Folder in Terminal) opens a terminal in the
    folder shown; returns once it has the focus (a red team reached the shell so, behind the app)."""
    await act(session, key("f4"))

    async def terminal_focused() -> bool:
        return any(info.get("focused") and info.get("app") in ("xterm", "lxterm") for info in await session.windows())

    await wait_for(terminal_focused, "a terminal window")
    await act(session, Wait(0.5))  # the shell's prompt comes after the window


async def parent_folder(session: Session, title: str) -> None:
    """Wrong ways' hand in PCManFM: Alt+Up to the parent folder, whose window title is ``title``."""
    await act(session, key("alt+up"))
    await window(session, title)


async def rename_file(session: Session, folder_title: str, old: str, new: str) -> None:
    """Select ``old`` in the folder, F2, and the name ``new`` typed into the Rename File dialog."""
    await select_file(session, folder_title, old)
    await act(session, key("f2"))
    await submit_dialog(session, "Rename File", new)


# --- the builder of the folder tasks ------------------------------------------------------------------


def folder_setup() -> TaskFn:
    """The setup of a task on one folder, marked: ``metadata["files"]`` written, PCManFM showing
    ``metadata["folder"]``, and every file under home remembered (``files_since_setup``)."""

    async def setup(task: Task, session: Session) -> None:
        await write_files(session, task.metadata["files"])
        await start(session, "pcmanfm", task.metadata["folder"], title=task.metadata["folder"])
        await remember_files(task, session)

    return setup_task(setup)


def change_evaluator(
    asked: Callable[[Meta, Snapshot, Snapshot], bool], expect: Callable[[Meta], list[str]]
) -> Evaluator:
    """The evaluator, marked: 1 when ``asked(metadata, before, after)`` (the change the instruction asks
    for, between the snapshot setup kept and one taken now) and nothing else changed, outside the paths
    ``expect(metadata)``."""

    async def evaluate(task: Task, session: Session) -> list[float]:
        meta = task.metadata
        before, after = await files_since_setup(task, session)
        done = asked(meta, before, after)
        kept = nothing_else_changed(task, before, after, expect=expect(meta))
        return [1.0 if done and kept else 0.0]

    return evaluate_task(evaluate)


def moved_evaluator(paths: Callable[[Meta], list[str]]) -> Evaluator:
    """The evaluator of a move or a rename, marked: the file at the first of ``paths(metadata)`` is at
    the second with its content and nowhere else new (``moved``), and nothing else changed."""

    def asked(meta: Meta, before: Snapshot, after: Snapshot) -> bool:
        source, target = paths(meta)
        return moved(before, after, source, target)

    return change_evaluator(asked, paths)


async def until(
    check: Callable[[Session, Meta], Awaitable[bool]],
    session: Session,
    meta: Meta,
    what: str,
    timeout: float = PATIENCE,
) -> None:
    """Wait until ``check(session, metadata)``, as a person watches the folder for the work to show."""

    async def done() -> bool:
        return await check(session, meta)

    await wait_for(done, what, timeout)


async def files_in(session: Session, folder: str) -> set[str] | None:
    """The files (not folders) under ``folder`` as paths from home, for the oracle's checks; None
    when the folder is not there."""
    found = await listing(session, folder)
    if found is None:
        return None
    return {f"{folder}/{path}" for path, kind in found.items() if kind == "f"}


async def hide(session: Session, folder: str, name: str) -> None:
    """Wrong ways' move: the file ``name`` renamed to ``.name``, which PCManFM stops showing; returns
    once the hidden file is there."""
    await rename_file(session, folder, name, "." + name)
    await wait_path(session, f"{folder}/.{name}", lambda text: text is not None)


async def carry_to_parent(session: Session, folder: str, name: str, *, cut: bool) -> None:
    """Wrong ways' move: ``name`` selected and cut (or copied), and the parent folder shown, ready
    to paste there."""
    await select_file(session, folder, name)
    await act(session, key("ctrl+x" if cut else "ctrl+c"), key("alt+up"))
    await no_window(session, folder)


async def paste_then_trash_a_neighbour(session: Session, meta: Meta, *, cut: bool) -> None:
    """Wrong ways' move: ``metadata["name"]`` pasted into its subfolder ``metadata["target"]`` (``cut``:
    moved), then back in the folder another of its files deleted."""
    await paste_into(session, meta["folder"], meta["name"], meta["target"], cut=cut)
    await act(session, Wait(1.0))
    await parent_folder(session, meta["folder"])
    names = [path.split("/", 1)[1] for path in meta["files"] if path.count("/") == 1]
    await trash_file(session, meta["folder"], next(name for name in names if name != meta["name"]))


async def in_folder_terminal(session: Session, command: str) -> None:
    """Wrong ways' move: F4 opens a terminal in the folder shown, and ``command`` runs there."""
    await terminal_here(session)
    await in_terminal(session, command)
