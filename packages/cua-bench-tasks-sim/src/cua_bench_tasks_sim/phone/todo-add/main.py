"""todo-add: in To-do, add a task (two, when hard) to a given list.

Easy: two lists, the phone at home, one task. Medium: four lists, To-do already open on another list,
one task. Hard: six lists, Calendar and Notes on the launcher too with Notes open, two tasks to add in a
given order, and the list's Add task field already holding a few typed letters (to be replaced, not
added to).

The evaluator checks the whole state of the phone's apps: that list's tasks are setup's with the new
ones after them, each with exactly the text asked and not done, its Add task field empty again (no
draft; when setup left letters there, those letters again is accepted too), and nothing else changed
(no other list or task, no other app); no dialog or overlay left open. Chance 0 (the task is typed).

Wrong ways: ``adds_to_the_wrong_list`` (the list after it gets the tasks), ``adds_it_ticked`` (the right
tasks, the first one then ticked done) and ``oracle_twice`` (every task added twice).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import calendar, notes, todo
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone_task, score, settled, unchanged_but
from cua_bench_tasks_sim._phone.words import VERBS

FAMILY = "todo-add"
SHAPE = {"easy": (2, 1), "medium": (4, 1), "hard": (6, 2)}  # lists, tasks to add


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, adding = SHAPE[difficulty]
    data = todo.sample(rng, count)
    index = rng.randrange(count)
    target = data["lists"][index]
    texts = rng.sample([t for t in todo.task_texts() if t not in {x["text"] for x in target["tasks"]}], adding)
    apps, state = ["todo"], {"todo": data}
    opened: tuple[str, str | None] | None = None
    if difficulty == "medium":
        opened = ("todo", rng.choice([x for x in data["lists"] if x is not target])["name"])
    if difficulty == "hard":
        target["draft"] = rng.choice(VERBS)[:3]
        apps = ["todo", "calendar", "notes"]
        state |= {"calendar": calendar.sample(rng, 5), "notes": notes.sample(rng, 3)}
        opened = ("notes", None)
    name = target["name"]
    if adding == 1:
        what = rng.choice([f'add the task "{texts[0]}" to the "{name}" list',
                           f'put "{texts[0]}" on the "{name}" list'])  # fmt: skip
    else:
        what = f'add two tasks to the "{name}" list, in this order: "{texts[0]}", then "{texts[1]}"'
    description = rng.choice([f"In To-do, {what}.", f"Open To-do and {what}."]) + (
        " Each new task stays not done; change nothing else."
    )
    return phone_task(description, apps=apps, data=state, opened=opened, chance=0.0,
                      max_steps={"easy": 12, "medium": 14, "hard": 22}[difficulty], index=index,
                      texts=texts)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any], *, draft: bool = False) -> None:
        target = state["todo"]["lists"][meta["index"]]
        target["tasks"] += [{"text": text, "done": False} for text in meta["texts"]]
        if not draft:
            target.pop("draft", None)

    # The letters setup left in the field (hard) may be gone, or typed back in after the adding.
    kept_draft = "draft" in meta["data"]["todo"]["lists"][meta["index"]]
    added = unchanged_but(task, session, change) or (
        kept_draft and unchanged_but(task, session, lambda state: change(state, draft=True))
    )
    return score(settled(session) and added)


# --- the oracle and the wrong ways ----------------------------------------------------------------


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await todo.add_tasks(Hand(session), todo.list_name(task), task.metadata["texts"])


@cb.wrong_way
async def adds_to_the_wrong_list(task: cb.Task, session: cb.Session) -> None:
    await todo.add_tasks(Hand(session), todo.list_name(task, 1), task.metadata["texts"])


@cb.wrong_way
async def adds_it_ticked(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await Hand(session).tap("checkbox", task.metadata["texts"][0], within=todo.TASKS)


@cb.wrong_way
async def oracle_twice(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await solve(task, session)
