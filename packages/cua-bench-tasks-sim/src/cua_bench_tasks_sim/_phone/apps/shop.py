"""``shop`` ("Shop"): a store's catalogue, a cart and orders. Its root lists the categories; a category
lists its products with their prices (in the catalogue's order, not by price); a product shows its
price, a Size dropdown (where it comes in sizes), a quantity with "Decrease quantity" and "Increase
quantity", and "Add to cart" (which adds to the cart's line of the same product and size, or makes one,
and returns to the category). The toolbar's Cart lists the cart's lines (a tap opens one: its quantity
changes with the same two buttons, Remove asks, then removes it), its total and Checkout: an Address
field and "Place order", which asks, then turns the cart into an order. The root's toolbar also has
Orders, the orders placed (a tap shows one).

The state (``phone.app_data("shop")``): ``products``, a list of ``{"name", "category", "price",
"sizes"}`` (price in cents; sizes [] for a product without them), ``cart``, a list of ``{"product",
"size", "quantity"}`` lines (size "" for a product without sizes), ``orders``, a list of ``{"lines",
"address", "total"}`` (total in cents), ``address``, the Address field's text (a delivery address the
shop keeps), and ``draft``, the product screen's size and quantity while it is open and changed
(``{"product", "size", "quantity"}``, gone once added to the cart or once the screen closes).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Button, Label
from cua_bench.sim.lists import Dropdown, ListView
from cua_bench.sim.phone import PhoneApp, Screen, ToolbarButton, register_phone_app
from cua_bench.sim.textwidgets import TextField
from cua_bench_tasks_sim._phone.words import CITIES

if TYPE_CHECKING:
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = [
    "CATEGORIES",
    "MAX_QUANTITY",
    "ShopApp",
    "add_product",
    "address",
    "cart_row",
    "catalogue",
    "in_cart_order",
    "line_name",
    "money",
    "open_cart",
    "open_category",
    "open_line",
    "product_row",
    "sample",
    "set_quantity",
    "shop_root",
    "store",
    "total",
]

MAX_QUANTITY = 10

COLOURS = [
    "Navy", "Olive", "Black", "White", "Grey", "Red", "Teal", "Sand", "Rust", "Plum", "Ivory", "Forest",
    "Coral", "Amber", "Slate", "Mint",
]  # fmt: skip

# Each category: its kinds of product (a product is "<colour> <kind>") and the sizes they come in.
CATEGORIES: dict[str, tuple[list[str], list[str]]] = {
    "Shirts": (["shirt", "polo", "tee"], ["XS", "S", "M", "L", "XL"]),
    "Shoes": (["sneakers", "loafers", "boots", "sandals"], ["38", "39", "40", "41", "42", "43", "44", "45"]),
    "Hats": (["cap", "beanie", "sun hat"], ["S", "M", "L"]),
    "Jackets": (["jacket", "parka", "raincoat"], ["S", "M", "L", "XL"]),
    "Mugs": (["mug", "teacup", "tumbler"], []),
    "Bags": (["tote", "backpack", "duffel"], []),
    "Lamps": (["desk lamp", "floor lamp", "lantern"], []),
}
_PRICES = {"Shirts": (15, 60), "Shoes": (40, 160), "Hats": (10, 40), "Jackets": (60, 240), "Mugs": (6, 30),
           "Bags": (20, 120), "Lamps": (18, 140)}  # fmt: skip
_STREETS = ["Elm Street", "Harbour Road", "Mill Lane", "Station Road", "Park Avenue", "Church Street",
            "Orchard Way", "King Street", "Bridge Road", "Maple Drive", "Hill Crescent", "Queen's Walk"]  # fmt: skip

Product = dict[str, Any]
Line = dict[str, Any]


# --- how the app writes things (families build their descriptions and rows with these) ---------------


def money(cents: int) -> str:
    """``2499`` as the app shows it: ``$24.99``."""
    return f"${cents // 100}.{cents % 100:02d}"


def product_row(product: Product) -> str:
    """A product's row in its category: ``Navy polo · $24.99``."""
    return f"{product['name']} · {money(product['price'])}"


def line_name(line: Line) -> str:
    """A cart line's product and size: ``Navy polo (M)``, or ``Olive mug`` without a size."""
    return f"{line['product']} ({line['size']})" if line["size"] else str(line["product"])


def _price(products: list[Product], name: str) -> int:
    return next((int(p["price"]) for p in products if p["name"] == name), 0)


def total(lines: list[Line], products: list[Product]) -> int:
    """What ``lines`` cost, in cents."""
    return sum(_price(products, line["product"]) * int(line["quantity"]) for line in lines)


def cart_row(line: Line, products: list[Product]) -> str:
    """A cart line's row: ``Navy polo (M) · qty 2 · $49.98``."""
    return f"{line_name(line)} · qty {line['quantity']} · {money(total([line], products))}"


