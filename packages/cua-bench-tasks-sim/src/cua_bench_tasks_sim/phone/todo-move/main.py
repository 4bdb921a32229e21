"""todo-move: in To-do, move a task from one list to another.

Easy: three lists, the phone at home. Medium: four lists, To-do already open on the list the task goes
to. Hard: five lists, Calendar on the launcher too, the task done (it keeps its tick) and below the first
screen of a twenty-four-task list (scroll).

The evaluator checks the whole state of the phone's apps: the task is gone from its list and is the last
task of the other one, with the same text and tick, and nothing else changed (no other task or list, no
draft, no other app); no dialog or overlay left open. Chance 0.0005 (a long press on the one task among
up to twenty-four, the List dropdown and the one list in it, by random touches).

Wrong ways: ``moves_it_to_the_wrong_list`` (another list chosen in the dropdown), ``copies_it_instead``
(its text added to the other list, the task left where it was) and ``deletes_it_instead`` (the task
deleted from its list, nothing added).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "todo-move"
SHAPE = {"easy": 3, "medium": 4, "hard": 5}  # lists
SCREEN = 18  # boxes of a list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = todo.sample(rng, SHAPE[difficulty])
    lists = data["lists"]
    source, dest = rng.sample(range(len(lists)), 2)
    tasks = lists[source]["tasks"]
    apps, state = ["todo"], {"todo": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "hard":
        taken = {t["text"] for t in lists[dest]["tasks"]}
        texts = rng.sample([t for t in todo.task_texts() if t not in taken], 24)
        tasks[:] = [{"text": t, "done": rng.random() < 0.25} for t in texts]
        index = rng.randrange(SCREEN, len(tasks))
        tasks[index]["done"] = True
        apps, state = ["todo", "calendar"], {"todo": data, "calendar": calendar.sample(rng, 5)}
    else:
        taken = {t["text"] for t in lists[dest]["tasks"]}
        index = rng.choice([i for i, t in enumerate(tasks) if t["text"] not in taken] or [0])
        if tasks[index]["text"] in taken:
            tasks[index]["text"] = rng.choice(
                [t for t in todo.task_texts() if t not in taken | {x["text"] for x in tasks}]
            )
    if difficulty == "medium":
        opened = ("todo", lists[dest]["name"])
    text, old, new = tasks[index]["text"], lists[source]["name"], lists[dest]["name"]
    description = rng.choice([
        f'In To-do, move the task "{text}" from the "{old}" list to the "{new}" list.',
        f'The task "{text}" belongs on the "{new}" list, not "{old}": move it there in To-do.',
        f'Move "{text}" (now on "{old}") to the To-do list "{new}".',
    ]) + (" It keeps its tick." if difficulty == "hard" else "") + " Change nothing else."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0005,
                      max_steps={"easy": 14, "medium": 16, "hard": 20}[difficulty], source=source, dest=dest,
                      index=index)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        lists = state["todo"]["lists"]
        lists[meta["dest"]]["tasks"].append(lists[meta["source"]]["tasks"].pop(meta["index"]))

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


def _names(task: cb.Task) -> tuple[list[str], str]:
    """Every list's name, and the task's text."""
    meta = task.metadata
    lists = meta["data"]["todo"]["lists"]
    return [x["name"] for x in lists], str(lists[meta["source"]]["tasks"][meta["index"]]["text"])


async def open_task(hand: Hand, task: cb.Task) -> None:
    """The task's screen, from a long press on it in its list."""
    names, text = _names(task)
    await todo.open_task(hand, names[task.metadata["source"]], text)


async def move(hand: Hand, task: cb.Task, dest: str) -> None:
    await open_task(hand, task)
    await hand.tap("combobox", "List")
    await hand.tap("listitem", dest, within=("list", "List"))
    await hand.button("back")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    names, _ = _names(task)
    await move(Hand(session), task, names[task.metadata["dest"]])


@cb.wrong_way
async def moves_it_to_the_wrong_list(task: cb.Task, session: cb.Session) -> None:
    names, _ = _names(task)
    wrong = [n for i, n in enumerate(names) if i not in (task.metadata["source"], task.metadata["dest"])]
    await move(Hand(session), task, wrong[0])


@cb.wrong_way
async def copies_it_instead(task: cb.Task, session: cb.Session) -> None:
    names, text = _names(task)
    await todo.add_tasks(Hand(session), names[task.metadata["dest"]], [text])


@cb.wrong_way
async def deletes_it_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await open_task(hand, task)
    await hand.tap("button", "Delete")
    await hand.tap("button", "Delete", within=("dialog", "To-do"))
