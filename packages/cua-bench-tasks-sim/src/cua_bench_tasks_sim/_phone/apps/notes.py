"""The notes app's seeded data (the app is the phone surface's own: ``cua_bench.sim.phone.NotesApp``),
and the oracle's and the wrong ways' steps in it."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from cua_bench_tasks_sim._phone.words import TOPICS, sentence

if TYPE_CHECKING:
    import cua_bench as cb
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = ["LIST", "neighbour", "note_index", "open_note", "sample", "save_new_note", "to_list", "type_into"]

LIST = ("list", "Notes")  # the root's list of notes


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` notes with distinct titles, a line or three of text each."""
    titles = rng.sample(TOPICS, count)
    return {"notes": [{"title": t, "body": "\n".join(sentence(rng) for _ in range(rng.randint(1, 3)))}
                      for t in titles]}  # fmt: skip


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


def note_index(task: cb.Task, title: str) -> int:
    """Where the note ``title`` is in setup's list of notes."""
    return next(i for i, n in enumerate(task.metadata["data"]["notes"]["notes"]) if n["title"] == title)


def neighbour(task: cb.Task) -> str:
    """The title of the note after ``task.metadata["title"]``'s in setup's notes (the first, after the last)."""
    titles = [n["title"] for n in task.metadata["data"]["notes"]["notes"]]
    return str(titles[(titles.index(task.metadata["title"]) + 1) % len(titles)])


async def to_list(hand: Hand) -> None:
    """Notes in front, at its list (back out of an open note)."""
    await hand.launch("Notes")
    while not await hand.shows(*LIST):  # a note is open: back to the list
        await hand.button("back")


async def open_note(hand: Hand, title: str) -> None:
    """The note ``title`` opened from the list."""
    await to_list(hand)
    await hand.tap("listitem", title, within=LIST)


async def type_into(hand: Hand, text: str, *, top: bool = False) -> None:
    """On an open note: ``text`` typed at the end of its text (at the start, with ``top``)."""
    await hand.tap("textbox", "Note")
    await hand.key("ctrl", "home" if top else "end")
    await hand.type(text)


async def save_new_note(hand: Hand, title: str | None, body: str) -> None:
    """From the list: New note, its title (none for ``None``) and body typed, then Save."""
    await hand.tap("button", "New note")
    if title is not None:
        await hand.fill("Title", title)
    await hand.tap("textbox", "Body")
    await hand.type(body)
    await hand.tap("button", "Save")
