"""What the desktop-like sim families share: seeded variants, setup helpers and the oracle's moves.

Not a task folder (no ``main.py``): the families import it as
``from cua_bench_tasks_sim._desktop_common import ...``.

Setup and evaluation reach the desktop through ``session.sim`` (``desktop``). The oracle helpers
(``Screen`` and friends) use only what an agent has: the accessibility tree, the window list and
unified actions, so every oracle move is one an agent reading the screen could make. Where an
instruction names a method or a window, evaluators hold it to the desktop's own records
(``sim.provenance``, through ``text_origins`` and ``written_by``), never to the keys in the action log.
"""

from __future__ import annotations

import copy
import random
import string
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from cua_bench import Task, TaskError, tasks_config
from cua_bench.nodes import center, find_all, walk
from cua_bench.sim import (
    EditorApp,
    FileRecord,
    Origin,
    Rect,
    SimDesktop,
    TextArea,
    TextField,
    Widget,
    Window,
    input_widgets,
)
from cua_bench.sim.provenance import SAVE
from cua_core import Action, Click, Drag, KeyPress, Point, Scroll, TypeText

__all__ = [
    "DOCS",
    "HOME",
    "NOUNS",
    "Screen",
    "arrange",
    "desktop",
    "editor_paths",
    "editors_show_saved",
    "file_changes",
    "file_name",
    "files",
    "folder_files",
    "fresh",
    "holders",
    "keep",
    "kept",
    "line",
    "loaders",
    "lookalike",
    "other_windows_changed",
    "paragraph",
    "pick_names",
    "seed_files",
    "snapshot_files",
    "snapshot_inputs",
    "snapshot_windows",
    "text_origins",
    "token",
    "variants",
    "window",
    "window_changes",
    "written_by",
]

TRAIN_VARIANTS = 200
TEST_VARIANTS = 100
DIFFICULTIES = ("easy", "medium", "hard")
Loader = Callable[[], list[Task]]
HOME = "/home/user"
DOCS = "/home/user/Documents"

WORDS = (
    "budget", "report", "notes", "invoice", "summary", "draft", "agenda", "minutes", "plan", "roadmap", "letter",
    "receipt", "schedule", "contacts", "recipes", "travel", "expenses", "inventory", "proposal", "review", "backlog",
    "ideas", "todo", "journal", "checklist", "outline", "memo", "results", "survey", "quotes", "payroll", "forecast",
    "meeting", "release", "changelog", "contract", "offer", "ledger", "timesheet"
)  # fmt: skip
EXTENSIONS = (".txt", ".md", ".csv", ".log", ".ini", ".json")
NOUNS = (
    "server", "client", "invoice", "meeting", "garden", "rocket", "kitten", "harbor", "window", "engine", "ticket",
    "folder", "budget", "pepper", "lantern", "violin", "marble", "castle", "river", "planet", "bridge", "camera",
    "orchard", "falcon", "compass"
)  # fmt: skip
VERBS = (
    "checks", "moves", "keeps", "finds", "sends", "builds", "opens", "reads", "holds", "writes", "paints", "turns"
)  # fmt: skip
ADJECTIVES = (
    "quiet", "green", "rapid", "bright", "heavy", "early", "silver", "narrow", "golden", "polite", "frozen",
    "gentle"
)  # fmt: skip


# --- variants ----------------------------------------------------------------------------


def variants(family: str, split: str, build: Callable[[random.Random, str], Task]) -> list[Task]:
    """``build(rng, difficulty)`` for each variant of ``split`` (200 train, 100 test), seeded by name.

    Difficulties cycle easy, medium, hard; train and test use different seeds.
    """
    count = TRAIN_VARIANTS if split == "train" else TEST_VARIANTS
    tasks = []
    for index in range(count):
        difficulty = DIFFICULTIES[index % len(DIFFICULTIES)]
        task = build(random.Random(f"{family}/{split}/{index}"), difficulty)
        task.difficulty = difficulty
        tasks.append(task)
    return tasks


