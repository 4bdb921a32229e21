"""todo-clear-done: in To-do, remove the done tasks of one list.

Easy: two lists, the phone at home, the list named. Medium: four lists, To-do already open on another
list. Hard: five lists, Calendar on the launcher too and open, and the list given only as the one that
holds a given task (open the lists to find it).

Every list has done tasks, so clearing the wrong one shows. The evaluator checks the whole state of the
phone's apps: that list's tasks are setup's open ones, in their order, and nothing else changed (no
other list, no draft, no other app); no dialog or overlay left open. Chance 0.003 to 0.001: To-do, the
list, the toolbar's Clear done and the dialog's Clear, by random taps.

Wrong ways: ``clears_the_neighbour_list`` (the list after it cleared instead), ``unticks_them_instead``
(its done tasks unticked, none removed) and ``oracle_then_clears_another_list`` (a second list cleared
too).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "todo-clear-done"
SHAPE = {"easy": 2, "medium": 4, "hard": 5}  # lists


def make(rng: random.Random, difficulty: str) -> cb.Task:
    data = todo.sample(rng, SHAPE[difficulty], (4, 7))
    for each in data["lists"]:  # done tasks on every list, and open ones
        if not any(t["done"] for t in each["tasks"]):
            rng.choice(each["tasks"])["done"] = True
        if all(t["done"] for t in each["tasks"]):
            rng.choice(each["tasks"])["done"] = False
    index = rng.randrange(len(data["lists"]))
    target = data["lists"][index]
    apps, state = ["todo"], {"todo": data}
    opened: tuple[str, str | None] | None = None
    which = f'the "{target["name"]}" list'
    if difficulty == "medium":
        opened = ("todo", rng.choice([x for x in data["lists"] if x is not target])["name"])
    if difficulty == "hard":
        elsewhere = {t["text"] for x in data["lists"] if x is not target for t in x["tasks"]}
        clues = [t for t in target["tasks"] if not t["done"] and t["text"] not in elsewhere]
        if not clues:  # every open task is on another list too: one gets a text of its own
            clues = [rng.choice([t for t in target["tasks"] if not t["done"]])]
            taken = elsewhere | {t["text"] for t in target["tasks"]}
            clues[0]["text"] = rng.choice([t for t in todo.task_texts() if t not in taken])
        clue = rng.choice(clues)["text"]
        which = f'the list that has the task "{clue}"'
        apps, state = ["todo", "calendar"], {"todo": data, "calendar": calendar.sample(rng, 5)}
        opened = ("calendar", None)
    description = rng.choice([
        f"In To-do, clear the done tasks from {which}.",
        f"Remove every ticked (done) task from {which} in To-do.",
        f"Tidy up {which} in To-do: its done tasks go, its open ones stay.",
    ]) + " Leave the other lists as they are."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened,
                      chance={"easy": 0.003, "medium": 0.002, "hard": 0.001}[difficulty],
                      max_steps={"easy": 10, "medium": 12, "hard": 24}[difficulty], index=index)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    index = task.metadata["index"]

    def change(state: dict[str, Any]) -> None:
        target = state["todo"]["lists"][index]
        target["tasks"] = [t for t in target["tasks"] if not t["done"]]

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def clear(hand: Hand, name: str) -> None:
    await todo.open_list(hand, name)
    await hand.tap("button", "Clear done")
    await hand.tap("button", "Clear", within=("dialog", "To-do"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await clear(Hand(session), todo.list_name(task))


@cb.wrong_way
async def clears_the_neighbour_list(task: cb.Task, session: cb.Session) -> None:
    await clear(Hand(session), todo.list_name(task, 1))


@cb.wrong_way
async def unticks_them_instead(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    await todo.open_list(hand, todo.list_name(task))
    for box in await hand.find_all("checkbox", within=todo.TASKS):
        if box["value"]:
            await hand.tap("checkbox", box["name"], within=todo.TASKS)


@cb.wrong_way
async def oracle_then_clears_another_list(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await clear(Hand(session), todo.list_name(task, 1))
