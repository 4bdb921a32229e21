"""``todo`` ("To-do"): named lists of tasks. Its root lists the lists; tapping one opens it: an "Add
task" field with its Add button (enter adds too), then the tasks as check boxes (ticked: done; a tap
ticks or unticks, a long list scrolls), and the toolbar's "Clear done", which asks, then removes the
list's done tasks. A long press on a task opens it: its text in a field (saved as it is edited), a "List"
dropdown that moves it to the end of the list chosen, and the toolbar's Delete, which asks, then
deletes it. Back returns to the list, then to the lists.

The state (``phone.app_data("todo")``): ``lists``, a list of ``{"name", "tasks"}`` with ``tasks`` a list
of ``{"text", "done"}``; a list whose Add task field holds text keeps it as ``draft`` (gone once it is
added or the field is emptied). A notification's target is a list's name: it opens that list.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PIL import ImageDraw

from cua_bench.sim.controls import Button, Checkbox, Label
from cua_bench.sim.events import MouseEvent, ScrollEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.lists import Dropdown, ListView
from cua_bench.sim.phone import PhoneApp, register_phone_app
from cua_bench.sim.render import Theme, focus_ring
from cua_bench.sim.textwidgets import TextField
from cua_bench.sim.widget import Widget
from cua_bench_tasks_sim._phone.words import NOUNS, VERBS

if TYPE_CHECKING:
    import cua_bench as cb
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = [
    "LISTS",
    "LIST_NAMES",
    "TASKS",
    "TaskList",
    "TodoApp",
    "add_tasks",
    "list_name",
    "open_list",
    "open_task",
    "reveal",
    "sample",
    "task_texts",
]

Task = dict[str, Any]
TodoList = dict[str, Any]

LISTS = ("list", "Lists")  # the root's list of lists
TASKS = ("list", "Tasks")  # a list's tasks

LIST_NAMES = [
    "Groceries", "Work", "Home", "Errands", "Weekend", "Garden", "Packing", "Gifts", "Reading", "Car", "Health",
    "Study", "Kids", "Party", "Office", "Holiday",
]  # fmt: skip


def task_texts() -> list[str]:
    """Every text a task may have: "buy coffee", "return the keys", ..."""
    return [f"{verb} {noun}" for verb in VERBS for noun in NOUNS]


def sample(rng: random.Random, count: int, tasks: tuple[int, int] = (3, 6)) -> dict[str, Any]:
    """``count`` lists with distinct names, each of ``tasks`` (lowest, highest) tasks with distinct
    texts, about one in four done."""
    lists = []
    for name in rng.sample(LIST_NAMES, count):
        texts = rng.sample(task_texts(), rng.randint(*tasks))
        lists.append({"name": name, "tasks": [{"text": t, "done": rng.random() < 0.25} for t in texts]})
    return {"lists": lists}


def _toggles(on_toggle: Callable[[int, bool], Any], index: int) -> Callable[[Checkbox], Any]:
    return lambda box: on_toggle(index, box.checked)


class TaskList(Widget):
    """A list's tasks as check boxes, one row each, that scrolls (wheel, swipe) when they do not all
    fit; a long press on a row calls ``on_hold(index)``. Its value is nowhere to go: the boxes are the inputs."""

    role = "list"
    navigates = True
    ROW = 28

    def __init__(self, name: str, on_hold: Callable[[int], Any], **kw: Any) -> None:
        super().__init__(name, **kw)
        self._boxes: list[Checkbox] = []
        self._top = 0
        self._on_hold = on_hold

    @property
    def boxes(self) -> list[Checkbox]:
        return list(self._boxes)

    @property
    def scroll_top(self) -> int:
        return self._top

    def set_tasks(self, tasks: list[Task], on_toggle: Callable[[int, bool], Any]) -> None:
        """One box per task (its text, ticked when done); ticking box ``i`` calls ``on_toggle(i, checked)``."""
        window = self.window
        if window is not None and window.focus_widget in self._boxes:
            window.set_focus(None)
        for box in self._boxes:
            box.attach(None)
        self._boxes = []
        for index, task in enumerate(tasks):
            self._boxes.append(Checkbox(task["text"], bool(task["done"]), on_change=_toggles(on_toggle, index)))
        for box in self._boxes:
            box.attach(window, self)
        self.layout()
        self.invalidate()

    def children(self) -> list[Widget]:
        return list(self._boxes)

    def visible_rows(self) -> int:
        return max(1, (self.rect.height - 4) // self.ROW)

    def layout(self) -> None:
        rows = self.visible_rows()
        self._top = max(0, min(self._top, len(self._boxes) - rows))
        for index, box in enumerate(self._boxes):
            box.visible = self._top <= index < self._top + rows
            y = self.rect.y + 2 + (index - self._top) * self.ROW
            box.rect = Rect(self.rect.x + 8, y + 2, max(1, self.rect.width - 24), self.ROW - 4)

    def on_scroll(self, event: ScrollEvent) -> bool:
        limit = max(0, len(self._boxes) - self.visible_rows())
        top = max(0, min(limit, self._top + 3 * event.amount * event.dy))
        if top == self._top:
            return False
        self._top = top
        self.layout()
        self.invalidate()
        return True

    def on_context(self, event: MouseEvent) -> bool:
        """A long press (or right click) on a row: ``on_hold`` with its index."""
        index = self._top + (event.y - self.rect.y - 2) // self.ROW
        if event.y < self.rect.y + 2 or not self._top <= index < min(len(self._boxes), self._top + self.visible_rows()):
            return False
        self._on_hold(index)
        return True

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return available_width, 6 * self.ROW + 4

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        draw.rectangle(r.box(), fill=Theme.field_bg, outline=Theme.field_border)
        for box in self._boxes:
            if box.visible:
                box.paint(draw)
        rows = self.visible_rows()
        if len(self._boxes) > rows:
            track = r.height - 8
            size = max(16, track * rows // len(self._boxes))
            top = r.y + 4 + (track - size) * self._top // max(1, len(self._boxes) - rows)
            draw.rectangle((r.right - 7, top, r.right - 4, top + size), fill=Theme.border)
        if self.has_focus:
            focus_ring(draw, r)


@register_phone_app
class TodoApp(PhoneApp):
    name = "todo"
    label = "To-do"

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.list = ListView("Lists", on_select=self._picked)
        self._open: tuple[TodoList, TaskList] | None = None  # the list on screen and its tasks' view

    @property
    def lists(self) -> list[TodoList]:
        """The lists, read only: a look never writes a default into the store."""
        return list(self.data.get("lists", []))

    def start(self) -> None:
        root = self.screen("To-do")
        root.add(self.list, fill=True)
        self._refresh()
        self.push(root)

    def _refresh(self) -> None:
        self.list.set_items([todo["name"] for todo in self.lists])
        if self._open is not None:
            todo, view = self._open
            view.set_tasks(todo["tasks"], lambda i, checked: self._ticked(todo, i, checked))

    def _picked(self, view: ListView) -> None:
        index = view.selected_index
        view.selected_index = None  # a tap opens the list; tapping it again after back opens it again
        lists = self.lists
        if index is not None and index < len(lists):
            self.open_list(lists[index])

    @staticmethod
    def _ticked(todo: TodoList, index: int, checked: bool) -> None:
        if index < len(todo["tasks"]):
            todo["tasks"][index]["done"] = checked

    # --- one list ----------------------------------------------------------------------------

    def open_list(self, todo: TodoList) -> None:
        screen = self.screen(todo["name"])

        def typed(field: Any) -> None:
            if field.text:
                todo["draft"] = field.text
            else:
                todo.pop("draft", None)

        def add(_: Any) -> None:
            text = field.text.strip()
            if not text:
                return
            todo["tasks"].append({"text": text, "done": False})
            field.text = ""  # empties the draft too
            field.focus()  # the keyboard stays on the field for the next task
            self._refresh()

        def clear() -> None:
            todo["tasks"][:] = [task for task in todo["tasks"] if not task["done"]]
            self._refresh()

        def ask_clear(_: Any) -> None:
            done = sum(1 for task in todo["tasks"] if task["done"])
            if done:
                tasks = "task" if done == 1 else "tasks"
                self.confirm(f'Remove {done} done {tasks} from "{todo["name"]}"?', "Clear", clear)

        field = TextField("Add task", todo.get("draft", ""), placeholder="New task", on_change=typed, on_submit=add,
                          width=screen.rect.width - 2 * screen.padding - 72)  # fmt: skip
        screen.add_row(field, Button("Add", add, width=64))
        screen.add(Label("Tap a task to tick it; long-press it to\nrename it, move it or delete it.", size=12))
        view = TaskList("Tasks", lambda index: self.open_task(todo, index))
        screen.add(view, fill=True)
        screen.add_action("Clear done", "Clear", ask_clear)
        self._open = (todo, view)
        self._refresh()
        self.push(screen)

    def pop(self) -> bool:
        closed = super().pop()
        if closed and self._open is not None and len(self.stack) == 1:
            self._open = None  # back at the lists
        return closed

    def close(self) -> None:
        self._open = None
        super().close()

    # --- one task ----------------------------------------------------------------------------

    def _holder(self, task: Task) -> TodoList | None:
        return next((todo for todo in self.lists if any(t is task for t in todo["tasks"])), None)

    def open_task(self, todo: TodoList, index: int) -> None:
        if index >= len(todo["tasks"]):
            return
        task = todo["tasks"][index]
        screen = self.screen("Task")

        def renamed(field: Any) -> None:
            task["text"] = field.text
            self._refresh()

        def moved(dropdown: Dropdown) -> None:
            source = self._holder(task)
            target = next((t for t in self.lists if t["name"] == dropdown.selected), None)
            if source is None or target is None or target is source:
                return
            source["tasks"][:] = [t for t in source["tasks"] if t is not task]
            target["tasks"].append(task)
            self._refresh()

        def delete() -> None:
            source = self._holder(task)
            if source is not None:
                source["tasks"][:] = [t for t in source["tasks"] if t is not task]
            self._refresh()
            self.pop()

        screen.label_width = 40
        screen.add(TextField("Task", task["text"], on_change=renamed), label="Task")
        names = [t["name"] for t in self.lists]
        screen.add(Dropdown("List", names, todo["name"], on_change=moved), label="List")
        screen.add(Label("Choose another list to move the task there.", size=12))
        screen.add_action("Delete", "Del", lambda _: self.confirm(f'Delete "{task["text"]}"?', "Delete", delete))
        self.push(screen)

    def open_target(self, target: str) -> None:
        """``target`` is a list's name: that list opens above the lists."""
        found = [todo for todo in self.lists if todo["name"] == target]
        if found:
            while self.pop():
                pass
            self.open_list(found[0])


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


