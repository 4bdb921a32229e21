"""copy-paste: copy a value from a text field in one window into a field of another with ctrl+c / ctrl+v.

Hard variants add fields with look-alike values, a third window, and a target field that already
holds text to replace.

The evaluator checks every field of every window (only the target field changed, to exactly the
value), that every window is still open, and the method from the actions applied
(``task.history``): a ctrl+c, a ctrl+v after it, the clipboard holding the value, and no run of
three of the value's characters ever typed (so typing it, in one go or in pieces, and then
copying it to the clipboard scores 0, whatever the clipboard holds).

Wrong ways: ``retype_then_copy`` (the tester's case: type the value into the target, then
ctrl+a, ctrl+c), ``retype_copy_paste`` (type it, then copy and paste it over itself),
``cut_instead_of_copy`` (ctrl+x empties the source field) and ``oracle_then_close_source``.
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.sim._desktop_common import (
    Screen,
    arrange,
    desktop,
    fresh,
    keep,
    kept,
    key_events,
    loaders,
    pressed,
    retyped,
    snapshot_windows,
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
    events = key_events(task.history)
    copies = pressed(events, "c")
    pasted = bool(copies) and any(i > copies[0] for i in pressed(events, "v"))
    return [1.0 if pasted and sim.clipboard == value and not retyped(events, value) else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    meta = task.metadata
    source = await screen.front(await screen.window(meta["source_title"]))
    await screen.click(await screen.find(source, "textbox", meta["copy"]))
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "c")
    target = await screen.front(await screen.window(meta["target_title"]))
    await screen.click(await screen.find(target, "textbox", meta["into"]))
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "v")


async def _type_into_target(screen: Screen, meta: dict[str, Any]) -> None:
    target = await screen.front(await screen.window(meta["target_title"]))
    await screen.click(await screen.find(target, "textbox", meta["into"]))
    await screen.keys("ctrl", "a")
    source = await screen.window(meta["source_title"])  # read off the screen, as an agent would
    await screen.type((await screen.find(source, "textbox", meta["copy"]))["value"])


@cb.wrong_way
async def retype_then_copy(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _type_into_target(screen, task.metadata)
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "c")


@cb.wrong_way
async def retype_copy_paste(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _type_into_target(screen, task.metadata)
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "c")
    await screen.keys("ctrl", "v")


@cb.wrong_way
async def cut_instead_of_copy(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    meta = task.metadata
    source = await screen.front(await screen.window(meta["source_title"]))
    await screen.click(await screen.find(source, "textbox", meta["copy"]))
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "x")
    target = await screen.front(await screen.window(meta["target_title"]))
    await screen.click(await screen.find(target, "textbox", meta["into"]))
    await screen.keys("ctrl", "a")
    await screen.keys("ctrl", "v")


@cb.wrong_way
async def oracle_then_close_source(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    source = await screen.front(await screen.window(task.metadata["source_title"]))
    await screen.click(await screen.find(source, "button", "Close"))
