"""What the MiniWoB-like widget families of the ``sim`` taskset share (not a task: no ``main.py``).

Four groups, each used by a different side of a task:

* variants: seeded generation (``random.Random(f"{family}/{i}")``), the train and test splits,
  difficulty, and the word pools labels are drawn from;
* setup: a clean desktop per episode and windows placed where the variant says;
* evaluation: the state evaluators read (a window by title), and the whole end state: every window's
  inputs as setup left them (``remember``), compared with the asked-for change excepted, exactly one
  submission, for "using only the keyboard", no pointer action in ``task.history``, and for "click
  X", the desktop's record of a press on X (``sim.provenance``);
* the oracle and the wrong ways: finding nodes in the accessibility tree and acting on them with
  unified actions only, as an agent reading the screen would (they never touch ``session.sim``).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

import cua_bench as cb
from cua_bench.nodes import center, find, find_all, walk
from cua_bench.sim import Menu, MenuBar, MenuItem, MenuPopup, PopupItem, Rect, SimDesktop, Window, form_values
from cua_core import Action, Click, KeyPress, Scroll, TypeText

__all__ = [
    "CATEGORIES",
    "CITIES",
    "FIELD_NAMES",
    "FIRST_NAMES",
    "WORDS",
    "CascadeMenuBar",
    "SubmenuItem",
    "a",
    "as_before_but",
    "by_keyboard_only",
    "click",
    "click_in",
    "desktop",
    "disturb",
    "fresh_desktop",
    "launch_form",
    "node_in",
    "place",
    "press",
    "remember",
    "same_windows",
    "score",
    "scroll_until",
    "select_option",
    "splits",
    "submitted_once",
    "type_text",
    "variants",
    "window_by_title",
]

# --- variants --------------------------------------------------------------------------------

Loader = Callable[[], list[cb.Task]]
DIFFICULTIES = ("easy", "medium", "hard")
SPLITS = {"test": (0, 100), "train": (1000, 200)}  # first seed index and count; disjoint seeds

WORDS = [
    "Apply", "Archive", "Back", "Browse", "Cancel", "Confirm", "Continue", "Copy", "Create", "Delete",
    "Details", "Disable", "Done", "Download", "Edit", "Enable", "Export", "Finish", "Forward", "Help",
    "Hide", "Import", "Install", "Join", "Later", "Load", "Merge", "More", "Move", "Next", "No", "Okay",
    "Open", "Pause", "Preview", "Print", "Publish", "Refresh", "Reject", "Remove", "Rename", "Reply",
    "Reset", "Restore", "Resume", "Retry", "Save", "Search", "Send", "Share", "Show", "Skip", "Sort",
    "Start", "Stop", "Submit", "Sync", "Undo", "Update", "Upload", "Verify", "View", "Yes", "Zoom",
]  # fmt: skip

CATEGORIES: dict[str, list[str]] = {  # no word fits two categories (no "Orange", "Plum", "Cricket")
    "fruit": ["Apple", "Apricot", "Banana", "Fig", "Grape", "Kiwi", "Mango", "Melon", "Papaya", "Pear", "Pineapple"],
    "animal": ["Bear", "Cat", "Dog", "Eagle", "Fox", "Horse", "Lion", "Otter", "Rabbit", "Tiger", "Wolf"],
    "colour": ["Beige", "Blue", "Crimson", "Green", "Indigo", "Magenta", "Purple", "Red", "Turquoise", "Yellow"],
    "vehicle": ["Bicycle", "Bus", "Canoe", "Ferry", "Scooter", "Tractor", "Train", "Truck", "Van", "Yacht"],
    "country": ["Brazil", "Canada", "Egypt", "France", "India", "Japan", "Kenya", "Norway", "Peru", "Spain"],
    "musical instrument": ["Banjo", "Cello", "Drum", "Flute", "Guitar", "Harp", "Piano", "Trumpet", "Violin"],
    "tool": ["Chisel", "Drill", "Hammer", "Ladder", "Pliers", "Saw", "Shovel", "Wrench"],
    "sport": ["Archery", "Boxing", "Cycling", "Golf", "Hockey", "Rowing", "Rugby", "Skiing", "Tennis"],
}


def a(noun: str) -> str:
    """``noun`` with its indefinite article: "a fruit", "an animal"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


FIRST_NAMES = [
    "Ada", "Bruno", "Chen", "Dana", "Emil", "Fatima", "Gus", "Hana", "Ivan", "Jonas", "Kira", "Luis",
    "Maya", "Nils", "Omar", "Priya", "Quinn", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wes", "Yuki",
]  # fmt: skip

