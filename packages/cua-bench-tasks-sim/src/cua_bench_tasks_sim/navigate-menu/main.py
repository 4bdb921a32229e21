"""navigate-menu: choose an item by its menu path (Edit > Transform > Rotate 90°), submenus included.

The evaluator checks the whole end state: exactly one command run, the one on the path, and the
window still open with no other window opened. "From the menu bar" holds by construction: the
commands have no shortcuts, so only the menu bar (by pointer or its keys) runs them.

Wrong ways: ``chooses_a_neighbouring_command`` (the item next to it in the same menu) and
``oracle_then_chooses_another_command``. Chance is 1/k for the k commands in the menus.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.nodes import find
from cua_bench.sim import Label, Menu, MenuItem
from cua_bench_tasks_sim._widgets_common import (
    CascadeMenuBar,
    SubmenuItem,
    click,
    fresh_desktop,
    node_in,
    place,
    remember,
    same_windows,
    score,
    splits,
    window_by_title,
)

FAMILY = "navigate-menu"
APPS = ["Sketch", "PhotoLab", "Notes", "Slides", "Writer", "Mapper"]
ITEMS = {
    "File": ["New", "Open...", "Save", "Save As...", "Print...", "Close", "Export PDF", "Properties"],
    "Edit": ["Undo", "Redo", "Cut", "Copy", "Paste", "Select All", "Find...", "Replace..."],
    "View": ["Ruler", "Grid", "Full Screen", "Status Bar", "Sidebar", "Outline"],
    "Insert": ["Image...", "Table", "Link...", "Page Break", "Comment", "Date and Time"],
    "Format": ["Bold", "Italic", "Underline", "Clear Formatting", "Paragraph...", "Columns..."],
    "Tools": ["Spelling", "Word Count", "Macros...", "Options...", "Extensions", "Autocorrect"],
    "Help": ["Contents", "Shortcuts", "Check for Updates", "Report a Bug", "About"],
}
SUBMENUS = {
    "File": {"Recent": ["report.txt", "budget.csv", "notes.md", "plan.odt"], "Share": ["Email", "Link", "Cloud"]},
    "Edit": {"Transform": ["Rotate 90°", "Rotate 180°", "Flip Horizontal", "Flip Vertical"],
             "Paste Special": ["Unformatted Text", "Values Only", "Formats Only"]},
    "View": {"Zoom": ["Zoom In", "Zoom Out", "Actual Size", "Fit to Window"],
             "Toolbars": ["Standard", "Drawing", "Formatting"]},
    "Insert": {"Shape": ["Rectangle", "Ellipse", "Arrow", "Star"], "Symbol": ["Euro Sign", "Copyright", "Degree"]},
    "Format": {"Align": ["Left", "Center", "Right", "Justify"], "Spacing": ["Single", "Double", "1.5 Lines"]},
    "Tools": {"Language": ["English", "French", "German", "Spanish"], "Sort": ["Ascending", "Descending", "Shuffle"]},
    "Help": {"Tutorials": ["Getting Started", "Drawing Basics", "Advanced Tips"]},
}  # fmt: skip
SHAPE = {"easy": (3, 0), "medium": (4, 1), "hard": (6, 2)}  # menus, submenus per menu


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, subs = SHAPE[difficulty]
    titles = sorted(rng.sample(sorted(ITEMS), count), key=list(ITEMS).index)
    menus: list[list[Any]] = []
    for title in titles:
        entries: list[Any] = rng.sample(ITEMS[title], rng.randint(3, 5))
        for sub in rng.sample(sorted(SUBMENUS[title]), min(subs, len(SUBMENUS[title]))):
            entries.insert(rng.randint(0, len(entries)), [sub, rng.sample(SUBMENUS[title][sub], 3)])
        menus.append([title, entries])
    title, entries = rng.choice(menus)
    nested = [e for e in entries if isinstance(e, list)]
    if nested and (difficulty == "hard" or rng.random() < 0.5):
        sub, leaves = rng.choice(nested)
        path = [title, sub, rng.choice(leaves)]
    else:
        path = [title, rng.choice([e for e in entries if isinstance(e, str)])]
    app = rng.choice(APPS)
    commands = sum(1 if isinstance(e, str) else len(e[1]) for _, entries in menus for e in entries)
    return cb.Task(description=f"In {app}, choose {' > '.join(path)} from the menu bar.",
                   metadata={"app": app, "menus": menus, "path": path}, max_steps=6, chance=1 / commands)  # fmt: skip


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh_desktop(session)
    window = sim.open_window(f"Untitled - {task.metadata['app']}", width=560, height=360, app="menus")
    chosen: list[list[str]] = []
    window.data["chosen"] = chosen

    def item(title: str, entry: str | list[Any]) -> MenuItem:
        if isinstance(entry, str):
            return MenuItem(entry, lambda _: chosen.append([title, entry]))
        sub, leaves = entry
        return SubmenuItem(sub, [MenuItem(x, lambda _, p=[title, sub, x]: chosen.append(p)) for x in leaves])

    menus = [Menu(title, [item(title, entry) for entry in entries]) for title, entries in task.metadata["menus"]]
    window.add(CascadeMenuBar(menus))
    window.add(Label("Choose a command from the menus above."))
    place(sim, window, task.metadata["at"])
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    window = window_by_title(session, f"Untitled - {task.metadata['app']}")
    return score(window is not None and window.data.get("chosen") == [task.metadata["path"]]
                 and same_windows(task, session))  # fmt: skip


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _choose(session, task.metadata["path"])


async def _choose(session: cb.Session, path: list[str]) -> None:
    """Open the top menu, then click each label along the path inside that open menu."""
    top, *rest = path
    await click(session, await session.find(role="menu", name=top))
    for label in rest:
        menu = find(await session.accessibility_tree(), role="menu", name=top)
        await click(session, node_in(menu, "menuitem", label))


def _neighbour(task: cb.Task) -> list[str]:
    """The path to the command next to the asked-for one, in the same menu or submenu."""
    *above, last = task.metadata["path"]
    entries = dict(task.metadata["menus"])[above[0]]
    if len(above) > 1:
        entries = next(e[1] for e in entries if isinstance(e, list) and e[0] == above[1])
    commands = [e for e in entries if isinstance(e, str)]
    return [*above, commands[(commands.index(last) + 1) % len(commands)]]


@cb.wrong_way
async def chooses_a_neighbouring_command(task: cb.Task, session: cb.Session) -> None:
    """The command next to the asked-for one, in the same menu."""
    await _choose(session, _neighbour(task))


@cb.wrong_way
async def oracle_then_chooses_another_command(task: cb.Task, session: cb.Session) -> None:
    """The asked-for command, then its neighbour too: two commands run."""
    await solve(task, session)
    await _choose(session, _neighbour(task))
