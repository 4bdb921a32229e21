"""The Messages phone app, driven by taps, typing, swipes and the system buttons on a sim phone."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from support.phone_screen import H, W, act, fill, installed, tap
from support.phone_screen import window_title as title

from cua_bench.nodes import find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.apps import input_widgets
from cua_bench.sim.events import KeyEvent
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import messages
from cua_core.actions import Swipe, SystemButton, from_pixels

THREADS = {
    "Ada Khan": [{"from": "Ada Khan", "text": "Lunch?"}, {"from": "me", "text": "Sure"}],
    "Bruno Silva": [{"from": "me", "text": "Did you book the tickets?"}],
    "Chen Ito": [{"from": "Chen Ito", "text": "On my way"}],
}


def phone_with(
    threads: dict[str, Any], seed: int = 0, apps: tuple[str, ...] = ("messages",)
) -> tuple[SimDesktop, Phone]:
    return installed("messages", {"threads": threads}, seed, apps)


def rows(desktop: SimDesktop, within: str) -> list[str]:
    found = find_all(desktop.a11y(), role="list", name=within)
    assert found, within
    return [n["name"] for n in find_all(found[:1], role="listitem")]


def opened(threads: dict[str, Any] | None = None) -> tuple[SimDesktop, Phone]:
    desktop, phone = phone_with(THREADS if threads is None else threads)
    tap(desktop, "button", "Messages")
    return desktop, phone


def test_sample_is_seeded_json_like_with_distinct_people() -> None:
    one, two = messages.sample(random.Random(5), 12), messages.sample(random.Random(5), 12)
    assert one == two and json.loads(json.dumps(one)) == one and list(one) == ["threads"]
    threads = one["threads"]
    assert len(threads) == 12
    for name, thread in threads.items():
        assert 1 <= len(thread) <= 4 and all(m["from"] in ("me", name) and m["text"] for m in thread)
    assert messages.sample(random.Random(6), 12) != one


def test_the_list_shows_the_most_recent_first_and_a_swipe_reaches_the_last_row() -> None:
    desktop, phone = opened()
    assert rows(desktop, "Conversations") == ["Chen Ito", "Bruno Silva", "Ada Khan"]
    many = messages.sample(random.Random(2), 40)["threads"]
    desktop, phone = opened(many)
    shown = list(reversed(many))
    first = rows(desktop, "Conversations")
    assert first == shown[: len(first)] and 10 < len(first) < 40
    for _ in range(5):
        act(desktop, Swipe(from_pixels(180, 600, W, H), from_pixels(180, 150, W, H)))
    assert rows(desktop, "Conversations")[-1] == shown[-1]
    tap(desktop, "listitem", shown[-1])
    assert title(desktop) == shown[-1] and phone.app_data("messages")["threads"] == many


def test_a_conversation_lists_its_messages_with_the_newest_in_view() -> None:
    long = {"Ada Khan": [{"from": "Ada Khan" if i % 2 else "me", "text": f"message {i}"} for i in range(60)]}
    desktop, phone = opened(long)
    before = phone.state()
    tap(desktop, "listitem", "Ada Khan")
    shown = rows(desktop, "Messages")
    assert shown[-1] == "Ada Khan: message 59" and "You: message 0" not in shown
    tap(desktop, "listitem", "You: message 58")  # a message is read, not chosen
    assert find(desktop.a11y(), "list", "Messages")["value"] is None and phone.state() == before
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Messages" and phone.state() == before


def test_send_appends_from_me_keeps_the_draft_until_then_and_moves_the_conversation_up() -> None:
    desktop, phone = opened()
    tap(desktop, "listitem", "Ada Khan")
    assert rows(desktop, "Messages") == ["Ada Khan: Lunch?", "You: Sure"]
    fill(desktop, "Message", "See you at noon")
    assert phone.app_data("messages")["drafts"] == {"Ada Khan": "See you at noon"}
    act(desktop, SystemButton("back"))  # the draft stays, and comes back with the conversation
    assert phone.state()["messages"]["drafts"] == {"Ada Khan": "See you at noon"}
    tap(desktop, "listitem", "Ada Khan")
    assert find(desktop.a11y(), "textbox", "Message")["value"] == "See you at noon"
    tap(desktop, "button", "Send")
    thread = phone.app_data("messages")["threads"]["Ada Khan"]
    assert thread[-1] == {"from": "me", "text": "See you at noon"} and len(thread) == 3
    assert "drafts" not in phone.app_data("messages")
    assert find(desktop.a11y(), "textbox", "Message")["value"] == ""
    assert rows(desktop, "Messages")[-1] == "You: See you at noon"
    tap(desktop, "button", "Send")  # nothing to send: nothing sent
    assert len(phone.app_data("messages")["threads"]["Ada Khan"]) == 3
    fill(desktop, "Message", "  and bring cake ")
    act(desktop, SystemButton("enter"))  # the keyboard's enter sends too, the text trimmed
    assert phone.app_data("messages")["threads"]["Ada Khan"][-1] == {"from": "me", "text": "and bring cake"}
    act(desktop, SystemButton("back"))
    assert rows(desktop, "Conversations") == ["Ada Khan", "Chen Ito", "Bruno Silva"]
    assert {k: v for k, v in phone.app_data("messages")["threads"].items() if k != "Ada Khan"} == {
        k: v for k, v in THREADS.items() if k != "Ada Khan"
    }


def test_new_message_joins_an_existing_conversation_or_starts_one_and_back_discards() -> None:
    desktop, phone = opened()
    before = phone.state()
    tap(desktop, "button", "New message")
    fill(desktop, "To", "Dana Weber")
    assert phone.app_data("messages")["new"] == {"to": "Dana Weber", "text": ""}
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Messages" and phone.state() == before
    tap(desktop, "button", "New message")
    fill(desktop, "To", "bruno silva ")
    tap(desktop, "button", "Send")
    assert find(desktop.a11y(), "label", "Type a message first.") and phone.state()["messages"]["threads"] == THREADS
    fill(desktop, "Message", "Yes, booked")
    tap(desktop, "button", "Send")
    assert title(desktop) == "Bruno Silva" and rows(desktop, "Messages")[-1] == "You: Yes, booked"
    threads = phone.app_data("messages")["threads"]
    assert threads["Bruno Silva"][-1] == {"from": "me", "text": "Yes, booked"} and set(threads) == set(THREADS)
    assert "new" not in phone.app_data("messages")
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "New message")
    fill(desktop, "To", "Dana Weber")
    fill(desktop, "Message", "Hi Dana")
    tap(desktop, "button", "Send")
    assert title(desktop) == "Dana Weber"
    assert phone.app_data("messages")["threads"]["Dana Weber"] == [{"from": "me", "text": "Hi Dana"}]
    act(desktop, SystemButton("back"))
    assert rows(desktop, "Conversations")[0] == "Dana Weber"


def test_delete_asks_first_and_cancel_changes_nothing() -> None:
    desktop, phone = opened()
    tap(desktop, "listitem", "Chen Ito")
    fill(desktop, "Message", "unsent")
    before = phone.state()
    tap(desktop, "button", "Delete conversation")
    assert find(desktop.a11y(), "dialog", "Messages")
    tap(desktop, "button", "Cancel")
    assert phone.state() == before and title(desktop) == "Chen Ito"
    tap(desktop, "button", "Delete conversation")
    tap(desktop, "button", "Delete")
    assert title(desktop) == "Messages" and rows(desktop, "Conversations") == ["Bruno Silva", "Ada Khan"]
    assert phone.state() == {"messages": {"threads": {k: v for k, v in THREADS.items() if k != "Chen Ito"}}}


def test_an_incoming_message_notification_opens_its_conversation() -> None:
    desktop, phone = phone_with(THREADS, apps=("messages", "notes"))
    phone.app_data("notes")["notes"] = []
    note = phone.notify("messages", "Chen Ito", "On my way", target="Chen Ito")
    phone.open_app("messages")
    tap(desktop, "listitem", "Bruno Silva")  # the app is elsewhere when the notification is followed
    act(desktop, SystemButton("home"))
    before = phone.state()
    act(desktop, Swipe(from_pixels(180, 5, W, H), from_pixels(180, 400, W, H)))
    tap(desktop, "button", "Chen Ito")
    assert note.opened and phone.current == "messages" and title(desktop) == "Chen Ito"
    assert rows(desktop, "Messages") == ["Chen Ito: On my way"] and phone.state() == before
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Messages"  # the conversation opened above the list


@pytest.mark.parametrize("screen", ["root", "conversation", "new message"])
def test_every_input_on_every_screen_reaches_the_store(screen: str) -> None:
    """What the adversary does to an input (keys until its value moves) changes the app's state, or
    moves nothing: an input the store does not see would let a mutation pass the evaluator."""
    for key in [("down", None), ("up", None), ("x", "x"), ("space", " ")]:
        desktop, phone = opened()
        if screen == "conversation":
            tap(desktop, "listitem", "Ada Khan")
        elif screen == "new message":
            tap(desktop, "button", "New message")
        window = desktop.focused_window
        assert window is not None
        places = input_widgets([window])
        assert places
        for place, widget in places.items():
            before, value = phone.state(), copy.deepcopy(widget.value)
            widget.on_key(KeyEvent(key[0], text=key[1]))
            if widget.value != value:
                assert phone.state() != before, (screen, place, widget, key)
