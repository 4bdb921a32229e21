"""chromium-select-option: on a local order form in Chromium, pick options (a drop-down and radio buttons),
type a name, and submit. The evaluator reads the POST the loopback server received: exactly one, with exactly
the customer, plan and shipping asked for.

Wrong way: ``picks_the_next_plan`` (everything right but the plan one below the asked-for one).
"""

from __future__ import annotations

import html
import random
from typing import Any

import cua_bench as cb
from cua_bench.tasksets.desktop._common import NOUNS, act, key, loaders
from cua_bench.tasksets.desktop._web import document, focus_page, posts, received, start_chromium, start_web
from cua_core.actions import TypeText

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
    base = await start_web(session, {"/": page(meta["plans"], meta["shipping"])})
    await start_chromium(session, f"{base}/", title=f"{PAGE} - Chromium")


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    sent = await posts(session, "/order")
    expected = {
        "customer": [meta["customer"]],
        "plan": [meta["plans"][meta["plan"]]],
        "shipping": [meta["shipping"][meta["ship"]]],
    }
    return [1.0 if sent == [expected] else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await order(session, meta, meta["plan"])


async def order(session: cb.Session, meta: dict[str, Any], plan: int) -> None:
    # Tab to the customer field, Tab to the drop-down (Down steps through its options without opening
    # it), Tab to the checked radio button (Down moves the choice), Tab to the button.
    await focus_page(session)
    await act(
        session,
        key("tab"),
        TypeText(meta["customer"]),
        key("tab"),
        *[key("down")] * plan,
        key("tab"),
        *[key("down")] * meta["ship"],
        key("tab"),
        key("enter"),
    )
    await received(session)


@cb.wrong_way
async def picks_the_next_plan(task: cb.Task, session: cb.Session) -> None:
    """The customer and shipping right, the plan one off (the next one, or the first after the last)."""
    meta = task.metadata
    await order(session, meta, (meta["plan"] + 1) % len(meta["plans"]))