def loaders(family: str, build: Callable[[random.Random, str], Task]) -> tuple[Loader, Loader]:
    """The family's ``train`` and ``test`` loaders, marked ``@tasks_config`` for their split (marked
    here because the decorator with arguments is untyped, which strict mypy refuses in main.py)."""

    def load_train() -> list[Task]:
        return variants(family, "train", build)

    def load_test() -> list[Task]:
        return variants(family, "test", build)

    tasks_config(split="train")(load_train)
    tasks_config(split="test")(load_test)
    return load_train, load_test


def file_name(rng: random.Random, ext: str | None = None) -> str:
    word = rng.choice(WORDS)
    suffix = rng.choice(
        [str(rng.randint(2015, 2031)), f"v{rng.randint(1, 9)}", rng.choice(WORDS), str(rng.randint(1, 99))]
    )
    return f"{word}{rng.choice('_-')}{suffix}{ext or rng.choice(EXTENSIONS)}"


def lookalike(rng: random.Random, name: str) -> str:
    """A name easy to mistake for ``name``: another extension, a copy, a suffix, other case."""
    stem, _, ext = name.rpartition(".")
    options = [f"{stem}_old.{ext}", f"{stem}.{rng.choice([e for e in EXTENSIONS if e != '.' + ext])[1:]}",
               f"{stem} (copy).{ext}", f"{stem}{rng.randint(2, 9)}.{ext}", f"{stem.capitalize()}.{ext}",
               f"{name}.bak"]  # fmt: skip
    return rng.choice([option for option in options if option != name])


def folder_files(rng: random.Random, folder: str, count: int, similar_to: str | None = None,
                 taken: Sequence[str] = ()) -> dict[str, str]:  # fmt: skip
    """``count`` files with distinct names and contents in ``folder``; about half of them look like
    ``similar_to`` when it is given."""
    names: list[str] = []
    while len(names) < count:
        like = similar_to is not None and rng.random() < 0.5
        name = lookalike(rng, similar_to) if like and similar_to else file_name(rng)
        if name not in names and name not in taken and name != similar_to:
            names.append(name)
    return {f"{folder}/{name}": f"{name}\n{paragraph(rng, rng.randint(1, 4))}\n" for name in names}


def pick_names(rng: random.Random, count: int, make: Callable[[random.Random], str] = file_name) -> list[str]:
    """``count`` distinct names from ``make``."""
    names: list[str] = []
    while len(names) < count:
        name = make(rng)
        if name not in names:
            names.append(name)
    return names


def token(rng: random.Random, groups: int = 3, size: int = 4) -> str:
    """A code that is tedious to retype: ``K7QD-2M9X-41PZ``."""
    alphabet = string.ascii_uppercase + string.digits
    return "-".join("".join(rng.choice(alphabet) for _ in range(size)) for _ in range(groups))


def line(rng: random.Random) -> str:
    return (
        f"The {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {rng.choice(VERBS)} "
        f"the {rng.choice(NOUNS)} {rng.choice(['today', 'again', 'slowly', 'at noon', 'twice', 'for now'])}."
    )


def paragraph(rng: random.Random, lines: int) -> str:
    return "\n".join(line(rng) for _ in range(lines))


# --- setup and evaluation (session.sim) --------------------------------------------------


def desktop(session: Any) -> SimDesktop:
    """The sim desktop behind ``session`` (setup and evaluation only)."""
    sim = getattr(session, "sim", None)
    if not isinstance(sim, SimDesktop):
        raise TaskError("the desktop families run on the sim backend only (they need session.sim)")
    return sim


def fresh(session: Any) -> SimDesktop:
    """The desktop emptied: no windows, popup, held keys, clipboard or records; only the default folders."""
    sim = desktop(session)
    sim.close_popup()
    for open_window in sim.windows():
        sim.remove_window(open_window)
    sim.clipboard = ""
    sim.held.clear()
    sim.provenance.clear()
    fs = sim.fs
    for name in fs.listdir("/"):
        fs.delete(f"/{name}")
    for folder in (fs.home, f"{fs.home}/Documents", f"{fs.home}/Desktop", "/tmp"):
        fs.mkdir(folder)
    return sim


def seed_files(sim: SimDesktop, contents: dict[str, str]) -> None:
    for path, text in contents.items():
        sim.fs.write(path, text)


def files(sim: SimDesktop) -> dict[str, str]:
    """Every file's text, by path."""
    return {path: sim.fs.read_text(path) for path in sim.fs.walk()}


