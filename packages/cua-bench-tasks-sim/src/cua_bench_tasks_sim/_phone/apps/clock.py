"""``clock``: alarms and a world clock. The root ("Alarms") lists the alarms by time, each row its time
and label ("07:30 Gym", "(off)" after a disabled one's); tapping one opens it: an Enabled check box, its
Label, Hour and Minute dropdowns (every edit saved as it is made) and "Delete alarm" in the toolbar,
which asks first. The root's "New alarm" opens a form (Hour, Minute, Label) that only Save adds, as an
enabled alarm ("Alarm" when the label is left empty); back discards it. "World clock" lists the cities
kept there; a city's screen shows its time and can remove it (asking first); "Add city" lists the
cities not there yet, alphabetically, and a tap on one adds it at the end.

The store: ``{"alarms": [{"time": "HH:MM", "label", "enabled"}], "cities": [name, ...]}``, alarms in
the order they were made (the list shows them by time). A notification's ``target`` is an alarm's time
(its screen opens above the list) or "World clock".
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cua_bench.nodes import center
from cua_bench.sim.controls import Checkbox, Label
from cua_bench.sim.lists import Dropdown, ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField
from cua_core import Scroll

if TYPE_CHECKING:
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = [
    "ALARM_LIST",
    "HOURS",
    "LABELS",
    "MINUTES",
    "ZONES",
    "ClockApp",
    "choose",
    "delete_open_alarm",
    "row",
    "row_beside",
    "sample",
    "tap_alarm",
    "to_alarms",
    "twelve_hour",
]

ALARM_LIST = ("list", "Alarms")  # the root's list of alarms
HOURS = tuple(f"{h:02d}" for h in range(24))
MINUTES = tuple(f"{m:02d}" for m in range(0, 60, 5))
LABELS = (
    "Wake up", "Gym", "Meds", "School run", "Meeting", "Dentist", "Yoga", "Pick up kids", "Standup", "Lunch",
    "Call mom", "Bus", "Walk the dog", "Bedtime", "Laundry", "Water plants", "Piano", "Run", "Nap", "Study",
    "Swim", "Train", "Pills", "Coffee", "Night shift", "Prayer", "Work", "Stretch", "Read", "Bins out",
    "Bake bread", "Podcast",
)  # fmt: skip
# The world clock's cities and their offsets from the phone's own zone (UTC here), in minutes.
ZONES = {
    "Accra": 0, "Amsterdam": 60, "Athens": 120, "Auckland": 720, "Bangkok": 420, "Berlin": 60, "Bogota": -300,
    "Boston": -300, "Cairo": 120, "Chicago": -360, "Delhi": 330, "Denver": -420, "Dubai": 240, "Dublin": 0,
    "Hanoi": 420, "Havana": -300, "Helsinki": 120, "Istanbul": 180, "Jakarta": 420, "Lagos": 60, "Lima": -300,
    "Lisbon": 0, "London": 0, "Los Angeles": -480, "Madrid": 60, "Manila": 480, "Mexico City": -360,
    "Montreal": -300, "Moscow": 180, "Nairobi": 180, "New York": -300, "Oslo": 60, "Paris": 60, "Prague": 60,
    "Quito": -300, "Rome": 60, "Santiago": -240, "Seoul": 540, "Singapore": 480, "Stockholm": 60, "Sydney": 600,
    "Tokyo": 540, "Toronto": -300, "Vienna": 60, "Warsaw": 60, "Zurich": 60,
}  # fmt: skip


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` alarms at distinct times (05:00 to 22:55, on the five minutes), distinct labels while
    there are enough, most of them on; two to four cities on the world clock."""
    slots = rng.sample(range(5 * 12, 23 * 12), count)
    labels = rng.sample(LABELS, min(count, len(LABELS)))
    labels += [rng.choice(LABELS) for _ in range(count - len(labels))]
    alarms = [{"time": f"{slot // 12:02d}:{slot % 12 * 5:02d}", "label": label, "enabled": rng.random() < 0.7}
              for slot, label in zip(slots, labels, strict=True)]  # fmt: skip
    return {"alarms": alarms, "cities": rng.sample(sorted(ZONES), rng.randint(2, 4))}


