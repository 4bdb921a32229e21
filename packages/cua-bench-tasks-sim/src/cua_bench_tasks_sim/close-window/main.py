"""close-window: close exactly the window with a given title; every other window stays open.

Easy: two windows side by side. Medium: four, with look-alike titles. Hard: six overlapping
windows with look-alike titles, the target never in front.

The evaluator checks the titles left open and, by window id against what setup kept, that the
target window is the only one closed and none was opened, and that the windows left open hold what
setup put in them (a field typed into is not "as they are"). Chance: 1/k for k windows.

Wrong ways: ``close_them_all``, ``close_the_wrong_one`` (the window listed after the target) and
``oracle_then_close_another``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_sim._desktop_common import (
    NOUNS,
    Screen,
    arrange,
    desktop,
    fresh,
    keep,
    kept,
    line,
    loaders,
    other_windows_changed,
    snapshot_windows,
    window_changes,
)

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
    description = f"Close the window titled '{target}'. Leave all the other windows open and as they are."
    metadata = {"windows": windows, "target": target, "seed": rng.randrange(2**32)}
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=5, chance=1 / count)


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
    keep(task, sim)
    task.scratch["target"] = next(w.id for w in opened if w.title == task.metadata["target"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sim = desktop(session)
    expected = sorted(spec["title"] for spec in task.metadata["windows"] if spec["title"] != task.metadata["target"])
    closed = window_changes(kept(task, "windows"), snapshot_windows(sim)) == [
        f"window {kept(task, 'target')} was closed"
    ]
    left = sorted(w.title for w in sim.windows()) == expected and not other_windows_changed(
        task, sim, allow=[kept(task, "target")]
    )
    return [1.0 if closed and left else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    target = await screen.front(await screen.window(task.metadata["target"]))
    await screen.click(await screen.find(target, "button", "Close"))


async def _close(screen: Screen, title: str) -> None:
    win = await screen.front(await screen.window(title))
    await screen.click(await screen.find(win, "button", "Close"))


def _other(task: cb.Task) -> str:
    """A window that is not the target: the next one in the list, a look-alike title in most variants."""
    titles = [spec["title"] for spec in task.metadata["windows"]]
    return titles[(titles.index(task.metadata["target"]) + 1) % len(titles)]


@cb.wrong_way
async def close_them_all(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    for spec in task.metadata["windows"]:
        await _close(screen, spec["title"])


@cb.wrong_way
async def close_the_wrong_one(task: cb.Task, session: cb.Session) -> None:
    await _close(Screen(session), _other(task))


@cb.wrong_way
async def oracle_then_close_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await _close(Screen(session), _other(task))
