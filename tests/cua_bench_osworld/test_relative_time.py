"""OSWorld's ``rule_relativeTime`` getter: relative days made absolute from the computer's clock.

The days are hand-computed for fixed "todays" (month ends, a Sunday, December into January, a leap
day). The clock is read through a real bash: a ``date`` on the PATH that answers a scripted time, or
the real one under a ``TZ`` of the computer's. Where desktop-env is installed, OSWorld's own getter
(1.0.2, loaded by path) fills the fixture tasks' rules in for a year of days and ours must agree.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import importlib.util
import json
import os
import stat
import zoneinfo
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support.osworld_sessions import LocalShell

from cua_bench.commands import CommandResult
from cua_bench.session import NotSupported
from cua_bench_osworld.config import Context
from cua_bench_osworld.getters import get
from cua_bench_osworld.loader import PlatformError, TaskSkipped, load_task, load_tasks
from cua_bench_osworld.relative_time import CLOCK_COMMAND, PHRASES, fill_in
from cua_bench_osworld.support import check_support

D = dt.date
ISO = "{Year}-{Month0D}-{Day0D}"


def day_of(phrase: str, today: dt.date) -> str:
    return str(fill_in({"relativeTime": {"from": phrase}, "expected": {"time": ISO}}, today)["expected"]["time"])


def range_of(start: str, end: str, today: dt.date) -> tuple[str, str]:
    rules = {"relativeTime": {"from": start, "to": end}, "expected": {"from": ISO, "to": ISO}}
    expected = fill_in(rules, today)["expected"]
    return expected["from"], expected["to"]


# -- phrases, by hand ---------------------------------------------------------------------------

SAT_JAN_31 = D(2026, 1, 31)  # a Saturday, a month's last day
SUN_MAY_31 = D(2026, 5, 31)  # a Sunday, a month's last day
THU_DEC_31 = D(2026, 12, 31)  # the year's last day
MON_AUG_31 = D(2026, 8, 31)  # a Monday


@pytest.mark.parametrize(
    ("phrase", "today", "want"),
    [
        ("tomorrow", SAT_JAN_31, "2026-02-01"),
        ("tomorrow", THU_DEC_31, "2027-01-01"),
        ("tomorrow", D(2028, 2, 28), "2028-02-29"),
        ("5th next month", SAT_JAN_31, "2026-02-05"),
        ("5th next month", SUN_MAY_31, "2026-06-05"),
        ("5th next month", THU_DEC_31, "2027-01-05"),
        ("this month", THU_DEC_31, "2026-12-31"),
        ("next Monday", SAT_JAN_31, "2026-02-02"),
        ("next Monday", SUN_MAY_31, "2026-06-01"),
        ("next Monday", MON_AUG_31, "2026-09-07"),  # on a Monday: a week on
        ("next Monday", THU_DEC_31, "2027-01-04"),
        ("first monday eight months later", D(2026, 4, 15), "2026-12-07"),  # December 1st is a Tuesday
        ("first monday eight months later", D(2026, 5, 1), "2027-01-04"),  # May + 8: January, a year on
        ("first monday eight months later", D(2026, 6, 1), "2027-02-01"),  # February 1st is a Monday itself
        ("first monday eight months later", THU_DEC_31, "2027-08-02"),
        ("first monday four months later", SAT_JAN_31, "2026-05-04"),
        ("first monday four months later", MON_AUG_31, "2026-12-07"),
        ("first monday four months later", D(2026, 9, 1), "2027-01-04"),
        ("next Friday", D(2026, 1, 30), "2026-02-06"),  # on a Friday: a week on
        ("next Saturday", SUN_MAY_31, "2026-06-06"),
        ("next Sunday", SUN_MAY_31, "2026-06-07"),
        ("this Saturday", SUN_MAY_31, "2026-05-30"),  # OSWorld's: on a Sunday, yesterday
        ("this Sunday", SUN_MAY_31, "2026-05-31"),
        ("week after next Saturday", THU_DEC_31, "2027-01-16"),
    ],
)
def test_a_phrase_names_the_day_osworld_computes(phrase: str, today: dt.date, want: str) -> None:
    assert day_of(phrase, today) == want


@pytest.mark.parametrize(
    ("start", "end", "today", "want"),
    [
        # chrome/b7895e80: a hotel next weekend, from Friday or Saturday to Sunday of next week
        ("next week Saturday", "next week Sunday", SAT_JAN_31, ("2026-02-07", "2026-02-08")),
        ("next week Saturday", "next week Sunday", SUN_MAY_31, ("2026-06-06", "2026-06-07")),
        ("next week Friday", "next week Sunday", THU_DEC_31, ("2027-01-08", "2027-01-10")),
        ("next week Friday", "next week Sunday", MON_AUG_31, ("2026-09-11", "2026-09-13")),
        # chrome/47543840: a car from the 10th to the 11th of next month
        ("10th next month", "11th next month", SAT_JAN_31, ("2026-02-10", "2026-02-11")),
        ("10th next month", "11th next month", THU_DEC_31, ("2027-01-10", "2027-01-11")),
        # a Friday after a Monday is that Monday's week's, not the first Friday from today
        ("next Monday", "next Friday", D(2026, 12, 29), ("2027-01-04", "2027-01-08")),
        ("next Monday", "next Friday", MON_AUG_31, ("2026-09-07", "2026-09-11")),
        ("tomorrow", "next Friday", MON_AUG_31, ("2026-09-01", "2026-09-04")),
        # a Sunday after next Friday or Saturday is that weekend's
        ("next Saturday", "next Sunday", SAT_JAN_31, ("2026-02-07", "2026-02-08")),
        ("next Friday", "next Sunday", SUN_MAY_31, ("2026-06-05", "2026-06-07")),
        ("this Saturday", "this Sunday", SUN_MAY_31, ("2026-05-30", "2026-05-31")),
        ("week after next Friday", "week after next Sunday", SAT_JAN_31, ("2026-02-13", "2026-02-15")),
    ],
)
def test_a_range_names_both_days(start: str, end: str, today: dt.date, want: tuple[str, str]) -> None:
    assert range_of(start, end, today) == want


# chrome/1704f00f: a car from next Monday to Friday, day, month and year apart.
SPLIT: dict[str, Any] = {
    "relativeTime": {"from": "next Monday split", "to": "next Friday split"},
    "timezone": "Europe/Zurich",
    "expected": {"puDay": "{DayD}", "puMonth": "{MonthD}", "puYear": "{Year}",
                 "doDay": "{DayD}", "doMonth": "{MonthD}", "doYear": "{Year}"},
}  # fmt: skip


@pytest.mark.parametrize(
    ("today", "pick_up", "drop_off"),
    [
        (SAT_JAN_31, ("2", "2", "2026"), ("6", "2", "2026")),
        (SUN_MAY_31, ("1", "6", "2026"), ("5", "6", "2026")),
        (D(2026, 12, 29), ("4", "1", "2027"), ("8", "1", "2027")),  # not Friday January 1st
        (MON_AUG_31, ("7", "9", "2026"), ("11", "9", "2026")),
    ],
)
def test_a_split_range_fills_day_month_and_year_apart(
    today: dt.date, pick_up: tuple[str, ...], drop_off: tuple[str, ...]
) -> None:
    expected = fill_in(SPLIT, today)["expected"]
    assert (expected["puDay"], expected["puMonth"], expected["puYear"]) == pick_up
    assert (expected["doDay"], expected["doMonth"], expected["doYear"]) == drop_off
    assert SPLIT["expected"]["puDay"] == "{DayD}"  # the task's own rules are left as they were


@pytest.mark.parametrize(
    ("template", "today", "want"),
    [
        ("{DoW}, {Month} {Day0D}, {Year}", D(2026, 2, 1), "Sun, Feb 01, 2026"),
        ("Check In{DoW}, {Month} {Day0D}", D(2026, 9, 11), "Check InFri, Sep 11"),
        ("{MonthFull} {Day0D}, 10:15 AM", D(2026, 12, 7), "December 07, 10:15 AM"),
        ("{month}-weather", D(2026, 5, 31), "may-weather"),
        ("{DayD}/{MonthD}/{Year} {Month0D}", D(2027, 1, 4), "4/1/2027 01"),
        ("{DoW}, {Month} {Day0D}, 12:00 PM", D(2026, 11, 10), "Tue, Nov 10, 12:00 PM"),
        ("{Year}..{Year} {Hour}", D(2026, 11, 10), "2026..2026 {Hour}"),  # every one; unknown ones stay
    ],
)
def test_formats_are_filled_in_as_osworld_writes_dates(template: str, today: dt.date, want: str) -> None:
    rules = {"relativeTime": {"from": "this month"}, "expected": {"time": template, "start": "{Year}"}}
    expected = fill_in(rules, today)["expected"]
    assert expected == {"time": want, "start": "{Year}"}  # only the time is a format


def test_a_list_of_formats_is_filled_in_each() -> None:
    rules = {"relativeTime": {"from": "next Monday"}, "expected": {"time": [ISO, "{DoW}"], "fromStation": ["BOM"]},
             "expect_in_result": True}  # fmt: skip
    out = fill_in(rules, SUN_MAY_31)
    assert out == {**rules, "expected": {"time": ["2026-06-01", "Mon"], "fromStation": ["BOM"]}}


@pytest.mark.parametrize(
    ("relative", "unknown"),
    [
        ({"from": "next fortnight"}, "'next fortnight'"),
        ({"from": "next Monday", "to": "next Tuesday"}, "'next Tuesday'"),
        ({"from": "Next monday"}, "'Next monday'"),  # OSWorld's phrases are matched as written
        ({"from": 3}, "3"),
    ],
)
def test_an_unknown_phrase_is_a_skip_naming_it(relative: dict[str, Any], unknown: str) -> None:
    rules = {"relativeTime": relative, "expected": {"time": ISO, "from": ISO, "to": ISO}}
    with pytest.raises(TaskSkipped, match=f"unknown relative time {unknown} "):
        fill_in(rules, SUN_MAY_31)


def test_a_rule_without_the_format_for_its_day_is_a_skip() -> None:
    with pytest.raises(TaskSkipped, match="no format at 'time'"):
        fill_in({"relativeTime": {"from": "tomorrow"}, "expected": {"from": ISO}}, SUN_MAY_31)
    with pytest.raises(TaskSkipped, match=r"relativeTime\.from"):
        fill_in({"relativeTime": {"to": "tomorrow"}, "expected": {}}, SUN_MAY_31)


# -- the computer's clock -------------------------------------------------------------------------


def scripted_clock(tmp_path: Path, script: str) -> LocalShell:
    """A computer whose ``date`` is ``script`` (bash), first on its PATH; it notes its arguments."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    fake = folder / "date"
    fake.write_text(f'#!/bin/bash\necho "$@" >> {folder}/calls\n{script}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return LocalShell(env={"PATH": f"{folder}:{os.environ['PATH']}"})


def getter(tmp_path: Path, session: Any, rules: dict[str, Any]) -> Any:
    ctx = Context(session, tmp_path, tmp_path, command_timeout=30.0)
    return asyncio.run(get(ctx, {"type": "rule_relativeTime", "rules": rules}))


def tomorrow(timezone: str | None = None) -> dict[str, Any]:
    rules: dict[str, Any] = {"relativeTime": {"from": "tomorrow"}, "expected": {"time": ISO}}
    if timezone is not None:
        rules["timezone"] = timezone
    return rules


NEW_YEARS_EVE_IN_NEW_YORK = "echo 2026-12-31T23:30:00-0500"  # 05:30 on New Year's Day in Zurich


def test_today_is_the_computers_and_a_rules_timezone_wins(tmp_path: Path) -> None:
    session = scripted_clock(tmp_path, NEW_YEARS_EVE_IN_NEW_YORK)
    assert getter(tmp_path, session, tomorrow())["expected"]["time"] == "2027-01-01"
    assert getter(tmp_path, session, tomorrow("Europe/Zurich"))["expected"]["time"] == "2027-01-02"
    assert getter(tmp_path, session, tomorrow("America/Los_Angeles"))["expected"]["time"] == "2027-01-01"
    calls = (tmp_path / "bin" / "calls").read_text().splitlines()
    assert calls == [CLOCK_COMMAND.split(" ", 1)[1]] * 3  # read each time, never the host's clock


def test_an_unknown_timezone_leaves_the_computers_as_osworld_does(tmp_path: Path) -> None:
    session = scripted_clock(tmp_path, NEW_YEARS_EVE_IN_NEW_YORK)
    assert getter(tmp_path, session, tomorrow("Mars/Olympus_Mons"))["expected"]["time"] == "2027-01-01"


@pytest.mark.parametrize("zone", ["Etc/GMT-14", "Etc/GMT+12"])  # 26 hours apart: never one date
def test_the_computers_own_timezone_is_read_from_its_shell(tmp_path: Path, zone: str) -> None:
    def expected() -> str:
        return (dt.datetime.now(zoneinfo.ZoneInfo(zone)).date() + dt.timedelta(days=1)).isoformat()

    before = expected()
    got = getter(tmp_path, LocalShell(env={"TZ": zone}), tomorrow())["expected"]["time"]
    assert got in {before, expected()}  # a midnight may pass between
    other = "Etc/GMT+12" if zone == "Etc/GMT-14" else "Etc/GMT-14"
    assert got != (dt.datetime.now(zoneinfo.ZoneInfo(other)).date() + dt.timedelta(days=1)).isoformat()


@pytest.mark.parametrize("script", ["echo 'date: invalid option' >&2; exit 1", "echo yesterday"])
def test_a_computer_that_cannot_tell_its_time_is_an_error(tmp_path: Path, script: str) -> None:
    with pytest.raises(PlatformError, match="the computer cannot tell its time"):
        getter(tmp_path, scripted_clock(tmp_path, script), tomorrow())


class NoShell(LocalShell):
    async def run_shell(self, command: str, timeout: float) -> CommandResult:
        raise NotSupported("no shell here")


def test_a_backend_without_a_shell_is_a_skip(tmp_path: Path) -> None:
    with pytest.raises(TaskSkipped, match="no shell"):
        getter(tmp_path, NoShell(), tomorrow())


def test_an_unknown_phrase_skips_the_task_through_the_getter(tmp_path: Path) -> None:
    rules = {"relativeTime": {"from": "the day after tomorrow"}, "expected": {"time": ISO}}
    with pytest.raises(TaskSkipped, match="unknown relative time 'the day after tomorrow'"):
        getter(tmp_path, scripted_clock(tmp_path, NEW_YEARS_EVE_IN_NEW_YORK), rules)


# -- the fixture tasks ----------------------------------------------------------------------------


def relative_rules(shared_fixtures: Path) -> list[tuple[Path, dict[str, Any]]]:
    tasks = load_tasks(shared_fixtures / "osworld") + load_tasks(shared_fixtures / "osworld_more")
    found = [
        (task.path, getter_config["rules"])
        for task in tasks
        for getter_config in task.evaluator.getters()
        if getter_config["type"] == "rule_relativeTime"
    ]
    assert len(found) >= 9, found  # 8 tasks, one with two such rules
    return found


def test_every_fixture_rule_is_filled_in_and_its_tasks_are_supported(tmp_path: Path, shared_fixtures: Path) -> None:
    session = scripted_clock(tmp_path, NEW_YEARS_EVE_IN_NEW_YORK)
    for path, rules in relative_rules(shared_fixtures):
        filled = getter(tmp_path, session, rules)["expected"]
        assert filled != rules["expected"], path
        assert not [value for value in filled.values() if "{" in json.dumps(value)], (path, filled)  # all known
        reasons = check_support(load_task(path), official=frozenset(), mirror=None).reasons
        assert "unsupported getter: rule_relativeTime" not in reasons, (path, reasons)


# -- OSWorld's own getter ---------------------------------------------------------------------------


def osworld_misc() -> ModuleType:
    """desktop-env's getters/misc.py, loaded by path (its package ``__init__`` imports playwright and more)."""
    spec = importlib.util.find_spec("desktop_env")
    if spec is None or not spec.submodule_search_locations:
        if os.environ.get("CI"):
            pytest.fail("CI is set but desktop-env is not installed, so ours was compared against nothing")
        pytest.skip("desktop-env is not installed: OSWorld's getter cannot be compared")
    path = Path(next(iter(spec.submodule_search_locations))) / "evaluators" / "getters" / "misc.py"
    module_spec = importlib.util.spec_from_file_location("osworld_getters_misc_under_test", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def frozen_datetime(instant: dt.datetime) -> type[dt.datetime]:
    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> Frozen:
            moment = instant.astimezone(tz)
            return cls.combine(moment.date(), moment.timetz())

    return Frozen


def test_ours_agrees_with_osworlds_getter_on_the_fixture_rules_for_a_year(
    tmp_path: Path, shared_fixtures: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    misc = osworld_misc()
    # Its rules without a timezone take one from IP geolocation; here: Tokyo, and our computer is in Tokyo.
    monkeypatch.setattr(misc, "get_timezone_from_ip", lambda: "Asia/Tokyo")
    tokyo = zoneinfo.ZoneInfo("Asia/Tokyo")
    compared = 0
    for path, rules in relative_rules(shared_fixtures):
        for offset in range(366):
            instant = dt.datetime(2026, 1, 1, 20, 0, tzinfo=dt.UTC) + dt.timedelta(days=offset)
            monkeypatch.setattr(misc, "datetime", frozen_datetime(instant))
            zone = zoneinfo.ZoneInfo(rules["timezone"]) if "timezone" in rules else tokyo
            today = instant.astimezone(zone).date()
            if isinstance(rules["expected"].get("time"), list):
                # 1.0.2 formats one string only (OSWorld takes lists since; ours does): chrome/82bc8d6a.
                with pytest.raises(AttributeError, match="'list' object has no attribute 'replace'"):
                    misc.get_rule_relativeTime(None, {"rules": copy.deepcopy(rules)})
                continue
            if rules["relativeTime"]["from"] == "first monday eight months later" and today.month == 4:
                # 1.0.2 asks for month (4 + 8) % 12 = 0 there (OSWorld has fixed it since; ours is the fix).
                with pytest.raises(ValueError, match=r"month must be in 1\.\.12"):
                    misc.get_rule_relativeTime(None, {"rules": copy.deepcopy(rules)})
                continue
            theirs = misc.get_rule_relativeTime(None, {"rules": copy.deepcopy(rules)})
            ours = fill_in(rules, today)
            assert ours == theirs, (path, instant)
            compared += 1
    capsys.readouterr()  # its getter prints every rule
    assert compared == 8 * 366 - 30  # all but the list of formats, and 1.0.2's April


def test_phrases_are_osworlds() -> None:
    misc = osworld_misc()
    assert set(misc.relativeTime_to_IntDay) <= set(PHRASES)  # 1.0.2's; ours has newer OSWorld's "week after next"


def test_the_registries_know_the_getter() -> None:
    from cua_bench_osworld import getters, support

    assert "rule_relativeTime" in getters.GETTERS
    assert "rule_relativeTime" in support.GETTERS and "rule_relativeTime" in support.SHELL_GETTERS
    registered: Callable[..., Any] = getters.GETTERS["rule_relativeTime"]
    assert registered.__module__ == "cua_bench_osworld.relative_time"
