"""The phone's Shop app (``shop``), driven through taps, typing, swipes and the system buttons on a real
sim phone: categories list their products with prices (a long one scrolls to its last row); a product's
size and quantity are a draft in the store while its screen is open (gone with the screen), Add to cart
makes a line or adds to the line of the same product and size (never without a size, never past the
most); a cart line's quantity changes and Remove asks; Checkout writes the address as it is typed and
Place order asks, then turns the cart into an order. Looking around changes nothing."""

from __future__ import annotations

import copy
import random
from typing import Any

from support.phone_screen import act, installed, labels, node, rows, tap, title

from cua_bench.nodes import center, find, find_all
from cua_bench.sim import SimDesktop
from cua_bench.sim.lists import ListView
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._phone.apps import shop
from cua_core.actions import KeyPress, Point, Swipe, SystemButton, Tap, TypeText


def product(name: str, category: str, price: int, sizes: list[str] | None = None) -> dict[str, Any]:
    return {"name": name, "category": category, "price": price, "sizes": sizes or []}


DATA: dict[str, Any] = {
    "products": [
        product("Navy polo", "Shirts", 2499, ["S", "M", "L"]),
        product("Olive shirt", "Shirts", 3150, ["S", "M", "L"]),
        product("Teal mug", "Mugs", 899),
        product("Rust teacup", "Mugs", 1250),
    ],
    "cart": [{"product": "Teal mug", "size": "", "quantity": 2}],
    "orders": [],
    "address": "12 Elm Street, Oslo",
}


def phone_with(data: dict[str, Any], apps: tuple[str, ...] = ("shop",)) -> tuple[SimDesktop, Phone]:
    return installed("shop", data, apps=apps)


def store(phone: Phone) -> dict[str, Any]:
    return phone.app_data("shop")


def open_product(desktop: SimDesktop, category: str, name: str) -> None:
    tap(desktop, "button", "Shop")
    tap(desktop, "listitem", category)
    row = next(r for r in rows(desktop) if r.startswith(name + " · "))
    tap(desktop, "listitem", row)
    assert title(desktop) == name


def choose_size(desktop: SimDesktop, size: str) -> None:
    tap(desktop, "combobox", "Size")
    act(desktop, Tap(center(find(find_all(desktop.a11y(), role="list", name="Size"), role="listitem", name=size))))


def test_root_lists_categories_and_a_category_its_products_with_prices() -> None:
    desktop, _ = phone_with(DATA)
    tap(desktop, "button", "Shop")
    assert title(desktop) == "Shop" and rows(desktop) == ["Shirts", "Mugs"]
    tap(desktop, "listitem", "Mugs")
    assert title(desktop) == "Mugs" and rows(desktop) == ["Teal mug · $8.99", "Rust teacup · $12.50"]
    tap(desktop, "listitem", "Rust teacup · $12.50")
    assert title(desktop) == "Rust teacup" and "Mugs · $12.50" in labels(desktop)
    assert not find_all(desktop.a11y(), role="combobox")  # a mug has no sizes


def test_size_and_quantity_are_a_draft_that_back_discards() -> None:
    desktop, phone = phone_with(DATA)
    before = phone.state()
    open_product(desktop, "Shirts", "Olive shirt")
    assert phone.state() == before  # looking writes nothing
    choose_size(desktop, "M")
    assert store(phone)["draft"] == {"product": "Olive shirt", "size": "M", "quantity": 1}
    tap(desktop, "button", "Increase quantity")
    tap(desktop, "button", "Increase quantity")
    tap(desktop, "button", "Decrease quantity")
    assert store(phone)["draft"]["quantity"] == 2 and "Quantity: 2" in labels(desktop)
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Shirts" and phone.state() == before  # the draft went with its screen


def test_add_to_cart_needs_a_size_then_adds_a_line_and_returns_to_the_category() -> None:
    desktop, phone = phone_with(DATA)
    open_product(desktop, "Shirts", "Navy polo")
    tap(desktop, "button", "Add to cart")
    assert "Choose a size first" in labels(desktop) and store(phone)["cart"] == DATA["cart"]
    choose_size(desktop, "L")
    tap(desktop, "button", "Increase quantity")
    tap(desktop, "button", "Add to cart")
    assert title(desktop) == "Shirts" and "draft" not in store(phone)
    assert store(phone)["cart"] == [*DATA["cart"], {"product": "Navy polo", "size": "L", "quantity": 2}]


