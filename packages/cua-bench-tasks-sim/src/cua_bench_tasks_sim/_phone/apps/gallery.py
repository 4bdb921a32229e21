"""``gallery`` ("Photos"): a camera roll. Its root lists the photos newest first (a long list: it
scrolls); tapping one opens it (its date, its album, a Favourite box, "Add to album", "Remove from
album", and the toolbar's Delete, which asks, then moves it to Recently deleted). The root's toolbar
opens Albums: the albums (tapping one lists its photos), "New album" (a name and Create) and "Recently
deleted" (tapping a photo there offers Restore and Delete permanently).

The state (``phone.app_data("gallery")``): ``photos``, a list of ``{"name", "date", "album",
"favourite", "deleted"}`` (``date`` ISO, ``album`` "" for none, a deleted photo stays in the list
marked ``deleted``), ``albums``, the album names in the order they were made, and ``new_album``, the
name typed on the New album screen while it is open (gone once it is created or the screen closes).
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Button, Checkbox, Label
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField

if TYPE_CHECKING:
    import cua_bench as cb
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = [
    "ALBUMS",
    "BIN",
    "ROLL",
    "GalleryApp",
    "add_to_album",
    "neighbour",
    "newest_first",
    "open_deleted",
    "open_photo",
    "photo_index",
    "row",
    "sample",
    "setup_photo",
    "shown_date",
    "to_roll",
]

ALBUMS = [
    "Holiday", "Family", "Pets", "Work", "Garden", "Birthday", "Concert", "Hiking", "Food", "Screenshots",
    "Wedding", "Beach", "Road trip", "Friends", "Recipes", "Museum", "Snow", "City walks",
]  # fmt: skip

Photo = dict[str, Any]

ROLL = ("list", "Camera roll")  # the root's list of photos
BIN = ("list", "Deleted photos")  # Recently deleted's list


def shown_date(iso: str) -> str:
    """``2024-03-07`` as the app shows it: ``7 Mar 2024``."""
    day = datetime.date.fromisoformat(iso)
    return f"{day.day} {day.strftime('%b')} {day.year}"


def row(photo: Photo) -> str:
    """A photo's row in the app's lists: ``IMG_0412 · 7 Mar 2024``."""
    return f"{photo['name']} · {shown_date(photo['date'])}"


def newest_first(photos: list[Photo]) -> list[Photo]:
    return sorted(photos, key=lambda photo: (photo["date"], photo["name"]), reverse=True)


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` photos in the roll (one to three more in Recently deleted), each a day or more after
    the one before with a higher number; two to four albums, about a third of the photos in one."""
    albums = rng.sample(ALBUMS, rng.randint(2, 4))
    deleted = rng.randint(1, 3)
    number = rng.randrange(1000, 8000)
    day = datetime.date(2023, 1, 1) + datetime.timedelta(days=rng.randrange(0, 600))
    gone = set(rng.sample(range(count + deleted), deleted))
    photos = []
    for index in range(count + deleted):
        photos.append({"name": f"IMG_{number:04d}", "date": day.isoformat(),
                       "album": rng.choice(albums) if rng.random() < 0.35 else "",
                       "favourite": rng.random() < 0.2, "deleted": index in gone})  # fmt: skip
        number += rng.randint(1, 7)
        day += datetime.timedelta(days=rng.randint(1, 4))
    return {"photos": photos, "albums": albums}


