"""``browser`` ("Browser"): a small web and a phone browser for it. The root shows the current tab's
page: an Address field (Enter opens the page at the address typed), the page's address, title and
text, and its links (tapping one opens that page in the tab). Back goes to the page before, then
closes the app. The toolbar: "Add bookmark" / "Remove bookmark" (the page shown), Bookmarks (tap one
to open it, long press to remove it), History (newest first: tap to open, long press to remove one
entry, the toolbar's "Clear history" asks, then removes them all) and Tabs (tap one to show it, long
press to close it, the toolbar's "New tab" opens an empty one).

The state (``phone.app_data("browser")``), all of it seeded by ``sample``:

* ``pages``: the web, ``{"address", "title", "text", "links"}`` each (``text`` its lines, ``links``
  the titles of the pages it links to); the app never changes it;
* ``tabs``: the open tabs, ``{"address", "back"}`` each (``address`` "" for an empty tab, ``back`` the
  addresses to go back to, the last first); ``tab``: the index of the tab shown;
* ``bookmarks``: the bookmarked addresses, oldest first;
* ``history``: every visit, oldest first, ``{"address", "title", "via"}``, where ``via`` is how the
  page was opened: ``link``, ``typed`` (the Address field), ``bookmark``, ``history`` or
  ``notification`` (going back is no visit);
* ``address``: the Address field's text as it is edited (emptied when a page opens from it).

Evaluators use ``page``, ``links_from`` and ``browsed`` (the state differs by browsing alone).
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable
from typing import Any

from PIL import ImageDraw

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.events import MouseEvent
from cua_bench.sim.geometry import Rect
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.render import LINE_HEIGHT, draw_text, focus_ring, text_width
from cua_bench.sim.textwidgets import TextField
from cua_bench_tasks_sim._phone.words import CITIES

__all__ = ["VIAS", "BrowserApp", "browsed", "links_from", "page", "sample", "tab_row"]

VIAS = ("link", "typed", "bookmark", "history", "notification")
Page = dict[str, Any]
State = dict[str, Any]

# --- the web ---------------------------------------------------------------------------------

_SECTIONS = ["World", "Science", "Business", "Culture", "Tech", "Health", "Sport", "Politics", "Travel"]
_DISHES = ["Lemon cake", "Tomato soup", "Pancakes", "Fish pie", "Lentil curry", "Apple crumble", "Risotto",
           "Banana bread", "Chili", "Gazpacho", "Carrot cake", "Dumplings"]  # fmt: skip
_ITEMS = ["Bike lights", "Rain jackets", "Desk lamps", "Headphones", "Running shoes", "Backpacks", "Phone cases",
          "Coffee grinders", "Tents", "Umbrellas", "Water bottles", "Sunglasses"]  # fmt: skip
_GENRES = ["Jazz", "Folk", "Techno", "Reggae", "Blues", "Opera", "Funk", "Punk", "Salsa", "Soul"]
_WEATHER = ["sunny", "cloudy", "light rain", "windy", "foggy", "showers", "clear skies", "snow"]
_ADJECTIVES = ["new", "quiet", "busy", "long", "short", "cheap", "popular", "late", "early", "local"]
_THINGS = ["rail line", "market", "museum", "bridge", "festival", "park", "harbour", "library", "stadium", "school"]


def _slug(text: str) -> str:
    return text.lower().replace(" ", "-")


def _pool(rng: random.Random) -> list[Page]:
    """Candidate pages (no links yet), with distinct addresses and titles."""
    pages: list[Page] = []

    def add(site: str, name: str, title: str, text: str) -> None:
        pages.append({"address": f"{site}.example/{_slug(name)}", "title": title, "text": textwrap.wrap(text, 40)})

    for section in _SECTIONS:
        thing = f"{rng.choice(_ADJECTIVES)} {rng.choice(_THINGS)}"
        add("news", section, f"{section} news", f"Top story: a {thing} opens. More {section.lower()} stories below.")
    for city in rng.sample(CITIES, 12):
        weather, degrees = rng.choice(_WEATHER), rng.randint(2, 33)
        add("weather", city, f"{city} weather", f"Today in {city}: {weather}, {degrees} C. Tomorrow much the same.")
        hotels, price = rng.randint(12, 240), rng.randint(40, 190)
        add("travel", city, f"Hotels in {city}", f"{hotels} hotels in {city}, from {price} a night.")
        people = rng.randint(1, 90) * 10000 + rng.randint(0, 9999)
        add(
            "wiki",
            city,
            f"{city} - Wiki",
            f"{city} is a city known for its {rng.choice(_THINGS)}. Population: {people}.",
        )
    for dish in _DISHES:
        serves, minutes = rng.randint(2, 8), rng.randint(2, 12) * 5
        add("recipes", dish, f"{dish} recipe", f"{dish}: serves {serves}, ready in {minutes} minutes.")
    for item in _ITEMS:
        add("shop", item, item, f"{rng.randint(3, 40)} {item.lower()} in stock, from {rng.randint(5, 150)}.")
    for genre in _GENRES:
        add("music", genre, f"{genre} playlists", f"{rng.randint(5, 60)} {genre.lower()} playlists, updated weekly.")
    return pages


def _web(rng: random.Random, count: int) -> list[Page]:
    """``count`` pages, each reachable by links from the first: every page after the first is linked
    from an earlier one, and every page has two to four links."""
    pages = rng.sample(_pool(rng), count)
    links: list[list[int]] = [[] for _ in pages]
    for index in range(1, count):
        links[rng.randrange(index)].append(index)
    for index in range(count):
        want = min(count - 1, rng.randint(2, 4))
        others = [other for other in range(count) if other != index and other not in links[index]]
        rng.shuffle(others)
        while len(links[index]) < want and others:
            links[index].append(others.pop())
        rng.shuffle(links[index])
    for page, linked in zip(pages, links, strict=True):
        page["links"] = [pages[other]["title"] for other in linked]
    return pages


def sample(rng: random.Random, count: int, *, tabs: int = 1, bookmarks: int = 2, history: int = 3) -> State:
    """A web of ``count`` pages (every one reachable by links from the first), ``tabs`` tabs (the
    first, shown, on the first page; the others on other pages), ``bookmarks`` and ``history``
    (visits) of distinct pages, at most as many as there are pages."""
    pages = _web(rng, count)
    others = rng.sample(pages[1:], min(count - 1, tabs - 1))
    opened = [{"address": pages[0]["address"], "back": []}] + [{"address": p["address"], "back": []} for p in others]
    visits = rng.sample(pages, min(count, history))
    return {
        "pages": pages,
        "tabs": opened,
        "tab": 0,
        "bookmarks": [p["address"] for p in rng.sample(pages, min(count, bookmarks))],
        "history": [
            {"address": p["address"], "title": p["title"], "via": rng.choice(("link", "typed"))} for p in visits
        ],
        "address": "",
    }


# --- what evaluators and oracles share -------------------------------------------------------


def page(state: State, key: str) -> Page | None:
    """The page whose address or title is ``key``."""
    return next((p for p in state.get("pages", []) if key in (p["address"], p["title"])), None)


def links_from(state: State, address: str) -> list[str]:
    """The addresses the page at ``address`` links to."""
    found = page(state, address)
    if found is None:
        return []
    return [linked["address"] for title in found["links"] if (linked := page(state, title)) is not None]


def tab_row(state: State, index: int) -> str:
    """Tab ``index``'s row on the Tabs screen: ``2. World news`` (``New tab`` when it is empty)."""
    found = page(state, state["tabs"][index]["address"])
    return f"{index + 1}. {found['title'] if found else 'New tab'}"


