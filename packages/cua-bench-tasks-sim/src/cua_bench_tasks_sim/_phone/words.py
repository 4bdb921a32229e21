"""Word pools the phone apps' samples and the phone families draw from (seeded, never random at run time)."""

from __future__ import annotations

import random

from cua_bench_tasks_sim._widgets_common import CITIES, FIRST_NAMES

__all__ = ["CITIES", "FIRST_NAMES", "LAST_NAMES", "NOUNS", "TOPICS", "VERBS", "full_names", "phone_number",
           "sentence"]  # fmt: skip

LAST_NAMES = [
    "Abbott", "Baker", "Castro", "Dunn", "Ellis", "Foster", "Garcia", "Hughes", "Ito", "Jensen", "Khan", "Larsen",
    "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi", "Silva", "Tanaka", "Usman", "Varga", "Weber",
    "Young",
]  # fmt: skip

TOPICS = [
    "Groceries", "Ideas", "Call back", "Packing list", "Books to read", "Gift ideas", "Recipes", "Workout",
    "Meeting notes", "Garden", "Car service", "Passwords hint", "Movies", "Trip plan", "Budget", "Birthday",
    "Homework", "Shopping", "Podcasts", "Repairs", "Quotes", "Holiday", "Weekend", "Errands",
]  # fmt: skip

NOUNS = [
    "bread", "tickets", "the plants", "the report", "batteries", "the bike", "coffee", "the keys", "a charger",
    "the invoice", "stamps", "the dentist", "paint", "the library books", "a cake", "the laundry", "light bulbs",
]  # fmt: skip

VERBS = ["buy", "call about", "pick up", "return", "check", "book", "send", "fix", "water", "pay for", "order"]


def sentence(rng: random.Random) -> str:
    """A short line, such as a note or a message holds: "pick up the keys"."""
    return f"{rng.choice(VERBS)} {rng.choice(NOUNS)}"


def full_names(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct "First Last" names."""
    names: list[str] = []  # a list, not a set: a set's order follows the process's string hashing
    while len(names) < count:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name not in names:
            names.append(name)
    return names


def phone_number(rng: random.Random) -> str:
    return f"+1 555 {rng.randrange(100, 1000)} {rng.randrange(1000, 10000)}"
