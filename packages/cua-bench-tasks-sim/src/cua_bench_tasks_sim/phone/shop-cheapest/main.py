"""shop-cheapest: in Shop, add one of the cheapest product of a category (in a given size, where the
category's products have sizes) to the cart: the agent must compare the category's prices.

Easy: the category has four products, two categories, the phone at home. Medium: eight products, three
categories, one line in the cart, Shop open on another category's product, Notes on the launcher too.
Hard: 28 products, the cheapest below the fold (the list must be scrolled to the end to be sure), four
categories, two lines in the cart, Maps and Notes on the launcher too. The cheapest is never the first
listed (the list is not sorted by price).

The evaluator checks the whole state of the phone's apps: the cart is setup's with one of the cheapest
product (in the size) added (the lines in any order), and nothing else changed; no dialog or overlay left
open. Chance about 0.001 (taps at random would have to open Shop, the category and the one product of four
to 28, choose the size and add it).

Wrong ways: ``adds_the_first_listed`` (the category's first row), ``adds_the_second_cheapest``,
``adds_the_cheapest_of_another_category``, ``oracle_then_adds_the_second_cheapest`` (the right one and the
next cheapest too).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "shop-cheapest"
SHAPE = {"easy": (2, 4, 0), "medium": (3, 8, 1), "hard": (4, 28, 2)}  # categories, the category's products, lines
OTHERS = 3  # products in each other category
TEMPLATES = [
    'In Shop, add the cheapest product in "{category}"{size} to the cart (one of it).',
    'Find the lowest-priced item in the Shop category "{category}" and add one{size} to the cart.',
    'Using Shop, put one of the cheapest of the "{category}"{size} in your cart.',
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, listed, lines = SHAPE[difficulty]
    categories = rng.sample(sorted(shop.CATEGORIES), count)
    category = rng.choice(categories)
    data = shop.store(rng, {c: (listed if c == category else OTHERS) for c in categories}, 0)
    products = data["products"]
    mine = [p for p in products if p["category"] == category]
    cheapest = min(mine, key=lambda p: p["price"])
    mine.remove(cheapest)  # somewhere but first (hard: below the fold's 24 rows)
    mine.insert(rng.randrange(24, listed) if difficulty == "hard" else rng.randrange(1, listed), cheapest)
    start = next(i for i, p in enumerate(products) if p["category"] == category)
    products[start : start + listed] = mine
    others = [p for p in products if p["category"] != category]
    for product in rng.sample(others, lines):
        size = rng.choice(product["sizes"]) if product["sizes"] else ""
        data["cart"].append({"product": product["name"], "size": size, "quantity": rng.randint(1, 3)})
    size = rng.choice(cheapest["sizes"]) if cheapest["sizes"] else ""
    apps = {"easy": ["shop"], "medium": ["notes", "shop"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"shop": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "maps" in apps:
        seeded["maps"] = maps.sample(rng, 5)
    opened = ("shop", rng.choice(others)["name"]) if difficulty == "medium" else None
    description = rng.choice(TEMPLATES).format(category=category, size=f" in size {size}" if size else "")
    description += " Change nothing else in the cart."
    chance = {"easy": 0.002, "medium": 0.001, "hard": 0.0003}[difficulty]
    steps = 24 if difficulty == "hard" else 16  # hard: scrolling through the whole list
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=steps,
                      category=category, product=cheapest["name"], size=size)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    now = phone(session).state().get("shop", {}).get("cart", [])

    def change(state: dict[str, Any]) -> None:
        cart = [*state["shop"]["cart"], {"product": meta["product"], "size": meta["size"], "quantity": 1}]
        state["shop"]["cart"] = shop.in_cart_order(cart, now)

    return score(settled(session) and unchanged_but(task, session, change))


def by_price(task: cb.Task, category: str | None = None) -> list[dict[str, Any]]:
    """The category's products (default: the task's), cheapest first."""
    products = task.metadata["data"]["shop"]["products"]
    wanted = category or task.metadata["category"]
    return sorted((p for p in products if p["category"] == wanted), key=lambda p: p["price"])


async def add_one(task: cb.Task, hand: Hand, product: dict[str, Any]) -> None:
    size = task.metadata["size"] if product["category"] == task.metadata["category"] else ""
    await shop.add_product(hand, product, size or (product["sizes"][0] if product["sizes"] else ""), 1)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await add_one(task, Hand(session), by_price(task)[0])


@cb.wrong_way
async def adds_the_first_listed(task: cb.Task, session: cb.Session) -> None:
    products = task.metadata["data"]["shop"]["products"]
    first = next(p for p in products if p["category"] == task.metadata["category"])
    await add_one(task, Hand(session), first)


@cb.wrong_way
async def adds_the_second_cheapest(task: cb.Task, session: cb.Session) -> None:
    await add_one(task, Hand(session), by_price(task)[1])


@cb.wrong_way
async def adds_the_cheapest_of_another_category(task: cb.Task, session: cb.Session) -> None:
    products = task.metadata["data"]["shop"]["products"]
    other = next(p["category"] for p in products if p["category"] != task.metadata["category"])
    await add_one(task, Hand(session), by_price(task, other)[0])


@cb.wrong_way
async def oracle_then_adds_the_second_cheapest(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    await add_one(task, Hand(session), by_price(task)[1])
