"""thunderbird-new-folder: create a mail folder in Thunderbird's Local Folders, at the top or inside another.

Local Folders hold the Inbox (3 to 5 seeded messages) and 1 to 3 folders of their own. The task asks
for a new folder of a given name, either in Local Folders itself or inside one of the existing
folders. The oracle opens the context menu of the parent in the folder pane (found in the
accessibility tree), picks "New Subfolder…" (on Local Folders itself: "New Folder…"), types the
name and presses Enter, and waits for the folder to show in the pane.

Thunderbird makes a new folder as an empty mbox file, ``Local Folders/NAME`` (inside a folder:
``PARENT.sbd/NAME``, the ``.sbd`` folder made with it). The evaluator wants exactly that path to be an
empty plain file with one link, and nothing else under home changed but the files Thunderbird
rewrites by itself (``_thunderbird.incidental``, the new folder's ``.msf`` index among them): every
folder's mbox as setup wrote it, no other folder made.
Wrong ways: ``at_the_wrong_level`` (at the top when asked inside a folder, and inside the first
folder when asked at the top), ``misspelt_name`` and ``two_folders`` (the asked one and a stray).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import files_since_setup, loaders
from cua_bench_tasks_desktop._thunderbird import (
    FOLDER_NAMES,
    NO_TEXT_OF_ITS_OWN,
    folder_file,
    make_mail,
    new_folder,
    open_thunderbird,
    profile_changes,
    subjects,
)

NAME = "thunderbird-new-folder"
WAIVED = NO_TEXT_OF_ITS_OWN
NEW_NAMES = ("Taxes 2026", "Garden club", "Conference", "Old projects", "Team offsite", "Insurance", "Car",
             "Health", "Volunteering", "Tickets", "Recipes", "Bank", "School", "Moving house", "Photos")  # fmt: skip


def build(rng: random.Random) -> cb.Task:
    folders = rng.sample(FOLDER_NAMES, rng.randint(1, 3))
    names = subjects(rng, rng.randint(3, 5))
    inbox = [make_mail(rng, s, read=rng.random() < 0.5) for s in names]
    new = rng.choice(NEW_NAMES)
    parent = rng.choice(folders) if rng.random() < 0.5 else None
    where = f"inside the local folder '{parent}'" if parent else "directly in Local Folders (at the top level)"
    return cb.Task(
        description=f"In Thunderbird, create a new mail folder named '{new}' {where}.",
        metadata={"inbox": inbox, "folders": folders, "name": new, "parent": parent},
        max_steps=10,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_thunderbird(task, session, {"Inbox": meta["inbox"], **{f: [] for f in meta["folders"]}})


def made(meta: Meta, name: str | None = None, parent: str | None = "") -> str:
    """The mbox of the new folder, relative to home (``parent`` "": the asked one; None: the top)."""
    where = meta["parent"] if parent == "" else parent
    return folder_file(f"{where}/{name or meta['name']}" if where else name or meta["name"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    path = made(meta)
    state = after.get(path)
    ok = state is not None and state.kind == "file" and state.links == 1 and state.size == 0
    if not ok:
        task.explain(f"{path}: missing, or not an empty plain file with one link")
    expect = [path]
    if meta["parent"]:
        expect.append(folder_file(meta["parent"]) + ".sbd")
    found = profile_changes(before, after, expect)
    if meta["parent"]:  # in the .sbd folder: only the new folder (and its index)
        sbd = folder_file(meta["parent"]) + ".sbd"
        extra = [p for p in after if p.startswith(sbd + "/") and p not in (path, path + ".msf")]
        found += [f"{p} appeared" for p in extra]
    for problem in found[:5]:
        task.explain(f"besides what the task asks, {problem}")
    return [1.0 if ok and not found else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await new_folder(session, meta["parent"], meta["name"])


@cb.wrong_way
async def at_the_wrong_level(task: cb.Task, session: cb.Session) -> None:
    """At the top when asked inside a folder; inside the first folder when asked at the top."""
    meta = task.metadata
    await new_folder(session, None if meta["parent"] else meta["folders"][0], meta["name"])


@cb.wrong_way
async def misspelt_name(task: cb.Task, session: cb.Session) -> None:
    """The folder's name with its second letter left out."""
    meta = task.metadata
    await new_folder(session, meta["parent"], meta["name"][:1] + meta["name"][2:])


@cb.wrong_way
async def two_folders(task: cb.Task, session: cb.Session) -> None:
    """The asked folder, and a stray one beside it."""
    meta = task.metadata
    await new_folder(session, meta["parent"], meta["name"])
    await new_folder(session, meta["parent"], meta["name"] + " 2")
