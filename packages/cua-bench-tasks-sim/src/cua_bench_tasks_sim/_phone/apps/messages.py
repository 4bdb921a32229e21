"""``messages``: conversations by correspondent. The root lists them, the most recent first; tapping one
opens it: its messages as a list (the newest at the bottom, in view), a Message field and Send (or
enter), and a "Delete conversation" toolbar action that asks first. The root's "New message" opens a
form (To, Message, Send) that adds to the conversation with that person (name case aside) or starts
one, then shows it; back discards the form. An incoming message's notification opens its conversation.

All of it lives in the phone's store for the app: ``threads``, ``{name: [{"from": "me" | name, "text"}]}``
(in the order the conversations were last written to, oldest first), and, only while they hold
something, ``drafts`` (``{name: text}``, what each conversation's Message field holds) and ``new`` (the
new-message form's ``{"to", "text"}``).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField
from cua_bench.sim.windows import TITLE_HEIGHT
from cua_bench_tasks_sim._phone.apps.contacts import names
from cua_bench_tasks_sim._phone.words import NOUNS, VERBS, sentence

if TYPE_CHECKING:
    import cua_bench as cb
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = [
    "LIST",
    "ME",
    "MessagesApp",
    "line",
    "message",
    "neighbour",
    "open_thread",
    "reveal",
    "row",
    "sample",
    "send_text",
    "to_list",
]

ME = "me"
LIST = ("list", "Conversations")  # the root's list of conversations
_OPENERS = ["Can you", "Could you", "Don't forget to", "Did you", "I will", "Please"]
_SHORT = ["OK", "Sure", "Thanks!", "On my way", "See you soon", "Sounds good", "Call me later", "Yes", "No problem"]


def line(rng: random.Random) -> str:
    """One message's text: "Can you pick up the keys?", "Sure"."""
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(_SHORT)
    if pick < 0.7:
        opener = rng.choice(_OPENERS)
        end = "?" if opener in ("Can you", "Could you", "Did you") else "."
        return f"{opener} {rng.choice(VERBS)} {rng.choice(NOUNS)}{end}"
    return sentence(rng).capitalize()


