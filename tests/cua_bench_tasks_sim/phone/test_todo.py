"""The phone's To-do app, driven through taps, long presses, typing, swipes and the system buttons on a
real sim phone: ticks reach the store, Add (and enter) adds, the Add task field's draft is kept until
it is added or emptied, Clear done asks, a long press opens a task to rename, move or delete, a long
list scrolls to its last task, a notification opens its list."""

from __future__ import annotations

import random
from typing import Any

import pytest
from support.phone_screen import act, installed, node, tap, title

from cua_bench.nodes import center, find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import todo
from cua_core.actions import KeyPress, LongPress, Point, Swipe, SystemButton, Tap, TypeText

LISTS: list[dict[str, Any]] = [
    {"name": "Groceries", "tasks": [{"text": "buy bread", "done": False}, {"text": "buy coffee", "done": True},
                                    {"text": "order stamps", "done": False}]},
    {"name": "Work", "tasks": [{"text": "send the report", "done": True}, {"text": "buy coffee", "done": False}]},
    {"name": "Home", "tasks": []},
]  # fmt: skip


def phone_with(lists: list[dict[str, Any]], seed: int = 0) -> tuple[SimDesktop, Phone]:
    return installed("todo", {"lists": lists}, seed)


def boxes(desktop: SimDesktop) -> dict[str, bool]:
    return {n["name"]: n["value"] for n in find_all(desktop.a11y(), role="checkbox")}


def open_list(desktop: SimDesktop, name: str) -> None:
    tap(desktop, "button", "To-do")
    tap(desktop, "listitem", name)
    assert title(desktop) == name


def stored(phone: Phone) -> list[dict[str, Any]]:
    return phone.app_data("todo")["lists"]  # type: ignore[no-any-return]


def test_the_root_lists_the_lists_and_a_list_shows_its_tasks_as_boxes() -> None:
    desktop, phone = phone_with(LISTS)
    tap(desktop, "button", "To-do")
    assert [n["name"] for n in find_all(desktop.a11y(), role="listitem")] == ["Groceries", "Work", "Home"]
    tap(desktop, "listitem", "Work")
    assert boxes(desktop) == {"send the report": True, "buy coffee": False}
    act(desktop, SystemButton("back"))
    tap(desktop, "listitem", "Work")  # the same row opens again after back
    assert title(desktop) == "Work"
    act(desktop, SystemButton("back"), SystemButton("back"))
    assert phone.current is None and stored(phone) == LISTS  # looking changed nothing


def test_a_tap_ticks_and_unticks_that_task_only() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Groceries")
    tap(desktop, "checkbox", "order stamps")
    assert stored(phone)[0]["tasks"][2]["done"] is True
    tap(desktop, "checkbox", "buy coffee")
    assert stored(phone)[0]["tasks"][1]["done"] is False
    assert stored(phone)[1] == LISTS[1]  # "buy coffee" in Work is another task
    tap(desktop, "checkbox", "buy coffee")
    assert stored(phone)[0]["tasks"] == [{"text": "buy bread", "done": False}, {"text": "buy coffee", "done": True},
                                         {"text": "order stamps", "done": True}]  # fmt: skip


def test_add_and_enter_add_a_task_at_the_end_and_empty_the_field() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Home")
    tap(desktop, "textbox", "Add task")
    act(desktop, TypeText("water the plants"))
    assert stored(phone)[2]["draft"] == "water the plants"  # the field is in the store as it is typed
    tap(desktop, "button", "Add")
    assert stored(phone)[2] == {"name": "Home", "tasks": [{"text": "water the plants", "done": False}]}
    assert node(desktop, "textbox", "Add task")["value"] == ""
    act(desktop, TypeText("fix the bike", press_enter=True))
    assert [t["text"] for t in stored(phone)[2]["tasks"]] == ["water the plants", "fix the bike"]
    assert boxes(desktop) == {"water the plants": False, "fix the bike": False}
    tap(desktop, "button", "Add")  # an empty field adds nothing
    act(desktop, TypeText("   ", press_enter=True))  # nor does a blank one
    assert len(stored(phone)[2]["tasks"]) == 2


def test_the_add_field_keeps_its_draft_across_back_until_emptied() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Work")
    tap(desktop, "textbox", "Add task")
    act(desktop, TypeText("ab"))
    act(desktop, SystemButton("back"))
    assert stored(phone)[1]["draft"] == "ab"
    tap(desktop, "listitem", "Work")
    assert node(desktop, "textbox", "Add task")["value"] == "ab"
    tap(desktop, "textbox", "Add task")
    act(desktop, KeyPress(("ctrl", "a")), KeyPress(("backspace",)))
    assert stored(phone) == LISTS