CITIES = [
    "Accra", "Adelaide", "Algiers", "Amsterdam", "Ankara", "Athens", "Auckland", "Baku", "Bangkok", "Barcelona",
    "Beirut", "Belgrade", "Bergen", "Berlin", "Bogota", "Boston", "Brisbane", "Bruges", "Brussels", "Bucharest",
    "Budapest", "Cairo", "Calgary", "Chicago", "Cologne", "Copenhagen", "Cork", "Dakar", "Delhi", "Denver",
    "Dublin", "Durban", "Edinburgh", "Florence", "Geneva", "Genoa", "Hamburg", "Hanoi", "Havana", "Helsinki",
    "Istanbul", "Jakarta", "Kyoto", "Lagos", "Leeds", "Lima", "Lisbon", "Lyon", "Madrid", "Manila", "Marseille",
    "Melbourne", "Milan", "Montreal", "Munich", "Nairobi", "Naples", "Osaka", "Oslo", "Ottawa", "Porto",
    "Prague", "Quito", "Riga", "Rome", "Santiago", "Seoul", "Seville", "Sofia", "Stockholm", "Sydney", "Tallinn",
    "Tokyo", "Toronto", "Tunis", "Turin", "Valencia", "Vienna", "Vilnius", "Warsaw", "Zagreb", "Zurich",
]  # fmt: skip

FIELD_NAMES = [
    "First name", "Last name", "City", "Company", "Phone", "Zip code", "Nickname", "Job title",
    "Street", "Country", "Website", "Department", "Team", "Username", "Project", "Room",
]  # fmt: skip


def variants(family: str, split: str, make: Callable[[random.Random, str], cb.Task], *,
             placed: bool = True) -> list[cb.Task]:  # fmt: skip
    """``make(rng, difficulty)`` per seed of ``split``; each variant also gets a window position
    (``placed``: a phone's screens have theirs)."""
    first, count = SPLITS[split]
    tasks = []
    for index in range(first, first + count):
        rng = random.Random(f"{family}/{index}")
        difficulty = DIFFICULTIES[index % 3]
        task = make(rng, difficulty)
        task.difficulty = difficulty
        if placed:
            task.metadata["at"] = [round(rng.random(), 3), round(rng.random(), 3)]
        tasks.append(task)
    return tasks


def splits(family: str, make: Callable[[random.Random, str], cb.Task], *, placed: bool = True) -> tuple[Loader, Loader]:
    """The family's ``train`` and ``test`` loaders, marked as ``@cb.tasks_config`` for each split.

    Marking here (rather than decorating in main.py) keeps the loaders typed: the decorator with
    arguments is typed ``Any``, which strict mypy refuses on a decorated function.
    """

    def train() -> list[cb.Task]:
        return variants(family, "train", make, placed=placed)

    def test() -> list[cb.Task]:
        return variants(family, "test", make, placed=placed)

    cb.tasks_config(split="train")(train)
    cb.tasks_config(split="test")(test)
    return train, test


# --- setup -----------------------------------------------------------------------------------


def desktop(session: cb.Session) -> SimDesktop:
    """The sim desktop behind ``session`` (setup and evaluation only; never the oracle)."""
    sim = getattr(session, "sim", None)
    if not isinstance(sim, SimDesktop):
        raise cb.TaskError(f"the sim widget families need the sim backend, not {type(session).__name__}")
    return sim


def fresh_desktop(session: cb.Session) -> SimDesktop:
    """The desktop emptied of what an earlier episode left (SimSession has no ``reset``)."""
    sim = desktop(session)
    sim.close_popup()
    for window in sim.windows():
        sim.remove_window(window)
    sim.end_drag()
    sim.events.capture = None
    sim.held.clear()
    sim._input.buttons.clear()
    return sim


def place(sim: SimDesktop, window: Window, at: Sequence[float]) -> None:
    """Move ``window`` to fractions ``at`` of the free room on the work area."""
    area = sim.work_area
    x = int(at[0] * max(0, area.width - window.rect.width))
    y = int(at[1] * max(0, area.height - window.rect.height))
    window.rect = Rect(x, y, window.rect.width, window.rect.height)


async def launch_form(session: cb.Session, task: cb.Task, title: str, widgets: list[dict[str, Any]],
                      width: int = 480) -> Window:  # fmt: skip
    """A fresh desktop with one ``form`` window of ``widgets``, placed where the variant says."""
    sim = fresh_desktop(session)
    window = sim.get_window(await session.launch("form", title=title, widgets=widgets, width=width))
    place(sim, window, task.metadata["at"])
    return window


# --- evaluation ------------------------------------------------------------------------------


def window_by_title(session: cb.Session, title: str) -> Window | None:
    found = [w for w in desktop(session).windows() if w.title == title]
    return found[0] if found else None