@register_phone_app
class GalleryApp(PhoneApp):
    name = "gallery"
    label = "Photos"

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._refreshers: dict[int, Callable[[], None]] = {}  # by id(screen): redraws it after a change

    # --- the state (read freely; written only when the person changes something) ---------------

    @property
    def photos(self) -> list[Photo]:
        found: list[Photo] = self.data.get("photos", [])
        return found

    @property
    def albums(self) -> list[str]:
        found: list[str] = self.data.get("albums", [])
        return found

    def _photo(self, name: str) -> Photo | None:
        return next((photo for photo in self.photos if photo["name"] == name), None)

    def _roll(self) -> list[Photo]:
        return newest_first([photo for photo in self.photos if not photo["deleted"]])

    def _changed(self) -> None:
        """Something in the state changed: every screen on the stack shows it."""
        for screen in self.stack:
            refresh = self._refreshers.get(id(screen))
            if refresh is not None:
                refresh()

    def _screen(self, title: str, refresh: Callable[[], None] | None = None) -> Screen:
        screen = self.screen(title)
        if refresh is not None:
            self._refreshers[id(screen)] = refresh

        def closed(_: Any) -> None:
            self._refreshers.pop(id(screen), None)

        screen.on_close = closed
        return screen

    def _photo_list(self, name: str, photos: Callable[[], list[Photo]], screen: Screen,
                    opened: Callable[[Photo], None]) -> ListView:  # fmt: skip
        """A list of photo rows that a tap opens (the row is not left selected: tapping it again after
        back opens it again, and the list holds no choice of its own)."""
        shown: list[Photo] = []
        view = ListView(name)

        def refresh() -> None:
            shown[:] = photos()
            view.set_items([row(photo) for photo in shown])

        def picked(_: Any) -> None:
            index = view.selected_index
            view.selected_index = None
            if index is not None and index < len(shown):
                opened(shown[index])

        view.on_select = picked
        refresh()
        screen.add(view, fill=True)
        self._refreshers[id(screen)] = refresh
        return view

    # --- screens -------------------------------------------------------------------------------

    def start(self) -> None:
        root = self._screen("Photos")
        root.add_action("Albums", "Albums", lambda _: self.open_albums())
        self._photo_list("Camera roll", self._roll, root, lambda photo: self.open_photo(photo["name"]))
        self.push(root)

    def open_photo(self, name: str) -> None:
        photo = self._photo(name)
        if photo is None:
            return
        if photo["deleted"]:
            self._open_deleted(photo)
            return
        taken = Label(f"Taken {shown_date(photo['date'])}")
        album = Label("")
        favourite = Checkbox("Favourite", photo["favourite"])
        remove = Button("Remove from album")

        def refresh() -> None:
            album.text = f"Album: {photo['album']}" if photo["album"] else "Not in an album"
            favourite.checked = photo["favourite"]
            remove.enabled = bool(photo["album"])

        def favoured(box: Any) -> None:
            photo["favourite"] = box.checked
            self._changed()

        def removed(_: Any) -> None:
            if photo["album"]:
                photo["album"] = ""
                self._changed()

        def delete() -> None:
            photo["deleted"] = True
            self.pop()
            self._changed()

        screen = self._screen(name, refresh)
        favourite.on_change = favoured
        remove.on_click(removed)
        for widget in (taken, album, favourite):
            screen.add(widget)
        screen.add(Button("Add to album", lambda _: self._choose_album(photo)))
        screen.add(remove)
        screen.add_action("Delete", "Del", lambda _: self.confirm(f'Delete "{name}"?', "Delete", delete))
        refresh()
        self.push(screen)

    def _choose_album(self, photo: Photo) -> None:
        screen = self._screen("Add to album")
        screen.add(Label(f"Put {photo['name']} in:"))
        if not self.albums:
            screen.add(Label("No albums yet: make one in Albums"))

        def picked(view: Any) -> None:
            index = view.selected_index
            view.selected_index = None
            if index is not None and index < len(self.albums):
                photo["album"] = self.albums[index]
                self.pop()
                self._changed()

        screen.add(ListView("Choose an album", list(self.albums), on_select=picked), fill=True)
        self.push(screen)

    def open_albums(self) -> None:
        screen = self._screen("Albums")
        screen.add_action("New album", "+", lambda _: self._new_album())
        screen.add_action("Recently deleted", "Bin", lambda _: self.open_deleted())
        view = ListView("Album list")

        def refresh() -> None:
            view.set_items(list(self.albums))

        def picked(_: Any) -> None:
            index = view.selected_index
            view.selected_index = None
            if index is not None and index < len(self.albums):
                self.open_album(self.albums[index])

        view.on_select = picked
        refresh()
        screen.add(view, fill=True)
        self._refreshers[id(screen)] = refresh
        self.push(screen)

    def open_album(self, album: str) -> None:
        screen = self._screen(album)

        def photos() -> list[Photo]:
            return [photo for photo in self._roll() if photo["album"] == album]

        self._photo_list(f"Photos in {album}", photos, screen, lambda photo: self.open_photo(photo["name"]))
        self.push(screen)

    def _new_album(self) -> None:
        screen = self._screen("New album")
        problem = Label("")

        def typed(field: Any) -> None:
            self.data["new_album"] = field.text

        def create(_: Any) -> None:
            name = field.text.strip()
            if not name:
                problem.text = "Give the album a name"
            elif name.lower() in (album.lower() for album in self.albums):
                problem.text = f'There is an album "{name}" already'
            else:
                self.data.setdefault("albums", []).append(name)
                self.pop()
                self._changed()

        def closed(_: Any) -> None:
            self._refreshers.pop(id(screen), None)
            self.data.pop("new_album", None)  # the draft goes with its screen

        field = TextField("Album name", placeholder="Album name", on_change=typed, on_submit=create)
        screen.add(field)
        screen.add(Button("Create", create))
        screen.add(problem)
        screen.on_close = closed
        self.push(screen)

    def open_deleted(self) -> None:
        screen = self._screen("Recently deleted")
        screen.add(Label("Restore a photo to put it back"))

        def photos() -> list[Photo]:
            return newest_first([photo for photo in self.photos if photo["deleted"]])

        self._photo_list("Deleted photos", photos, screen, self._open_deleted)
        self.push(screen)

    def _open_deleted(self, photo: Photo) -> None:
        name = photo["name"]
        screen = self._screen(name)

        def restore(_: Any) -> None:
            photo["deleted"] = False
            self.pop()
            self._changed()

        def erase() -> None:
            self.photos.remove(photo)
            self.pop()
            self._changed()

        screen.add(Label(f"Taken {shown_date(photo['date'])}"))
        screen.add(Label("In Recently deleted"))
        screen.add(Button("Restore", restore))
        screen.add(Button("Delete permanently", lambda _: self.confirm(f'Delete "{name}" for good?', "Delete",
                                                                       erase)))  # fmt: skip
        self.push(screen)

    def open_target(self, target: str) -> None:
        """``target`` is a photo's name: it opens above the camera roll."""
        if self._photo(target) is not None:
            while self.pop():
                pass
            self.open_photo(target)


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


