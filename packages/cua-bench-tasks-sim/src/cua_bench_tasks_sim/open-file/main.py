"""open-file: open the named file from the file browser so that it shows in the editor.

Easy: a few files in the open folder. Medium: look-alike names and an editor already showing
another file. Hard: the file is in a subfolder of Documents in a long list (browser at home), and
a file of the same name sits in Documents itself.

The evaluator checks that exactly the target (besides an editor open from the start) is open in
an editor, showing its text, that a file browser opened it (the desktop's records), and, against
what setup kept, that nothing else changed: the file system, and the text of an editor open from
the start, saved or not. Chance: 1/n, opening one of the n files
in the target's folder.

Wrong ways: ``open_a_neighbour`` (another file of the folder, a look-alike name in most variants),
``oracle_then_open_another`` and ``oracle_then_delete_a_file``.
"""

from __future__ import annotations

import posixpath
import random
from typing import Any

import cua_bench as cb
from cua_bench.nodes import find_all
from cua_bench.sim import EditorApp
from cua_bench.sim.provenance import FILE_BROWSER, OPEN
from cua_bench_tasks_sim._desktop_common import (
    DOCS,
    HOME,
    Screen,
    arrange,
    desktop,
    editor_paths,
    file_changes,
    file_name,
    folder_files,
    fresh,
    keep,
    kept,
    loaders,
    other_windows_changed,
    seed_files,
    snapshot_files,
)
from cua_core import Point

FAMILY = "open-file"
SUBFOLDERS = ("projects", "letters", "receipts", "school", "taxes", "travel", "work")
COUNTS = {"easy": 4, "medium": 10, "hard": 16}


def build(rng: random.Random, difficulty: str) -> cb.Task:
    folder = f"{DOCS}/{rng.choice(SUBFOLDERS)}" if difficulty == "hard" else DOCS
    name = file_name(rng)
    contents = folder_files(rng, folder, COUNTS[difficulty] - 1, None if difficulty == "easy" else name, [name])
    target = f"{folder}/{name}"
    contents[target] = f"{name}\nthis is the file to open ({rng.randint(100, 999)})\n"
    if difficulty == "hard":
        contents[f"{DOCS}/{name}"] = f"{name}\nnot this one\n"
    distractor = next(p for p in contents if p != target) if difficulty == "medium" else None
    start = HOME if difficulty == "hard" else DOCS
    description = f"Open the file {target} from the file browser so that it shows in the editor. Change nothing else."
    metadata = {"files": contents, "target": target, "start": start, "distractor": distractor,
                "seed": rng.randrange(2**32)}  # fmt: skip
    in_folder = sum(1 for path in contents if posixpath.dirname(path) == folder)
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=10,
                   chance=1 / in_folder)  # fmt: skip


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    seed_files(sim, meta["files"])
    opened = []
    if meta["distractor"]:
        opened.append(await session.launch("editor", path=meta["distractor"], width=480, height=360))
    opened.append(await session.launch("files", folder=meta["start"]))
    arrange(random.Random(meta["seed"]), sim, [sim.get_window(i) for i in opened])
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sim = desktop(session)
    expected = sorted(p for p in (meta["target"], meta["distractor"]) if p)
    shown = [w.data["app"].text for w in sim.windows() if isinstance(w.data.get("app"), EditorApp)
             and w.data["app"].path == meta["target"]]  # fmt: skip
    before, now = kept(task, "files"), snapshot_files(sim)
    right = sorted(p or "" for p in editor_paths(sim)) == expected and shown == [before[meta["target"]]]
    opened = any(r.op == OPEN and r.via == FILE_BROWSER and r.path == meta["target"] for r in sim.provenance.files)
    untouched = not file_changes(before, now) and not other_windows_changed(task, sim, allow=())
    return [1.0 if right and opened and untouched else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _open(Screen(session), task.metadata, posixpath.basename(task.metadata["target"]))


async def _in_folder(screen: Screen, meta: dict[str, Any]) -> dict[str, Any]:
    """The browser, showing the target's folder (opened from where it starts, unless it shows it already)."""
    folder = posixpath.dirname(meta["target"])
    browser = await screen.front(await screen.window(app="files"))
    if find_all([browser], role="label", name=folder):
        return browser
    route = posixpath.relpath(folder, meta["start"])
    return await screen.open_in_browser([] if route == "." else route.split("/"))


async def _open(screen: Screen, meta: dict[str, Any], name: str) -> None:
    browser = await _in_folder(screen, meta)
    await screen.click(await screen.list_item(browser, "Files", name), clicks=2)


async def _a_neighbour(screen: Screen, meta: dict[str, Any]) -> str:
    browser = await _in_folder(screen, meta)
    rows = find_all([await screen.find(browser, "list", "Files")], role="listitem", value="file")
    return next(r["name"] for r in rows if r["name"] != posixpath.basename(meta["target"]))


@cb.wrong_way
async def open_a_neighbour(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _open(screen, task.metadata, await _a_neighbour(screen, task.metadata))


async def _oracle_then_uncover(task: cb.Task, session: cb.Session) -> Screen:
    """The oracle, then its editor dragged down by the title bar (it may cover the browser)."""
    await solve(task, session)
    screen = Screen(session)
    editor = await screen.window(f"{posixpath.basename(task.metadata['target'])} - Editor")
    close = await screen.find(editor, "button", "Close")
    grab = Point((editor["bounds"][0] + close["bounds"][0]) / 2, (close["bounds"][1] + close["bounds"][3]) / 2)
    await screen.drag(grab, Point(grab.x, 985))
    return screen


@cb.wrong_way
async def oracle_then_open_another(task: cb.Task, session: cb.Session) -> None:
    screen = await _oracle_then_uncover(task, session)
    await _open(screen, task.metadata, await _a_neighbour(screen, task.metadata))


@cb.wrong_way
async def oracle_then_delete_a_file(task: cb.Task, session: cb.Session) -> None:
    screen = await _oracle_then_uncover(task, session)
    name = await _a_neighbour(screen, task.metadata)
    await screen.delete_in_browser(name)
