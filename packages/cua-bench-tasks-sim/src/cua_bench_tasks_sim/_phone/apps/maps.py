"""``maps`` ("Maps"): places nearby. Its root has a Search field and the places it lists (those whose
name or category holds the search, ignoring case and accents; all of them for an empty search), nearest
first, each row naming the place, its category and its distance. Tapping one opens it: its category,
distance and rating, Save (or Unsave, which asks, then forgets the place and its note), a Note field
while it is saved, and Directions: a travel mode (Drive, Walk, Bike, Transit) and Start, which starts a
route there and shows it. The root's toolbar opens Saved (the saved places; a tap opens one) and Route
(the route running, with End route).

The state (``phone.app_data("maps")``): ``places``, a list of ``{"name", "category", "distance",
"rating"}`` (distance in metres, rating in tenths of a star), ``query``, the Search field's text,
``saved``, a list of ``{"place", "note"}`` in the order they were saved, ``mode``, the travel mode the
Directions screen shows (the last one chosen), and ``route``, ``{"place", "mode"}`` while a route runs
(absent otherwise).
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Button, Label, RadioGroup
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField

if TYPE_CHECKING:
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = [
    "CATEGORIES",
    "MODES",
    "NOTES",
    "MapsApp",
    "atlas",
    "lists",
    "maps_root",
    "minutes",
    "nearest_first",
    "open_place",
    "open_saved_place",
    "place_row",
    "places",
    "sample",
    "search_allowed",
    "search_for",
]

MODES = ["Drive", "Walk", "Bike", "Transit"]
_SPEED = {"Drive": 500, "Walk": 80, "Bike": 250, "Transit": 300}  # metres a minute
_DOING = {"Drive": "driving", "Walk": "walking", "Bike": "cycling", "Transit": "by transit"}

_FIRST = [
    "Blue", "Old", "Green", "North", "River", "Golden", "Little", "Silver", "Red", "Maple", "Harbor", "Stone",
    "Sunny", "Elm", "Royal", "Cedar", "Willow", "Corner", "Lake", "Hill", "Bright", "Quiet", "Market", "Station",
]  # fmt: skip
# Each category and the second words of its places' names.
CATEGORIES: dict[str, list[str]] = {
    "Cafe": ["Bean", "Cup", "Roast", "Brew", "Kettle"],
    "Pharmacy": ["Chemist", "Apothecary", "Drugstore", "Remedies"],
    "Park": ["Gardens", "Commons", "Meadow", "Fields"],
    "Museum": ["Gallery", "Museum", "Collection", "Archive"],
    "Restaurant": ["Bistro", "Kitchen", "Grill", "Table"],
    "Bakery": ["Bakehouse", "Loaf", "Crust", "Oven"],
    "Library": ["Library", "Reading Room", "Books"],
    "Gym": ["Fitness", "Gym", "Studio"],
}
# No name or category holds an "x": a search with an "x" typed onto it lists none of them, so an
# evaluator that allows any search listing its place refuses one pushed a key further.
assert not any("x" in word.lower() for words in ([*_FIRST, *CATEGORIES], *CATEGORIES.values()) for word in words)

Place = dict[str, Any]


# --- how the app writes and finds things (families use these) ---------------------------------------


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower().strip()


def lists(place: Place, query: str) -> bool:
    """Whether the root lists ``place`` under the search ``query``."""
    wanted = _fold(query)
    return wanted in _fold(place["name"]) or wanted in _fold(place["category"])


def nearest_first(found: list[Place]) -> list[Place]:
    return sorted(found, key=lambda place: (place["distance"], place["name"]))


def place_row(place: Place) -> str:
    """A place's row in the root's list: ``Blue Bean · Cafe · 350 m``."""
    return f"{place['name']} · {place['category']} · {place['distance']} m"


def minutes(distance: int, mode: str) -> int:
    return max(1, round(distance / _SPEED[mode]))


# --- seeded data -------------------------------------------------------------------------------------


def places(rng: random.Random, categories: list[str]) -> list[Place]:
    """A place of each category in ``categories`` (in that order), distinct names and distances."""
    names: set[str] = set()
    distances: set[int] = set()
    found = []
    for category in categories:
        name = ""
        while not name or name in names:
            name = f"{rng.choice(_FIRST)} {rng.choice(CATEGORIES[category])}"
        distance = 0
        while not distance or distance in distances:
            distance = rng.randrange(8, 500) * 10
        names.add(name)
        distances.add(distance)
        found.append({"name": name, "category": category, "distance": distance, "rating": rng.randrange(28, 51)})
    return found


NOTES = ["open late", "good coffee", "ask for Sam", "closed on Mondays", "bring cash", "parking behind",
         "try the soup", "quiet in the morning", "meet Ada here", "free wifi"]  # fmt: skip


def atlas(rng: random.Random, categories: list[str], saved: int, *, notes: bool | None = None) -> dict[str, Any]:
    """Maps' whole state: ``places(rng, categories)``, ``saved`` of them saved (each with a note when
    ``notes``, none when False, either when None), an empty search and a travel mode; no route."""
    found = places(rng, categories)
    entries = []
    for place in rng.sample(found, min(saved, len(found))):
        note = rng.choice(NOTES) if notes or (notes is None and rng.random() < 0.5) else ""
        entries.append({"place": place["name"], "note": note})
    return {"places": found, "query": "", "saved": entries, "mode": rng.choice(MODES)}


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` places of several categories, one or two saved (with a note or none), an empty search
    and a travel mode; no route."""
    return atlas(rng, [rng.choice(sorted(CATEGORIES)) for _ in range(count)], rng.randint(1, 2))


