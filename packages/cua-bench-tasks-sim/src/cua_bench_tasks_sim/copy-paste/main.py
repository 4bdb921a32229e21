"""copy-paste: copy a value from a text field in one window into a field of another with ctrl+c / ctrl+v.

Hard variants add fields with look-alike values, a third window, and a target field that already
holds text to replace.

The evaluator checks every field of every window (only the target field changed, to exactly the
value), that every window is still open, and the method from what the desktop observed (its
``provenance``, never the keys pressed): every character of the target field was pasted from a
clipboard copied from the named source field, where setup had put it. Text typed anywhere (in
pieces, backwards, into the source field itself) and then copied and pasted reads as typed.

Wrong ways: ``retype_then_copy`` (the tester's case: type the value into the target, then
ctrl+a, ctrl+c), ``retype_copy_paste`` (type it, then copy and paste it over itself), the red
team's ``typed_in_pairs_with_backspace`` and ``typed_backwards_with_left`` (typed so that no three
characters of the value are typed in a row, then copied and pasted over itself),
``retyped_in_source_then_copy_paste`` (typed over the source's own value, copied from there),
``cut_instead_of_copy`` (ctrl+x empties the source field) and ``oracle_then_close_source``.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.sim import pasted_from
from cua_bench_tasks_sim._desktop_common import (
    Screen,
    arrange,
    desktop,
    fresh,
    keep,
    kept,
    loaders,
    snapshot_windows,
    text_origins,
    token,
    window,
    window_changes,
)

FAMILY = "copy-paste"
SOURCES = ("Customer record", "Shipment details", "Account settings", "Order summary", "Supplier card", "License info")
TARGETS = ("Claim form", "Support ticket", "Payment form", "Return request", "Registration", "Refund request")
FIELDS = ("Tracking number", "Order ID", "Account number", "License key", "Reference", "Customer ID",
          "Serial number", "Invoice number", "Voucher code", "Booking ref")  # fmt: skip
SIZES = {"easy": (1, 1), "medium": (3, 2), "hard": (5, 4)}


def build(rng: random.Random, difficulty: str) -> cb.Task:
    n_source, n_target = SIZES[difficulty]
    source_title = f"{rng.choice(SOURCES)} #{rng.randint(100, 9999)}"
    target_title = f"{rng.choice(TARGETS)} #{rng.randint(100, 9999)}"
    source = {name: token(rng, rng.randint(2, 4)) for name in rng.sample(FIELDS, n_source)}
    copy = rng.choice(list(source))
    target = dict.fromkeys(rng.sample(FIELDS, n_target), "")
    into = rng.choice(list(target))
    for name in target:
        if difficulty == "hard" or (name != into and rng.random() < 0.5):
            target[name] = rng.choice(["paste here", "TBD", token(rng, 2), "n/a"])
    notes = {"Scratch": token(rng, 3)} if difficulty == "hard" else {}
    description = (
        f"Copy the {copy} from the '{source_title}' window into the {into} field of the '{target_title}' "
        f"window, replacing what the field holds. Use copy and paste (select the text, ctrl+c, then ctrl+v) "
        f"rather than typing it, and change nothing else."
    )
    metadata = {"source_title": source_title, "target_title": target_title, "source": source, "target": target,
                "copy": copy, "into": into, "notes": notes, "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(
        description=description, metadata=metadata, difficulty=difficulty, max_steps=10 + 2 * n_target, chance=0.0
    )


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    rng = random.Random(meta["seed"])
    forms = [("Notes", meta["notes"])] if meta["notes"] else []
    forms += [(meta["source_title"], meta["source"]), (meta["target_title"], meta["target"])]
    opened = []
    for title, values in forms:
        widgets = [{"type": "textfield", "name": name, "value": value} for name, value in values.items()]
        opened.append(sim.get_window(await session.launch("form", title=title, widgets=widgets,
                                                          width=rng.randint(380, 460))))  # fmt: skip
    arrange(rng, sim, opened)
    keep(task, sim)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sim = desktop(session)
    meta = task.metadata
    value = meta["source"][meta["copy"]]
    expected = {meta["source_title"]: meta["source"], meta["target_title"]: {**meta["target"], meta["into"]: value}}
    if meta["notes"]:
        expected["Notes"] = meta["notes"]
    for title, values in expected.items():
        win = window(sim, title)
        if win is None or any(win.find("textbox", name).value != text for name, text in values.items()):
            return [0.0]
    if window_changes(kept(task, "windows"), snapshot_windows(sim)):
        return [0.0]
    source, target = window(sim, meta["source_title"]), window(sim, meta["target_title"])
    assert source is not None and target is not None  # both checked above
    pasted = text_origins(target.find("textbox", meta["into"]))
    return [1.0 if pasted_from(pasted, source.find("textbox", meta["copy"]).ref) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _copy_from_source(screen, task.metadata)
    await _paste_into_target(screen, task.metadata)


async def _copy_from_source(screen: Screen, meta: dict[str, Any], *, key: str = "c", retype: bool = False) -> None:
    """Select the source field's text and copy it (``key`` x: cut it); ``retype`` types the value
    over itself first (the field reads as before)."""
    source = await screen.front(await screen.window(meta["source_title"]))
    field = await screen.find(source, "textbox", meta["copy"])
    await screen.click(field)
    await screen.keys("ctrl", "a")
    if retype:
        await screen.type(str(field["value"]))
        await screen.keys("ctrl", "a")
    await screen.keys("ctrl", key)


async def _paste_into_target(screen: Screen, meta: dict[str, Any]) -> None:
    await _select_target(screen, meta)
    await screen.keys("ctrl", "v")


async def _select_target(screen: Screen, meta: dict[str, Any]) -> str:
    """The target field focused with its text selected; returns the value, read off the source
    window as an agent would."""
    source = await screen.window(meta["source_title"])
    value = str((await screen.find(source, "textbox", meta["copy"]))["value"])
    target = await screen.front(await screen.window(meta["target_title"]))
    await screen.click(await screen.find(target, "textbox", meta["into"]))
    await screen.keys("ctrl", "a")
    return value


@cb.wrong_way
async def retype_then_copy(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await screen.type(await _select_target(screen, task.metadata))
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "c")


@cb.wrong_way
async def retype_copy_paste(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await screen.type(await _select_target(screen, task.metadata))
    await _copy_and_paste_over_itself(screen)


async def _copy_and_paste_over_itself(screen: Screen) -> None:
    for key in ("a", "c", "v"):
        await screen.keys("ctrl", key)


@cb.wrong_way
async def typed_in_pairs_with_backspace(task: cb.Task, session: cb.Session) -> None:
    """The red team's: the value typed into the target two characters at a time, each pair followed
    by '#' and BackSpace (no three of its characters typed in a row), then copied and pasted over itself."""
    screen = Screen(session)
    value = await _select_target(screen, task.metadata)
    for start in range(0, len(value), 2):
        await screen.type(value[start : start + 2] + "#")
        await screen.keys("backspace")
    await _copy_and_paste_over_itself(screen)


@cb.wrong_way
async def typed_backwards_with_left(task: cb.Task, session: cb.Session) -> None:
    """The red team's: the value typed into the target from its last character to its first, Left
    after each, then copied and pasted over itself."""
    screen = Screen(session)
    value = await _select_target(screen, task.metadata)
    for char in reversed(value):
        await screen.type(char)
        await screen.keys("left")
    await _copy_and_paste_over_itself(screen)


@cb.wrong_way
async def retyped_in_source_then_copy_paste(task: cb.Task, session: cb.Session) -> None:
    """The value typed over itself in the source field, copied from there and pasted: what was
    pasted is text the agent typed, not the value setup put in the source."""
    screen = Screen(session)
    await _copy_from_source(screen, task.metadata, retype=True)
    await _paste_into_target(screen, task.metadata)


@cb.wrong_way
async def cut_instead_of_copy(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _copy_from_source(screen, task.metadata, key="x")
    await _paste_into_target(screen, task.metadata)


@cb.wrong_way
async def oracle_then_close_source(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    source = await screen.front(await screen.window(task.metadata["source_title"]))
    await screen.click(await screen.find(source, "button", "Close"))
