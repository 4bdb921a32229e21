"""copy-paste: copy a value from a text field in one window into a field of another with ctrl+c / ctrl+v.

Hard variants add fields with look-alike values, a third window, and a target field that already
holds text to replace. The clipboard must end up holding the value: it was copied, not retyped.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.sim._desktop_common import Screen, arrange, desktop, fresh, loaders, token, window

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
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=10 + 2 * n_target)


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
    return [1.0 if sim.clipboard == value else 0.0]


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
