"""shop-add-to-cart: in Shop, add a product to the cart in a given size (where it has sizes) and quantity.

Easy: two categories of three products, an empty cart, the phone at home. Medium: three categories of
six, two lines in the cart, Shop open on another product, Notes on the launcher too. Hard: four
categories, the product's with 28 products (it is below the fold: the list must be scrolled), three lines
in the cart (one of them the same product in another size, where it has sizes), Shop open on the cart,
Maps and Notes on the launcher too; more of it to add. The product is never its category's first row.

The evaluator checks the whole state of the phone's apps: the cart is setup's with the product and size
added in that quantity (a line of its own, or more on the line of the same product and size; the lines in
any order), and nothing else changed (no other line, no order, no size or quantity left chosen on a product
screen); no dialog or overlay left open. Chance about 0.002 (taps at random would have to open Shop, the
category and the product, choose the size and the quantity and add it, among a dozen or more nodes each
time).

Wrong ways: ``adds_the_neighbour`` (the product listed next to it), ``near_miss`` (the neighbouring size,
or one fewer or more of a product without sizes), ``one_too_many`` (a quantity one higher),
``chooses_but_never_adds`` (size and quantity chosen, then home), ``oracle_then_adds_another`` (the right
line and another product too).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "shop-add-to-cart"
# categories, products in each, lines in the cart, the quantity's range
SHAPE = {"easy": (2, 3, 0, (1, 3)), "medium": (3, 6, 2, (2, 4)), "hard": (4, 5, 3, (3, 6))}
LONG = 28  # the hard variants' category: more rows than its list shows (24)
TEMPLATES = [
    'In Shop, add {quantity} of "{name}"{size} to the cart.',
    'In the Shop app, put {quantity} "{name}"{size} in the cart.',
    'Add "{name}"{size} to your Shop cart, quantity {quantity}.',
    'Using Shop, add {quantity} × "{name}"{size} to the cart.',
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, each, lines, (low, high) = SHAPE[difficulty]
    categories = rng.sample(sorted(shop.CATEGORIES), count)
    category = rng.choice(categories)
    sizes = {c: (LONG if difficulty == "hard" and c == category else each) for c in categories}
    data = shop.store(rng, sizes, lines + 1)
    listed = [p for p in data["products"] if p["category"] == category]
    product = rng.choice(listed[24:] if difficulty == "hard" else listed[1:])  # never the first row
    name = product["name"]
    data["cart"] = [line for line in data["cart"] if line["product"] != name][:lines]
    size = rng.choice(product["sizes"]) if product["sizes"] else ""
    if difficulty == "hard" and size:
        other = rng.choice([s for s in product["sizes"] if s != size])
        data["cart"].insert(rng.randrange(len(data["cart"]) + 1), {"product": name, "size": other, "quantity": 1})
    quantity = rng.randint(low, high)
    apps = {"easy": ["shop"], "medium": ["notes", "shop"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"shop": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "maps" in apps:
        seeded["maps"] = maps.sample(rng, 5)
    opened = {"easy": None, "medium": ("shop", rng.choice([p["name"] for p in data["products"] if p is not product])),
              "hard": ("shop", "cart")}[difficulty]  # fmt: skip
    description = rng.choice(TEMPLATES).format(quantity=quantity, name=name, size=f" in size {size}" if size else "")
    description += " Change nothing else in the cart."
    chance = {"easy": 0.002, "medium": 0.001, "hard": 0.0005}[difficulty]
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance,
                      max_steps=2 * (8 + quantity), product=name, size=size, quantity=quantity)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


def added(cart: list[dict[str, Any]], product: str, size: str, quantity: int) -> None:
    """What Add to cart does to ``cart``: more on the line of the same product and size, or a new line."""
    line = next((line for line in cart if line["product"] == product and line["size"] == size), None)
    if line is not None:
        line["quantity"] += quantity
    else:
        cart.append({"product": product, "size": size, "quantity": quantity})


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    now = phone(session).state().get("shop", {}).get("cart", [])

    def change(state: dict[str, Any]) -> None:
        added(state["shop"]["cart"], meta["product"], meta["size"], meta["quantity"])
        state["shop"]["cart"] = shop.in_cart_order(state["shop"]["cart"], now)

    return score(settled(session) and unchanged_but(task, session, change))


def product(task: cb.Task, step: int = 0) -> dict[str, Any]:
    """The task's product, or the one ``step`` rows from it in its category's list (wrapping round)."""
    products = task.metadata["data"]["shop"]["products"]
    found = next(p for p in products if p["name"] == task.metadata["product"])
    listed = [p for p in products if p["category"] == found["category"]]
    return listed[(listed.index(found) + step) % len(listed)]  # type: ignore[no-any-return]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await shop.add_product(Hand(session), product(task), meta["size"], meta["quantity"])


@cb.wrong_way
async def adds_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await shop.add_product(Hand(session), product(task, 1), meta["size"], meta["quantity"])


@cb.wrong_way
async def near_miss(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    sizes, size, quantity = product(task)["sizes"], meta["size"], meta["quantity"]
    if size:
        size = sizes[(sizes.index(size) + 1) % len(sizes)]
    else:
        quantity = quantity - 1 if quantity > 1 else quantity + 1
    await shop.add_product(Hand(session), product(task), size, quantity)


@cb.wrong_way
async def one_too_many(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await shop.add_product(Hand(session), product(task), meta["size"], meta["quantity"] + 1)


@cb.wrong_way
async def chooses_but_never_adds(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    hand = Hand(session)
    await shop.add_product(hand, product(task), meta["size"], meta["quantity"] + 1, add=False)
    await shop.set_quantity(hand, meta["quantity"])
    await hand.button("home")


@cb.wrong_way
async def oracle_then_adds_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    neighbour = product(task, -1)
    await shop.add_product(Hand(session), neighbour, neighbour["sizes"][0] if neighbour["sizes"] else "", 1)