def browsed(before: State, after: State) -> bool:
    """Whether ``after``'s tabs and history differ from ``before``'s by browsing alone: as many tabs,
    the history only grown, by visits to pages of the web, and each tab as it was or on a page visited
    since (any tab shown). What else differs is for the caller to compare."""
    old, new = before.get("history", []), after.get("history", [])
    if len(after.get("tabs", [])) != len(before.get("tabs", [])) or new[: len(old)] != old:
        return False
    visited = set()
    for visit in new[len(old) :]:
        found = page(before, visit["address"])
        if found is None or visit["title"] != found["title"] or visit["via"] not in VIAS:
            return False
        visited.add(visit["address"])
    if not 0 <= after.get("tab", 0) < len(after["tabs"]):
        return False
    return all(tab == was or tab["address"] in visited for tab, was in zip(after["tabs"], before["tabs"], strict=True))


# --- the app ---------------------------------------------------------------------------------


class _Rows(ListView):
    """A list whose rows are places to go: a tap calls ``on_tap`` with the row's index, a long press
    ``on_hold`` (no selection is kept: a row tapped again after back opens again)."""

    navigates = True

    def __init__(self, name: str, source: Callable[[], list[str]], on_tap: Callable[[int], Any],
                 on_hold: Callable[[int], Any] | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(name, source(), on_select=self._tapped, **kw)
        self.source = source
        self.on_tap = on_tap
        self.on_hold = on_hold

    def refresh(self) -> None:
        self.set_items(self.source())

    def _tapped(self, _: ListView) -> None:
        index = self.selected_index
        self.selected_index = None
        if index is not None:
            self.on_tap(index)

    def on_context(self, event: MouseEvent) -> bool:
        if self.on_hold is None:
            return False
        self.focus()
        index = self.index_at(event.y)
        if index is not None:
            self.on_hold(index)
        return True


class _Link(Button):
    """A link on a page: a button read as a ``link``, and a place to go rather than an input."""

    role = "link"
    navigates = True

    def preferred_size(self, available_width: int) -> tuple[int, int]:
        return min(available_width, int(text_width(self.name)) + 8), 26

    def paint(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.rect
        color = (120, 40, 160) if self._pressed else (20, 80, 200)
        top = r.y + (r.height - LINE_HEIGHT) // 2
        draw_text(draw, r.x + 4, top, self.name, color, max_width=r.width - 8)
        width = min(text_width(self.name), r.width - 8)
        draw.line([(r.x + 4, top + LINE_HEIGHT - 3), (r.x + 4 + width, top + LINE_HEIGHT - 3)], fill=color)
        if self.has_focus:
            focus_ring(draw, r)


class _PageScreen(Screen):
    """The root: back goes to the tab's page before, when it has one."""

    def __init__(self, area: Rect, on_back: Callable[[], bool], *, app: str) -> None:
        super().__init__(area, "", app=app)
        self._on_back = on_back

    def on_back(self) -> bool:
        return self._on_back()


@register_phone_app
class BrowserApp(PhoneApp):
    name = "browser"
    label = "Browser"

    # --- the state (read freely; written only when the person changes something) ---------------

    @property
    def tabs(self) -> list[dict[str, Any]]:
        return self.data.get("tabs") or [{"address": "", "back": []}]

    @property
    def tab_index(self) -> int:
        return max(0, min(int(self.data.get("tab", 0)), len(self.tabs) - 1))

    @property
    def bookmarks(self) -> list[str]:
        return list(self.data.get("bookmarks", []))

    @property
    def history(self) -> list[dict[str, str]]:
        return list(self.data.get("history", []))

    @property
    def current(self) -> Page | None:
        return page(self.data, self.tabs[self.tab_index]["address"])

    def _own(self, key: str, default: Any) -> Any:
        """The stored value, stored first when the seed had none (only when something changes)."""
        if key not in self.data:
            self.data[key] = default
        return self.data[key]

    def _own_tab(self) -> dict[str, Any]:
        tabs = self._own("tabs", [{"address": "", "back": []}])
        tab: dict[str, Any] = tabs[self.tab_index]
        tab.setdefault("back", [])
        return tab

    def _title(self, address: str) -> str:
        found = page(self.data, address)
        return found["title"] if found else address

    # --- the root: the page shown ----------------------------------------------------------------

    def start(self) -> None:
        self.notice = ""
        self.page_widgets: list[Any] = []
        root = _PageScreen(self.phone.work_area, self._back_a_page, app=self.name)
        self.root = root
        self.address = TextField("Address", str(self.data.get("address", "")), placeholder="Type an address",
                                 on_change=self._typed, on_submit=lambda _: self.open_address())  # fmt: skip
        root.add(self.address)
        self.tabs_button = root.add_action("Tabs", str(len(self.tabs)), lambda _: self.show_tabs())
        root.add_action("History", "Hist", lambda _: self.show_history())
        root.add_action("Bookmarks", "Bks", lambda _: self.show_bookmarks())
        self.mark_button = root.add_action("Add bookmark", "+*", lambda _: self.toggle_bookmark())
        self.push(root)
        self.render()

    def _typed(self, field: TextField) -> None:
        self.data["address"] = field.text

    def render(self) -> None:
        """Lay the page shown out below the Address field, and the toolbar for it."""
        root = self.root
        for widget in self.page_widgets:
            root.remove(widget)
        self.page_widgets = []
        if root.focus_widget is None:  # the link tapped is gone: the keyboard goes to the Address field
            root.set_focus(self.address)
        shown = self.current
        root.title = shown["title"] if shown else "New tab"
        marked = shown is not None and shown["address"] in self.bookmarks
        self.mark_button.name = "Remove bookmark" if marked else "Add bookmark"
        self.mark_button.glyph = "*" if marked else "+*"
        self.mark_button.enabled = shown is not None
        self.tabs_button.glyph = str(len(self.tabs))
        y = self.address.rect.bottom + 8
        width = root.rect.width - 24

        def place(widget: Any, gap: int = 6) -> None:
            nonlocal y
            root.add(widget)
            self.page_widgets.append(widget)
            y = widget.rect.bottom + gap

        if self.notice:
            place(Label(self.notice, x=12, y=y, width=width, color=(170, 30, 30)))
        if shown is None:
            place(Label("New tab", size=18, x=12, y=y, width=width))
            place(Label("Type an address above and press Enter.", x=12, y=y, width=width))
            return
        place(Label(shown["address"], size=12, x=12, y=y, width=width), 2)
        place(Label(shown["title"], size=18, x=12, y=y, width=width), 8)
        place(Label("\n".join(shown["text"]), x=12, y=y, width=width), 12)
        if shown["links"]:
            place(Label("Links", size=12, x=12, y=y, width=width), 4)
        for title in shown["links"]:
            place(_Link(title, lambda _, title=title: self.follow(title), x=12, y=y), 4)

    def show_root(self) -> None:
        while self.pop():
            pass
        self.render()

    # --- going places ----------------------------------------------------------------------------

    def go(self, address: str, via: str) -> None:
        """Open the page at ``address`` in the tab shown: a visit, by ``via``."""
        found = page(self.data, address)
        if found is None:
            return
        tab = self._own_tab()
        if tab["address"]:
            tab["back"].append(tab["address"])
        tab["address"] = found["address"]
        self._own("history", []).append({"address": found["address"], "title": found["title"], "via": via})
        self.notice = ""
        self.show_root()

    def follow(self, title: str) -> None:
        found = page(self.data, title)
        if found is not None:
            self.go(found["address"], "link")

    def open_address(self) -> None:
        typed = self.address.text.strip()
        for prefix in ("https://", "http://", "www."):
            typed = typed.removeprefix(prefix)
        typed = typed.rstrip("/").lower()
        found = page(self.data, typed) if typed else None
        if found is None or typed != found["address"]:
            self.notice = f"No page at {typed}" if typed else ""
            self.render()
            return
        self.address.text = ""  # through on_change: the field's text in the state empties too
        self.go(found["address"], "typed")

    def _back_a_page(self) -> bool:
        tab = self.tabs[self.tab_index]
        if not tab.get("back"):
            return False
        tab = self._own_tab()
        tab["address"] = tab["back"].pop()
        self.notice = ""
        self.render()
        return True

    def toggle_bookmark(self) -> None:
        shown = self.current
        if shown is None:
            return
        marks = self._own("bookmarks", [])
        if shown["address"] in marks:
            marks.remove(shown["address"])
        else:
            marks.append(shown["address"])
        self.render()

    # --- bookmarks, history, tabs ------------------------------------------------------------------

    def _refresh(self) -> None:
        for screen in self.stack:
            for widget in screen.all_widgets():
                if isinstance(widget, _Rows):
                    widget.refresh()
                elif widget is getattr(self, "tab_hint", None):
                    widget.name = self._tab_hint()
        self.render()

    def _list_screen(self, title: str, hint: str, rows: _Rows) -> Screen:
        screen = self.screen(title)
        screen.add(Label(hint, size=12))
        screen.add(rows, fill=True)
        return screen

    def show_bookmarks(self) -> None:
        def remove(index: int) -> None:
            address = self.bookmarks[index]

            def yes() -> None:
                self._own("bookmarks", []).remove(address)
                self._refresh()

            self.confirm(f'Remove the bookmark "{self._title(address)}"?', "Remove", yes)

        rows = _Rows("Bookmarks", lambda: [self._title(a) for a in self.bookmarks],
                     lambda index: self.go(self.bookmarks[index], "bookmark"), remove)  # fmt: skip
        self.push(self._list_screen("Bookmarks", "Tap a bookmark to open it; long press to remove it.", rows))

    def show_history(self) -> None:
        def stored(index: int) -> int:  # rows are newest first
            return len(self.history) - 1 - index

        def remove(index: int) -> None:
            at = stored(index)
            visit = self.history[at]

            def yes() -> None:
                del self._own("history", [])[at]
                self._refresh()

            self.confirm(f'Remove "{visit["title"]}" from history?', "Remove", yes)

        def clear() -> None:
            def yes() -> None:
                self._own("history", []).clear()
                self._refresh()

            if self.history:
                self.confirm("Clear all history?", "Clear", yes)

        rows = _Rows("History", lambda: [visit["title"] for visit in reversed(self.history)],
                     lambda index: self.go(self.history[stored(index)]["address"], "history"), remove)  # fmt: skip
        screen = self._list_screen("History", "Newest first. Tap to open a page; long press to remove it.", rows)
        screen.add_action("Clear history", "Clear", lambda _: clear())
        self.push(screen)

    def show_tabs(self) -> None:
        def switch(index: int) -> None:
            if index != self.tab_index:
                self.data["tab"] = index
            self.notice = ""
            self.show_root()

        def close(index: int) -> None:
            def yes() -> None:
                tabs = self._own("tabs", [{"address": "", "back": []}])
                shown = self.tab_index
                del tabs[index]
                if not tabs:
                    tabs.append({"address": "", "back": []})
                self.data["tab"] = shown - 1 if index < shown else min(shown, len(tabs) - 1)
                self._refresh()

            self.confirm(f'Close the tab "{tab_row(self._view(), index)}"?', "Close", yes)

        def new_tab() -> None:
            tabs = self._own("tabs", [{"address": "", "back": []}])
            tabs.append({"address": "", "back": []})
            self.data["tab"] = len(tabs) - 1
            self.notice = ""
            self.show_root()

        rows = _Rows("Tabs", lambda: [tab_row(self._view(), i) for i in range(len(self.tabs))], switch, close)
        screen = self.screen("Tabs")
        self.tab_hint = screen.add(Label(self._tab_hint(), size=12))
        screen.add(rows, fill=True)
        screen.add_action("New tab", "+", lambda _: new_tab())
        self.push(screen)

    def _tab_hint(self) -> str:
        return f"Tab {self.tab_index + 1} is shown. Tap a tab to show it; long press to close it."

    def _view(self) -> State:
        return {"pages": self.data.get("pages", []), "tabs": self.tabs}

    def open_target(self, target: str) -> None:
        """``target``: ``Bookmarks``, ``History`` or ``Tabs`` shows that screen over the page; a page's
        address opens it in the tab shown (a visit by ``notification``)."""
        screens = {"Bookmarks": self.show_bookmarks, "History": self.show_history, "Tabs": self.show_tabs}
        if target in screens:
            self.show_root()
            screens[target]()
        elif page(self.data, target) is not None:
            self.go(target, "notification")