def snapshot_files(sim: SimDesktop) -> dict[str, str]:
    """Every file with its text and every folder (its path ending in ``/``, with ""), by path:
    dot-named ones at every depth too (a file renamed to ``.name`` is still there), all of ``/``.

    Kept at setup and taken again at evaluation, so an evaluator holds the whole file system to
    what the instruction asked to change: a deleted neighbour, an emptied file or a stray folder
    (which ``files`` does not see) all count.
    """
    found = {path: sim.fs.read_text(path) for path in sim.fs.walk()}
    pending = ["/"]
    while pending:
        folder = pending.pop()
        found[folder.rstrip("/") + "/"] = ""
        pending += [f"{folder.rstrip('/')}/{name}" for name in sim.fs.listdir(folder)
                    if sim.fs.is_dir(f"{folder.rstrip('/')}/{name}")]  # fmt: skip
    return found


def holders(snapshot: dict[str, str], content: str) -> list[str]:
    """The files of a ``snapshot_files`` that hold exactly ``content``, hidden ones included: a
    delete leaves none, a move leaves only the new path (renamed to ``.name`` is not deleted)."""
    return [path for path, text in snapshot.items() if not path.endswith("/") and text == content]


def file_changes(before: dict[str, str], after: dict[str, str], *, expect: Iterable[str] = ()) -> list[str]:
    """What changed between two ``snapshot_files``, leaving out the paths in ``expect``."""
    allowed = set(expect)
    changes = [f"{p} was removed" for p in sorted(set(before) - set(after)) if p not in allowed]
    changes += [f"{p} appeared" for p in sorted(set(after) - set(before)) if p not in allowed]
    changes += [f"{p} changed" for p in sorted(set(before) & set(after)) if before[p] != after[p] and p not in allowed]
    return changes


def snapshot_windows(sim: SimDesktop) -> dict[str, tuple[int, int, int, int]]:
    """Every open window's place, by id (ids, as titles change when an editor saves or a folder opens)."""
    return {w.id: (w.rect.x, w.rect.y, w.rect.width, w.rect.height) for w in sim.windows()}


def snapshot_inputs(sim: SimDesktop) -> dict[tuple[str, int], Any]:
    """Every input's value (``Widget.is_input``: texts, boxes, choices, sliders), by (window id, its
    place among the window's widgets)."""
    return {key: copy.deepcopy(widget.value) for key, widget in input_widgets(sim.windows()).items()}


def other_windows_changed(task: Task, sim: SimDesktop, *, allow: Iterable[str]) -> bool:
    """A window setup opened, not in ``allow`` (window ids), was closed, or one of its inputs holds
    another value than setup left in it (a text saved or not, a box, a choice): what the
    instructions' "leave the other windows as they are" forbids."""
    allowed, open_now = set(allow), {w.id for w in sim.windows()}
    if any(window not in open_now for window in kept(task, "windows") if window not in allowed):
        return True
    before, now = kept(task, "inputs"), snapshot_inputs(sim)
    return any(now.get(key) != value for key, value in before.items() if key[0] not in allowed)


def window_changes(before: dict[str, tuple[int, int, int, int]], after: dict[str, tuple[int, int, int, int]], *,
                   expect: Iterable[str] = (), moved: bool = True) -> list[str]:  # fmt: skip
    """Windows closed or opened since ``before`` (and moved, unless ``moved`` is allowed), but those in ``expect``."""
    allowed = set(expect)
    changes = [f"window {i} was closed" for i in before if i not in after and i not in allowed]
    changes += [f"window {i} was opened" for i in after if i not in before and i not in allowed]
    if not moved:
        changes += [f"window {i} moved" for i in before if i in after and before[i] != after[i] and i not in allowed]
    return changes


def keep(task: Task, sim: SimDesktop) -> None:
    """Keep the files and windows as setup left them, for the evaluator to compare the end state
    with, and start the desktop's records afresh (what setup did there is not the agent's doing)."""
    task.scratch["files"] = snapshot_files(sim)
    task.scratch["windows"] = snapshot_windows(sim)
    task.scratch["inputs"] = snapshot_inputs(sim)
    sim.provenance.clear()


