"""The phone's Photos app (``gallery``), driven through taps, typing, swipes and the system buttons on a
real sim phone: the roll lists photos newest first and scrolls to the oldest, the Favourite box and the
album choice reach the store, Delete asks and moves a photo to Recently deleted (kept in the store),
Restore brings it back, Delete permanently asks and erases it, New album makes an album (its draft name
in the store while its screen is open, gone with the screen), albums list their photos, and a
notification opens its photo. Looking around changes nothing."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from support.phone_screen import act, installed, labels, node, rows, swipe_up, tap, title

from cua_bench.nodes import center, find
from cua_bench.sim import SimDesktop
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import gallery
from cua_core.actions import KeyPress, Point, Swipe, SystemButton, Tap, TypeText


def photo(name: str, date: str, album: str = "", favourite: bool = False, deleted: bool = False) -> dict[str, Any]:
    return {"name": name, "date": date, "album": album, "favourite": favourite, "deleted": deleted}


DATA = {
    "albums": ["Holiday", "Pets", "Work"],
    "photos": [
        photo("IMG_0101", "2024-01-05", "Holiday"),
        photo("IMG_0102", "2024-01-09", favourite=True),
        photo("IMG_0103", "2024-02-01", "Pets"),
        photo("IMG_0104", "2024-02-03", deleted=True),
        photo("IMG_0105", "2024-02-20", "Holiday"),
        photo("IMG_0106", "2024-03-02", "Pets", deleted=True),
    ],
}


def phone_with(data: dict[str, Any], apps: tuple[str, ...] = ("gallery",)) -> tuple[SimDesktop, Phone]:
    return installed("gallery", data, apps=apps)


def store(phone: Phone) -> dict[str, Any]:
    return phone.app_data("gallery")


def saved(phone: Phone, name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in store(phone)["photos"] if p["name"] == name)
    return found


def row_of(name: str, date: str) -> str:
    return gallery.row(photo(name, date))


def open_photo(desktop: SimDesktop, row: str) -> None:
    tap(desktop, "button", "Photos")
    tap(desktop, "listitem", row)
    assert title(desktop) == row.split(" ", maxsplit=1)[0]


# --- the sample ------------------------------------------------------------------------------------


def test_sample_is_seeded_json_like_with_unique_names_and_dates_rising_with_numbers() -> None:
    one = gallery.sample(random.Random(3), 30)
    assert one == gallery.sample(random.Random(3), 30) != gallery.sample(random.Random(4), 30)
    assert json.loads(json.dumps(one)) == one
    photos = one["photos"]
    kept = [p for p in photos if not p["deleted"]]
    assert len(kept) == 30 and 1 <= len(photos) - 30 <= 3
    assert len({p["name"] for p in photos}) == len(photos) and len({p["date"] for p in photos}) == len(photos)
    assert [p["name"] for p in photos] == sorted(p["name"] for p in photos)
    assert [p["date"] for p in photos] == sorted(p["date"] for p in photos)
    assert {p["album"] for p in photos} <= {"", *one["albums"]} and len(set(one["albums"])) == len(one["albums"])
    assert set(photos[0]) == {"name", "date", "album", "favourite", "deleted"}
    assert gallery.shown_date("2024-03-07") == "7 Mar 2024"
    assert gallery.row(photos[0]) == f"{photos[0]['name']} · {gallery.shown_date(photos[0]['date'])}"


# --- the roll --------------------------------------------------------------------------------------


def test_the_roll_lists_photos_newest_first_without_the_deleted_and_back_closes_the_app() -> None:
    desktop, phone = phone_with(DATA)
    tap(desktop, "button", "Photos")
    assert phone.current == "gallery" and title(desktop) == "Photos"
    assert rows(desktop) == [row_of("IMG_0105", "2024-02-20"), row_of("IMG_0103", "2024-02-01"),
                             row_of("IMG_0102", "2024-01-09"), row_of("IMG_0101", "2024-01-05")]  # fmt: skip
    assert node(desktop, "button", "Albums")
    act(desktop, SystemButton("back"))
    assert phone.current is None and "gallery" not in phone.running


def test_a_long_roll_scrolls_by_swipes_to_its_oldest_photo() -> None:
    data = gallery.sample(random.Random(1), 80)
    desktop, phone = phone_with(data)
    tap(desktop, "button", "Photos")
    roll = gallery.newest_first([p for p in data["photos"] if not p["deleted"]])
    first = rows(desktop)
    assert first == [gallery.row(p) for p in roll[: len(first)]] and len(first) < 30
    last = gallery.row(roll[-1])
    for _ in range(10):
        if last in rows(desktop):
            break
        swipe_up(desktop, node(desktop, "list", "Camera roll"))
    assert rows(desktop)[-1] == last
    tap(desktop, "listitem", last)
    assert title(desktop) == roll[-1]["name"] and phone.state() == {"gallery": data}


# --- a photo ---------------------------------------------------------------------------------------


def test_a_photo_shows_its_day_and_album_and_the_favourite_box_reaches_the_store() -> None:
    desktop, phone = phone_with(DATA)
    open_photo(desktop, row_of("IMG_0102", "2024-01-09"))
    assert labels(desktop) == ["Taken 9 Jan 2024", "Not in an album"]
    assert node(desktop, "checkbox", "Favourite")["value"] is True
    assert "disabled" in node(desktop, "button", "Remove from album")["states"]
    tap(desktop, "checkbox", "Favourite")
    assert saved(phone, "IMG_0102")["favourite"] is False
    tap(desktop, "checkbox", "Favourite")
    assert saved(phone, "IMG_0102")["favourite"] is True
    tap(desktop, "checkbox", "Favourite")
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Photos" and saved(phone, "IMG_0102")["favourite"] is False  # kept after back
    tap(desktop, "listitem", row_of("IMG_0102", "2024-01-09"))
    assert node(desktop, "checkbox", "Favourite")["value"] is False


def test_add_to_album_chooses_from_the_albums_and_remove_takes_it_out() -> None:
    desktop, phone = phone_with(DATA)
    open_photo(desktop, row_of("IMG_0101", "2024-01-05"))
    assert labels(desktop)[1] == "Album: Holiday"
    tap(desktop, "button", "Add to album")
    assert title(desktop) == "Add to album" and rows(desktop) == ["Holiday", "Pets", "Work"]
    act(desktop, SystemButton("back"))  # back chooses nothing
    assert title(desktop) == "IMG_0101" and saved(phone, "IMG_0101")["album"] == "Holiday"
    tap(desktop, "button", "Add to album")
    tap(desktop, "listitem", "Work")
    assert title(desktop) == "IMG_0101" and saved(phone, "IMG_0101")["album"] == "Work"
    assert labels(desktop)[1] == "Album: Work"
    tap(desktop, "button", "Remove from album")
    assert saved(phone, "IMG_0101")["album"] == "" and labels(desktop)[1] == "Not in an album"
    assert "disabled" in node(desktop, "button", "Remove from album")["states"]
    tap(desktop, "button", "Remove from album")  # disabled: nothing
    assert saved(phone, "IMG_0101")["album"] == ""
    others = [p for p in store(phone)["photos"] if p["name"] != "IMG_0101"]
    assert others == [p for p in DATA["photos"] if p["name"] != "IMG_0101"]


def test_delete_asks_cancel_keeps_and_delete_moves_the_photo_to_recently_deleted() -> None:
    desktop, phone = phone_with(DATA)
    before = phone.state()
    open_photo(desktop, row_of("IMG_0103", "2024-02-01"))
    tap(desktop, "button", "Delete")
    assert node(desktop, "dialog")["name"] == "Photos" and desktop.modal_window() is not None
    assert desktop.apply(SystemButton("home")) is not None  # refused while the dialog waits
    assert phone.current == "gallery"
    tap(desktop, "button", "Cancel")
    assert phone.state() == before and title(desktop) == "IMG_0103"
    tap(desktop, "button", "Delete")
    act(desktop, SystemButton("back"))  # back answers no
    assert phone.state() == before and desktop.modal_window() is None
    tap(desktop, "button", "Delete")
    dialog = node(desktop, "dialog")
    act(desktop, Tap(center(find([dialog], role="button", name="Delete"))))
    assert title(desktop) == "Photos" and row_of("IMG_0103", "2024-02-01") not in rows(desktop)
    want = copy.deepcopy(DATA)
    want["photos"][2]["deleted"] = True
    assert phone.state() == {"gallery": want}  # kept in the store, album and all


def test_recently_deleted_restores_a_photo_and_erases_one_only_when_confirmed() -> None:
    desktop, phone = phone_with(DATA)
    tap(desktop, "button", "Photos")
    tap(desktop, "button", "Albums")
    tap(desktop, "button", "Recently deleted")
    assert title(desktop) == "Recently deleted"
    assert rows(desktop) == [row_of("IMG_0106", "2024-03-02"), row_of("IMG_0104", "2024-02-03")]
    tap(desktop, "listitem", row_of("IMG_0106", "2024-03-02"))
    assert title(desktop) == "IMG_0106" and labels(desktop) == ["Taken 2 Mar 2024", "In Recently deleted"]
    tap(desktop, "button", "Restore")
    assert title(desktop) == "Recently deleted" and rows(desktop) == [row_of("IMG_0104", "2024-02-03")]
    assert saved(phone, "IMG_0106") == photo("IMG_0106", "2024-03-02", "Pets")
    tap(desktop, "listitem", row_of("IMG_0104", "2024-02-03"))
    tap(desktop, "button", "Delete permanently")
    tap(desktop, "button", "Cancel")
    assert saved(phone, "IMG_0104")["deleted"] is True
    tap(desktop, "button", "Delete permanently")
    dialog = node(desktop, "dialog")
    act(desktop, Tap(center(find([dialog], role="button", name="Delete"))))
    assert [p["name"] for p in store(phone)["photos"]] == ["IMG_0101", "IMG_0102", "IMG_0103", "IMG_0105", "IMG_0106"]
    assert title(desktop) == "Recently deleted" and rows(desktop) == []
    for _ in range(2):
        act(desktop, SystemButton("back"))
    assert title(desktop) == "Photos" and rows(desktop)[0] == row_of("IMG_0106", "2024-03-02")  # back in the roll


# --- albums ----------------------------------------------------------------------------------------


def test_an_album_lists_its_photos_newest_first_and_follows_changes() -> None:
    desktop, phone = phone_with(DATA)
    tap(desktop, "button", "Photos")
    tap(desktop, "button", "Albums")
    assert title(desktop) == "Albums" and rows(desktop) == ["Holiday", "Pets", "Work"]
    tap(desktop, "listitem", "Holiday")
    assert title(desktop) == "Holiday"
    assert rows(desktop) == [row_of("IMG_0105", "2024-02-20"), row_of("IMG_0101", "2024-01-05")]
    tap(desktop, "listitem", row_of("IMG_0105", "2024-02-20"))
    tap(desktop, "button", "Remove from album")
    assert saved(phone, "IMG_0105")["album"] == ""
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Holiday" and rows(desktop) == [row_of("IMG_0101", "2024-01-05")]
    act(desktop, SystemButton("back"))
    tap(desktop, "listitem", "Pets")
    assert rows(desktop) == [row_of("IMG_0103", "2024-02-01")]  # the deleted IMG_0106 is not listed


def test_new_album_keeps_a_draft_while_open_refuses_empty_and_taken_names_and_creates() -> None:
    desktop, phone = phone_with(DATA)
    before = phone.state()
    tap(desktop, "button", "Photos")
    tap(desktop, "button", "Albums")
    tap(desktop, "button", "New album")
    tap(desktop, "textbox", "Album name")
    act(desktop, TypeText("Road"))
    assert store(phone)["new_album"] == "Road"  # the field writes through
    act(desktop, SystemButton("back"))  # back discards the draft
    assert phone.state() == before and title(desktop) == "Albums"
    tap(desktop, "button", "New album")
    assert node(desktop, "textbox", "Album name")["value"] == ""
    tap(desktop, "button", "Create")
    assert "Give the album a name" in labels(desktop) and phone.state()["gallery"]["albums"] == DATA["albums"]
    tap(desktop, "textbox", "Album name")
    act(desktop, TypeText("pets"))
    tap(desktop, "button", "Create")
    assert 'There is an album "pets" already' in labels(desktop) and store(phone)["albums"] == DATA["albums"]
    tap(desktop, "textbox", "Album name")
    act(desktop, KeyPress(("ctrl", "a")), TypeText("  Road trip "), KeyPress(("enter",)))  # enter creates too
    assert title(desktop) == "Albums" and rows(desktop) == ["Holiday", "Pets", "Work", "Road trip"]
    want = copy.deepcopy(DATA)
    want["albums"].append("Road trip")
    assert phone.state() == {"gallery": want}  # no draft left
    act(desktop, SystemButton("back"))
    tap(desktop, "listitem", row_of("IMG_0102", "2024-01-09"))
    tap(desktop, "button", "Add to album")
    assert rows(desktop) == ["Holiday", "Pets", "Work", "Road trip"]
    tap(desktop, "listitem", "Road trip")
    assert saved(phone, "IMG_0102")["album"] == "Road trip"


def test_looking_everywhere_and_going_home_changes_nothing() -> None:
    data = gallery.sample(random.Random(7), 40)
    desktop, phone = phone_with(data)
    before = phone.state()
    tap(desktop, "button", "Photos")
    roll = gallery.newest_first([p for p in data["photos"] if not p["deleted"]])
    tap(desktop, "listitem", gallery.row(roll[0]))
    tap(desktop, "button", "Add to album")
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "Delete")
    tap(desktop, "button", "Cancel")
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "Albums")
    tap(desktop, "listitem", data["albums"][0])
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "Recently deleted")
    tap(desktop, "listitem", rows(desktop)[0])
    act(desktop, SystemButton("back"), SystemButton("back"))
    tap(desktop, "button", "New album")
    act(desktop, SystemButton("home"))
    assert phone.state() == before
    tap(desktop, "button", "Photos")
    assert title(desktop) == "New album"  # the app comes back where it was left
    act(desktop, SystemButton("back"), SystemButton("back"), SystemButton("back"))
    assert phone.current is None and phone.state() == before


def test_a_notification_opens_its_photo_above_the_roll() -> None:
    desktop, phone = phone_with(DATA, ("gallery", "notes"))
    phone.app_data("notes")["notes"] = [{"title": "Ideas", "body": "x"}]
    note = phone.notify("gallery", "New memories", "A day to look back on", target="IMG_0105")
    act(desktop, Swipe(Point(500, 15), Point(500, 600)))
    assert title(desktop) == "Notifications"
    tap(desktop, "button", "New memories")
    assert note.opened and phone.current == "gallery" and title(desktop) == "IMG_0105"
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Photos" and phone.state()["gallery"] == DATA
