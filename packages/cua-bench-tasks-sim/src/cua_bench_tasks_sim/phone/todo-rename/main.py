"""todo-rename: in To-do, change a task's text.

Easy: two lists, the phone at home. Medium: four lists, To-do already open on another list, and a task
with the same text on another list (it keeps its text). Hard: four lists, that same-text task elsewhere,
the task below the first screen of a twenty-four-task list (scroll), Calendar on the launcher too.

The evaluator checks the whole state of the phone's apps: that task's text is exactly the new one, in
its place and with its tick, and nothing else changed (no other task, not the same-text one on the other
list, no new task, no draft, no other app); no dialog or overlay left open. Chance 0 (the text is typed).

Wrong ways: ``renames_the_other_one`` (the same-text task on the other list when there is one, else the
next task of the list), ``adds_to_the_old_text`` (the new text typed after the old one instead of over
it) and ``adds_it_as_a_new_task`` (the new text added as a task, the old one left as it was).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "todo-rename"
SHAPE = {"easy": 2, "medium": 4, "hard": 4}  # lists
SCREEN = 18  # boxes of a list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = todo.sample(rng, SHAPE[difficulty])
    lists = data["lists"]
    source = rng.randrange(len(lists))
    tasks = lists[source]["tasks"]
    apps, state = ["todo"], {"todo": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "hard":
        tasks[:] = [{"text": t, "done": rng.random() < 0.25} for t in rng.sample(todo.task_texts(), 24)]
        index = rng.randrange(SCREEN, len(tasks))
        apps, state = ["todo", "calendar"], {"todo": data, "calendar": calendar.sample(rng, 5)}
    else:
        index = rng.randrange(len(tasks))
    text = tasks[index]["text"]
    twin: list[int] = []  # (list, task) of the same-text task on another list
    if difficulty != "easy":
        other = rng.choice([i for i in range(len(lists)) if i != source])
        others = lists[other]["tasks"]
        others[:] = [t for t in others if t["text"] != text]
        place = rng.randint(0, len(others))
        others.insert(place, {"text": text, "done": rng.random() < 0.5})
        twin = [other, place]
    else:
        for i, each in enumerate(lists):  # no same-text task elsewhere: the text names one task
            if i != source:
                each["tasks"][:] = [t for t in each["tasks"] if t["text"] != text]
    if difficulty == "medium":
        opened = ("todo", lists[rng.choice([i for i in range(len(lists)) if i != source])]["name"])
    new = rng.choice([t for t in todo.task_texts() if t not in {x["text"] for x in tasks}])
    name = lists[source]["name"]
    description = rng.choice([
        f'In To-do, rename the task "{text}" on the "{name}" list to "{new}".',
        f'On the "{name}" list in To-do, change the task "{text}" so it reads "{new}".',
        f'Edit the To-do task "{text}" in "{name}": its text should be "{new}".',
    ]) + " Change nothing else."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 14, "medium": 16, "hard": 22}[difficulty], source=source, index=index,
                      text=new, twin=twin)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        state["todo"]["lists"][meta["source"]]["tasks"][meta["index"]]["text"] = meta["text"]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def open_task(hand: Hand, task: cb.Task, at: tuple[int, int]) -> None:
    """The screen of the task at (list, place), from a long press on it in its list."""
    lists = task.metadata["data"]["todo"]["lists"]
    await todo.open_task(hand, lists[at[0]]["name"], lists[at[0]]["tasks"][at[1]]["text"])


def _target(task: cb.Task) -> tuple[int, int]:
    return task.metadata["source"], task.metadata["index"]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_task(hand, task, _target(task))
    await hand.fill("Task", task.metadata["text"])
    await hand.button("back")


@cb.wrong_way
async def renames_the_other_one(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    size = len(meta["data"]["todo"]["lists"][meta["source"]]["tasks"])
    at = tuple(meta["twin"]) if meta["twin"] else (meta["source"], (meta["index"] + 1) % size)
    hand = Hand(session)
    await open_task(hand, task, (at[0], at[1]))
    await hand.fill("Task", meta["text"])
    await hand.button("back")


@cb.wrong_way
async def adds_to_the_old_text(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_task(hand, task, _target(task))
    await hand.tap("textbox", "Task")
    await hand.key("end")
    await hand.type(f" {task.metadata['text']}")
    await hand.button("back")


@cb.wrong_way
async def adds_it_as_a_new_task(task: cb.Task, session: cb.Session) -> None:
    name = task.metadata["data"]["todo"]["lists"][task.metadata["source"]]["name"]
    await todo.add_tasks(Hand(session), name, [task.metadata["text"]])
