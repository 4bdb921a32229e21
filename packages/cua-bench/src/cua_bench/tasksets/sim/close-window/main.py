"""close-window: close exactly the window with a given title; every other window stays open.

Easy: two windows side by side. Medium: four, with look-alike titles. Hard: six overlapping
windows with look-alike titles, the target never in front.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.tasksets.sim._desktop_common import NOUNS, Screen, arrange, desktop, fresh, line, loaders

FAMILY = "close-window"
BASES = ("Invoice", "Chat with", "Weather in", "Notes", "Order", "Ticket", "Report", "Settings", "Downloads",
         "Player", "Calendar", "Mail from")  # fmt: skip
COUNTS = {"easy": 2, "medium": 4, "hard": 6}


def title(rng: random.Random, base: str) -> str:
    return f"{base} {rng.choice([str(rng.randint(10, 9999)), rng.choice(NOUNS).capitalize()])}"


def build(rng: random.Random, difficulty: str) -> cb.Task:
    count = COUNTS[difficulty]
    base = rng.choice(BASES)
    titles: list[str] = []
    while len(titles) < count:
        name = title(rng, base if difficulty != "easy" and rng.random() < 0.6 else rng.choice(BASES))
        if name not in titles:
            titles.append(name)
    order = rng.sample(titles, count)  # stacking order, back to front
    target = rng.choice(order[:-1] if difficulty == "hard" else order)
    windows = [{"title": t, "text": line(rng), "width": rng.randint(300, 420)} for t in order]
    description = f"Close the window titled '{target}'. Leave all the other windows open."
    metadata = {"windows": windows, "target": target, "seed": rng.randrange(2**32)}
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=5)


load_train, load_test = loaders(FAMILY, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    opened = []
    for spec in task.metadata["windows"]:
        widgets = [{"type": "label", "text": spec["text"]}, {"type": "textfield", "name": "Comment"},
                   {"type": "button", "name": "OK", "default": True}]  # fmt: skip
        window_id = await session.launch("form", title=spec["title"], widgets=widgets, width=spec["width"])
        opened.append(sim.get_window(window_id))
    arrange(random.Random(task.metadata["seed"]), sim, opened, apart=task.difficulty != "hard")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    expected = sorted(spec["title"] for spec in task.metadata["windows"] if spec["title"] != task.metadata["target"])
    return [1.0 if sorted(w.title for w in desktop(session).windows()) == expected else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    target = await screen.front(await screen.window(task.metadata["target"]))
    await screen.click(await screen.find(target, "button", "Close"))