def in_cart_order(want: list[Line], now: list[Line]) -> list[Line]:
    """``want``'s lines in the order ``now`` has them, when ``now`` holds just those lines (a cart's order
    is not part of what it holds: a line removed and added back comes last); else ``want``."""

    def key(line: Line) -> tuple[str, str, int]:
        return str(line.get("product")), str(line.get("size")), int(line.get("quantity", 0))

    return [dict(line) for line in now] if sorted(want, key=key) == sorted(now, key=key) else want


def address(rng: random.Random) -> str:
    return f"{rng.randrange(1, 200)} {rng.choice(_STREETS)}, {rng.choice(CITIES)}"


# --- seeded data -------------------------------------------------------------------------------------


def catalogue(rng: random.Random, sizes: dict[str, int]) -> list[Product]:
    """``sizes[category]`` products of each category, in that order, with distinct names and prices."""
    products: list[Product] = []
    prices: set[int] = set()
    for category, count in sizes.items():
        kinds, fits = CATEGORIES[category]
        names = [f"{colour} {kind}" for colour in COLOURS for kind in kinds]
        low, high = _PRICES[category]
        for name in rng.sample(names, count):
            price = 0
            while price == 0 or price in prices:
                price = rng.randrange(low, high) * 100 + rng.choice([0, 49, 50, 95, 99])
            prices.add(price)
            products.append({"name": name, "category": category, "price": price, "sizes": list(fits)})
    return products