def score(ok: bool) -> list[float]:
    return [1.0 if ok else 0.0]


# Action kinds that leave the pointer alone: what "using only the keyboard" allows (a whitelist, so
# a pointer or touch kind added later counts against the rule, not for it).
KEYBOARD_KINDS = frozenset({"type", "key", "key_down", "key_up", "hold_key", "wait", "screenshot", "cursor_position"})


def by_keyboard_only(task: cb.Task) -> bool:
    """No action of this episode moved, pressed or scrolled the pointer (refused ones are not in history)."""
    return all(step.get("kind") in KEYBOARD_KINDS for step in task.history)


def _window_values(session: cb.Session) -> dict[str, dict[str, Any]]:
    # Deep copies: a drop area's value is its live list of chips.
    return {w.title: copy.deepcopy(form_values(w)) for w in desktop(session).windows()}


def remember(task: cb.Task, session: cb.Session) -> None:
    """Setup's last step: every open window and the values of its inputs, for ``as_before_but``; and
    the desktop's records started afresh (an earlier episode's clicks are not this one's)."""
    task.scratch["windows"] = _window_values(session)
    desktop(session).provenance.clear()


def as_before_but(task: cb.Task, session: cb.Session, changes: dict[str, dict[str, Any] | None]) -> bool:
    """The desktop is as setup left it except ``changes``: per window title, its inputs that changed
    to what (``None``: the window is gone, as a dialog once answered). No window opened or closed
    besides, and no other input of any window changed."""
    before = task.scratch.get("windows")
    if before is None:
        raise cb.TaskError(f"{task.name}: evaluation needs this episode's setup (remember() was not called)")
    want: dict[str, dict[str, Any]] = {}
    for title, values in before.items():
        change = changes.get(title, {})
        if change is not None:
            unknown = set(change) - set(values)
            if unknown:
                raise cb.TaskError(f"{task.name}: no input {', '.join(sorted(unknown))} in the window {title!r}")
            want[title] = {**values, **change}
    now = desktop(session).windows()
    return len(now) == len(want) and _window_values(session) == want


def same_windows(task: cb.Task, session: cb.Session) -> bool:
    """The windows open now are those setup left (by title), none closed or opened; their inputs may differ."""
    before = task.scratch.get("windows")
    if before is None:
        raise cb.TaskError(f"{task.name}: evaluation needs this episode's setup (remember() was not called)")
    return sorted(w.title for w in desktop(session).windows()) == sorted(before)


def submitted_once(task: cb.Task, session: cb.Session, title: str, changes: dict[str, Any]) -> bool:
    """The form ``title`` was submitted exactly once, holding what setup left in it with ``changes``,
    and the whole desktop still shows that: nothing changed after the submission, elsewhere, or before
    it (a second submission, or a field edited after Submit, fails)."""
    window = window_by_title(session, title)
    if window is None or not as_before_but(task, session, {title: changes}):
        return False
    want = {**task.scratch["windows"][title], **changes}
    return list(window.data.get("submissions") or []) == [want]


# --- the oracle: the accessibility tree and unified actions ----------------------------------


def node_in(parent: dict[str, Any], role: str, name: str | None = None) -> dict[str, Any]:
    """The first node under ``parent`` (itself included) with this role and name."""
    found = find_all([parent], role=role, name=name)
    if not found:
        raise LookupError(f"no {role} {name!r} under {parent.get('role')} {parent.get('name')!r}")
    return found[0]


async def click(session: cb.Session, node: dict[str, Any], clicks: int = 1) -> None:
    await session.apply([Click(center(node), clicks=clicks)])


async def click_in(session: cb.Session, role: str, name: str, within: tuple[str, str] | None = None) -> None:
    """Click the node ``role``/``name`` of the current tree (inside the node ``within``, if given)."""
    tree = await session.accessibility_tree()
    nodes = tree if within is None else [find(tree, role=within[0], name=within[1])]
    found = find_all(nodes, role=role, name=name)
    if not found:
        raise LookupError(f"no {role} {name!r} on screen")
    await click(session, found[0])


async def type_text(session: cb.Session, role: str, name: str, text: str, *, replace: bool = False) -> None:
    """Click the field, select what it holds when ``replace``, and type ``text``."""
    field = await session.find(role=role, name=name)
    actions: list[Action] = [Click(center(field))]
    if replace:
        actions.append(KeyPress(("ctrl", "a")))
    await session.apply([*actions, TypeText(text)])


async def press(session: cb.Session, title: str, button: str) -> None:
    """Click the button ``button`` of the window ``title``."""
    await click_in(session, "button", button, within=("window", title))


