"""The phone surface on the sim desktop: chrome, launcher, back/home/recents, swipes, notifications."""

from __future__ import annotations

from typing import Any

import pytest

from cua_bench.nodes import center, find
from cua_bench.sim import Dropdown, ListView, SimDesktop, Window
from cua_bench.sim.phone import NAV_HEIGHT, STATUS_HEIGHT, NotesApp, Phone
from cua_core.actions import Action, LongPress, OpenApp, Point, Swipe, SystemButton, Tap, TypeText, from_pixels

W, H = 360, 720


def phone_desktop(seed: int = 0, notes: int = 0) -> tuple[SimDesktop, Phone]:
    desktop = SimDesktop(W, H, seed)
    phone = Phone.install(desktop, ["notes"])  # the surface's own app alone: other packages register more
    if notes:
        phone.app_data("notes")["notes"] = [{"title": f"Note {i}", "body": f"body {i}"} for i in range(notes)]
    return desktop, phone


def node(desktop: SimDesktop, role: str, name: str | None = None) -> dict[str, Any]:
    return find(desktop.a11y(), role=role, name=name)


def act(desktop: SimDesktop, *actions: Action) -> None:
    for action in actions:
        assert desktop.apply(action) is None, action


def tap(desktop: SimDesktop, role: str, name: str | None = None) -> None:
    act(desktop, Tap(center(node(desktop, role, name))))


def at(x: int, y: int) -> Point:
    return from_pixels(x, y, W, H)


def top(desktop: SimDesktop) -> Window:
    window = desktop.focused_window
    assert window is not None
    return window


def test_install_makes_portrait_chrome_with_named_a11y_nodes() -> None:
    desktop, phone = phone_desktop()
    assert desktop.phone is phone and desktop.render().size == (W, H)
    assert phone.work_area.y == STATUS_HEIGHT and phone.work_area.bottom == H - NAV_HEIGHT
    tree = desktop.a11y()
    assert [n["role"] for n in tree] == ["statusbar", "window", "navbar"]  # only the launcher is in view
    assert [b["name"] for b in tree[-1]["children"]] == ["Back", "Home", "Recents"]
    assert tree[1]["name"] == "Home" and find(tree, role="button", name="Notes")
    assert {c["name"] for c in tree[0]["children"]} == {"Clock", "Battery"}
    assert top(desktop).rect.y == STATUS_HEIGHT  # the launcher fills the work area
    with pytest.raises(ValueError, match="portrait"):
        Phone.install(SimDesktop(720, 360))
    with pytest.raises(ValueError, match="already"):
        Phone.install(desktop)


def test_launcher_tap_opens_notes_and_screens_do_not_move() -> None:
    desktop, phone = phone_desktop()
    tap(desktop, "button", "Notes")
    assert phone.current == "notes" and top(desktop).title == "Notes"
    rect = top(desktop).rect
    act(desktop, Swipe(at(60, STATUS_HEIGHT + 10), at(200, STATUS_HEIGHT + 200)))  # a drag on the title bar
    assert top(desktop).rect == rect
    assert desktop.provenance.clicks[-1].part == "title" and desktop.provenance.clicks[-1].touch == "swipe"


def test_back_pops_a_sub_screen_then_closes_the_app_to_home() -> None:
    desktop, phone = phone_desktop()
    tap(desktop, "button", "Notes")
    tap(desktop, "listitem", "Ideas")
    assert top(desktop).title == "Ideas" and node(desktop, "textbox", "Note")["value"] == "a phone on the sim"
    act(desktop, SystemButton("back"))
    assert top(desktop).title == "Notes"
    tap(desktop, "listitem", "Ideas")  # the same note opens again after back
    assert top(desktop).title == "Ideas"
    act(desktop, SystemButton("back"), SystemButton("back"))
    assert phone.current is None and "notes" not in phone.running and top(desktop) is phone.launcher


