"""shop-change-quantity: in Shop's cart, change how many of one line's product (in its size) are bought.

Easy: two lines in the cart, the phone at home, the new quantity given. Medium: four lines, Shop open on
the cart, Notes on the launcher too. Hard: five lines, one of them the same product in another size,
Shop open on a product, Maps and Notes on the launcher too, and the change given as "more" or "fewer"
than the cart has (the agent must read the quantity first). The line is never the cart's first.

The evaluator checks the whole state of the phone's apps: the cart is setup's with that line's quantity the
asked-for one (its lines in any order: a line removed and added back comes last) and nothing else changed;
no dialog or overlay left open. Chance about 0.001 (taps at random would have to open Shop, the cart and the
line, then press + or - exactly the right number of times).

Wrong ways: ``changes_the_neighbour`` (another line, the same product in another size where there is
one), ``near_miss`` (one more or fewer than asked), ``oracle_then_removes_another`` (the right quantity
and another line removed), ``removes_it_instead`` (the line removed).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._phone.apps import maps, notes, shop
from cua_bench_tasks_sim._phone.kit import Hand, install, loaders, phone, phone_task, score, settled, unchanged_but

FAMILY = "shop-change-quantity"
SHAPE = {"easy": (2, 4, 2), "medium": (3, 5, 4), "hard": (4, 6, 4)}  # categories, products each, cart lines
SIZED = ["Shirts", "Shoes", "Hats", "Jackets"]
ABSOLUTE = [
    'In Shop, change the quantity of "{name}"{size} in the cart to {quantity}.',
    'In the Shop app\'s cart, make it {quantity} of "{name}"{size}.',
    'Set the Shop cart line for "{name}"{size} to a quantity of {quantity}.',
]
MORE = ['In the Shop cart, buy {delta} more of "{name}"{size} than it has now.',
        'In Shop, raise the quantity of "{name}"{size} in the cart by {delta}.']  # fmt: skip
FEWER = ['In the Shop cart, buy {delta} fewer of "{name}"{size} than it has now.',
         'In Shop, lower the quantity of "{name}"{size} in the cart by {delta}.']  # fmt: skip


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
        line["quantity"] = rng.randint(2, 5)
    else:
        line = rng.choice(cart)
    cart.remove(line)  # never the first row
    cart.insert(rng.randrange(1, len(cart) + 1), line)
    old = line["quantity"]
    quantity = rng.choice([n for n in range(1, 9) if n != old])
    name, size = line["product"], line["size"]
    words = {"name": name, "size": f" (size {size})" if size else "", "quantity": quantity,
             "delta": abs(quantity - old)}  # fmt: skip
    if difficulty == "hard":
        description = rng.choice(MORE if quantity > old else FEWER).format(**words)
    else:
        description = rng.choice(ABSOLUTE).format(**words)
    description += " Change nothing else in the cart."
    apps = {"easy": ["shop"], "medium": ["notes", "shop"], "hard": ["maps", "notes", "shop"]}[difficulty]
    seeded: dict[str, Any] = {"shop": data}
    if "notes" in apps:
        seeded["notes"] = notes.sample(rng, 3)
    if "maps" in apps:
        seeded["maps"] = maps.sample(rng, 5)
    opened = {"easy": None, "medium": ("shop", "cart"),
              "hard": ("shop", rng.choice(data["products"])["name"])}[difficulty]  # fmt: skip
    chance = {"easy": 0.002, "medium": 0.001, "hard": 0.0005}[difficulty]
    return phone_task(description, apps=apps, data=seeded, opened=opened, chance=chance,
                      max_steps=2 * (7 + abs(quantity - old)), product=name, size=size, quantity=quantity)  # fmt: skip


load_train, load_test = loaders(FAMILY, make)


def line_of(cart: list[dict[str, Any]], product: str, size: str) -> dict[str, Any]:
    return next(line for line in cart if line["product"] == product and line["size"] == size)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await install(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    now = phone(session).state().get("shop", {}).get("cart", [])

    def change(state: dict[str, Any]) -> None:
        line_of(state["shop"]["cart"], meta["product"], meta["size"])["quantity"] = meta["quantity"]
        state["shop"]["cart"] = shop.in_cart_order(state["shop"]["cart"], now)

    return score(settled(session) and unchanged_but(task, session, change))


def lines(task: cb.Task) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The task's line, its neighbour (the same product in another size, else the next line), the products."""
    meta = task.metadata
    cart, products = meta["data"]["shop"]["cart"], meta["data"]["shop"]["products"]
    line = line_of(cart, meta["product"], meta["size"])
    twins = [other for other in cart if other["product"] == line["product"] and other is not line]
    neighbour = twins[0] if twins else cart[(cart.index(line) + 1) % len(cart)]
    return line, neighbour, products


async def change_line(hand: Hand, line: dict[str, Any], products: list[dict[str, Any]], quantity: int) -> None:
    await shop.open_line(hand, line, products)
    await shop.set_quantity(hand, quantity)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    line, _, products = lines(task)
    await change_line(Hand(session), line, products, task.metadata["quantity"])


@cb.wrong_way
async def changes_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    _, neighbour, products = lines(task)
    quantity = task.metadata["quantity"]
    await change_line(Hand(session), neighbour, products, quantity if quantity != neighbour["quantity"] else 9)


@cb.wrong_way
async def near_miss(task: cb.Task, session: cb.Session) -> None:
    line, _, products = lines(task)
    quantity = task.metadata["quantity"]
    off = next(n for n in (quantity + 1, quantity - 1, quantity + 2) if 1 <= n <= 10 and n != line["quantity"])
    await change_line(Hand(session), line, products, off)


@cb.wrong_way
async def oracle_then_removes_another(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    _, neighbour, products = lines(task)
    hand = Hand(session)
    await shop.open_line(hand, neighbour, products)
    await hand.tap("button", "Remove")
    await hand.tap("button", "Remove", within=("dialog", "Shop"))


@cb.wrong_way
async def removes_it_instead(task: cb.Task, session: cb.Session) -> None:
    line, _, products = lines(task)
    hand = Hand(session)
    await shop.open_line(hand, line, products)
    await hand.tap("button", "Remove")
    await hand.tap("button", "Remove", within=("dialog", "Shop"))
