"""The phone's Files app, driven through taps, long presses, typing, swipes and the system buttons on a
real sim phone: folders list their files, a file offers Rename (the name typed is kept while the screen
is open; Save renames it in place, back discards it), Move (to the end of the folder chosen) and Delete
(asks; to the Trash), New folder makes an empty folder with a new name, the Trash restores a file to its
folder or deletes it forever (asks), a long folder scrolls to its last file, and a look changes nothing."""

from __future__ import annotations

import json
import random
from typing import Any

from support.phone_screen import act, fill, hold, installed, node, rows, tap, title

from cua_bench.nodes import find
from cua_bench.sim import SimDesktop
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import files
from cua_core.actions import KeyPress, Point, Swipe, SystemButton


def state() -> dict[str, Any]:
    return {
        "folders": [
            {
                "name": "Documents",
                "files": [{"name": "plan.pdf", "size": "120 KB"}, {"name": "cv.docx", "size": "40 KB"}],
            },
            {"name": "Downloads", "files": [{"name": "map.zip", "size": "2.1 MB"}]},
            {"name": "Pictures", "files": []},
            {"name": "Music", "files": [{"name": "song.mp3", "size": "4.0 MB"}]},
        ],
        "trash": [
            {"name": "old.pdf", "size": "10 KB", "folder": "Documents"},
            {"name": "pic.jpg", "size": "1.2 MB", "folder": "Pictures"},
        ],
    }


def phone_with(data: dict[str, Any], seed: int = 0) -> tuple[SimDesktop, Phone]:
    return installed("files", data, seed)


def opened(data: dict[str, Any] | None = None) -> tuple[SimDesktop, Phone]:
    desktop, phone = phone_with(state() if data is None else data)
    tap(desktop, "button", "Files")
    return desktop, phone


def data(phone: Phone) -> dict[str, Any]:
    return phone.state()["files"]


def names(phone: Phone, folder: str) -> list[str]:
    return [f["name"] for f in next(f for f in data(phone)["folders"] if f["name"] == folder)["files"]]


def test_folders_list_their_files_and_a_look_anywhere_changes_nothing() -> None:
    desktop, phone = phone_with(state())
    before = phone.state()
    tap(desktop, "button", "Files")
    assert rows(desktop) == ["Documents", "Downloads", "Pictures", "Music"]
    tap(desktop, "listitem", "Documents")
    assert title(desktop) == "Documents" and rows(desktop) == ["plan.pdf", "cv.docx"]
    tap(desktop, "listitem", "cv.docx")
    assert title(desktop) == "cv.docx" and find(desktop.a11y(), role="label", name="Size: 40 KB")
    for screen in ("Rename", "Move"):
        tap(desktop, "button", screen)
        act(desktop, SystemButton("back"))
    tap(desktop, "button", "Delete")
    tap(desktop, "button", "Cancel")  # the dialog's Cancel keeps the file
    assert title(desktop) == "cv.docx"
    act(desktop, SystemButton("back"), SystemButton("back"))
    tap(desktop, "listitem", "Pictures")
    assert rows(desktop) == [] and find(desktop.a11y(), role="label", name="This folder is empty.")
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "Trash")
    tap(desktop, "listitem", "pic.jpg")
    assert find(desktop.a11y(), role="label", name="Deleted from: Pictures")
    act(desktop, SystemButton("back"), SystemButton("back"))
    tap(desktop, "button", "New folder")
    act(desktop, SystemButton("back"), SystemButton("home"))
    assert phone.state() == before


def test_a_long_press_on_a_file_opens_it_too() -> None:
    desktop, _ = opened()
    tap(desktop, "listitem", "Music")
    hold(desktop, "listitem", "song.mp3")
    assert title(desktop) == "song.mp3" and node(desktop, "button", "Rename")


def test_rename_keeps_the_name_typed_while_open_and_save_renames_in_place() -> None:
    desktop, phone = opened()
    tap(desktop, "listitem", "Documents")
    tap(desktop, "listitem", "plan.pdf")
    tap(desktop, "button", "Rename")
    assert node(desktop, "textbox", "Name")["value"] == "plan.pdf"
    fill(desktop, "Name", "budget.pdf")
    assert data(phone) == {**state(), "rename": "budget.pdf"}
    act(desktop, SystemButton("back"))  # back discards it
    assert data(phone) == state() and title(desktop) == "plan.pdf"
    tap(desktop, "button", "Rename")
    fill(desktop, "Name", "cv.docx")
    tap(desktop, "button", "Save")
    assert find(desktop.a11y(), role="label", name='Documents already has a file named "cv.docx".')
    assert names(phone, "Documents") == ["plan.pdf", "cv.docx"]
    fill(desktop, "Name", "  ")
    act(desktop, KeyPress(("enter",)))
    assert find(desktop.a11y(), role="label", name="Type a name (without /).") and title(desktop) == "Rename"
    fill(desktop, "Name", "budget.pdf")
    act(desktop, KeyPress(("enter",)))
    assert title(desktop) == "Documents" and rows(desktop) == ["budget.pdf", "cv.docx"]
    want = state()
    want["folders"][0]["files"][0]["name"] = "budget.pdf"
    assert data(phone) == want


def test_move_puts_the_file_last_in_the_folder_chosen() -> None:
    desktop, phone = opened()
    tap(desktop, "listitem", "Documents")
    tap(desktop, "listitem", "plan.pdf")
    tap(desktop, "button", "Move")
    assert rows(desktop) == ["Downloads", "Pictures", "Music"]  # not the folder it is in
    tap(desktop, "listitem", "Downloads")
    assert title(desktop) == "Documents" and rows(desktop) == ["cv.docx"]
    assert names(phone, "Downloads") == ["map.zip", "plan.pdf"]
    want = state()
    want["folders"][1]["files"].append(want["folders"][0]["files"].pop(0))
    assert data(phone) == want