def test_new_note_toolbar_button_saves_and_back_discards() -> None:
    desktop, phone = phone_desktop()
    tap(desktop, "button", "Notes")
    tap(desktop, "button", "New note")
    assert top(desktop).title == "New note"
    act(desktop, SystemButton("back"))
    assert top(desktop).title == "Notes" and len(phone.app_data("notes")["notes"]) == 3
    tap(desktop, "button", "New note")
    tap(desktop, "textbox", "Title")
    act(desktop, TypeText("Plan"))
    tap(desktop, "button", "Save")
    assert top(desktop).title == "Notes" and phone.app_data("notes")["notes"][-1]["title"] == "Plan"
    assert node(desktop, "listitem", "Plan")


def test_home_keeps_the_app_and_recents_switch_and_close() -> None:
    desktop, phone = phone_desktop()
    tap(desktop, "button", "Notes")
    tap(desktop, "listitem", "Groceries")
    act(desktop, SystemButton("home"))
    assert top(desktop) is phone.launcher and phone.current is None and phone.recents == ["notes"]
    act(desktop, SystemButton("recent"))
    assert phone.recents_open and top(desktop).title == "Recents"
    tap(desktop, "button", "Notes")
    assert not phone.recents_open and top(desktop).title == "Groceries"  # its screen stack came back
    act(desktop, SystemButton("recent"))
    tap(desktop, "button", "Close Notes")
    assert phone.running == {} and phone.current is None
    assert phone.recents_open and node(desktop, "label", "No recent apps")
    with pytest.raises(LookupError):
        node(desktop, "button", "Close Notes")
    act(desktop, SystemButton("back"))
    assert not phone.recents_open and top(desktop) is phone.launcher


def test_nav_bar_buttons_act_like_system_buttons() -> None:
    desktop, phone = phone_desktop()
    tap(desktop, "button", "Notes")
    tap(desktop, "listitem", "Ideas")
    tap(desktop, "button", "Back")
    assert top(desktop).title == "Notes" and desktop.provenance.clicks[-1].part == "nav bar"
    tap(desktop, "button", "Home")
    assert phone.current is None and phone.recents == ["notes"]
    tap(desktop, "button", "Recents")
    assert phone.recents_open


def test_swipe_up_on_the_notes_list_scrolls_it_down_and_down_scrolls_back() -> None:
    desktop, phone = phone_desktop(notes=40)
    tap(desktop, "button", "Notes")
    view = desktop.find("list", "Notes")
    assert isinstance(view, ListView) and view.scroll_top == 0
    act(desktop, Swipe(at(180, 500), at(180, 300)))  # finger up: content up, scrolled down
    down = view.scroll_top
    assert down > 0 and top(desktop).title == "Notes" and view.selected_index is None
    act(desktop, Swipe(at(180, 300), at(180, 420)))
    assert 0 <= view.scroll_top < down
    assert [g.kind for g in phone.gestures] == ["scroll", "scroll"]


def test_shade_opens_from_the_status_bar_and_its_notification_opens_the_target() -> None:
    desktop, phone = phone_desktop()
    note = phone.notify("notes", "Reminder", "read this", target="Call back")
    assert node(desktop, "image", "Notification: Reminder")["value"] == "notes"
    act(desktop, Swipe(at(180, 5), at(180, 400)))
    assert phone.shade_open and top(desktop).title == "Notifications"
    act(desktop, Swipe(at(180, 400), at(180, 100)))
    assert not phone.shade_open and top(desktop) is phone.launcher
    act(desktop, Swipe(at(180, 5), at(180, 400)))
    tap(desktop, "button", "Reminder")
    assert note.opened and not phone.shade_open and top(desktop).title == "Call back"
    assert phone.pending() == [] and not [c for c in desktop.a11y()[0]["children"] if c["role"] == "image"]
    act(desktop, SystemButton("back"))
    assert top(desktop).title == "Notes"  # the target opened above the app's root


def test_long_press_is_recorded_as_one_and_other_buttons_are_refused() -> None:
    desktop, _ = phone_desktop()
    act(desktop, LongPress(at(180, 300)))
    assert desktop.provenance.clicks[-1].touch == "long_press" and desktop.provenance.clicks[-1].button == "right"
    result = desktop.apply(SystemButton("power"))
    assert isinstance(result, str) and "power" in result
    assert desktop.apply(SystemButton("enter")) is None  # the keyboard's Enter, which converted data uses
    assert desktop.provenance.keys[-1].key == "enter"