def test_clear_done_asks_and_cancel_keeps_every_task() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Groceries")
    tap(desktop, "button", "Clear done")
    assert node(desktop, "label", 'Remove 1 done task from "Groceries"?')
    tap(desktop, "button", "Cancel")
    assert stored(phone) == LISTS
    tap(desktop, "button", "Clear done")
    act(desktop, SystemButton("back"))
    assert stored(phone) == LISTS
    tap(desktop, "button", "Clear done")
    tap(desktop, "button", "Clear")
    assert stored(phone)[0]["tasks"] == [{"text": "buy bread", "done": False}, {"text": "order stamps", "done": False}]
    assert stored(phone)[1] == LISTS[1] and boxes(desktop) == {"buy bread": False, "order stamps": False}


def test_clear_done_with_nothing_done_asks_nothing() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Home")
    tap(desktop, "button", "Clear done")
    assert not find_all(desktop.a11y(), role="dialog") and stored(phone) == LISTS


def open_task(desktop: SimDesktop, name: str) -> None:
    act(desktop, LongPress(center(node(desktop, "checkbox", name))))
    assert title(desktop) == "Task" and node(desktop, "textbox", "Task")["value"] == name


def test_a_long_press_opens_the_task_without_ticking_it_and_rename_is_saved_as_typed() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Groceries")
    open_task(desktop, "buy bread")
    assert stored(phone) == LISTS
    assert node(desktop, "combobox", "List")["value"] == "Groceries"
    tap(desktop, "textbox", "Task")
    act(desktop, KeyPress(("ctrl", "a")), TypeText("buy rye bread"))
    assert stored(phone)[0]["tasks"][0] == {"text": "buy rye bread", "done": False}
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Groceries" and "buy rye bread" in boxes(desktop)


def test_the_list_dropdown_moves_the_task_to_the_end_of_another_list_keeping_its_tick() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Groceries")
    open_task(desktop, "buy coffee")
    tap(desktop, "combobox", "List")
    popup = find(desktop.a11y(), role="list", name="List")
    act(desktop, Tap(center(find(popup["children"], role="listitem", name="Home"))))
    assert [t["text"] for t in stored(phone)[0]["tasks"]] == ["buy bread", "order stamps"]
    assert stored(phone)[2]["tasks"] == [{"text": "buy coffee", "done": True}]
    assert stored(phone)[1] == LISTS[1]
    act(desktop, SystemButton("back"))
    assert boxes(desktop) == {"buy bread": False, "order stamps": False}  # gone from the list below


def test_delete_asks_and_cancel_keeps_the_task() -> None:
    desktop, phone = phone_with(LISTS)
    open_list(desktop, "Work")
    open_task(desktop, "send the report")
    tap(desktop, "button", "Delete")
    tap(desktop, "button", "Cancel")
    assert stored(phone) == LISTS and title(desktop) == "Task"
    tap(desktop, "button", "Delete")
    dialog = find(desktop.a11y(), role="dialog")
    act(desktop, Tap(center(find(dialog["children"], role="button", name="Delete"))))
    assert stored(phone)[1]["tasks"] == [{"text": "buy coffee", "done": False}]
    assert title(desktop) == "Work" and boxes(desktop) == {"buy coffee": False}


def test_a_long_list_scrolls_to_its_last_task_and_ticks_it() -> None:
    data = todo.sample(random.Random(5), 2, (26, 26))
    desktop, phone = phone_with(data["lists"])
    name = data["lists"][0]["name"]
    open_list(desktop, name)
    texts = [t["text"] for t in data["lists"][0]["tasks"]]
    assert list(boxes(desktop)) == texts[: len(boxes(desktop))] and len(boxes(desktop)) < 26
    box = node(desktop, "list", "Tasks")["bounds"]
    x = (box[0] + box[2]) / 2
    for _ in range(5):
        if texts[-1] in boxes(desktop):
            break
        act(desktop, Swipe(Point(x, box[1] + 0.8 * (box[3] - box[1])), Point(x, box[1] + 0.2 * (box[3] - box[1]))))
    assert list(boxes(desktop))[-1] == texts[-1]
    before = stored(phone)[0]["tasks"][-1]["done"]
    tap(desktop, "checkbox", texts[-1])
    assert stored(phone)[0]["tasks"][-1]["done"] is (not before)
    open_task(desktop, texts[-2])  # a long press on a scrolled row opens that row's task


def test_a_notification_opens_its_list() -> None:
    desktop, phone = phone_with(LISTS)
    phone.notify("todo", "Groceries", "2 tasks left", target="Groceries")
    before = phone.state()
    phone.open_notification(phone.notifications[0])
    assert title(desktop) == "Groceries"
    act(desktop, SystemButton("back"), SystemButton("back"))
    assert phone.current is None and phone.state() == before


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sample_is_seeded_with_distinct_names_and_texts(seed: int) -> None:
    data = todo.sample(random.Random(seed), 5, (4, 8))
    assert data == todo.sample(random.Random(seed), 5, (4, 8))
    assert len({lst["name"] for lst in data["lists"]}) == 5
    for lst in data["lists"]:
        assert 4 <= len(lst["tasks"]) <= 8 and len({t["text"] for t in lst["tasks"]}) == len(lst["tasks"])