def list_name(task: cb.Task, step: int = 0) -> str:
    """The name of the list ``step`` after the one at ``task.metadata["index"]`` (round the end)."""
    lists = task.metadata["data"]["todo"]["lists"]
    return str(lists[(task.metadata["index"] + step) % len(lists)]["name"])


async def open_list(hand: Hand, name: str) -> None:
    """To-do in front, the list ``name`` opened from its lists."""
    await hand.launch("To-do")
    while not await hand.shows(*LISTS):
        await hand.button("back")
    await hand.tap("listitem", name, within=LISTS)


async def reveal(hand: Hand, text: str) -> None:
    """Scroll the tasks until the box ``text`` shows."""
    await hand.scroll_to("checkbox", text, within=TASKS)


async def open_task(hand: Hand, name: str, text: str) -> None:
    """The screen of the task ``text`` on the list ``name``, from a long press on it in the list."""
    await open_list(hand, name)
    await reveal(hand, text)
    await hand.long_press("checkbox", text, within=TASKS)


async def add_tasks(hand: Hand, name: str, texts: list[str]) -> None:
    """The list ``name`` opened, each of ``texts`` typed into Add task and added, in order."""
    await open_list(hand, name)
    for text in texts:
        await hand.fill("Add task", text)
        await hand.tap("button", "Add")
