"""``calendar`` ("Calendar"): a month's events. Its root lists them in date order, one row each
("Wed 12 Mar · 09:30 Dentist": day, time, title); tapping one opens it: its Title, Date, Time and Place
in fields, each saved as it is edited, and the toolbar's Delete, which asks, then deletes it. The root's
"New event" opens a form (the same four fields) whose Save adds the event once it has a title, a date
(YYYY-MM-DD) and a time (HH:MM); back from the form discards it. Back returns to the list.

The state (``phone.app_data("calendar")``): ``events``, a list of ``{"title", "date", "time",
"place"}`` (``date`` ISO, ``time`` 24-hour ``HH:MM``, ``place`` "" for none) in the list's order
(``in_order``: the app puts them back in it after every change, so an event deleted and made again
is stored as it was), and ``draft``, what the New event form holds while it is open and not empty
(gone once it is saved or discarded). A notification's target is an event's row (or its title): it
opens that event.
"""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Label
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField
from cua_bench_tasks_sim._phone.words import FIRST_NAMES

if TYPE_CHECKING:
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = ["ACTIVITIES", "EVENTS", "FIELDS", "PLACES", "CalendarApp", "in_order", "open_row", "quarter_hour",
           "reveal", "row", "row_beside", "sample", "save_new_event", "shown_day", "titles", "to_list",
           "valid_date", "valid_time"]  # fmt: skip

Event = dict[str, str]
FIELDS = ("title", "date", "time", "place")
HINT = "Date as YYYY-MM-DD, time as HH:MM (24-hour)."
EVENTS = ("list", "Events")  # the root's list of events

ACTIVITIES = [
    "Dentist", "Team meeting", "Yoga class", "Haircut", "Car service", "Piano lesson", "Book club", "Vet visit",
    "Parents evening", "Gym", "Doctor", "Swimming", "Job interview", "Flight", "Concert", "Tax advisor",
    "Football practice", "Birthday party", "Quiz night", "Dance class", "Eye test", "Plumber", "Budget review",
    "Project demo", "Language class", "Cinema", "Farmers market", "Bike repair", "Museum tour", "Board games",
]  # fmt: skip

PLACES = [
    "Main Street Clinic", "Office", "Room 4B", "City Library", "Cafe Luna", "Town Hall", "Sports Centre",
    "Central Station", "Garage", "Community Hall", "Home", "Park Cafe", "Studio 2", "Airport", "Riverside Gym",
    "School", "Old Theatre", "Market Square", "Town Pool", "Conference Room A",
]  # fmt: skip

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


def titles() -> list[str]:
    """Every title an event may have: the activities, then lunches, calls and coffees with people."""
    people = [f"{what} {name}" for what in ("Lunch with", "Call", "Coffee with") for name in FIRST_NAMES]
    return ACTIVITIES + people