def message(sender: str, text: str) -> dict[str, str]:
    return {"from": sender, "text": text}


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` conversations with distinct people, one to four messages each, from either side."""
    threads: dict[str, list[dict[str, str]]] = {}
    for name in names(rng, count):
        threads[name] = [message(rng.choice([ME, name]), line(rng)) for _ in range(rng.randint(1, 4))]
    return {"threads": threads}


def row(entry: dict[str, Any]) -> str:
    """A message as its conversation's list shows it: "You: On my way", "Ada Khan: Sure"."""
    sender = "You" if entry.get("from") == ME else str(entry.get("from"))
    return f"{sender}: {entry.get('text', '')}"


@register_phone_app
class MessagesApp(PhoneApp):
    name = "messages"
    label = "Messages"

    @property
    def threads(self) -> dict[str, list[dict[str, Any]]]:
        found = self.data.get("threads")
        return found if isinstance(found, dict) else {}

    def start(self) -> None:
        root = self.screen("Messages")
        self.names: list[str] = []
        self.list = ListView("Conversations", on_select=self._picked)
        root.add(self.list, fill=True)
        root.add_action("New message", "+", lambda _: self.new_message())
        self.push(root)
        self.refresh()

    def refresh(self) -> None:
        self.names = list(reversed(self.threads))
        self.list.set_items(self.names)

    def _picked(self, view: ListView) -> None:
        index = view.selected_index
        view.selected_index = None  # a tap opens the conversation; the same row opens it again after back
        if index is not None and index < len(self.names):
            self.open_thread(self.names[index])

    def _find(self, name: str) -> str | None:
        """The conversation with ``name``, case and outer spaces aside."""
        wanted = name.strip().lower()
        return next((other for other in self.threads if other.lower() == wanted), None)

    def _post(self, name: str, text: str) -> None:
        """``text`` from me to ``name``: the conversation, now the most recent, gets it."""
        threads = self.data.setdefault("threads", {})
        threads[name] = [*threads.pop(name, []), message(ME, text)]
        self.refresh()

    def _set_draft(self, name: str, text: str) -> None:
        drafts = dict(self.data.get("drafts") or {})
        if text:
            drafts[name] = text
        else:
            drafts.pop(name, None)
        if drafts:
            self.data["drafts"] = drafts
        else:
            self.data.pop("drafts", None)

    # --- a conversation --------------------------------------------------------------------

    def open_thread(self, name: str) -> Screen:
        screen = self.screen(name)
        area = self.phone.work_area
        pad, gap, field_height = screen.padding, screen.spacing, 30
        height = area.height - TITLE_HEIGHT - 2 * pad - gap - field_height
        shown = ListView("Messages", [row(m) for m in self.threads.get(name, [])], height=height)

        def picked(view: ListView) -> None:
            view.selected_index = None  # a message is read, not chosen

        shown.on_select = picked
        screen.add(shown)
        if shown.items:
            shown.scroll_to(len(shown.items) - 1)
        send = Button("Send")
        width = area.width - 2 * pad - gap - send.preferred_size(area.width)[0]
        drafts = self.data.get("drafts") or {}
        field = TextField("Message", str(drafts.get(name, "")), placeholder="Type a message", width=width,
                          on_change=lambda f: self._set_draft(name, f.text))  # fmt: skip

        def sent(_: Any) -> None:
            text = field.text.strip()
            if not text or name not in self.threads:
                return
            self._post(name, text)
            field.text = ""  # the draft goes with it
            shown.set_items([row(m) for m in self.threads[name]])
            shown.scroll_to(len(shown.items) - 1)

        send.on_click(sent)
        field.on_submit = sent
        screen.add_row(field, send)

        def delete() -> None:
            self.threads.pop(name, None)
            self._set_draft(name, "")
            self.refresh()
            if self.top is screen:
                self.pop()

        ask = f"Delete your conversation with {name}?"
        screen.add_action("Delete conversation", "Del", lambda _: self.confirm(ask, "Delete", delete))
        field.focus()
        return self.push(screen)

    # --- a new message ---------------------------------------------------------------------

    def new_message(self) -> Screen:
        screen = self.screen("New message")
        screen.label_width = 72
        to = TextField("To", placeholder="Name")
        text = TextField("Message", placeholder="Type a message")

        def keep(_: Any) -> None:
            if to.text or text.text:
                self.data["new"] = {"to": to.text, "text": text.text}
            else:
                self.data.pop("new", None)

        to.on_change = text.on_change = keep
        screen.add(to, label="To")
        screen.add(text, label="Message")
        problem = Label("")

        def send(_: Any) -> None:
            name, body = to.text.strip(), text.text.strip()
            if not name or not body:
                problem.text = "Who to, and what? Fill in both." if not name else "Type a message first."
                return
            name = self._find(name) or name
            self._post(name, body)
            self.pop()  # closing the form drops it
            self.open_thread(name)

        def closed(_: Any) -> None:
            self.data.pop("new", None)

        screen.add_row(Button("Send", send), align="right")
        screen.add(problem)
        screen.on_close = closed
        return self.push(screen)

    def open_target(self, target: str) -> None:
        """``target`` is a correspondent's name: their conversation opens above the list."""
        if target in self.threads:
            while self.pop():
                pass
            self.open_thread(target)


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


def neighbour(task: cb.Task) -> str:
    """The conversation after ``task.metadata["name"]``'s in the list (before it, for the last)."""
    shown = list(reversed(task.metadata["data"]["messages"]["threads"]))
    index = shown.index(task.metadata["name"])
    return str(shown[index + 1] if index + 1 < len(shown) else shown[index - 1])


async def to_list(hand: Hand) -> None:
    """Messages in front, at its list of conversations."""
    await hand.launch("Messages")
    while not await hand.shows("button", "New message"):
        await hand.button("back")


async def reveal(hand: Hand, name: str) -> None:
    """Scroll the list until the row ``name`` shows."""
    await hand.scroll_to("listitem", name, within=LIST)


async def open_thread(hand: Hand, name: str) -> None:
    """The conversation with ``name``, from the list scrolled to it."""
    await to_list(hand)
    await reveal(hand, name)
    await hand.tap("listitem", name, within=LIST)


async def send_text(hand: Hand, text: str) -> None:
    """Where a Message field shows (a conversation, the new-message form): ``text`` typed, then Send."""
    await hand.fill("Message", text)
    await hand.tap("button", "Send")
