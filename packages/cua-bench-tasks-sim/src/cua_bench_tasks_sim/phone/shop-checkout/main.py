"""shop-checkout: in Shop, check out the cart as it is, delivered to a given address.

Easy: two lines in the cart, the phone at home. Medium: three lines, Shop open on a product, Notes on the
launcher too. Hard: four lines, Maps and Notes on the launcher too, and a Shop notification about the
cart that the agent is told to follow (it opens the cart).

The evaluator checks the whole state of the phone's apps: the orders are setup's with one more, setup's
cart lines as they were, delivered to the address exactly, at their total; the cart is empty; the
shop's address is the given one; nothing else changed; no dialog or overlay left open. Hard also checks
that the Shop notification was opened (the platform records it). Chance 0 (the address is typed).

Wrong ways: ``keeps_the_saved_address`` (checked out to the address the shop had), ``address_near_miss``
(the address without its last character), ``drops_a_line_first`` (a line removed, then the rest checked
out), ``cancels_the_order`` (the address typed, then Cancel at the confirmation),
``oracle_then_adds_more`` (checked out, then something put in the cart again).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "shop-checkout"
SHAPE = {"easy": (2, 3, 2), "medium": (3, 4, 3), "hard": (4, 4, 4)}  # categories, products each, cart lines
NOTICES = ["Items waiting in your cart", "Your cart misses you", "Still thinking it over?", "Finish your order"]
TEMPLATES = [
    'In Shop, check out your cart as it is, delivered to "{address}".',
    'Place the Shop order for everything in the cart, with the delivery address "{address}".',
    'Using the Shop app, buy what is in the cart and have it sent to "{address}".',
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, each, lines = SHAPE[difficulty]
    categories = rng.sample(sorted(shop.CATEGORIES), count)
    data = shop.store(rng, dict.fromkeys(categories, each), lines)
    address = data["address"]
    while address == data["address"]:
        address = shop.address(rng)
    apps = {"easy": ["shop"], "medium": ["notes", "shop"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"shop": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "maps" in apps:
        seeded["maps"] = maps.sample(rng, 5)
    opened = ("shop", rng.choice(data["products"])["name"]) if difficulty == "medium" else None
    notice = rng.choice(NOTICES)
    notifications = [("shop", notice, f"{lines} items in your cart", "cart")] if difficulty == "hard" else []
    description = rng.choice(TEMPLATES).format(address=address)
    if difficulty == "hard":
        description = (
            f'Open Shop\'s notification "{notice}" and, from there, ' + description[0].lower() + description[1:]
        )
    description += " Change nothing in the cart first."
    return phone_task(description, apps=apps, data=seeded, opened=opened, notifications=notifications, chance=0.0,
                      max_steps=20, address=address, notice=notice if difficulty == "hard" else None)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata

    def change(state: dict[str, Any]) -> None:
        data = state["shop"]
        lines = data["cart"]
        data["orders"].append(
            {"lines": lines, "address": meta["address"], "total": shop.total(lines, data["products"])}
        )
        data["cart"] = []
        data["address"] = meta["address"]

    followed = meta["notice"] is None or any(
        note.opened for note in phone(session).notifications if note.app == "shop" and note.title == meta["notice"]
    )
    return score(followed and settled(session) and unchanged_but(task, session, change))


async def check_out(task: cb.Task, hand: Hand, address: str | None, *, confirm: bool = True) -> None:
    """From the notification (hard) or the cart: Checkout, the address (None: as it is), Place order."""
    notice = task.metadata["notice"]
    if notice is not None:
        await hand.open_shade()
        await hand.tap("button", notice, within=("window", "Notifications"))
    else:
        await shop.open_cart(hand)
    await hand.tap("button", "Checkout")
    if address is not None:
        await hand.fill("Address", address)
    await hand.tap("button", "Place order")
    await hand.tap("button", "Place order" if confirm else "Cancel", within=("dialog", "Shop"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await check_out(task, Hand(session), task.metadata["address"])


@cb.wrong_way
async def keeps_the_saved_address(task: cb.Task, session: cb.Session) -> None:
    await check_out(task, Hand(session), None)


@cb.wrong_way
async def address_near_miss(task: cb.Task, session: cb.Session) -> None:
    await check_out(task, Hand(session), task.metadata["address"][:-1])


@cb.wrong_way
async def drops_a_line_first(task: cb.Task, session: cb.Session) -> None:
    hand = Hand(session)
    data = task.metadata["data"]["shop"]
    await shop.open_line(hand, data["cart"][-1], data["products"])
    await hand.tap("button", "Remove")
    await hand.tap("button", "Remove", within=("dialog", "Shop"))
    await check_out(task, hand, task.metadata["address"])


@cb.wrong_way
async def cancels_the_order(task: cb.Task, session: cb.Session) -> None:
    await check_out(task, Hand(session), task.metadata["address"], confirm=False)


@cb.wrong_way
async def oracle_then_adds_more(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    product = task.metadata["data"]["shop"]["products"][0]
    await shop.add_product(Hand(session), product, product["sizes"][0] if product["sizes"] else "", 1)