def valid_date(text: str) -> bool:
    if not _DATE.fullmatch(text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def valid_time(text: str) -> bool:
    return bool(_TIME.fullmatch(text))


def shown_day(date: str) -> str:
    """``2025-03-12`` as the list shows it: ``Wed 12 Mar`` (an unreadable date as it is)."""
    if not valid_date(date):
        return date or "No date"
    day = datetime.date.fromisoformat(date)
    return f"{day.strftime('%a')} {day.day} {day.strftime('%b')}"


def row(event: Event) -> str:
    """The event's row on the list: ``Wed 12 Mar · 09:30 Dentist``."""
    return f"{shown_day(event['date'])} · {event['time'] or '--:--'} {event['title'] or '(no title)'}"


def in_order(events: list[Event]) -> list[Event]:
    """The events as the list shows them (and the app keeps them): by date, then time, title, place."""
    return sorted(events, key=lambda e: (e["date"], e["time"], e["title"], e["place"]))


def quarter_hour(rng: random.Random) -> str:
    """A time on a quarter hour from 07:00 to 20:45, as ``HH:MM``."""
    minutes = rng.randrange(7 * 4, 21 * 4) * 15
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def row_beside(events: list[Event], target: str) -> str:
    """The row after ``target``'s on the list of ``events`` (before it, for the last)."""
    rows = [row(e) for e in in_order(events)]
    place = rows.index(target)
    return rows[place + 1] if place + 1 < len(rows) else rows[place - 1]


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` events with distinct titles (about two in three activities, the rest lunches, calls and
    coffees with people) in one month of 2025 or 2026, at quarter hours from 07:00 to 20:45, about two in
    three with a place; in the app's order (``in_order``)."""
    year, month = rng.choice((2025, 2026)), rng.randint(1, 12)
    last = (datetime.date(year + month // 12, month % 12 + 1, 1) - datetime.timedelta(days=1)).day
    people = titles()[len(ACTIVITIES) :]
    chosen = rng.sample(ACTIVITIES, min(len(ACTIVITIES), count - count // 3))
    chosen += rng.sample(people, count - len(chosen))
    rng.shuffle(chosen)
    events = []
    for title in chosen:
        time = quarter_hour(rng)
        place = rng.choice(PLACES) if rng.random() < 0.67 else ""
        events.append({"title": title, "date": datetime.date(year, month, rng.randint(1, last)).isoformat(),
                       "time": time, "place": place})  # fmt: skip
    return {"events": in_order(events)}


def _fields(screen: Screen, values: Event, on_change: Callable[[str, str], None]) -> dict[str, TextField]:
    """The four fields (captioned), each calling ``on_change(key, text)`` as it is edited."""
    screen.label_width = 48
    placeholders = {"date": "YYYY-MM-DD", "time": "HH:MM"}
    made = {}
    for key in FIELDS:
        name = key.capitalize()
        made[key] = field = TextField(name, values.get(key, ""), placeholder=placeholders.get(key, ""),
                                      on_change=lambda f, key=key: on_change(key, f.text))  # fmt: skip
        screen.add(field, label=name)
    screen.add(Label(HINT, size=12))
    return made


@register_phone_app
class CalendarApp(PhoneApp):
    name = "calendar"
    label = "Calendar"

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._shown: list[Event] = []  # the root's rows, in order
        self._form: Screen | None = None  # the New event form, while it is open
        self.list = ListView("Events", on_select=self._picked)

    @property
    def events(self) -> list[Event]:
        """The events, read only: a look never writes a default into the store."""
        return list(self.data.get("events", []))

    def _stored(self) -> list[Event]:
        return self.data.setdefault("events", [])  # type: ignore[no-any-return]

    def start(self) -> None:
        root = self.screen("Calendar")
        root.add(self.list, fill=True)
        root.add_action("New event", "+", lambda _: self.new_event())
        self._rows()
        self.push(root)

    def _changed(self) -> None:
        """After the user changed an event: the store back in the list's order, the list redrawn."""
        stored = self._stored()
        stored[:] = in_order(stored)
        self._rows()

    def _rows(self) -> None:
        self._shown = in_order(self.events)
        self.list.set_items([row(event) for event in self._shown])

    def _picked(self, view: ListView) -> None:
        index = view.selected_index
        view.selected_index = None  # a tap opens the event; tapping it again after back opens it again
        if index is not None and index < len(self._shown):
            self.open_event(self._shown[index])

    # --- one event ---------------------------------------------------------------------------

    def open_event(self, event: Event) -> None:
        screen = self.screen(event["title"] or "Event")
        warning = Label("", size=12)

        def edited(key: str, text: str) -> None:
            event[key] = text
            if key == "title":
                screen.title = text or "Event"
            warning.text = self._problem(event, need_title=False)
            self._changed()

        def delete() -> None:
            stored = self._stored()
            for index, other in enumerate(stored):
                if other is event:
                    del stored[index]
                    break
            self._changed()
            self.pop()

        _fields(screen, event, edited)
        screen.add(warning)
        warning.text = self._problem(event, need_title=False)
        screen.add_action("Delete", "Del", lambda _: self.confirm(f'Delete "{event["title"]}"?', "Delete", delete))
        self.push(screen)

    @staticmethod
    def _problem(values: Event, *, need_title: bool) -> str:
        if need_title and not values.get("title", "").strip():
            return "Give the event a title."
        if not valid_date(values.get("date", "")):
            return "The date is not a date (YYYY-MM-DD)."
        if not valid_time(values.get("time", "")):
            return "The time is not a time (HH:MM)."
        return ""

    # --- a new event -------------------------------------------------------------------------

    def new_event(self) -> None:
        screen = self.screen("New event")
        draft = dict(self.data.get("draft", {}))
        warning = Label("", size=12)

        def edited(key: str, text: str) -> None:
            draft[key] = text
            values = {k: draft.get(k, "") for k in FIELDS}
            if any(values.values()):
                self.data["draft"] = values
            else:
                self.data.pop("draft", None)

        def save(_: Any) -> None:
            values = {k: draft.get(k, "") for k in FIELDS}
            problem = self._problem(values, need_title=True)
            if problem:
                warning.text = problem
                return
            self._stored().append(values)
            self.data.pop("draft", None)
            self._changed()
            self.pop()

        _fields(screen, {k: draft.get(k, "") for k in FIELDS}, edited)
        screen.add(warning)
        screen.add_action("Save", "Save", save)
        self._form = self.push(screen)

    def pop(self) -> bool:
        """The New event form discards what it holds as it closes (back, or after Save)."""
        form = self._form is not None and len(self.stack) > 1 and self.top is self._form
        closed = super().pop()
        if closed and form:
            self._form = None
            self.data.pop("draft", None)
        return closed

    def close(self) -> None:
        if self._form is not None and self._form in self.stack:
            self.data.pop("draft", None)
        self._form = None
        super().close()

    def open_target(self, target: str) -> None:
        """``target`` is an event's row (or its title): that event opens above the list."""
        events = in_order(self.events)
        found = [e for e in events if row(e) == target] or [e for e in events if e["title"] == target]
        if found:
            while self.pop():
                pass
            self.open_event(found[0])


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


async def to_list(hand: Hand) -> None:
    """Calendar in front, at its list of events."""
    await hand.launch("Calendar")
    while not await hand.shows(*EVENTS):
        await hand.button("back")


async def reveal(hand: Hand, name: str) -> None:
    """Scroll the events until the row ``name`` shows."""
    await hand.scroll_to("listitem", name, within=EVENTS)


async def open_row(hand: Hand, name: str) -> None:
    """The event on the row ``name``, from the list scrolled to it."""
    await to_list(hand)
    await reveal(hand, name)
    await hand.tap("listitem", name, within=EVENTS)


async def save_new_event(hand: Hand, values: Event) -> None:
    """From the list: New event, each of ``values``' fields that is not empty typed, then Save."""
    await hand.tap("button", "New event")
    for key in FIELDS:
        if values[key]:
            await hand.fill(key.capitalize(), values[key])
    await hand.tap("button", "Save")