def row(alarm: dict[str, Any]) -> str:
    """An alarm's row in the list: "07:30 Gym", "07:30 Gym (off)"."""
    return f"{alarm['time']} {alarm['label']}" + ("" if alarm["enabled"] else " (off)")


def twelve_hour(time: str) -> str:
    """``HH:MM`` on a 12-hour clock: ``19:05`` is ``7:05 PM``."""
    hour, minute = int(time[:2]), time[3:]
    return f"{(hour - 1) % 12 + 1}:{minute} {'AM' if hour < 12 else 'PM'}"


def _offset(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@register_phone_app
class ClockApp(PhoneApp):
    name = "clock"
    label = "Clock"

    # --- the store: read as it is, lists made only when the user adds to them ----------------

    @property
    def alarms(self) -> list[dict[str, Any]]:
        return list(self.data.get("alarms", []))

    @property
    def cities(self) -> list[str]:
        return list(self.data.get("cities", []))

    def _by_time(self) -> list[dict[str, Any]]:
        return sorted(self.alarms, key=lambda alarm: str(alarm["time"]))

    def _refresh(self) -> None:
        self.list.set_items([row(alarm) for alarm in self._by_time()])
        if self.world is not None:
            self.world.set_items(self.cities)

    # --- alarms ------------------------------------------------------------------------------

    def start(self) -> None:
        root = self.screen("Alarms")
        self.world: ListView | None = None  # the world clock's list while its screen is open
        self.world_screen: Screen | None = None
        self.list = ListView("Alarms", [row(alarm) for alarm in self._by_time()],
                             on_select=_tapped(lambda index: self.open_alarm(self._by_time()[index])))  # fmt: skip
        root.add(self.list, fill=True)
        root.add_action("New alarm", "+", lambda _: self.new_alarm())
        root.add_action("World clock", "World", lambda _: self.open_world())
        self.push(root)

    def open_alarm(self, alarm: dict[str, Any]) -> Screen:
        screen = self.screen(f"Alarm {alarm['time']}")

        def enabled(box: Checkbox) -> None:
            alarm["enabled"] = box.checked
            self._refresh()

        def labelled(field: TextField) -> None:
            alarm["label"] = field.text
            self._refresh()

        def timed(hour: Dropdown, minute: Dropdown) -> Callable[[Dropdown], None]:
            def write(_: Dropdown) -> None:
                alarm["time"] = f"{hour.selected}:{minute.selected}"
                screen.title = f"Alarm {alarm['time']}"
                self._refresh()

            return write

        def delete() -> None:
            self.data["alarms"] = [a for a in self.alarms if a is not alarm]
            self._refresh()
            self.pop()

        hours, minutes = alarm["time"].split(":")
        hour = Dropdown("Hour", HOURS, hours)
        minute = Dropdown("Minute", MINUTES, minutes)
        hour.on_change = minute.on_change = timed(hour, minute)
        screen.add(Checkbox("Enabled", bool(alarm["enabled"]), on_change=enabled))
        screen.add(TextField("Label", alarm["label"], on_change=labelled), label="Label")
        screen.add(hour, label="Hour")
        screen.add(minute, label="Minute")
        screen.add_action("Delete alarm", "Del",
                          lambda _: self.confirm(f"Delete the {alarm['time']} alarm?", "Delete", delete))  # fmt: skip
        return self.push(screen)

    def new_alarm(self) -> Screen:
        screen = self.screen("New alarm")
        hour = Dropdown("Hour", HOURS, self.phone.clock[:2])
        minute = Dropdown("Minute", MINUTES, "00")
        screen.add(hour, label="Hour")
        screen.add(minute, label="Minute")
        label = TextField("Label", placeholder="Alarm")
        screen.add(label, label="Label")

        def save(_: Any) -> None:
            made = {"time": f"{hour.selected}:{minute.selected}", "label": label.text or "Alarm", "enabled": True}
            self.data["alarms"] = [*self.alarms, made]
            self._refresh()
            self.pop()

        screen.add_action("Save", "Save", save)
        return self.push(screen)

    # --- the world clock -----------------------------------------------------------------------

    def open_world(self) -> Screen:
        screen = self.screen("World clock")
        self.world = ListView("World clock", self.cities, on_select=_tapped(lambda i: self.open_city(self.cities[i])))
        if not self.cities:
            screen.add(Label("No cities yet: add one with +"))
        screen.add(self.world, fill=True)
        screen.add_action("Add city", "+", lambda _: self.add_city())
        self.world_screen = screen
        return self.push(screen)

    def open_city(self, city: str) -> Screen:
        screen = self.screen(city)
        offset = ZONES.get(city, 0)
        clock = self.phone.clock
        minutes = (int(clock[:2]) * 60 + int(clock[3:]) + offset) % (24 * 60)
        screen.add(Label(f"Local time {minutes // 60:02d}:{minutes % 60:02d}"))
        screen.add(Label(_offset(offset)))

        def remove() -> None:
            self.data["cities"] = [c for c in self.cities if c != city]
            self._refresh()
            self.pop()

        screen.add_action("Remove city", "Del", lambda _: self.confirm(f"Remove {city}?", "Remove", remove))
        return self.push(screen)

    def add_city(self) -> Screen:
        screen = self.screen("Add city")
        left = [city for city in sorted(ZONES) if city not in self.cities]

        def chosen(index: int) -> None:
            self.data["cities"] = [*self.cities, left[index]]
            self._refresh()
            self.pop()

        screen.add(ListView("Cities", left, on_select=_tapped(chosen)), fill=True)
        return self.push(screen)

    # --- the stack -----------------------------------------------------------------------------

    def pop(self) -> bool:
        closing = self.top if len(self.stack) > 1 else None
        popped = super().pop()
        if popped and closing is not None and closing is self.world_screen:
            self.world, self.world_screen = None, None
        return popped

    def open_target(self, target: str) -> None:
        """``target`` is an alarm's time (its screen opens) or "World clock"."""
        while self.pop():
            pass
        if target == "World clock":
            self.open_world()
            return
        found = [alarm for alarm in self._by_time() if alarm["time"] == target]
        if found:
            self.open_alarm(found[0])


def _tapped(open_row: Callable[[int], Any]) -> Callable[[ListView], None]:
    """A list's on_select that opens the tapped row and clears the selection (so it opens again after back)."""

    def picked(view: ListView) -> None:
        index = view.selected_index
        view.selected_index = None
        if index is not None:
            open_row(index)

    return picked


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


async def to_alarms(hand: Hand) -> None:
    """Clock in front on its list of alarms."""
    await hand.launch("Clock")
    while not await hand.shows(*ALARM_LIST):
        await hand.button("back")


async def tap_alarm(hand: Hand, name: str) -> None:
    """On the list of alarms: scrolled to the row ``name``, then a tap on it (its screen opens)."""
    await hand.scroll_to("listitem", name, within=ALARM_LIST)
    await hand.tap("listitem", name, within=ALARM_LIST)


async def row_beside(hand: Hand, name: str) -> str:
    """The row next to ``name`` on the list of alarms as it shows (above it, or below the first)."""
    rows = await hand.texts("listitem", within=ALARM_LIST)
    at = rows.index(name)
    return rows[at - 1 if at else 1]


async def delete_open_alarm(hand: Hand) -> None:
    """On an alarm's screen: Delete alarm, confirmed."""
    await hand.tap("button", "Delete alarm")
    await hand.tap("button", "Delete", within=("dialog", "Clock"))


async def choose(hand: Hand, name: str, option: str) -> None:
    """The dropdown ``name`` set to ``option``: opened, its list scrolled to the option, the option tapped."""
    if await hand.value("combobox", name) == option:
        return
    await hand.tap("combobox", name)
    popup = await hand.find("list", name)
    shown = [item["name"] for item in popup["children"]]
    if option not in shown:
        options = HOURS if name == "Hour" else MINUTES
        rows = options.index(option) - options.index(shown[0])
        await hand.act(Scroll("down" if rows > 0 else "up", abs(rows), center(popup)))
    await hand.tap("listitem", option, within=("list", name))