def test_adding_the_same_product_and_size_adds_to_its_line_up_to_the_most() -> None:
    desktop, phone = phone_with(DATA)
    open_product(desktop, "Mugs", "Teal mug")
    for _ in range(3):
        tap(desktop, "button", "Increase quantity")
    tap(desktop, "button", "Add to cart")
    assert store(phone)["cart"] == [{"product": "Teal mug", "size": "", "quantity": 6}]
    tap(desktop, "listitem", "Teal mug · $8.99")
    for _ in range(4):
        tap(desktop, "button", "Increase quantity")
    assert "Quantity: 5" in labels(desktop)
    tap(desktop, "button", "Add to cart")  # 6 + 5 is past 10: refused, the cart as it was
    assert any(text.startswith("At most") for text in labels(desktop))
    assert store(phone)["cart"] == [{"product": "Teal mug", "size": "", "quantity": 6}]


def test_the_quantity_stays_between_one_and_the_most() -> None:
    desktop, phone = phone_with(DATA)
    open_product(desktop, "Mugs", "Rust teacup")
    assert "disabled" in node(desktop, "button", "Decrease quantity")["states"]
    for _ in range(shop.MAX_QUANTITY + 2):
        tap(desktop, "button", "Increase quantity")
    assert store(phone)["draft"]["quantity"] == shop.MAX_QUANTITY
    assert "disabled" in node(desktop, "button", "Increase quantity")["states"]


def test_cart_line_quantity_changes_and_remove_asks() -> None:
    data = copy.deepcopy(DATA)
    data["cart"].append({"product": "Navy polo", "size": "M", "quantity": 1})
    desktop, phone = phone_with(data)
    tap(desktop, "button", "Shop")
    tap(desktop, "button", "Cart")
    assert rows(desktop) == ["Teal mug · qty 2 · $17.98", "Navy polo (M) · qty 1 · $24.99"]
    assert "2 lines, total $42.97" in labels(desktop)
    tap(desktop, "listitem", "Navy polo (M) · qty 1 · $24.99")
    assert title(desktop) == "Navy polo (M)"
    tap(desktop, "button", "Increase quantity")
    tap(desktop, "button", "Increase quantity")
    assert store(phone)["cart"][1]["quantity"] == 3
    tap(desktop, "button", "Decrease quantity")
    assert store(phone)["cart"][1]["quantity"] == 2
    before = phone.state()
    tap(desktop, "button", "Remove")
    assert desktop.a11y()[1]["role"] == "dialog"
    tap(desktop, "button", "Cancel")
    assert phone.state() == before and title(desktop) == "Navy polo (M)"
    tap(desktop, "button", "Remove")
    act(desktop, Tap(center(find(find_all(desktop.a11y(), role="dialog"), role="button", name="Remove"))))
    assert store(phone)["cart"] == DATA["cart"] and title(desktop) == "Cart"
    assert rows(desktop) == ["Teal mug · qty 2 · $17.98"]  # the cart shows the change


def test_checkout_writes_the_address_and_place_order_asks_then_orders_the_cart() -> None:
    desktop, phone = phone_with(DATA)
    tap(desktop, "button", "Shop")
    tap(desktop, "button", "Cart")
    tap(desktop, "button", "Checkout")
    assert node(desktop, "textbox", "Address")["value"] == "12 Elm Street, Oslo"
    tap(desktop, "textbox", "Address")
    act(desktop, KeyPress(("ctrl", "a")), TypeText("4 Mill Lane, Rome"))
    assert store(phone)["address"] == "4 Mill Lane, Rome"  # written as it is typed
    before = phone.state()
    tap(desktop, "button", "Place order")
    tap(desktop, "button", "Cancel")
    assert phone.state() == before
    tap(desktop, "button", "Place order")
    act(desktop, Tap(center(find(find_all(desktop.a11y(), role="dialog"), role="button", name="Place order"))))
    assert store(phone)["cart"] == [] and title(desktop) == "Shop"
    assert store(phone)["orders"] == [{"lines": DATA["cart"], "address": "4 Mill Lane, Rome", "total": 1798}]
    tap(desktop, "button", "Orders")
    assert rows(desktop) == ["Order 1 · $17.98"]
    tap(desktop, "listitem", "Order 1 · $17.98")
    assert "To 4 Mill Lane, Rome" in labels(desktop) and "Teal mug · qty 2" in labels(desktop)


