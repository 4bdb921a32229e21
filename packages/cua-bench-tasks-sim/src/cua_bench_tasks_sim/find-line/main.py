"""find-line: find the line of a long text (in the editor) that contains a code, and submit its
line number in a form.

Easy: a dozen lines, all on screen. Medium: forty lines (the editor must be scrolled). Hard: a
hundred and twenty lines with look-alike codes on other lines.

The evaluator checks that every submission holds the line number (one guess after another
scores 0), that each was sent by a click on Submit as the instruction says (the desktop's records
of presses), that the field still holds it, and, against what setup kept, that nothing else
changed: the file system, and the editor's text, saved or not. Chance: 1/n
for n lines.

Wrong ways: ``count_from_zero`` (the line's index, one less), ``guess_then_correct`` (line 1 or 2
submitted first, then the right one), ``oracle_then_mark_the_line`` (a note typed into the log on
that line and saved) and ``submitted_with_enter`` (Enter instead of a click on Submit).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.sim import form_values
from cua_bench_tasks_sim._desktop_common import (
    DOCS,
    Screen,
    arrange,
    desktop,
    file_changes,
    fresh,
    keep,
    kept,
    loaders,
    other_windows_changed,
    seed_files,
    snapshot_files,
    window,
)
from cua_core import KeyPress, TypeText

FAMILY = "find-line"
LINES = {"easy": 12, "medium": 40, "hard": 120}
LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN")
SERVICES = ("auth", "billing", "search", "mailer", "cache", "gateway", "scheduler", "storage")
EVENTS = ("request served", "cache miss", "job queued", "user signed in", "retrying upload", "config reloaded",
          "connection opened", "connection closed", "report generated", "payment captured")  # fmt: skip
REPORT = "Report"


def log_line(rng: random.Random, code: str | None = None) -> str:
    stamp = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
    event = f"ERROR {code}: {rng.choice(EVENTS)} failed" if code else rng.choice(EVENTS)
    return f"{stamp} {rng.choice(LEVELS)} {rng.choice(SERVICES)}: {event}"


def build(rng: random.Random, difficulty: str) -> cb.Task:
    code = f"E{rng.randint(1000, 9999)}"
    decoys = {f"E{''.join(rng.sample(code[1:], 4))}" for _ in range(6)} - {code} if difficulty == "hard" else set()
    lines = [log_line(rng, rng.choice(sorted(decoys)) if decoys and rng.random() < 0.1 else None)
             for _ in range(LINES[difficulty])]  # fmt: skip
    number = rng.randint(1, len(lines))
    lines[number - 1] = log_line(rng, code)
    name = f"{rng.choice(SERVICES)}-{rng.randint(1, 30)}.log"
    description = (
        f"The editor shows {DOCS}/{name}. Find the line that contains the error code {code} and type its line "
        f"number (the first line is line 1) into the 'Line number' field of the '{REPORT}' window, then click Submit. "
        "Change nothing else."
    )
    metadata = {"files": {f"{DOCS}/{name}": "\n".join(lines) + "\n"}, "code": code, "number": number,
                "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(
        description=description, metadata=metadata, difficulty=difficulty, max_steps=12, chance=1 / len(lines)
    )


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    rng = random.Random(meta["seed"])
    seed_files(sim, meta["files"])
    path = next(iter(meta["files"]))
    editor = await session.launch("editor", path=path, width=rng.randint(560, 680), height=rng.randint(380, 460))
    widgets = [{"type": "label", "text": "Which line has the error?"}, {"type": "textfield", "name": "Line number"},
               {"type": "button", "name": "Submit", "default": True}]  # fmt: skip
    report = await session.launch("form", title=REPORT, widgets=widgets, width=rng.randint(320, 400))
    arrange(rng, sim, [sim.get_window(i) for i in rng.sample([editor, report], 2)])
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sim = desktop(session)
    report = window(sim, REPORT)
    sent = [] if report is None else report.data.get("submissions", [])
    right = bool(sent) and all(str(s.get("Line number", "")) == str(task.metadata["number"]) for s in sent)
    if report is None or not right or len(sim.provenance.clicks_on(report.id, "Submit")) < len(sent):
        return [0.0]
    holds = str(form_values(report).get("Line number", "")) == str(task.metadata["number"])
    others = other_windows_changed(task, sim, allow=[report.id])
    return [1.0 if holds and not others and not file_changes(kept(task, "files"), snapshot_files(sim)) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _submit(screen, await _the_number(screen, task))


async def _the_number(screen: Screen, task: cb.Task) -> int:
    editor = await screen.window(app="editor")
    text = (await screen.find(editor, "textbox", "Editor"))["value"]
    return next(i for i, row in enumerate(text.split("\n"), 1) if task.metadata["code"] in row)


async def _submit(screen: Screen, number: int, *, enter: bool = False) -> None:
    """The number typed into the report, then Submit clicked (``enter``: Enter pressed instead)."""
    report = await screen.front(await screen.window(REPORT))
    field = await screen.find(report, "textbox", "Line number")
    await screen.click(field)
    await screen.keys("ctrl", "a")
    await screen.type(str(number), enter=enter)
    if not enter:
        await screen.click(await screen.find(report, "button", "Submit"))


@cb.wrong_way
async def count_from_zero(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _submit(screen, await _the_number(screen, task) - 1)


@cb.wrong_way
async def guess_then_correct(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    number = await _the_number(screen, task)
    await _submit(screen, 2 if number == 1 else 1)
    await _submit(screen, number)


@cb.wrong_way
async def oracle_then_mark_the_line(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    number = await _the_number(screen, task)
    editor = await screen.front(await screen.window(app="editor"))
    await screen.click(await screen.find(editor, "textbox", "Editor"))
    down = [KeyPress(("down",))] * (number - 1)
    await screen.act(KeyPress(("ctrl", "home")), *down, KeyPress(("end",)), TypeText("  <-- found"))
    await screen.keys("ctrl", "s")


@cb.wrong_way
async def submitted_with_enter(task: cb.Task, session: cb.Session) -> None:
    """The right number, sent with Enter (the default button) where the instruction says to click Submit."""
    screen = Screen(session)
    await _submit(screen, await _the_number(screen, task), enter=True)
