"""chromium-select-option: on a local order form in Chromium, pick options (a drop-down and radio buttons),
type a name, and submit. The evaluator reads the POSTs the loopback site received (``_web.form_posts``):
exactly one, sent by the page's form as Chromium reports it, with exactly the customer, plan and shipping
asked for.

Wrong ways: ``picks_the_next_plan`` (everything right but the plan one below the asked-for one),
``forged_request_log`` (a page saved over the request log the evaluator once read: 1.0 then) and
``posted_from_a_data_page`` (the right order posted by a form on a ``data:`` page).
"""

from __future__ import annotations

import html
import random
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
from cua_core import TypeText

NAME = "chromium-select-option"
PAGE = "Order"
PLANS = ("Starter", "Basic", "Standard", "Plus", "Premium", "Business", "Enterprise")
SHIPPING = ("standard", "express", "overnight", "pickup")


def build(rng: random.Random) -> cb.Task:
    plans = sorted(rng.sample(PLANS, rng.randint(3, 6)), key=PLANS.index)
    shipping = sorted(rng.sample(SHIPPING, rng.randint(2, 4)), key=SHIPPING.index)
    plan, ship = rng.randrange(len(plans)), rng.randrange(len(shipping))
    customer = f"{rng.choice(NOUNS).capitalize()} {rng.choice(['Ltd', 'Inc', 'Group', 'Studio'])}"
    return cb.Task(
        description=f"An order form is open in Chromium. Enter the customer '{customer}', choose the plan "
        f"{plans[plan]} and the {shipping[ship]} shipping option, then submit the order.",
        metadata={"plans": plans, "shipping": shipping, "plan": plan, "ship": ship, "customer": customer},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def page(plans: list[str], shipping: list[str]) -> str:
    options = "".join(f"<option>{html.escape(plan)}</option>" for plan in plans)
    radios = "".join(
        f"<label><input type='radio' name='shipping' value='{s}'{' checked' * (i == 0)}> {s.capitalize()}</label>"
        for i, s in enumerate(shipping)
    )
    body = (
        "<h1>New order</h1><form method='post' action='/order'>"
        "<label>Customer <input name='customer' autocomplete='off' autofocus></label>"
        f"<label>Plan <select name='plan'>{options}</select></label>"
        f"<fieldset><legend>Shipping</legend>{radios}</fieldset><button>Place order</button></form>"
    )
    return document(PAGE, body)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    base = await start_web(task, {"/": page(meta["plans"], meta["shipping"])})
    await start_chromium(task, session, f"{base}/", title=f"{PAGE} - Chromium")


def expected(meta: dict[str, Any]) -> dict[str, list[str]]:
    return {
        "customer": [meta["customer"]],
        "plan": [meta["plans"][meta["plan"]]],
        "shipping": [meta["shipping"][meta["ship"]]],
    }


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [1.0 if await form_posts(task, "/order") == [expected(task.metadata)] else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await order(task, session, meta["plan"])


async def order(task: cb.Task, session: cb.Session, plan: int) -> None:
    # From the customer field, which has the focus (``autofocus``; the page shows its title once it does:
    # a click on a blank spot first was lost under load, and Tab went on from there), Tab to the drop-down
    # (Down steps through its options without opening it), Tab to the checked radio button (Down moves
    # the choice), Tab to the button.
    meta = task.metadata
    await act(
        session,
        TypeText(meta["customer"]),
        key("tab"),
        *[key("down")] * plan,
        key("tab"),
        *[key("down")] * meta["ship"],
        key("tab"),
        key("enter"),
    )
    await received(task)


@cb.wrong_way
async def picks_the_next_plan(task: cb.Task, session: cb.Session) -> None:
    """The customer and shipping right, the plan one off (the next one, or the first after the last)."""
    await order(task, session, (task.metadata["plan"] + 1) % len(task.metadata["plans"]))


@cb.wrong_way
async def forged_request_log(task: cb.Task, session: cb.Session) -> None:
    """The asked-for order written as a POST into the request log by saving a ``data:`` page over it."""
    entry = {"method": "POST", "path": "/order", "form": expected(task.metadata), "answer": "received"}
    await save_over_the_old_log(session, [entry])


@cb.wrong_way
async def posted_from_a_data_page(task: cb.Task, session: cb.Session) -> None:
    """The asked-for order posted to the site by a form on a ``data:`` page, not by the order page."""
    await send_from_a_data_page(task, session, forged_form(f"{site(task).base}/order", expected(task.metadata)))
