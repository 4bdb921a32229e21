"""OSWorld's ``rule_relativeTime`` getter: a task's rule with its relative days made absolute dates.

Some tasks name a day in words ("tomorrow", "next Monday", "5th next month") because the page the
agent fills in shows a real date. Their expected getter is a rule whose ``relativeTime`` names the
day (``from``, and ``to`` for a range) and whose ``expected`` holds formats such as
``"{DoW}, {Month} {Day0D}"``; the getter writes the day into those formats, and the metric
(``check_direct_json_object``) compares the page with the result.

"Today" is the computer's: its clock in its own timezone, read through its shell, so the grader
and the agent agree on the day, as OSWorld reads its VM's clock. A rule's ``timezone`` says in
which zone that instant is taken instead. Where the VM does not answer, OSWorld falls back to the
grader's clock in a timezone it looks up by IP geolocation; we never ask the network or use the
host's clock: a computer that cannot tell its time is a ``PlatformError``, a backend with no shell
a skip.

The phrases are OSWorld's (``PHRASES``), each meaning what OSWorld computes for it; a phrase it
does not know is a ``TaskSkipped`` naming it, never a guess. Where OSWorld computes nothing (a
phrase in the position its code does not handle, where it fails with a NameError), ours gives the
phrase the day it has elsewhere.
"""

from __future__ import annotations

import copy
import datetime as dt
import logging
import re
import zoneinfo
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from cua_bench import NotSupported
from cua_bench_osworld.loader import PlatformError, TaskSkipped

if TYPE_CHECKING:
    from cua_bench_osworld.config import Context

__all__ = ["CLOCK_COMMAND", "PHRASES", "PLACEHOLDERS", "RELATIVE_TIME_GETTERS", "SAME_WEEK_AS_FROM", "fill_in"]

log = logging.getLogger(__name__)

# The computer's local time with its UTC offset; the format GNU and BSD date both take.
CLOCK_COMMAND = "date +%Y-%m-%dT%H:%M:%S%z"
_CLOCK_FORMAT = "%Y-%m-%dT%H:%M:%S%z"

MONDAY, FRIDAY, SATURDAY, SUNDAY = 0, 4, 5, 6


def _next(weekday: int) -> Callable[[dt.date], dt.date]:
    """The first such weekday after today (a week on, when today is one)."""
    return lambda today: today + dt.timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)


def _in_week(weekday: int, weeks_on: int) -> Callable[[dt.date], dt.date]:
    """That weekday of the Monday-to-Sunday week ``weeks_on`` weeks from this one (0: this week,
    which may be a day already past: OSWorld's "this Saturday" on a Sunday is yesterday)."""
    return lambda today: today + dt.timedelta(days=weekday - today.weekday() + 7 * weeks_on)


def _day_of_next_month(day: int) -> Callable[[dt.date], dt.date]:
    def of(today: dt.date) -> dt.date:
        year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
        return dt.date(year, month, day)

    return of


def _first_monday_months_later(months: int) -> Callable[[dt.date], dt.date]:
    def of(today: dt.date) -> dt.date:
        year, month0 = divmod(today.year * 12 + today.month - 1 + months, 12)
        first = dt.date(year, month0 + 1, 1)
        return first + dt.timedelta(days=(MONDAY - first.weekday()) % 7)

    return of


# OSWorld's phrases (its ``relativeTime_to_IntDay``), each as the day it computes from today.
PHRASES: dict[str, Callable[[dt.date], dt.date]] = {
    "tomorrow": lambda today: today + dt.timedelta(days=1),
    "this month": lambda today: today,  # formats of it name the month only ("{month}-weather")
    "5th next month": _day_of_next_month(5),
    "10th next month": _day_of_next_month(10),
    "11th next month": _day_of_next_month(11),
    "this Saturday": _in_week(SATURDAY, 0),
    "this Sunday": _in_week(SUNDAY, 0),
    "next Monday": _next(MONDAY),
    "next Friday": _next(FRIDAY),
    "next Saturday": _next(SATURDAY),
    "next Sunday": _next(SUNDAY),
    "next week Friday": _in_week(FRIDAY, 1),
    "next week Saturday": _in_week(SATURDAY, 1),
    "next week Sunday": _in_week(SUNDAY, 1),
    "week after next Friday": _in_week(FRIDAY, 2),
    "week after next Saturday": _in_week(SATURDAY, 2),
    "week after next Sunday": _in_week(SUNDAY, 2),
    "first monday four months later": _first_monday_months_later(4),
    "first monday eight months later": _first_monday_months_later(8),
    # "split": the expected holds day, month and year apart (puDay... for from, doDay... for to).
    "next Monday split": _next(MONDAY),
    "week after next Monday split": lambda today: _next(MONDAY)(today) + dt.timedelta(days=7),
    "next Friday split": _next(FRIDAY),
    # OSWorld's own reading when no "week after next Monday split" comes before it: next Friday.
    "week after next Friday split": _next(FRIDAY),
}

# A ``to`` that OSWorld takes in the week of the ``from`` it follows (Monday to Friday of one week,
# Friday or Saturday to Sunday of one weekend), rather than counting from today: ``to`` -> those ``from``s.
_MONDAYS = frozenset({"next Monday", "next Monday split", "week after next Monday split"})
SAME_WEEK_AS_FROM: dict[str, tuple[int, frozenset[str]]] = {
    "next Friday": (FRIDAY, _MONDAYS),
    "next Friday split": (FRIDAY, _MONDAYS),
    "week after next Friday split": (FRIDAY, _MONDAYS),
    "next Sunday": (SUNDAY, frozenset({"next Friday", "next Saturday"})),
    "next week Sunday": (SUNDAY, frozenset({"next week Friday", "next week Saturday"})),
    "week after next Sunday": (SUNDAY, frozenset({"week after next Friday", "week after next Saturday"})),
}