def store(rng: random.Random, sizes: dict[str, int], lines: int) -> dict[str, Any]:
    """The shop's whole state: ``catalogue(rng, sizes)``, a cart of ``lines`` lines (distinct products,
    one to three of each), no orders, and a saved address."""
    products = catalogue(rng, sizes)
    cart = []
    for product in rng.sample(products, min(lines, len(products))):
        size = rng.choice(product["sizes"]) if product["sizes"] else ""
        cart.append({"product": product["name"], "size": size, "quantity": rng.randint(1, 3)})
    return {"products": products, "cart": cart, "orders": [], "address": address(rng)}


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` products in one to four categories (two or more each where ``count`` allows), a cart
    of up to two lines, no orders, and a saved address."""
    chosen = rng.sample(sorted(CATEGORIES), max(1, min(4, count // 2)))
    sizes = dict.fromkeys(chosen, 0)
    for index in range(count):
        sizes[chosen[index % len(chosen)]] += 1
    return store(rng, {category: n for category, n in sizes.items() if n}, rng.randint(0, min(2, count)))


# --- the app -----------------------------------------------------------------------------------------


@register_phone_app
class ShopApp(PhoneApp):
    name = "shop"
    label = "Shop"

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._refreshers: dict[int, Callable[[], None]] = {}  # by id(screen): shows the state again

    # --- the state (read freely; written only when the person changes something) ---------------------

    @property
    def products(self) -> list[Product]:
        found: list[Product] = self.data.get("products", [])
        return found

    @property
    def cart(self) -> list[Line]:
        found: list[Line] = self.data.get("cart", [])
        return found

    @property
    def orders(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.data.get("orders", [])
        return found

    def _product(self, name: str) -> Product | None:
        return next((product for product in self.products if product["name"] == name), None)

    def _categories(self) -> list[str]:
        return list(dict.fromkeys(product["category"] for product in self.products))

    def _changed(self) -> None:
        for screen in self.stack:
            refresh = self._refreshers.get(id(screen))
            if refresh is not None:
                refresh()

    def _screen(self, title: str, refresh: Callable[[], None] | None = None, *, cart: bool = True) -> Screen:
        screen = self.screen(title)
        if refresh is not None:
            self._refreshers[id(screen)] = refresh
        if cart:
            screen.add_action("Cart", "Cart", lambda _: self.open_cart())

        def closed(_: Any) -> None:
            self._refreshers.pop(id(screen), None)

        screen.on_close = closed
        return screen

    def _tap_list(self, name: str, rows: Callable[[], list[str]], opened: Callable[[int], None],
                  screen: Screen) -> ListView:  # fmt: skip
        """A list whose rows a tap opens; no row stays chosen (the list holds no choice of its own)."""
        view = ListView(name)

        def refresh() -> None:
            view.set_items(rows())

        def picked(_: Any) -> None:
            index = view.selected_index
            view.selected_index = None
            if index is not None and index < len(view.items):
                opened(index)

        view.on_select = picked
        refresh()
        screen.add(view, fill=True)
        before = self._refreshers.get(id(screen))

        def both() -> None:
            if before is not None:
                before()
            refresh()

        self._refreshers[id(screen)] = both
        return view

    # --- screens -------------------------------------------------------------------------------------

    def start(self) -> None:
        root = self._screen("Shop")
        root.add_action("Orders", "Orders", lambda _: self.open_orders())
        self._tap_list("Categories", self._categories, lambda index: self.open_category(self._categories()[index]),
                       root)  # fmt: skip
        self.push(root)

    def open_category(self, category: str) -> None:
        screen = self._screen(category)

        def products() -> list[Product]:
            return [product for product in self.products if product["category"] == category]

        self._tap_list("Products", lambda: [product_row(p) for p in products()],
                       lambda index: self.open_product(products()[index]["name"]), screen)  # fmt: skip
        self.push(screen)

    def open_product(self, name: str) -> None:
        product = self._product(name)
        if product is None:
            return
        draft = self.data.get("draft")
        if not isinstance(draft, dict) or draft.get("product") != name:
            draft = None
        size = draft["size"] if draft is not None else ""
        quantity = int(draft["quantity"]) if draft is not None else 1
        picked: dict[str, Any] = {"size": size, "quantity": quantity}
        count = Label("")
        problem = Label("")
        fewer = ToolbarButton("Decrease quantity", "-", width=40, height=30)
        more = ToolbarButton("Increase quantity", "+", width=40, height=30)

        def show() -> None:
            count.text = f"Quantity: {picked['quantity']}"
            fewer.enabled = picked["quantity"] > 1
            more.enabled = picked["quantity"] < MAX_QUANTITY

        def keep() -> None:
            self.data["draft"] = {"product": name, "size": picked["size"], "quantity": picked["quantity"]}
            show()

        def sized(box: Any) -> None:
            picked["size"] = box.selected or ""
            problem.text = ""
            keep()

        def step(by: int) -> None:
            quantity = picked["quantity"] + by
            if 1 <= quantity <= MAX_QUANTITY:
                picked["quantity"] = quantity
                keep()

        def add(_: Any) -> None:
            if product["sizes"] and not picked["size"]:
                problem.text = "Choose a size first"
                return
            line = next((line for line in self.cart
                         if line["product"] == name and line["size"] == picked["size"]), None)  # fmt: skip
            if line is not None and line["quantity"] + picked["quantity"] > MAX_QUANTITY:
                problem.text = f"At most {MAX_QUANTITY} of one item in the cart"
                return
            if line is not None:
                line["quantity"] += picked["quantity"]
            else:
                self.data.setdefault("cart", []).append(
                    {"product": name, "size": picked["size"], "quantity": picked["quantity"]}
                )
            self.pop()  # the draft goes with its screen
            self._changed()

        def closed(_: Any) -> None:
            self._refreshers.pop(id(screen), None)
            self.data.pop("draft", None)

        screen = self._screen(name)
        screen.on_close = closed
        screen.add(Label(f"{product['category']} · {money(product['price'])}"))
        if product["sizes"]:
            screen.add(Dropdown("Size", product["sizes"], size or None, on_change=sized), label="Size")
        else:
            screen.add(Label("One size"))
        fewer.on_click(lambda _: step(-1))
        more.on_click(lambda _: step(1))
        screen.add_row(fewer, count, more)
        screen.add(Button("Add to cart", add))
        screen.add(problem)
        show()
        self.push(screen)

    def open_cart(self) -> None:
        summary = Label("")
        checkout = Button("Checkout", lambda _: self.open_checkout())

        def refresh() -> None:
            lines = len(self.cart)
            summary.text = (f"{lines} line{'s' if lines != 1 else ''}, total {money(total(self.cart, self.products))}"
                            if lines else "Your cart is empty")  # fmt: skip
            checkout.enabled = bool(lines)

        screen = self._screen("Cart", refresh, cart=False)
        screen.add(summary)
        screen.add(checkout)
        self._tap_list("Cart lines", lambda: [cart_row(line, self.products) for line in self.cart],
                       lambda index: self.open_line(self.cart[index]), screen)  # fmt: skip
        refresh()
        self.push(screen)

    def open_line(self, line: Line) -> None:
        title = line_name(line)
        count = Label("")
        cost = Label("")
        fewer = ToolbarButton("Decrease quantity", "-", width=40, height=30)
        more = ToolbarButton("Increase quantity", "+", width=40, height=30)

        def refresh() -> None:
            count.text = f"Quantity: {line['quantity']}"
            cost.text = f"{money(_price(self.products, line['product']))} each, {money(total([line], self.products))}"
            fewer.enabled = line["quantity"] > 1
            more.enabled = line["quantity"] < MAX_QUANTITY

        def step(by: int) -> None:
            if line in self.cart and 1 <= line["quantity"] + by <= MAX_QUANTITY:
                line["quantity"] += by
                self._changed()

        def remove() -> None:
            if line in self.cart:
                self.cart.remove(line)
            self.pop()
            self._changed()

        screen = self._screen(title, refresh, cart=False)
        screen.add(Label(f"Size {line['size']}" if line["size"] else "One size"))
        screen.add(cost)
        fewer.on_click(lambda _: step(-1))
        more.on_click(lambda _: step(1))
        screen.add_row(fewer, count, more)
        screen.add(Button("Remove", lambda _: self.confirm(f'Remove "{title}" from the cart?', "Remove", remove)))
        refresh()
        self.push(screen)

    def open_checkout(self) -> None:
        problem = Label("")

        def typed(field: Any) -> None:
            self.data["address"] = field.text
            problem.text = ""

        def order() -> None:
            lines = [dict(line) for line in self.cart]
            self.data.setdefault("orders", []).append(
                {"lines": lines, "address": self.data.get("address", ""), "total": total(lines, self.products)}
            )
            self.cart.clear()
            while self.pop():  # back to the root
                pass
            self._changed()

        def place(_: Any) -> None:
            where = str(self.data.get("address", "")).strip()
            if not self.cart:
                problem.text = "The cart is empty"
            elif not where:
                problem.text = "Enter a delivery address"
            else:
                cost = money(total(self.cart, self.products))
                self.confirm(f"Place the order for {cost}, delivered to {where}?", "Place order", order)

        screen = self._screen("Checkout", cart=False)
        count = sum(int(line["quantity"]) for line in self.cart)
        screen.add(Label(f"{count} item{'s' if count != 1 else ''}, total {money(total(self.cart, self.products))}"))
        screen.add(TextField("Address", str(self.data.get("address", "")), placeholder="Delivery address",
                             on_change=typed))  # fmt: skip
        screen.add(Button("Place order", place))
        screen.add(problem)
        self.push(screen)

    def open_orders(self) -> None:
        screen = self._screen("Orders")

        def rows() -> list[str]:
            return [f"Order {index + 1} · {money(order['total'])}" for index, order in enumerate(self.orders)]

        if not self.orders:
            screen.add(Label("No orders yet"))
        self._tap_list("Order list", rows, self.open_order, screen)
        self.push(screen)

    def open_order(self, index: int) -> None:
        order = self.orders[index]
        screen = self._screen(f"Order {index + 1}")
        screen.add(Label(f"To {order['address']}"))
        for line in order["lines"]:
            screen.add(Label(f"{line_name(line)} · qty {line['quantity']}"))
        screen.add(Label(f"Total {money(order['total'])}"))
        self.push(screen)

    def open_target(self, target: str) -> None:
        """``target`` is "cart" (the cart opens) or a product's name (it opens), above the root."""
        if target != "cart" and self._product(target) is None:
            return
        while self.pop():
            pass
        if target == "cart":
            self.open_cart()
        else:
            self.open_product(target)


# --- the way there, for the families' oracles and wrong ways (through a kit.Hand only) ------------------


async def shop_root(hand: Hand) -> None:
    """Shop on screen at its root (launched, then back until its list of categories shows)."""
    await hand.launch("Shop")
    while not await hand.shows("list", "Categories"):
        await hand.button("back")


async def open_category(hand: Hand, category: str) -> None:
    await shop_root(hand)
    await hand.tap("listitem", category, within=("list", "Categories"))


async def open_cart(hand: Hand) -> None:
    await shop_root(hand)
    await hand.tap("button", "Cart")


async def set_quantity(hand: Hand, quantity: int) -> None:
    """On a product or cart line screen: the quantity made ``quantity`` with its two buttons."""
    shown = next(text for text in await hand.texts("label") if text.startswith("Quantity: "))
    now = int(shown.removeprefix("Quantity: "))
    for _ in range(abs(quantity - now)):
        await hand.tap("button", "Increase quantity" if quantity > now else "Decrease quantity")


async def add_product(hand: Hand, product: Product, size: str, quantity: int, *, add: bool = True) -> None:
    """``quantity`` of ``product`` in ``size`` ("" for none) chosen on its screen, then (``add``) added."""
    await open_category(hand, product["category"])
    row = product_row(product)
    await hand.scroll_to("listitem", row, within=("list", "Products"))
    await hand.tap("listitem", row, within=("list", "Products"))
    if size:
        await hand.tap("combobox", "Size")
        await hand.tap("listitem", size, within=("list", "Size"))
    await set_quantity(hand, quantity)
    if add:
        await hand.tap("button", "Add to cart")


async def open_line(hand: Hand, line: Line, products: list[Product]) -> None:
    """The cart line's screen, from the cart."""
    await open_cart(hand)
    row = cart_row(line, products)
    await hand.scroll_to("listitem", row, within=("list", "Cart lines"))
    await hand.tap("listitem", row, within=("list", "Cart lines"))
