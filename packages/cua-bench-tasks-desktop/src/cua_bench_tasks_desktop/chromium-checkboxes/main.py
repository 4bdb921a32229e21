"""chromium-checkboxes: on a local preferences page in Chromium, leave exactly the requested boxes checked
and save. The evaluator reads the POSTs the loopback site received (``_web.form_posts``): exactly one,
sent by the page's form as Chromium reports it, with exactly the asked-for topics.

Wrong ways: ``saves_without_changes`` (Save pressed at once: the boxes as they were),
``oracle_then_flips_the_first_box`` (the right boxes, then the first one toggled once more),
``forged_request_log`` (a page saved over the request log the evaluator once read: 1.0 then) and
``posted_from_a_data_page`` (the right topics posted by a form on a ``data:`` page).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import act, key, loaders
from cua_bench_tasks_desktop._web import (
    document,
    forged_form,
    form_posts,
    received,
    save_over_the_old_log,
    send_from_a_data_page,
    site,
    start_chromium,
    start_web,
)

NAME = "chromium-checkboxes"
PAGE = "Newsletter preferences"
TOPICS = ("science", "sports", "travel", "music", "cooking", "finance", "gardening", "movies", "history", "gaming")


def build(rng: random.Random) -> cb.Task:
    topics = rng.sample(TOPICS, rng.randint(3, 7))
    checked = [rng.random() < 0.4 for _ in topics]
    wanted = [rng.random() < 0.5 for _ in topics]
    if wanted == checked:
        flip = rng.randrange(len(topics))
        wanted[flip] = not wanted[flip]
    chosen = [topic for topic, want in zip(topics, wanted, strict=True) if want]
    shown = ", ".join(chosen) if chosen else "none of them"
    return cb.Task(
        description=f"A newsletter preferences page is open in Chromium. Make sure that exactly these topics are "
        f"checked: {shown} (uncheck any other), then press Save.",
        metadata={"topics": topics, "checked": checked, "wanted": wanted, "chosen": chosen},
        max_steps=20,
        chance=1 / 2 ** len(topics),
    )


load_train, load_test = loaders(NAME, build)


def page(topics: list[str], checked: list[bool]) -> str:
    boxes = "".join(
        f"<label><input type='checkbox' name='topic' value='{topic}'{' checked' * on}{' autofocus' * (i == 0)}> "
        f"{topic.capitalize()}</label>"
        for i, (topic, on) in enumerate(zip(topics, checked, strict=True))
    )
    body = (
        "<h1>Topics</h1><form method='post' action='/preferences'><input type='hidden' name='saved' value='1'>"
        f"{boxes}<button>Save</button></form>"
    )
    return document(PAGE, body)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    base = await start_web(task, {"/": page(meta["topics"], meta["checked"])})
    await start_chromium(task, session, f"{base}/", title=f"{PAGE} - Chromium")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sent = await form_posts(task, "/preferences")
    return [
        1.0
        if len(sent) == 1 and sent[0] is not None and sorted(sent[0].get("topic", [])) == sorted(meta["chosen"])
        else 0.0
    ]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await save(task, session, [on != want for on, want in zip(meta["checked"], meta["wanted"], strict=True)])


async def save(task: cb.Task, session: cb.Session, toggles: list[bool]) -> None:
    """From the first box, which has the focus (``autofocus``; the page shows its title once it does), Tab
    through the boxes, Space on each one in ``toggles``, then Tab to Save and Enter."""
    moves = []
    for i, toggle in enumerate(toggles):
        moves += [key("tab")] * (i > 0) + [key("space")] * toggle
    await act(session, *moves, key("tab"), key("enter"))
    await received(task)


@cb.wrong_way
async def saves_without_changes(task: cb.Task, session: cb.Session) -> None:
    """Save pressed with the boxes as they were."""
    await save(task, session, [False] * len(task.metadata["topics"]))


@cb.wrong_way
async def oracle_then_flips_the_first_box(task: cb.Task, session: cb.Session) -> None:
    """The right boxes toggled, and the first box toggled once more."""
    meta = task.metadata
    toggles = [on != want for on, want in zip(meta["checked"], meta["wanted"], strict=True)]
    await save(task, session, [not toggles[0], *toggles[1:]])


@cb.wrong_way
async def forged_request_log(task: cb.Task, session: cb.Session) -> None:
    """The asked-for topics written as a POST into the request log by saving a ``data:`` page over it."""
    form = {"saved": ["1"], "topic": task.metadata["chosen"]}
    await save_over_the_old_log(
        session, [{"method": "POST", "path": "/preferences", "form": form, "answer": "received"}]
    )


@cb.wrong_way
async def posted_from_a_data_page(task: cb.Task, session: cb.Session) -> None:
    """The asked-for topics posted to the site by a form on a ``data:`` page, not by the preferences page."""
    form = {"saved": ["1"], "topic": task.metadata["chosen"]}
    await send_from_a_data_page(task, session, forged_form(f"{site(task).base}/preferences", form))