# Where a day goes in ``expected``: one key, or day, month and year apart for a "split" phrase.
_SPLIT_KEYS = {"from": ("puDay", "puMonth", "puYear"), "to": ("doDay", "doMonth", "doYear")}

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # fmt: skip

# OSWorld's placeholders (``apply_rules_to_timeFormat``), in English whatever the host's locale.
PLACEHOLDERS: dict[str, Callable[[dt.date], str]] = {
    "DoW": lambda day: _DAYS[day.weekday()],
    "Month": lambda day: _MONTHS[day.month - 1][:3],
    "MonthFull": lambda day: _MONTHS[day.month - 1],
    "month": lambda day: _MONTHS[day.month - 1].lower(),
    "MonthD": lambda day: str(day.month),
    "Month0D": lambda day: f"{day.month:02d}",
    "DayD": lambda day: str(day.day),
    "Day0D": lambda day: f"{day.day:02d}",
    "Year": lambda day: str(day.year),
}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _format(template: str, day: dt.date) -> str:
    """Every known placeholder filled in (OSWorld fills the first of each kind only; a format that
    repeats one would keep the second as written and never match). Others stay as written, as there."""
    return _PLACEHOLDER.sub(lambda m: PLACEHOLDERS[m[1]](day) if m[1] in PLACEHOLDERS else m[0], template)


def _day(phrase: Any, today: dt.date) -> dt.date:
    of = PHRASES.get(phrase) if isinstance(phrase, str) else None
    if of is None:
        raise TaskSkipped(f"rule_relativeTime: unknown relative time {phrase!r} (not one of OSWorld's phrases)")
    return of(today)


def _end_day(start: str, first: dt.date, end: Any, today: dt.date) -> dt.date:
    """The day ``to`` names: in the week of ``from`` where OSWorld pairs them, else counted from today."""
    weekday, after = SAME_WEEK_AS_FROM.get(end, (0, frozenset())) if isinstance(end, str) else (0, frozenset())
    if start in after:
        return first + dt.timedelta(days=weekday - first.weekday())
    return _day(end, today)


def _fill(expected: dict[str, Any], keys: tuple[str, ...], day: dt.date) -> None:
    for key in keys:
        template = expected.get(key)
        if isinstance(template, str):
            expected[key] = _format(template, day)
        elif isinstance(template, list) and all(isinstance(t, str) for t in template):
            expected[key] = [_format(t, day) for t in template]
        else:
            raise TaskSkipped(f"rule_relativeTime: the rule's expected has no format at {key!r} for its date")


def fill_in(rules: dict[str, Any], today: dt.date) -> dict[str, Any]:
    """A copy of ``rules`` whose ``expected`` formats hold the days ``relativeTime`` names, counted
    from ``today`` (the task's rules are left as they are; OSWorld writes into them)."""
    relative = rules.get("relativeTime")
    if not isinstance(relative, dict) or "from" not in relative or not isinstance(rules.get("expected"), dict):
        raise TaskSkipped("rule_relativeTime: the rule needs relativeTime.from and an expected dict")
    out = copy.deepcopy(rules)
    expected = out["expected"]
    start = relative["from"]
    first = _day(start, today)
    if "to" not in relative:
        _fill(expected, ("time",), first)
        return out
    end = relative["to"]
    last = _end_day(start, first, end, today)
    for position, phrase, day in (("from", start, first), ("to", end, last)):
        _fill(expected, _SPLIT_KEYS[position] if phrase.endswith(" split") else (position,), day)
    return out


async def _computer_now(ctx: Context) -> dt.datetime:
    """The computer's clock, with its UTC offset."""
    try:
        result = await ctx.session.run_command(CLOCK_COMMAND, timeout=ctx.command_timeout)
    except NotSupported as exc:
        raise TaskSkipped("rule_relativeTime: backend has no shell to read the computer's clock") from exc
    text = result.stdout.strip()
    try:
        if result.returncode != 0:
            raise ValueError(f"exit {result.returncode}: {result.stderr.strip()[-200:]}")
        return dt.datetime.strptime(text, _CLOCK_FORMAT)
    except ValueError as exc:
        raise PlatformError(f"rule_relativeTime: the computer cannot tell its time (`{CLOCK_COMMAND}`: {exc})") from exc


def _in_zone(now: dt.datetime, name: Any) -> dt.datetime:
    """``now`` in the rule's timezone; an unknown name leaves the computer's, as OSWorld does."""
    try:
        return now.astimezone(zoneinfo.ZoneInfo(str(name)))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        if not zoneinfo.available_timezones():
            raise PlatformError(
                f"rule_relativeTime: this host has no time zone database to read {name!r} with (pip install tzdata)"
            ) from None
        log.warning("rule_relativeTime: unknown timezone %r; the computer's own is used, as OSWorld does", name)
        return now


async def rule_relative_time(ctx: Context, config: dict[str, Any]) -> dict[str, Any]:
    """The rule with the days its ``relativeTime`` names written into its ``expected`` formats."""
    rules = config["rules"]
    now = await _computer_now(ctx)
    if rules.get("timezone"):
        now = _in_zone(now, rules["timezone"])
    return fill_in(rules, now.date())


RELATIVE_TIME_GETTERS: dict[str, Callable[[Context, dict[str, Any]], Awaitable[Any]]] = {
    "rule_relativeTime": rule_relative_time,
}
