"""shop-remove-from-cart: in Shop's cart, remove one line (a product in a size) altogether.

Easy: two lines in the cart, the phone at home. Medium: four lines, Shop open on a product, Notes on
the launcher too. Hard: five lines, one of them the same product in another size (which stays), Shop
open on the cart, Maps and Notes on the launcher too. The line is never the cart's first, and there are
more than one of it.

The evaluator checks the whole state of the phone's apps: the cart is setup's without that line (the others
in any order) and nothing else changed (no other line, no order); no dialog or overlay left open. Chance
about 0.002 (taps at random would have to open Shop, the cart and the line, then Remove and confirm it).

Wrong ways: ``removes_the_neighbour`` (another line, the same product in another size where there is
one), ``lowers_it_instead`` (one fewer of it: the line stays), ``empties_the_cart`` (every line
removed), ``oracle_then_removes_another`` (the right line and another one).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "shop-remove-from-cart"
SHAPE = {"easy": (2, 4, 2), "medium": (3, 5, 4), "hard": (4, 6, 4)}  # categories, products each, cart lines
SIZED = ["Shirts", "Shoes", "Hats", "Jackets"]
TEMPLATES = [
    'In Shop, remove "{name}"{size} from the cart.',
    'Take "{name}"{size} out of your Shop cart.',
    'In the Shop app, delete the cart line for "{name}"{size}.',
    'Using Shop, drop "{name}"{size} from the cart entirely.',
]


def make(rng: random.Random, difficulty: str) -> cb.Task:
    count, each, lines = SHAPE[difficulty]
    categories = rng.sample(sorted(shop.CATEGORIES), count)
    if difficulty == "hard" and not set(categories) & set(SIZED):
        categories[0] = rng.choice(SIZED)
    data = shop.store(rng, dict.fromkeys(categories, each), lines)
    cart = data["cart"]
    if difficulty == "hard":
        sized = [line for line in cart if line["size"]]
        if not sized:  # make one line's product one with sizes
            product = rng.choice([p for p in data["products"] if p["sizes"] and p["name"] not in
                                  {line["product"] for line in cart}])  # fmt: skip
            cart[0] = {"product": product["name"], "size": rng.choice(product["sizes"]), "quantity": 1}
            sized = [cart[0]]
        line = rng.choice(sized)
        sizes = next(p["sizes"] for p in data["products"] if p["name"] == line["product"])
        twin = {"product": line["product"], "size": rng.choice([s for s in sizes if s != line["size"]]),
                "quantity": rng.randint(1, 3)}  # fmt: skip
        cart.insert(rng.randrange(len(cart) + 1), twin)
    else:
        line = rng.choice(cart)
    cart.remove(line)  # never the first row
    cart.insert(rng.randrange(1, len(cart) + 1), line)
    line["quantity"] = rng.randint(2, 4)  # more than one: lowering it is not removing it
    name, size = line["product"], line["size"]
    description = rng.choice(TEMPLATES).format(name=name, size=f" (size {size})" if size else "")
    description += " Keep every other line as it is."
    apps = {"easy": ["shop"], "medium": ["notes", "shop"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"shop": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "maps" in apps:
        seeded["maps"] = maps.sample(rng, 5)
    opened = {"easy": None, "medium": ("shop", rng.choice(data["products"])["name"]),
              "hard": ("shop", "cart")}[difficulty]  # fmt: skip
    chance = {"easy": 0.002, "medium": 0.001, "hard": 0.0005}[difficulty]
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance, max_steps=16,
                      product=name, size=size)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


def is_line(line: dict[str, Any], product: str, size: str) -> bool:
    return bool(line["product"] == product and line["size"] == size)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    now = phone(session).state().get("shop", {}).get("cart", [])

    def change(state: dict[str, Any]) -> None:
        cart = [line for line in state["shop"]["cart"] if not is_line(line, meta["product"], meta["size"])]
        state["shop"]["cart"] = shop.in_cart_order(cart, now)

    return score(settled(session) and unchanged_but(task, session, change))


def lines(task: cb.Task) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The task's line, its neighbour (the same product in another size, else the next line), the products."""
    meta = task.metadata
    cart, products = meta["data"]["shop"]["cart"], meta["data"]["shop"]["products"]
    line = next(line for line in cart if is_line(line, meta["product"], meta["size"]))
    twins = [other for other in cart if other["product"] == line["product"] and other is not line]
    neighbour = twins[0] if twins else cart[(cart.index(line) + 1) % len(cart)]
    return line, neighbour, products


async def remove(hand: Hand, line: dict[str, Any], products: list[dict[str, Any]]) -> None:
    await shop.open_line(hand, line, products)
    await hand.tap("button", "Remove")
    await hand.tap("button", "Remove", within=("dialog", "Shop"))


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    line, _, products = lines(task)
    await remove(Hand(session), line, products)


@cb.wrong_way
async def removes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    _, neighbour, products = lines(task)
    await remove(Hand(session), neighbour, products)


@cb.wrong_way
async def lowers_it_instead(task: cb.Task, session: cb.Session) -> None:
    line, _, products = lines(task)
    hand = Hand(session)
    await shop.open_line(hand, line, products)
    await shop.set_quantity(hand, line["quantity"] - 1)


@cb.wrong_way
async def empties_the_cart(task: cb.Task, session: cb.Session) -> None:
    cart, products = task.metadata["data"]["shop"]["cart"], task.metadata["data"]["shop"]["products"]
    hand = Hand(session)
    for line in cart:
        await remove(hand, line, products)


@cb.wrong_way
async def oracle_then_removes_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    _, neighbour, products = lines(task)
    await remove(Hand(session), neighbour, products)