def test_open_app_brings_an_app_up_by_label_or_name_in_any_case() -> None:
    desktop, phone = phone_desktop(notes=2)
    act(desktop, OpenApp("NOTES"))
    assert phone.current == "notes" and top(desktop).title == "Notes"
    tap(desktop, "listitem", "Note 1")
    act(desktop, SystemButton("home"), OpenApp("notes"))  # the running app comes back where it was
    assert phone.current == "notes" and top(desktop).title == "Note 1"
    tap(desktop, "button", "Delete")  # a dialog waits for an answer: open_app, as home, waits too
    result = desktop.apply(OpenApp("Notes"))
    assert isinstance(result, str) and "dialog" in result
    tap(desktop, "button", "Cancel")
    result = desktop.apply(OpenApp("Camera"))
    assert result == "open_app: the phone has no app 'Camera'; its apps are Notes"
    result = SimDesktop(W, H).apply(OpenApp("Notes"))
    assert isinstance(result, str) and result.startswith("open_app: the sim desktop opens apps from its windows")


def test_a_swipe_on_an_open_list_scrolls_it_and_back_only_closes_it() -> None:
    """As on Android: the finger scrolls a dropdown's open list (it does not choose the row it lands on),
    and back closes the list without leaving the screen."""
    desktop, phone = phone_desktop(notes=1)
    app = phone.open_app("notes")
    screen = app.push(app.screen("Pick"))
    hours = screen.add(Dropdown("Hour", [f"{h:02d}" for h in range(24)], selected="00"))
    tap(desktop, "combobox", "Hour")
    popup = desktop.popup
    assert popup is not None and popup.top == 0
    left, upper, right, lower = popup.rect.box()
    act(desktop, Swipe(at((left + right) // 2, lower - 20), at((left + right) // 2, upper + 20)))
    assert desktop.popup is popup and popup.top > 0 and hours.selected == "00" and phone.gestures[-1].kind == "scroll"
    act(desktop, SystemButton("back"))
    assert desktop.popup is None and top(desktop).title == "Pick" and hours.selected == "00"


def test_a_session_launches_a_phone_app_by_name_or_label() -> None:
    """What a task's setup calls (``session.launch``) reaches the phone's apps, as the desktop's apps."""
    desktop, phone = phone_desktop(notes=2)
    window = desktop.launch("Notes", target="Note 1")
    assert phone.current == "notes" and window is top(desktop) and window.title == "Note 1"
    with pytest.raises(ValueError, match="has no app 'editor'"):
        desktop.launch("editor")
    with pytest.raises(ValueError, match="takes target=, not path"):
        desktop.launch("notes", path="x")


def test_system_button_without_a_phone_is_still_refused() -> None:
    result = SimDesktop(W, H).apply(SystemButton("home"))
    assert isinstance(result, str) and "system_button" in result and "no 'home'" in result


def test_same_seed_and_actions_give_identical_frames() -> None:
    script: list[Action] = [Tap(at(60, 100)), Swipe(at(180, 5), at(180, 400)), SystemButton("back"),
                            SystemButton("home"), SystemButton("recent")]  # fmt: skip
    frames = []
    for _ in range(2):
        desktop, phone = phone_desktop(seed=7, notes=30)
        phone.notify("notes", "Hi", "there")
        tap(desktop, "button", "Notes")
        act(desktop, Swipe(at(180, 500), at(180, 200)), *script)
        frames.append(desktop.frame())
    assert frames[0] == frames[1]
    other, _ = phone_desktop(seed=8)
    assert other.frame() != phone_desktop(seed=7)[0].frame()  # the clock and battery come from the seed


def test_notes_app_is_registered_and_unknown_apps_are_refused() -> None:
    _, phone = phone_desktop()
    assert isinstance(phone.open_app("notes"), NotesApp)
    with pytest.raises(ValueError, match="no phone app"):
        Phone.install(SimDesktop(W, H), apps=["camera"])
    with pytest.raises(ValueError, match="no app"):
        phone.notify("camera", "x")
