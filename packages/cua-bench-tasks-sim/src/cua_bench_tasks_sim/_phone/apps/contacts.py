"""``contacts``: the people on the phone. The root lists them by name (a search field above filters the
list by name or number; tapping a row opens that person and clears the search); a person's screen edits
their Name, Phone and Email in fields and their Favourite in a box, each saved as it changes, and its
toolbar's "Delete contact" asks, then deletes them; the root's "New contact" opens a form whose Save adds
the person (back discards it).

All of it lives in the phone's store for the app: ``contacts``, a list of ``{"id", "name", "phone",
"email", "favourite"}`` (the list shows them sorted by name, the store keeps their order; ``id`` is the
entry's own, so a person deleted and added again is another entry), ``next_id`` (the id the next new
person gets), and, only while they hold something, ``query`` (the search field's text) and ``draft``
(the new-contact form's values).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Checkbox, Label
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField
from cua_bench_tasks_sim._phone.words import FIRST_NAMES, LAST_NAMES, phone_number

if TYPE_CHECKING:
    import cua_bench as cb
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = [
    "LIST",
    "ContactsApp",
    "email_for",
    "names",
    "near_miss",
    "neighbour",
    "new_number",
    "open_contact",
    "reveal",
    "sample",
    "save_new_contact",
    "sort_key",
    "to_list",
]

DOMAINS = ["mail.com", "post.net", "inbox.org", "web.de", "example.com"]
FIELDS = (("Name", "name"), ("Phone", "phone"), ("Email", "email"))
_EMPTY_DRAFT: dict[str, Any] = {"name": "", "phone": "", "email": "", "favourite": False}
LIST = ("list", "Contacts")  # the root's list of people


def email_for(rng: random.Random, name: str) -> str:
    first, _, last = name.partition(" ")
    return f"{first.lower()}.{last.lower()}@{rng.choice(DOMAINS)}"


def names(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct "First Last" names, in the order drawn (the same for the same ``rng`` in every
    process: ``words.full_names`` shuffles a set, whose order follows the process's string hashing)."""
    drawn: list[str] = []
    while len(drawn) < count:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name not in drawn:
            drawn.append(name)
    return drawn


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` people with distinct names and numbers, an email each, about a quarter favourites."""
    numbers: list[str] = []
    while len(numbers) < count:
        number = phone_number(rng)
        if number not in numbers:
            numbers.append(number)
    people = []
    for index, (name, number) in enumerate(zip(names(rng, count), numbers, strict=True)):
        people.append({"id": index + 1, "name": name, "phone": number, "email": email_for(rng, name),
                       "favourite": rng.random() < 0.25})  # fmt: skip
    return {"contacts": people, "next_id": count + 1}


def sort_key(contact: dict[str, Any]) -> tuple[str, str]:
    """The order the list shows: by name, case aside."""
    return str(contact["name"]).lower(), str(contact["name"])


def new_number(rng: random.Random, people: list[dict[str, Any]]) -> str:
    """A phone number none of ``people`` has."""
    numbers = {p["phone"] for p in people}
    number = phone_number(rng)
    while number in numbers:
        number = phone_number(rng)
    return number


def near_miss(number: str) -> str:
    """``number`` with its last digit one more (9 becomes 0)."""
    return number[:-1] + str((int(number[-1]) + 1) % 10)


@register_phone_app
class ContactsApp(PhoneApp):
    name = "contacts"
    label = "Contacts"

    @property
    def contacts(self) -> list[dict[str, Any]]:
        found = self.data.get("contacts")
        return found if isinstance(found, list) else []

    def start(self) -> None:
        root = self.screen("Contacts")
        query = str(self.data.get("query", ""))
        self.search = TextField("Search", query, placeholder="Search contacts", on_change=self._searched)
        root.add(self.search)
        self.shown: list[dict[str, Any]] = []
        self.list = ListView("Contacts", on_select=self._picked)
        root.add(self.list, fill=True)
        root.add_action("New contact", "+", lambda _: self.new_contact())
        self.list.focus()  # the search waits for a tap (its placeholder shows)
        self.push(root)
        self.refresh()

    # --- the list --------------------------------------------------------------------------

    def refresh(self) -> None:
        """The rows: every person whose name or number holds the query, by name."""
        query = self.search.text.strip().lower()
        digits = "".join(ch for ch in query if ch not in " +-()")

        def matches(contact: dict[str, Any]) -> bool:
            if not query or query in str(contact["name"]).lower():
                return True
            number = "".join(ch for ch in str(contact["phone"]) if ch.isdigit())
            return digits.isdigit() and digits in number

        self.shown = sorted((c for c in self.contacts if matches(c)), key=sort_key)
        self.list.set_items([str(c["name"]) for c in self.shown])

    def _searched(self, field: TextField) -> None:
        if field.text:
            self.data["query"] = field.text
        else:
            self.data.pop("query", None)
        self.refresh()

    def _picked(self, view: ListView) -> None:
        index = view.selected_index
        view.selected_index = None  # a tap opens the person; the same row opens them again after back
        if index is None or index >= len(self.shown):
            return
        contact = self.shown[index]
        if self.search.text:
            self.search.text = ""  # a picked result ends the search
        self.open_contact(contact)

    # --- a person --------------------------------------------------------------------------

    def open_contact(self, contact: dict[str, Any]) -> Screen:
        screen = self.screen(str(contact["name"]))
        screen.label_width = 64

        def edited(key: str) -> Callable[[TextField], None]:
            def write(field: TextField) -> None:
                contact[key] = field.text
                if key == "name":
                    self.refresh()

            return write

        def favourite(box: Checkbox) -> None:
            contact["favourite"] = box.checked

        def delete() -> None:
            for index, other in enumerate(self.contacts):
                if other is contact:
                    del self.contacts[index]
                    break
            self.refresh()
            if self.top is screen:
                self.pop()

        for caption, key in FIELDS:
            screen.add(TextField(caption, str(contact.get(key, "")), on_change=edited(key)), label=caption)
        screen.add(Checkbox("Favourite", bool(contact.get("favourite")), on_change=favourite))
        ask = f'Delete "{contact["name"]}" from your contacts?'
        screen.add_action("Delete contact", "Del", lambda _: self.confirm(ask, "Delete", delete))
        return self.push(screen)

    # --- a new person ----------------------------------------------------------------------

    def new_contact(self) -> Screen:
        screen = self.screen("New contact")
        screen.label_width = 64
        fields: dict[str, TextField] = {}

        def keep() -> None:
            values = {key: field.text for key, field in fields.items()} | {"favourite": box.checked}
            if values == _EMPTY_DRAFT:
                self.data.pop("draft", None)
            else:
                self.data["draft"] = values

        for caption, key in FIELDS:
            fields[key] = TextField(caption, "", placeholder=caption, on_change=lambda _: keep())
            screen.add(fields[key], label=caption)
        box = Checkbox("Favourite", on_change=lambda _: keep())
        screen.add(box)
        problem = Label("")
        screen.add(problem)

        def save(_: Any) -> None:
            values = {key: field.text.strip() for key, field in fields.items()}
            if not values["name"]:
                problem.text = "A contact needs a name."
                return
            people = self.data.setdefault("contacts", [])
            ids = [int(p["id"]) for p in people if isinstance(p.get("id"), int)]
            made = int(self.data.get("next_id", max(ids, default=0) + 1))
            self.data["next_id"] = made + 1
            people.append({"id": made, **values, "favourite": box.checked})
            self.pop()  # closing the form drops the draft
            self.refresh()

        def closed(_: Any) -> None:
            self.data.pop("draft", None)

        screen.on_close = closed
        screen.add_action("Save", "Save", save)
        return self.push(screen)

    def open_target(self, target: str) -> None:
        """``target`` is a person's name: their screen opens above the list."""
        for contact in self.contacts:
            if contact["name"] == target:
                while self.pop():
                    pass
                self.open_contact(contact)
                return


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


def neighbour(task: cb.Task, key: str = "name") -> str:
    """The person after ``task.metadata[key]`` in the list (before it, for the last)."""
    names = [p["name"] for p in sorted(task.metadata["data"]["contacts"]["contacts"], key=sort_key)]
    index = names.index(task.metadata[key])
    return str(names[index + 1] if index + 1 < len(names) else names[index - 1])


async def to_list(hand: Hand) -> None:
    """Contacts in front, at its list."""
    await hand.launch("Contacts")
    while not await hand.shows("button", "New contact"):
        await hand.button("back")


async def reveal(hand: Hand, name: str) -> None:
    """Scroll the list until the row ``name`` shows."""
    await hand.scroll_to("listitem", name, within=LIST)


async def open_contact(hand: Hand, name: str) -> None:
    """The person ``name``'s screen, from the list scrolled to them."""
    await to_list(hand)
    await reveal(hand, name)
    await hand.tap("listitem", name, within=LIST)


async def save_new_contact(hand: Hand, name: str, phone: str, email: str, favourite: bool) -> None:
    """From the list: New contact, its three fields filled, Favourite ticked if ``favourite``, Save."""
    await hand.tap("button", "New contact")
    await hand.fill("Name", name)
    await hand.fill("Phone", phone)
    await hand.fill("Email", email)
    if favourite:
        await hand.tap("checkbox", "Favourite")
    await hand.tap("button", "Save")
