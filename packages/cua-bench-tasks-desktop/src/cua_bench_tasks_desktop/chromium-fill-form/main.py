"""chromium-fill-form: fill a local page's text fields in Chromium and submit the form.

The page comes from a loopback site the task starts; the evaluator reads the POSTs it received
(``_web.form_posts``): exactly one submission, sent by the page's form as Chromium reports it,
holding the asked-for values and the newsletter box left checked as it was.
Wrong ways: ``leaves_the_last_field_empty`` (submitted one field short),
``oracle_then_unchecks_the_newsletter`` (every field filled, the other box unchecked on the way),
``forged_request_log`` (a page saved over the request log the evaluator once read: 1.0 then) and
``posted_from_a_data_page`` (the right fields posted by a form on a ``data:`` page).
"""

from __future__ import annotations

import html
import random
from collections.abc import Callable
from typing import Any

import cua_bench as cb
from cua_bench_tasks_desktop._common import NOUNS, act, key, loaders
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
from cua_core import Action, TypeText

NAME = "chromium-fill-form"
PAGE = "Registration"
NEWSLETTER = "newsletter"  # a box the form has checked, which the instruction leaves alone
FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken", "Radia")
LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Hamilton", "Thompson")
CITIES = ("Lisbon", "Osaka", "Nairobi", "Quito", "Tallinn", "Perth", "Montreal", "Kraków", "Accra", "Hanoi")
FIELDS: dict[str, tuple[str, Callable[[random.Random], str]]] = {
    "name": ("Full name", lambda r: f"{r.choice(FIRST)} {r.choice(LAST)}"),
    "email": ("Email", lambda r: f"{r.choice(FIRST).lower()}.{r.choice(NOUNS)}{r.randint(1, 99)}@example.org"),
    "city": ("City", lambda r: r.choice(CITIES)),
    "phone": ("Phone", lambda r: f"+1 555 {r.randint(100, 999)} {r.randint(1000, 9999)}"),
    "company": ("Company", lambda r: f"{r.choice(NOUNS).capitalize()} {r.choice(['Labs', 'Works', 'Co', 'Systems'])}"),
}


def build(rng: random.Random) -> cb.Task:
    names = rng.sample(sorted(FIELDS), rng.randint(2, 4))
    values = {name: FIELDS[name][1](rng) for name in names}
    shown = ", ".join(f"{FIELDS[name][0]}: {values[name]}" for name in names)
    return cb.Task(
        description=f"A registration form is open in Chromium. Fill it in ({shown}), leave the other fields as "
        "they are, and submit it.",
        metadata={"fields": names, "values": values},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def page(names: list[str]) -> str:
    inputs = "".join(
        f"<label>{html.escape(FIELDS[name][0])} <input name='{name}' autocomplete='off'{' autofocus' * (i == 0)}>"
        "</label>"
        for i, name in enumerate(names)
    )
    newsletter = (
        f"<label><input type='checkbox' name='{NEWSLETTER}' value='yes' checked> Send me the newsletter</label>"
    )
    return document(
        PAGE,
        f"<h1>Register</h1><form method='post' action='/submit'>{inputs}{newsletter}<button>Submit</button></form>",
    )


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    base = await start_web(task, {"/": page(task.metadata["fields"])})
    await start_chromium(task, session, f"{base}/", title=f"{PAGE} - Chromium")


def expected(meta: dict[str, Any]) -> dict[str, list[str]]:
    return {**{name: [value] for name, value in meta["values"].items()}, NEWSLETTER: ["yes"]}


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await form_posts(task, "/submit") == [expected(task.metadata)] else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await fill(session, task.metadata, task.metadata["fields"])
    await act(session, key("enter"))  # Enter in a text field submits its form
    await received(task)


async def fill(session: cb.Session, meta: dict[str, Any], names: list[str]) -> None:
    """From the first field, which has the focus (``autofocus``: the page shows its title once it does),
    on with Tab. Not from a click on a blank spot: under load that click was lost 1 time in 25, and Tab
    from the still-focused first field put every value one field down."""
    moves: list[Action] = []
    for i, name in enumerate(names):
        moves += [key("tab")] * (i > 0) + [TypeText(meta["values"][name])]
    await act(session, *moves)


@cb.wrong_way
async def leaves_the_last_field_empty(task: cb.Task, session: cb.Session) -> None:
    """Every field but the last filled, then submitted."""
    await fill(session, task.metadata, task.metadata["fields"][:-1])
    await act(session, key("enter"))
    await received(task)


@cb.wrong_way
async def oracle_then_unchecks_the_newsletter(task: cb.Task, session: cb.Session) -> None:
    """Every field filled, then on to the newsletter box (unchecked with Space) and the button."""
    await fill(session, task.metadata, task.metadata["fields"])
    await act(session, key("tab"), key("space"), key("tab"), key("enter"))
    await received(task)


@cb.wrong_way
async def forged_request_log(task: cb.Task, session: cb.Session) -> None:
    """The asked-for fields written as a POST into the request log by saving a ``data:`` page over it."""
    entry = {"method": "POST", "path": "/submit", "form": expected(task.metadata), "answer": "received"}
    await save_over_the_old_log(session, [entry])


@cb.wrong_way
async def posted_from_a_data_page(task: cb.Task, session: cb.Session) -> None:
    """The asked-for fields posted to the site by a form on a ``data:`` page, not by the registration page."""
    await send_from_a_data_page(task, session, forged_form(f"{site(task).base}/submit", expected(task.metadata)))