def kept(task: Task, what: str) -> Any:
    """What ``keep`` kept at setup in this episode."""
    if what not in task.scratch:
        raise TaskError(f"{task.name}: nothing kept at setup ({what!r}); evaluate runs after this episode's setup")
    return task.scratch[what]


# --- the method, from what the desktop observed (sim.provenance) ----------------------------


def text_origins(widget: Widget) -> tuple[Origin, ...]:
    """Where each character of a text widget's text came from (typed, pasted from where, set)."""
    if not isinstance(widget, TextField | TextArea):
        raise TaskError(f"{widget!r} holds no editable text")
    return widget.origins()


def written_by(sim: SimDesktop, path: str, window_id: str, op: str = SAVE, via: str | None = None) -> FileRecord | None:
    """The record of what last put ``path`` where it is, if the window ``window_id`` did it with
    ``op`` (through ``via``, when given); None otherwise. A named window or method is held to this
    record, which the desktop wrote as the app acted."""
    record = sim.provenance.last_write(path)
    if record is None or record.window != window_id or record.op != op or via not in (None, record.via):
        return None
    return record


def window(sim: SimDesktop, title: str) -> Window | None:
    return next((w for w in sim.windows() if w.title == title), None)


def editor_paths(sim: SimDesktop) -> list[str | None]:
    """The file each open editor window shows (None for an untitled one)."""
    paths = []
    for open_window in sim.windows():
        app = open_window.data.get("app")
        if isinstance(app, EditorApp):
            paths.append(app.path)
    return paths


def editors_show_saved(sim: SimDesktop, path: str) -> bool:
    """Every open editor of ``path`` shows what the file holds: none was edited after its save (the
    window and the file would disagree, and closing it would ask whether to lose the edit)."""
    saved = sim.fs.read_text(path) if sim.fs.is_file(path) else None
    editors = [w.data["app"] for w in sim.windows() if isinstance(w.data.get("app"), EditorApp)]
    return all(app.text == saved for app in editors if app.path == sim.fs.normpath(path))


