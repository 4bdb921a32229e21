"""thunderbird-new-event: create an event in Thunderbird's calendar, with a title, a day and a time span.

Thunderbird starts on the mail tab with one local calendar, "Home" (enabled, empty; the profile's time
zone is UTC). The task asks for an event with a given title on a given day (in March or April 2026)
from one time to another. The oracle presses ctrl+i (New Event), types the title, fills the start
and end date and time fields of the event dialog (found in the accessibility tree) and saves with
ctrl+l (Save and Close), then waits for the dialog to close.

The calendar keeps its events in ``calendar-data/local.sqlite`` (the "storage" provider). The
evaluator reads it with ``sqlite3`` (a copy, read-only): exactly one event, in the Home calendar, with
the title, start and end asked (microseconds since 1970, UTC), and no to-do, recurrence, attendee or
alarm; and nothing else under home changed but the files Thunderbird rewrites by itself
(``_thunderbird.incidental``), the mail store among what must not change.
Wrong ways: ``a_day_late`` (the next day), ``an_hour_late`` (start and end an hour later) and
``two_events`` (the event, and a stray copy of it a week later).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import cua_bench as cb
from cua_bench_tasks_desktop._common import WORDS, files_since_setup, loaders, output_bytes
from cua_bench_tasks_desktop._thunderbird import (
    CALENDAR_DB,
    CALENDAR_ID,
    NO_TEXT_OF_ITS_OWN,
    make_mail,
    new_event,
    open_thunderbird,
    profile_changes,
    read_events,
    subjects,
)

NAME = "thunderbird-new-event"
WAIVED = {
    **NO_TEXT_OF_ITS_OWN,
    "forged-write": "the database is the calendar's own store, which the work itself writes: a database "
    "holding the asked event is that event in the calendar (the other mutations still apply)",
}
KINDS = ("Dentist", "Team sync", "Lunch with", "Call with", "Review of", "Workshop on", "Visit to", "Planning")


def build(rng: random.Random) -> cb.Task:
    title = f"{rng.choice(KINDS)} {rng.choice(WORDS)}"
    day = datetime(2026, 3, 2, tzinfo=UTC) + timedelta(days=rng.randint(0, 55))
    start = day.replace(hour=rng.randint(8, 17), minute=rng.choice([0, 30]))
    end = start + timedelta(minutes=rng.choice([30, 60, 90, 120]))
    inbox = [make_mail(rng, s, read=True) for s in subjects(rng, 3)]
    return cb.Task(
        description=f"In Thunderbird's calendar (the Home calendar), create an event titled '{title}' on "
        f"{start:%A, %B} {start.day}, {start.year} from {start:%H:%M} to {end:%H:%M} (times in UTC, the "
        "calendar's time zone), and save it.",
        metadata={"title": title, "start": start.isoformat(), "end": end.isoformat(), "inbox": inbox},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def micros(value: str, shift: timedelta = timedelta()) -> int:
    return int((datetime.fromisoformat(value) + shift).timestamp()) * 1_000_000


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_thunderbird(task, session, {"Inbox": task.metadata["inbox"]})


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    before, after = await files_since_setup(task, session)
    found = read_events(
        *[await output_bytes(session, after, path) or b"" for path in (CALENDAR_DB, CALENDAR_DB + "-wal")]
    )
    ok = False
    if isinstance(found, str):
        task.explain(f"{CALENDAR_DB}: {found}")
    else:
        events, others = found
        want = (meta["title"], micros(meta["start"]), micros(meta["end"]), CALENDAR_ID)
        got = [(e.title, e.start, e.end, e.calendar) for e in events]
        ok = got == [want] and others == 0 and all(e.start_tz == "UTC" == e.end_tz for e in events)
        if not ok:
            task.explain(f"the calendar holds {got} (and {others} other items), not {[want]}")
    changed = profile_changes(before, after, [CALENDAR_DB, CALENDAR_DB + "-wal", CALENDAR_DB + "-shm"])
    for problem in changed[:5]:
        task.explain(f"besides what the task asks, {problem}")
    return [1.0 if ok and not changed else 0.0]


async def _event(task: cb.Task, session: cb.Session, shift: timedelta = timedelta()) -> None:
    meta = task.metadata
    start = datetime.fromisoformat(meta["start"]) + shift
    end = datetime.fromisoformat(meta["end"]) + shift
    await new_event(session, meta["title"], start, end)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _event(task, session)


@cb.wrong_way
async def a_day_late(task: cb.Task, session: cb.Session) -> None:
    """The event on the next day, at the asked times."""
    await _event(task, session, timedelta(days=1))


@cb.wrong_way
async def an_hour_late(task: cb.Task, session: cb.Session) -> None:
    """The event on the asked day, an hour later."""
    await _event(task, session, timedelta(hours=1))


@cb.wrong_way
async def two_events(task: cb.Task, session: cb.Session) -> None:
    """The asked event, and a copy of it a week later."""
    await _event(task, session)
    await _event(task, session, timedelta(days=7))