def test_checkout_refuses_an_empty_address_and_an_empty_cart_cannot_check_out() -> None:
    desktop, phone = phone_with({**DATA, "address": ""})
    tap(desktop, "button", "Shop")
    tap(desktop, "button", "Cart")
    tap(desktop, "button", "Checkout")
    tap(desktop, "button", "Place order")
    assert "Enter a delivery address" in labels(desktop) and desktop.a11y()[1]["role"] == "window"
    assert store(phone)["orders"] == []
    _, empty = phone_with({**DATA, "cart": []})
    desktop = empty.desktop
    tap(desktop, "button", "Shop")
    tap(desktop, "button", "Cart")
    assert "Your cart is empty" in labels(desktop) and "disabled" in node(desktop, "button", "Checkout")["states"]


def test_a_long_category_scrolls_to_its_last_row() -> None:
    data = shop.store(random.Random(4), {"Shoes": 28, "Mugs": 2}, 0)
    desktop, _ = phone_with(data)
    tap(desktop, "button", "Shop")
    tap(desktop, "listitem", "Shoes")
    view = next(w for w in desktop.focused_window.all_widgets() if isinstance(w, ListView))  # type: ignore[union-attr]
    assert view.visible_rows() == 24  # the families' "below the fold" is row 25 on
    last = shop.product_row(data["products"][27])
    assert last not in rows(desktop)
    box = node(desktop, "list", "Products")["bounds"]
    x = (box[0] + box[2]) / 2
    for _ in range(3):
        act(desktop, Swipe(Point(x, box[1] + 0.8 * (box[3] - box[1])), Point(x, box[1] + 0.2 * (box[3] - box[1]))))
    assert last in rows(desktop)
    tap(desktop, "listitem", last)
    assert title(desktop) == data["products"][27]["name"]


def test_a_notification_opens_the_cart_or_a_product() -> None:
    desktop, phone = phone_with(DATA, ("notes", "shop"))
    phone.notify("shop", "Your cart misses you", "1 item", target="cart")
    phone.notify("shop", "Back in stock", "Olive shirt", target="Olive shirt")
    act(desktop, Swipe(Point(500, 10), Point(500, 600)))
    tap(desktop, "button", "Your cart misses you")
    assert phone.current == "shop" and title(desktop) == "Cart"
    act(desktop, Swipe(Point(500, 10), Point(500, 600)))
    tap(desktop, "button", "Back in stock")
    assert title(desktop) == "Olive shirt"
    act(desktop, SystemButton("back"))
    assert title(desktop) == "Shop"  # the root below it


def test_looking_everywhere_changes_nothing() -> None:
    desktop, phone = phone_with(DATA)
    before = phone.state()
    tap(desktop, "button", "Shop")
    for category in ("Shirts", "Mugs"):
        tap(desktop, "listitem", category)
        for row in rows(desktop):
            tap(desktop, "listitem", row)
            act(desktop, SystemButton("back"))
        act(desktop, SystemButton("back"))
    tap(desktop, "button", "Cart")
    tap(desktop, "listitem", rows(desktop)[0])
    act(desktop, SystemButton("back"))
    tap(desktop, "button", "Checkout")
    act(desktop, SystemButton("back"), SystemButton("back"))
    tap(desktop, "button", "Orders")
    act(desktop, SystemButton("home"))
    assert phone.state() == before


def test_helpers_and_sample() -> None:
    assert shop.money(5) == "$0.05" and shop.money(12999) == "$129.99"
    line = {"product": "Navy polo", "size": "M", "quantity": 2}
    assert shop.line_name(line) == "Navy polo (M)" and shop.cart_row(line, DATA["products"]) == (
        "Navy polo (M) · qty 2 · $49.98"
    )
    other = {"product": "Teal mug", "size": "", "quantity": 1}
    assert shop.in_cart_order([line, other], [other, line]) == [other, line]  # the same lines: the cart's order
    assert shop.in_cart_order([line, other], [other]) == [line, other]
    assert shop.in_cart_order([line], [{**line, "quantity": 3}]) == [line]
    data = shop.sample(random.Random(1), 9)
    assert data == shop.sample(random.Random(1), 9) and len(data["products"]) == 9
    names = [p["name"] for p in data["products"]]
    prices = [p["price"] for p in data["products"]]
    assert len(set(names)) == len(names) and len(set(prices)) == len(prices)
    assert all(line["product"] in names for line in data["cart"])