def arrange(rng: random.Random, sim: SimDesktop, windows: Sequence[Window], *, apart: bool = True) -> None:
    """Move ``windows`` to random places: side by side without overlap when they fit (``apart``),
    else stacked so that no window covers the title bar of one below it (a cascade, random steps)."""
    area = sim.work_area
    if apart:
        placed: list[Rect] = []
        for item in windows:
            w, h = item.rect.width, item.rect.height
            for _ in range(200):
                rect = Rect(rng.randint(0, max(0, area.width - w)), rng.randint(0, max(0, area.height - h)), w, h)
                grown = Rect(rect.x - 10, rect.y - 10, w + 20, h + 20)
                if all(grown.intersect(other) is None for other in placed):
                    placed.append(rect)
                    break
            else:
                break
        if len(placed) == len(windows):
            for item, rect in zip(windows, placed, strict=True):
                item.rect = rect
            return
    tallest = max(item.rect.height for item in windows)
    step = max(36, min(90, (area.height - tallest) // max(1, len(windows))))
    y = rng.randint(0, max(0, area.height - tallest - step * (len(windows) - 1)))
    for item in windows:
        w, h = item.rect.width, item.rect.height
        item.rect = Rect(rng.randint(0, max(0, area.width - w)), max(0, min(y, area.height - h)), w, h)
        y += rng.randint(36, step)


# --- the oracle: the screen as an agent sees it -------------------------------------------


class Screen:
    """An oracle's hands and eyes: it reads the accessibility tree and window list, and acts only
    through ``session.apply``."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def act(self, *actions: Action) -> None:
        errors = await self.session.apply(list(actions))
        refused = [error for error in errors if error]
        if refused:
            raise RuntimeError(f"the oracle's actions were refused: {refused}")

    async def click(self, node: dict[str, Any], clicks: int = 1) -> None:
        await self.act(Click(center(node), clicks=clicks))

    async def keys(self, *chord: str) -> None:
        await self.act(KeyPress(tuple(chord)))

    async def type(self, text: str, enter: bool = False) -> None:
        await self.act(TypeText(text, press_enter=enter))

    async def tree(self) -> list[dict[str, Any]]:
        return list(await self.session.accessibility_tree())

    async def window(self, title: str | None = None, *, app: str | None = None) -> dict[str, Any]:
        """The window (or dialog) node with this title, or the first window of ``app``."""
        ids = [w["id"] for w in await self.session.windows() if app is None or w["app"] == app]
        for node in await self.tree():
            if node["value"] in ids and (title is None or node["name"] == title):
                return node
        raise LookupError(f"no window titled {title!r} (app {app!r}) on screen")

    async def find(self, within: dict[str, Any], role: str, name: str | None = None) -> dict[str, Any]:
        """A node in window ``within`` (looked up again, as it may have moved)."""
        for node in await self.tree():
            if node["value"] == within["value"]:
                found = find_all([node], role=role, name=name)
                if found:
                    return found[0]
        raise LookupError(f"no {role} {name!r} in window {within['name']!r}")

    async def front(self, win: dict[str, Any]) -> dict[str, Any]:
        """Bring a window to the front by clicking an uncovered part of its title bar (or, failing
        that, an empty uncovered spot inside it); returns its node."""
        order = await self.session.windows()
        index = next(i for i, w in enumerate(order) if w["id"] == win["value"])
        if index > 0:
            covering = [w["bounds"] for w in order[:index]]
            await self.act(Click(self._uncovered(win, covering)))
        return await self._node(win["value"])

    async def _node(self, window_id: str) -> dict[str, Any]:
        for node in await self.tree():
            if node["value"] == window_id:
                return node
        raise LookupError(f"window {window_id} is gone")

    @staticmethod
    def _uncovered(win: dict[str, Any], covering: list[list[float]]) -> Point:
        def free(x: float, y: float) -> bool:
            return not any(left <= x < right and top <= y < bottom for left, top, right, bottom in covering)

        left, top, right, bottom = win["bounds"]
        close = find_all([win], role="button", name="Close")
        if close:
            bar_y = (close[0]["bounds"][1] + close[0]["bounds"][3]) / 2
            bar_right = close[0]["bounds"][0] - 2
            for step in range(40):
                x = left + 4 + (bar_right - left - 8) * step / 39
                if free(x, bar_y):
                    return Point(x, bar_y)
        widgets = [node["bounds"] for node in walk(win["children"])]
        for row in range(1, 30):
            for col in range(1, 30):
                x, y = left + (right - left) * col / 30, top + (bottom - top) * row / 30
                if free(x, y) and not any(a <= x < c and b <= y < d for a, b, c, d in widgets):
                    return Point(x, y)
        raise LookupError(f"window {win['name']!r} is completely covered")

    async def drag(self, start: Point, end: Point) -> None:
        await self.act(Drag(start, end))

    async def list_item(self, win: dict[str, Any], list_name: str, item: str) -> dict[str, Any]:
        """A row of a list, scrolled into view with the wheel (from the top, then down)."""
        box = await self.find(win, "list", list_name)
        await self.act(Scroll("up", 100, center(box)))
        for _ in range(100):
            box = await self.find(win, "list", list_name)
            rows = find_all([box], role="listitem", name=item)
            if rows:
                return rows[0]
            await self.act(Scroll("down", 1, center(box)))
        raise LookupError(f"no item {item!r} in list {list_name!r}")

    async def save_as(self, path: str) -> None:
        """Save the focused editor's text as ``path`` with the Save As dialog (ctrl+shift+s)."""
        await self.keys("ctrl", "shift", "s")
        dialog = await self.window("Save As")
        await self.click(await self.find(dialog, "textbox", "File name"))
        await self.keys("ctrl", "a")
        await self.type(path, enter=True)

    async def delete_in_browser(self, name: str) -> None:
        """Delete ``name`` from the folder the file browser shows (select it, press delete)."""
        browser = await self.open_in_browser([])
        await self.click(await self.list_item(browser, "Files", name))
        await self.keys("delete")

    async def open_in_browser(self, folder: Sequence[str]) -> dict[str, Any]:
        """The file browser window in front, opened down ``folder`` (names from where it is)."""
        win = await self.front(await self.window(app="files"))
        for name in folder:
            await self.click(await self.list_item(win, "Files", name), clicks=2)
        return await self._node(win["value"])
