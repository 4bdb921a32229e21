"""calendar-delete-event: in Calendar, delete a given event.

Easy: five events, the phone at home, the event named by its title. Medium: twelve events, Calendar
already open on another event. Hard: thirty events, Notes on the launcher too, the event below the
list's first screen (scroll), and another event with the same title on an earlier day (higher on the
list): the task names the date, and only that one goes.

The evaluator checks the whole state of the phone's apps: the events are setup's without that one, and
nothing else changed (no other event, no draft, no other app); no dialog or overlay left open. Chance
0.002 to 0.0005: opening Calendar, the one row among up to thirty, the toolbar's Delete and the dialog's
Delete, by random taps.

Wrong ways: ``deletes_the_neighbour`` (the same-titled event on the other day when there is one, else
the event on the next row), ``oracle_then_the_neighbour`` (both go) and ``clears_its_title_instead``
(the event's title and place emptied, the event kept).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, notes
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "calendar-delete-event"
SHAPE = {"easy": 5, "medium": 12, "hard": 29}  # events sampled (hard adds a namesake)
SCREEN = 24  # rows of the list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = calendar.sample(rng, SHAPE[difficulty])
    events = data["events"]
    ordered = calendar.in_order(events)
    apps, state = ["calendar"], {"calendar": data}
    opened: tuple[str, str | None] | None = None
    twin = ""
    if difficulty == "hard":
        target = rng.choice([e for e in ordered[SCREEN - 1 :] if not e["date"].endswith("-01")])
        earlier = rng.randint(1, int(target["date"][8:]) - 1)
        time = calendar.quarter_hour(rng)
        namesake = {"title": target["title"], "date": f"{target['date'][:8]}{earlier:02d}", "time": time,
                    "place": rng.choice(calendar.PLACES)}  # fmt: skip
        events[:] = calendar.in_order([*events, namesake])
        twin = calendar.row(namesake)
        apps, state = ["calendar", "notes"], {"calendar": data, "notes": notes.sample(rng, 3)}
    else:
        target = rng.choice(events)
    if difficulty == "medium":
        opened = ("calendar", calendar.row(rng.choice([e for e in events if e is not target])))
    which = f'"{target["title"]}"' + (f" event on {target['date']}" if twin else " event")
    description = rng.choice([
        f"In Calendar, delete the {which}.",
        f"The {which} is cancelled: remove it from the calendar.",
        f"Delete the {which} from Calendar.",
    ]) + " Keep every other event."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened,
                      chance={"easy": 0.002, "medium": 0.001, "hard": 0.0005}[difficulty],
                      max_steps={"easy": 14, "medium": 16, "hard": 24}[difficulty], index=events.index(target),
                      target=calendar.row(target), twin=twin)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    index = task.metadata["index"]

    def change(state: dict[str, Any]) -> None:
        del state["calendar"]["events"][index]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def delete(hand: Hand, name: str) -> None:
    await calendar.open_row(hand, name)
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "Calendar"))


def _neighbour(task: cb.Task) -> str:
    """The namesake's row when there is one, else the row after the target's (before it, for the last)."""
    if task.metadata["twin"]:
        return str(task.metadata["twin"])
    return calendar.row_beside(task.metadata["data"]["calendar"]["events"], task.metadata["target"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), task.metadata["target"])


@cb.wrong_way
async def deletes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await delete(Hand(session), _neighbour(task))


@cb.wrong_way
async def oracle_then_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await deletes_the_neighbour(task, session)


@cb.wrong_way
async def clears_its_title_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await calendar.open_row(hand, task.metadata["target"])
    for field in ("Title", "Place"):
        await hand.tap("textbox", field)
        await hand.key("ctrl", "a")
        await hand.key("backspace")
    await hand.button("back")