def test_delete_asks_then_sends_the_file_to_the_trash_and_restore_brings_it_back_last() -> None:
    desktop, phone = opened()
    tap(desktop, "listitem", "Documents")
    tap(desktop, "listitem", "plan.pdf")
    tap(desktop, "button", "Delete")
    assert find(desktop.a11y(), role="label", name='Delete "plan.pdf"? It goes to the Trash.')
    tap(desktop, "button", "Delete")  # the dialog's: it is in front
    assert title(desktop) == "Documents" and rows(desktop) == ["cv.docx"]
    assert data(phone)["trash"][-1] == {"name": "plan.pdf", "size": "120 KB", "folder": "Documents"}
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "Trash")
    assert rows(desktop) == ["old.pdf", "pic.jpg", "plan.pdf"]
    tap(desktop, "listitem", "plan.pdf")
    tap(desktop, "button", "Restore")
    assert title(desktop) == "Trash" and rows(desktop) == ["old.pdf", "pic.jpg"]
    want = state()
    want["folders"][0]["files"] = [want["folders"][0]["files"][1], want["folders"][0]["files"][0]]
    assert data(phone) == want
    tap(desktop, "listitem", "pic.jpg")
    tap(desktop, "button", "Restore")
    assert names(phone, "Pictures") == ["pic.jpg"] and [f["name"] for f in data(phone)["trash"]] == ["old.pdf"]


def test_delete_forever_asks_and_restore_refuses_a_name_taken_in_its_folder() -> None:
    taken = state()
    taken["folders"][0]["files"].append({"name": "old.pdf", "size": "1 KB"})
    desktop, phone = opened(taken)
    tap(desktop, "button", "Trash")
    tap(desktop, "listitem", "old.pdf")
    tap(desktop, "button", "Restore")
    assert find(desktop.a11y(), role="label", name='Documents already has a file named "old.pdf".')
    assert data(phone) == taken
    tap(desktop, "button", "Delete forever")
    tap(desktop, "button", "Cancel")
    assert data(phone) == taken
    tap(desktop, "button", "Delete forever")
    tap(desktop, "button", "Delete forever")  # the dialog's
    assert title(desktop) == "Trash" and rows(desktop) == ["pic.jpg"]
    assert data(phone) == {**taken, "trash": taken["trash"][1:]}


def test_new_folder_keeps_the_name_typed_and_makes_an_empty_folder_with_a_new_name() -> None:
    desktop, phone = opened()
    tap(desktop, "button", "New folder")
    fill(desktop, "Folder name", "music")
    assert data(phone) == {**state(), "new_folder": "music"}
    tap(desktop, "button", "Create")
    assert find(desktop.a11y(), role="label", name='There is already a folder named "music".')
    fill(desktop, "Folder name", "Trash")
    tap(desktop, "button", "Create")
    assert find(desktop.a11y(), role="label", name='There is already a folder named "Trash".')
    fill(desktop, "Folder name", "Receipts")
    tap(desktop, "button", "Create")
    assert title(desktop) == "Files" and rows(desktop) == ["Documents", "Downloads", "Pictures", "Music", "Receipts"]
    assert data(phone) == {**state(), "folders": [*state()["folders"], {"name": "Receipts", "files": []}]}
    tap(desktop, "listitem", "Documents")
    tap(desktop, "listitem", "cv.docx")
    tap(desktop, "button", "Move")
    tap(desktop, "listitem", "Receipts")
    assert names(phone, "Receipts") == ["cv.docx"]


def test_a_long_folder_scrolls_to_its_last_file() -> None:
    sample = files.sample(random.Random(5), 4, sizes={"Music": 40})
    desktop, _ = opened(sample)
    tap(desktop, "listitem", "Music")
    last = sample["folders"][3]["files"][-1]["name"]
    assert last not in rows(desktop)
    left, top, right, bottom = node(desktop, "list", "Music")["bounds"]
    x = (left + right) / 2
    for _ in range(10):
        if last in rows(desktop):
            break
        act(desktop, Swipe(Point(x, top + 0.8 * (bottom - top)), Point(x, top + 0.2 * (bottom - top))))
    assert rows(desktop)[-1] == last


def test_a_notification_opens_its_file_folder_or_the_trash() -> None:
    desktop, phone = phone_with(state())
    before = phone.state()
    phone.open_app("files", "map.zip")
    assert title(desktop) == "map.zip"
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Downloads"
    phone.open_app("files", "Trash")
    assert title(desktop) == "Trash"
    phone.open_app("files", "Music")
    assert title(desktop) == "Music" and phone.state() == before


def test_the_sample_is_seeded_json_with_names_unique_on_the_phone() -> None:
    one = files.sample(random.Random(3), 6, sizes={"Pictures": 30}, trash=5)
    assert one == files.sample(random.Random(3), 6, sizes={"Pictures": 30}, trash=5)
    assert json.loads(json.dumps(one)) == one
    assert [f["name"] for f in one["folders"]] == list(files.FOLDERS)
    assert [len(f["files"]) for f in one["folders"]] == [6, 6, 30, 6] and len(one["trash"]) == 5
    every = [f["name"] for d in one["folders"] for f in d["files"]] + [f["name"] for f in one["trash"]]
    assert len(every) == len(set(every))
    assert {f["folder"] for f in one["trash"]} <= set(files.FOLDERS)