def photo_index(task: cb.Task, name: str) -> int:
    """Where the photo ``name`` is in setup's list of photos."""
    photos = task.metadata["data"]["gallery"]["photos"]
    return next(i for i, p in enumerate(photos) if p["name"] == name)


def setup_photo(task: cb.Task, name: str) -> Photo:
    """A copy of setup's photo ``name``."""
    return dict(task.metadata["data"]["gallery"]["photos"][photo_index(task, name)])


def neighbour(task: cb.Task) -> Photo:
    """The photo after ``task.metadata["photo"]`` in the roll (before it, for the last)."""
    roll = newest_first([p for p in task.metadata["data"]["gallery"]["photos"] if not p["deleted"]])
    index = [p["name"] for p in roll].index(task.metadata["photo"])
    return dict(roll[index + 1] if index + 1 < len(roll) else roll[index - 1])


async def to_roll(hand: Hand) -> None:
    """Photos in front, at its camera roll."""
    await hand.launch("Photos")
    while not await hand.shows(*ROLL):
        await hand.button("back")


async def open_photo(hand: Hand, photo: Photo) -> None:
    """The photo's screen, from the roll scrolled to it."""
    await to_roll(hand)
    await hand.scroll_to("listitem", row(photo), within=ROLL)
    await hand.tap("listitem", row(photo), within=ROLL)


async def add_to_album(hand: Hand, photo: Photo, album: str) -> None:
    """The photo opened from the roll, then Add to album and the album ``album`` chosen."""
    await open_photo(hand, photo)
    await hand.tap("button", "Add to album")
    await hand.scroll_to("listitem", album, within=("list", "Choose an album"))
    await hand.tap("listitem", album, within=("list", "Choose an album"))


async def open_deleted(hand: Hand, photo: Photo) -> None:
    """The deleted photo's screen, through Albums and Recently deleted."""
    await to_roll(hand)
    await hand.tap("button", "Albums")
    await hand.tap("button", "Recently deleted")
    await hand.scroll_to("listitem", row(photo), within=BIN)
    await hand.tap("listitem", row(photo), within=BIN)