def search_allowed(before: str, now: str, place: Place) -> bool:
    """Whether a search is one an evaluator lets pass as the agent's way of finding ``place``: the search
    setup left (``before``), or one that lists ``place``."""
    return now == before or lists(place, now)


# --- the app -----------------------------------------------------------------------------------------


@register_phone_app
class MapsApp(PhoneApp):
    name = "maps"
    label = "Maps"

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._refreshers: dict[int, Callable[[], None]] = {}  # by id(screen): shows the state again

    # --- the state (read freely; written only when the person changes something) ---------------------

    @property
    def places(self) -> list[Place]:
        found: list[Place] = self.data.get("places", [])
        return found

    @property
    def saved(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.data.get("saved", [])
        return found

    def _place(self, name: str) -> Place | None:
        return next((place for place in self.places if place["name"] == name), None)

    def _saved(self, name: str) -> dict[str, Any] | None:
        return next((entry for entry in self.saved if entry["place"] == name), None)

    def _listed(self) -> list[Place]:
        query = str(self.data.get("query", ""))
        return nearest_first([place for place in self.places if lists(place, query)])

    def _changed(self) -> None:
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

    def _tap_list(self, name: str, shown: Callable[[], list[Place]], screen: Screen,
                  row: Callable[[Place], str]) -> Callable[[], None]:  # fmt: skip
        """A list of places that a tap opens (no row stays chosen); returns its refresh."""
        view = ListView(name)
        rows: list[Place] = []

        def refresh() -> None:
            rows[:] = shown()
            view.set_items([row(place) for place in rows])

        def picked(_: Any) -> None:
            index = view.selected_index
            view.selected_index = None
            if index is not None and index < len(rows):
                self.open_place(rows[index]["name"])

        view.on_select = picked
        refresh()
        screen.add(view, fill=True)
        return refresh

    # --- screens -------------------------------------------------------------------------------------

    def _route_text(self) -> str:
        route = self.data.get("route")
        if not isinstance(route, dict):
            return "No route"
        return f"Route: {route['mode']} to {route['place']}"

    def start(self) -> None:
        banner = Label("")
        screen = self._screen("Maps")
        screen.add_action("Route", "Route", lambda _: self.open_route())
        screen.add_action("Saved", "Saved", lambda _: self.open_saved())
        screen.add(banner)

        def searched(field: Any) -> None:
            self.data["query"] = field.text
            self._changed()

        screen.add(TextField("Search", str(self.data.get("query", "")), placeholder="Search places",
                             on_change=searched))  # fmt: skip
        refresh_list = self._tap_list("Places", self._listed, screen, place_row)

        def refresh() -> None:
            banner.text = self._route_text()
            refresh_list()

        self._refreshers[id(screen)] = refresh
        refresh()
        self.push(screen)

    def open_place(self, name: str, *, replace: bool = False) -> None:
        """The place's screen (``replace``: instead of the one on top, the same place shown anew)."""
        place = self._place(name)
        if place is None:
            return
        entry = self._saved(name)

        def save(_: Any) -> None:
            if self._saved(name) is None:
                self.data.setdefault("saved", []).append({"place": name, "note": ""})
            self.open_place(name, replace=True)
            self._changed()

        def unsave() -> None:
            found = self._saved(name)
            if found is not None:
                self.saved.remove(found)
            self.open_place(name, replace=True)
            self._changed()

        def noted(field: Any) -> None:
            found = self._saved(name)
            if found is not None:
                found["note"] = field.text

        screen = self._screen(name)
        screen.add(Label(f"{place['category']} · {place['distance']} m away"))
        screen.add(Label(f"Rated {place['rating'] // 10}.{place['rating'] % 10} of 5"))
        if entry is None:
            screen.add(Button("Save", save))
        else:
            screen.add(Button("Unsave", lambda _: self.confirm(f'Remove "{name}" from Saved? Its note goes too.',
                                                               "Unsave", unsave)))  # fmt: skip
            screen.add(TextField("Note", str(entry["note"]), placeholder="Add a note", on_change=noted),
                       label="Note")  # fmt: skip
        screen.add(Button("Directions", lambda _: self.open_directions(name)))
        if replace:
            self.pop()
        self.push(screen)

    def open_directions(self, name: str) -> None:
        place = self._place(name)
        if place is None:
            return
        estimate = Label("")
        problem = Label("")

        def show() -> None:
            mode = self.data.get("mode")
            estimate.text = (f"About {minutes(place['distance'], mode)} min {_DOING[mode]}"
                             if mode in MODES else "Choose how to travel")  # fmt: skip

        def chose(group: Any) -> None:
            self.data["mode"] = group.selected
            problem.text = ""
            show()

        def begin(_: Any) -> None:
            mode = self.data.get("mode")
            if mode not in MODES:
                problem.text = "Choose a travel mode first"
                return
            self.data["route"] = {"place": name, "mode": mode}
            self.pop()
            self._changed()
            self.open_route()

        mode = self.data.get("mode")
        screen = self._screen(f"Directions to {name}")
        screen.add(Label(f"{place['distance']} m away"))
        screen.add(RadioGroup("Travel mode", MODES, mode if mode in MODES else None, on_change=chose))
        screen.add(estimate)
        screen.add(Button("Start", begin))
        screen.add(problem)
        show()
        self.push(screen)

    def open_route(self) -> None:
        text = Label("")
        end = Button("End route")

        def refresh() -> None:
            route = self.data.get("route")
            place = self._place(route["place"]) if isinstance(route, dict) else None
            if isinstance(route, dict) and place is not None:
                text.text = (f"{route['mode']} to {place['name']}, {place['distance']} m, "
                             f"about {minutes(place['distance'], route['mode'])} min")  # fmt: skip
            else:
                text.text = "No route"
            end.enabled = isinstance(route, dict)

        def stop(_: Any) -> None:
            if "route" in self.data:
                del self.data["route"]
                self._changed()

        end.on_click(stop)
        screen = self._screen("Route", refresh)
        screen.add(text)
        screen.add(end)
        refresh()
        self.push(screen)

    def open_saved(self) -> None:
        screen = self._screen("Saved")

        def shown() -> list[Place]:
            return [place for entry in self.saved if (place := self._place(entry["place"])) is not None]

        self._refreshers[id(screen)] = self._tap_list("Saved places", shown, screen, lambda place: place["name"])
        self.push(screen)

    def open_target(self, target: str) -> None:
        """``target`` is a place's name (it opens) or "saved" (the saved places), above the root."""
        if target != "saved" and self._place(target) is None:
            return
        while self.pop():
            pass
        if target == "saved":
            self.open_saved()
        else:
            self.open_place(target)


# --- the way there, for the families' oracles and wrong ways (through a kit.Hand only) ------------------


async def maps_root(hand: Hand) -> None:
    """Maps on screen at its root (launched, then back until its list of places shows)."""
    await hand.launch("Maps")
    while not await hand.shows("list", "Places"):
        await hand.button("back")


async def search_for(hand: Hand, text: str) -> None:
    """The root's Search field made to hold ``text`` ("" empties it)."""
    await hand.fill("Search", text)
    if not text:
        await hand.key("backspace")


async def open_place(hand: Hand, place: Place, search: str | None = None) -> None:
    """From the root, ``place`` opened: searched for by ``search`` (default: its name) and tapped."""
    await maps_root(hand)
    await search_for(hand, place["name"] if search is None else search)
    await hand.scroll_to("listitem", place_row(place), within=("list", "Places"))
    await hand.tap("listitem", place_row(place), within=("list", "Places"))


async def open_saved_place(hand: Hand, name: str) -> None:
    """From the root, Saved, then the saved place ``name``."""
    await maps_root(hand)
    await hand.tap("button", "Saved")
    await hand.scroll_to("listitem", name, within=("list", "Saved places"))
    await hand.tap("listitem", name, within=("list", "Saved places"))