async def disturb(session: cb.Session, title: str) -> None:
    """Change the first input of the window ``title`` as a slip of the hand would: toggle a check box,
    type into a text field, pick another radio option or drop-down option, or move a slider a step.

    Wrong ways use it for "the oracle's work, then one more change"; it acts through the screen only.
    """
    window = await session.find(role="window", name=title)
    node = next((n for n in walk([window]) if n["role"] in ("checkbox", "textbox", "radiogroup", "combobox",
                                                             "slider")), None)  # fmt: skip
    if node is None:
        raise LookupError(f"no input in the window {title!r}")
    role, name = node["role"], node["name"]
    if role == "checkbox":
        await click(session, node)
    elif role == "textbox":
        await session.apply([Click(center(node)), KeyPress(("end",)), TypeText("x")])
    elif role == "radiogroup":
        await click(session, next(n for n in node["children"] if "checked" not in n["states"]))
    elif role == "combobox":
        await click(session, node)
        opened = find(await session.accessibility_tree(), role="combobox", name=name)
        await click(session, next(n for n in walk([opened]) if n["role"] == "listitem" and n["name"] != node["value"]))
    else:  # a slider: focus it with a click, then step away from where it was
        await click(session, node)
        for key in ("right", "left"):
            if (await session.find(role="slider", name=name))["value"] != node["value"]:
                break
            await session.apply([KeyPress((key,))])


async def scroll_until(session: cb.Session, locate: Callable[[list[dict[str, Any]]], dict[str, Any]], role: str,
                       name: str, limit: int = 80) -> dict[str, Any]:  # fmt: skip
    """Wheel over the container ``locate(tree)`` (down, then up) until ``role``/``name`` shows."""
    for direction in ("down", "up"):
        seen: list[str] | None = None
        for _ in range(limit):
            container = locate(await session.accessibility_tree())
            found = find_all([container], role=role, name=name)
            if found:
                return found[0]
            names = [child["name"] for child in container["children"]]
            if names == seen:
                break  # this end reached
            seen = names
            await session.apply([Scroll(direction, 1, center(container))])
    raise LookupError(f"{role} {name!r} never scrolled into view")


async def select_option(session: cb.Session, combobox: str, option: str) -> None:
    """Open the combo box, scroll its list until ``option`` shows, and click it."""
    await click(session, await session.find(role="combobox", name=combobox))

    def popup(tree: list[dict[str, Any]]) -> dict[str, Any]:
        return node_in(find(tree, role="combobox", name=combobox), "list")

    await click(session, await scroll_until(session, popup, "listitem", option))


# --- menus with submenus ---------------------------------------------------------------------


class SubmenuItem(MenuItem):
    """An item that opens a submenu; it shows a marker where shortcuts go (also its node's value)."""

    def __init__(self, label: str, items: Sequence[MenuItem]) -> None:
        super().__init__(label)
        self.items = list(items)

    def popup_item(self) -> PopupItem:
        return PopupItem(self.label, "»", self.enabled)


class CascadeMenuBar(MenuBar):
    """A menu bar whose ``SubmenuItem`` entries open their items to the right of their row.

    The sim desktop shows one popup at a time, so a submenu replaces its parent menu's popup; in
    the accessibility tree its items become the children of the top menu's node, as an open menu's do.
    """

    def __init__(self, menus: Sequence[Menu] = (), **kw: Any) -> None:
        super().__init__(menus, **kw)
        self._shown: tuple[int, MenuPopup] | None = None
        for menu in self.menus:
            for item in menu.items:
                if isinstance(item, SubmenuItem):
                    item.on_select = self._open_submenu

    def open_menu(self, index: int) -> None:
        super().open_menu(index)
        desktop = self.desktop
        if desktop is not None and isinstance(desktop.popup, MenuPopup) and self.menus:
            self._shown = (index % len(self.menus), desktop.popup)

    def _open_submenu(self, item: MenuItem) -> None:
        desktop, shown = self.desktop, self._shown
        if desktop is None or shown is None or not isinstance(item, SubmenuItem):
            return
        index, parent = shown
        row = parent.row_rect(self.menus[index].items.index(item))
        items = item.items

        def choose(item_index: int) -> None:
            desktop.close_popup()
            items[item_index].run()

        def side(step: int) -> None:
            self.open_menu(index + step)

        def closed() -> None:
            self.open_index = None

        popup = MenuPopup(self, [entry.popup_item() for entry in items], choose, anchor=Rect(row.right, row.y, 1, 0),
                          screen=(desktop.width, desktop.height), on_side=side)  # fmt: skip
        desktop.open_popup(popup)
        popup.on_close = closed
        self.open_index = index
