"""todo-complete: in To-do, tick off the named tasks of a list, and only those.

Easy: two lists, the phone at home, one task. Medium: four lists, To-do already open on another list,
two tasks. Hard: four lists, the list twenty-four tasks long with at least one of the three tasks below
its first screen (scroll), each of them also on another list (where it stays open), Calendar on the
launcher too.

The evaluator checks the whole state of the phone's apps: that list's tasks are setup's with only the
named ones now done (every task that was done before still done and still there: nothing cleared), and
nothing else changed (no other list, no same-named task on another list, no draft, no other app); no
dialog or overlay left open. Chance 0.005 (easy: To-do, the list, the one box, by random taps) down to
0.00005 (hard: three boxes, one of them scrolled to).

Wrong ways: ``ticks_the_neighbour_instead`` (the task after the first one ticked in its place, the others
right), ``oracle_then_unticks_a_done_one`` (a task done before unticked on the way) and
``oracle_then_clears_done`` (the right ticks, then the toolbar's Clear done).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but

FAMILY = "todo-complete"
SHAPE = {"easy": (2, 1), "medium": (4, 2), "hard": (4, 3)}  # lists, tasks to tick
SCREEN = 18  # boxes of a list on its first screen


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, ticking = SHAPE[difficulty]
    data = todo.sample(rng, count, (4, 7))
    index = rng.randrange(count)
    target = data["lists"][index]
    apps, state = ["todo"], {"todo": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "hard":
        target["tasks"] = [{"text": t, "done": rng.random() < 0.25} for t in rng.sample(todo.task_texts(), 24)]
    tasks = target["tasks"]
    if difficulty == "hard":
        low = rng.randrange(SCREEN, len(tasks))
        picks = [low, *rng.sample([i for i in range(len(tasks)) if i != low], ticking - 1)]
    else:
        picks = rng.sample(range(len(tasks)), ticking)
    for i in picks:
        tasks[i]["done"] = False
    rest = [i for i in range(len(tasks)) if i not in picks]
    if not any(tasks[i]["done"] for i in rest):  # one done already at least: it must stay so
        tasks[rng.choice(rest)]["done"] = True
    if difficulty == "hard":
        for i in picks:  # the same task, open, on another list
            other = rng.choice([x for x in data["lists"] if x is not target])
            if all(t["text"] != tasks[i]["text"] for t in other["tasks"]):
                other["tasks"].insert(rng.randint(0, len(other["tasks"])), {"text": tasks[i]["text"], "done": False})
        apps, state = ["todo", "calendar"], {"todo": data, "calendar": calendar.sample(rng, 5)}
    if difficulty == "medium":
        opened = ("todo", rng.choice([x for x in data["lists"] if x is not target])["name"])
    picks.sort()
    quoted = [f'"{tasks[i]["text"]}"' for i in picks]
    named = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
    name = target["name"]
    description = rng.choice([
        f'In To-do, tick off {named} on the "{name}" list.',
        f'Mark {named} as done in the To-do list "{name}".',
        f'On the "{name}" list in To-do, check {named}: done.',
    ]) + " Leave every other task as it is."  # fmt: skip
    return phone_task(description, apps=apps, data=state, opened=opened,
                      chance={"easy": 0.005, "medium": 0.0005, "hard": 0.00005}[difficulty],
                      max_steps={"easy": 10, "medium": 14, "hard": 20}[difficulty], index=index,
                      picks=picks)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        for i in meta["picks"]:
            state["todo"]["lists"][meta["index"]]["tasks"][i]["done"] = True

    return score(settled(session) and unchanged_but(task, session, change))


# --- the oracle and the wrong ways ----------------------------------------------------------------


async def tick(hand: Hand, task: cb.Task, indices: list[int]) -> None:
    """The list opened, the boxes of the tasks at ``indices`` tapped."""
    todo_list = task.metadata["data"]["todo"]["lists"][task.metadata["index"]]
    await todo.open_list(hand, todo_list["name"])
    for i in indices:
        text = todo_list["tasks"][i]["text"]
        await todo.reveal(hand, text)
        await hand.tap("checkbox", text, within=todo.TASKS)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await tick(Hand(session), task, task.metadata["picks"])


@cb.wrong_way
async def ticks_the_neighbour_instead(task: cb.Task, session: cb.Session) -> None:
    picks = task.metadata["picks"]
    size = len(task.metadata["data"]["todo"]["lists"][task.metadata["index"]]["tasks"])
    neighbour = next(j % size for j in range(picks[0] + 1, picks[0] + size) if j % size not in picks)
    await tick(Hand(session), task, [neighbour, *picks[1:]])


@cb.wrong_way
async def oracle_then_unticks_a_done_one(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    tasks = task.metadata["data"]["todo"]["lists"][task.metadata["index"]]["tasks"]
    done = next(t["text"] for t in tasks if t["done"])
    hand = Hand(session)
    await todo.reveal(hand, done)
    await hand.tap("checkbox", done, within=todo.TASKS)


@cb.wrong_way
async def oracle_then_clears_done(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    hand = Hand(session)
    await hand.tap("button", "Clear done")
    await hand.tap("button", "Clear", within=("dialog", "To-do"))
