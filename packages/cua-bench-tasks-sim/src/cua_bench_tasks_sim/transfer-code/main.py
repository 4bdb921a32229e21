"""transfer-code: read a code shown as text in one window and submit it in another window's form.

Easy: one code. Medium: a list of codes, one per service; the instruction names the service.
Hard: also an account number from a third window, plus a distractor window with other codes.

The evaluator checks that every submission holds exactly the expected values (the code, the
account number, the Username left as it was: a wrong try before the right one scores 0), that each
was sent by a click on Verify as the instruction says (the desktop's records of presses), and that
the form's fields still hold them at the end. Chance 0 (typing).

Wrong ways: ``wrong_then_right`` (another code submitted first), ``swap_two_digits`` (a typo),
``oracle_then_clear_username`` and ``verified_with_enter`` (Enter instead of a click on Verify).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench_tasks_sim._desktop_common import Screen, arrange, desktop, fresh, loaders, window

FAMILY = "transfer-code"
APPS = ("Authenticator", "Security codes", "Token vault", "Phone link", "Key ring")
SERVICES = ("GitHub", "Bank", "Mail", "Cloud", "Payroll", "VPN", "Shop", "Forum", "Wiki", "Tax office")
CODES = {"easy": 1, "medium": 4, "hard": 6}


def digits(rng: random.Random, size: int = 6) -> str:
    return "".join(rng.choice("0123456789") for _ in range(size))


def build(rng: random.Random, difficulty: str) -> cb.Task:
    source = rng.choice(APPS)
    services = rng.sample(SERVICES, CODES[difficulty])
    codes = {service: digits(rng) for service in services}
    service = rng.choice(services)
    sign_in = f"Sign in to {service}"
    user = f"{rng.choice(['ana', 'li', 'omar', 'kim', 'sam', 'eva'])}.{rng.randint(1, 99)}@example.com"
    account = f"{digits(rng, 4)}-{digits(rng, 4)}-{digits(rng, 2)}" if difficulty == "hard" else None
    decoys = {s: digits(rng) for s in rng.sample(SERVICES, 3)} if difficulty == "hard" else {}
    which = "the one-time code" if difficulty == "easy" else f"the {service} one-time code"
    description = (
        f"The '{source}' window shows {which}. Enter it in the Verification code field of the '{sign_in}' window"
    )
    if account:
        description += " and the account number shown in the 'Account' window in its Account number field"
    description += ", then click Verify. Leave the other fields as they are."
    metadata = {"source": source, "codes": codes, "service": service, "sign_in": sign_in, "user": user,
                "account": account, "decoys": decoys, "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=10, chance=0.0)


load_train, load_test = loaders(FAMILY, build)
WAIVED = {
    "untouched-window-closed": (
        "the windows besides the sign-in form only show labels to read: closed after Verify, they lose "
        "nothing; the form, what it sent and what it still holds are checked"
    ),
}


def expected(meta: dict[str, Any]) -> dict[str, str]:
    values = {"Username": meta["user"], "Verification code": meta["codes"][meta["service"]]}
    return values | ({"Account number": meta["account"]} if meta["account"] else {})


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    rng = random.Random(meta["seed"])
    shown = {meta["source"]: meta["codes"]} | ({"Old codes": meta["decoys"]} if meta["decoys"] else {})
    if meta["account"]:
        shown["Account"] = {"Account number": meta["account"], "Holder": meta["user"]}
    opened = []
    for title, rows in shown.items():
        labels = [{"type": "label", "text": f"{name}: {value}"} for name, value in rows.items()]
        opened.append(await session.launch("form", title=title, widgets=labels, width=rng.randint(260, 340)))
    fields = [{"type": "textfield", "name": name, "value": meta["user"] if name == "Username" else ""}
              for name in expected(meta)]  # fmt: skip
    fields.append({"type": "button", "name": "Verify", "default": True})
    opened.append(await session.launch("form", title=meta["sign_in"], widgets=fields, width=rng.randint(380, 460)))
    arrange(rng, sim, [sim.get_window(i) for i in rng.sample(opened, len(opened))])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sim = desktop(session)
    form = window(sim, task.metadata["sign_in"])
    if form is None:
        return [0.0]
    want, sent = expected(task.metadata), form.data.get("submissions", [])
    kept_there = all(form.find("textbox", name).value == value for name, value in want.items())
    clicked = len(sim.provenance.clicks_on(form.id, "Verify")) >= len(sent)  # each sent by a click, as asked
    return [1.0 if sent and all(values == want for values in sent) and kept_there and clicked else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    await _enter(screen, await _read(screen, task.metadata), task.metadata)


async def _read(screen: Screen, meta: dict[str, Any]) -> dict[str, str]:
    """The values to enter, read off the labels of the windows that show them."""
    wanted = {"Verification code": (meta["source"], f"{meta['service']}: ")}
    if meta["account"]:
        wanted["Account number"] = ("Account", "Account number: ")
    values = {}
    for field, (title, prefix) in wanted.items():
        source = await screen.window(title)
        labels = [n["name"] for n in source["children"] if n["role"] == "label" and n["name"].startswith(prefix)]
        values[field] = labels[0][len(prefix) :]
    return values


async def _enter(screen: Screen, values: dict[str, str], meta: dict[str, Any], *, by_key: bool = False) -> None:
    """Type the values into their fields, then click Verify (``by_key``: press Enter instead)."""
    form = await screen.front(await screen.window(meta["sign_in"]))
    for field, value in values.items():
        await screen.click(await screen.find(form, "textbox", field))
        await screen.keys("ctrl", "a")
        await screen.type(value)
    if by_key:
        await screen.keys("enter")
    else:
        await screen.click(await screen.find(form, "button", "Verify"))


@cb.wrong_way
async def wrong_then_right(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    values = await _read(screen, task.metadata)
    code = values["Verification code"]
    await _enter(screen, {**values, "Verification code": code[::-1] if code[::-1] != code else "000000"}, task.metadata)
    await _enter(screen, values, task.metadata)


@cb.wrong_way
async def swap_two_digits(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    values = await _read(screen, task.metadata)
    code = values["Verification code"]
    swapped = code[1] + code[0] + code[2:] if code[0] != code[1] else code[:-1] + str((int(code[-1]) + 1) % 10)
    await _enter(screen, {**values, "Verification code": swapped}, task.metadata)


@cb.wrong_way
async def oracle_then_clear_username(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    form = await screen.front(await screen.window(task.metadata["sign_in"]))
    await screen.click(await screen.find(form, "textbox", "Username"))
    await screen.keys("ctrl", "a")
    await screen.keys("delete")


@cb.wrong_way
async def verified_with_enter(task: cb.Task, session: cb.Session) -> None:
    """The right values, sent with Enter (the default button) where the instruction says to click Verify."""
    screen = Screen(session)
    await _enter(screen, await _read(screen, task.metadata), task.metadata, by_key=True)
