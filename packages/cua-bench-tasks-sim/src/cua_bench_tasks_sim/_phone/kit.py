"""What the phone families share (not a task: no ``main.py``), by the side of a task that uses it:

* variants: ``phone_task`` (a 360x720 portrait screen, the apps on the launcher, each app's seeded
  data, the app setup opens and the notifications it posts) and ``loaders`` (the train and test splits);
* setup: ``install``, a phone with the variant's apps and data, its state then kept;
* evaluation: the whole state of every app against what setup left with only the asked-for change
  (``unchanged_but``), and where the phone is (``on_screen``, ``settled``);
* the oracle and the wrong ways: ``Hand``, taps on accessibility nodes, typing, swipes and the system
  buttons, as an agent reading the screen would (they never touch ``session.sim``).

An app keeps all its state in the phone's store for it, seeded whole by the variant: an app writes there
only when the user changes something, so a phone that was only looked at is in the state setup left.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import cua_bench as cb
from cua_bench.nodes import center, find_all
from cua_bench.sim.phone import Phone
from cua_bench_tasks_sim._widgets_common import Loader, desktop, splits
from cua_core import Action, KeyPress, LongPress, Point, Swipe, SystemButton, Tap, TypeText

__all__ = ["SIZE", "Hand", "install", "kept", "loaders", "on_screen", "phone", "phone_task", "score", "settled",
           "unchanged_but"]  # fmt: skip

SIZE = {"width": 360, "height": 720}
State = dict[str, dict[str, Any]]

# --- variants --------------------------------------------------------------------------------


def phone_task(description: str, *, apps: Sequence[str], data: State, chance: float, max_steps: int,
               opened: tuple[str, str | None] | None = None,
               notifications: Iterable[tuple[str, str, str, str | None]] = (), **metadata: Any) -> cb.Task:  # fmt: skip
    """A variant on a phone with ``apps`` on its launcher and ``data`` in their stores; setup opens
    ``opened`` (app, what in it) and posts ``notifications`` (app, title, text, target), oldest first."""
    unseeded = sorted(set(apps) - set(data))
    if unseeded:  # an app that seeds its own defaults on first use would change the state by being looked at
        raise ValueError(f"phone_task: no data for {', '.join(unseeded)}; seed every app on the phone")
    meta = {"apps": list(apps), "data": copy.deepcopy(data), "opened": list(opened) if opened else None,
            "notifications": [list(n) for n in notifications], **metadata}  # fmt: skip
    return cb.Task(description=description, metadata=meta, computer={"setup_config": dict(SIZE)}, chance=chance,
                   max_steps=max_steps)  # fmt: skip


def loaders(family: str, make: Callable[..., cb.Task]) -> tuple[Loader, Loader]:
    """The family's ``train`` and ``test`` loaders (disjoint seeds, difficulty by seed)."""
    return splits(family, make, placed=False)


# --- setup -----------------------------------------------------------------------------------


def phone(session: cb.Session) -> Phone:
    """The phone on ``session``'s sim desktop (setup and evaluation only; never the oracle)."""
    found = desktop(session).phone
    if found is None:
        raise cb.TaskError("no phone on this desktop: the phone families' setup installs one (kit.install)")
    return found


async def install(task: cb.Task, session: cb.Session) -> Phone:
    """The variant's phone: its apps, their data, the app it opens and the notifications it posts; then
    its state is kept for evaluation and the desktop's records start afresh."""
    sim = desktop(session)
    if sim.phone is not None:
        raise cb.TaskError("this desktop is already a phone: a phone task needs a fresh episode (reset)")
    meta = task.metadata
    installed = Phone.install(sim, meta["apps"])
    for app, data in meta["data"].items():
        installed.app_data(app).update(copy.deepcopy(data))
    for app, title, text, target in meta["notifications"]:
        installed.notify(app, title, text, target=target)
    if meta["opened"]:
        installed.open_app(*meta["opened"])
    task.scratch["state"] = installed.state()
    sim.provenance.clear()
    return installed


# --- evaluation ------------------------------------------------------------------------------


def kept(task: cb.Task) -> State:
    """Every app's state as setup left it, copied: change it into what the task asks for."""
    state = task.scratch.get("state")
    if state is None:
        raise cb.TaskError(f"{task.name}: evaluation needs this episode's setup (kit.install was not called)")
    return copy.deepcopy(state)


def unchanged_but(task: cb.Task, session: cb.Session, change: Callable[[State], Any]) -> bool:
    """Every app's state is what setup left with ``change`` made to it, and nothing else."""
    want = kept(task)
    change(want)
    return phone(session).state() == {app: data for app, data in want.items() if data}


def settled(session: cb.Session) -> bool:
    """No dialog waits for an answer and neither the shade nor recents covers the screen."""
    found = phone(session)
    return found.desktop.modal_window() is None and found.overlay is None


def on_screen(session: cb.Session, app: str | None, title: str | None = None) -> bool:
    """``app`` (None: home) is in front, showing its screen ``title`` (any screen when None)."""
    found = phone(session)
    if found.current != app or not settled(session):
        return False
    return title is None or (app is not None and found.running[app].top.title == title)


def score(ok: bool) -> list[float]:
    return [1.0 if ok else 0.0]


# --- the oracle and the wrong ways: the accessibility tree and touch -------------------------


class Hand:
    """Acts on the phone as an agent reading its screen does: finds nodes in the accessibility tree
    and touches them with unified actions (never ``session.sim``). Every refused action is an error:
    an oracle that was refused did not do what it says."""

    def __init__(self, session: cb.Session) -> None:
        self.session = session

    async def act(self, *actions: Action) -> None:
        errors = [e for e in await self.session.apply(list(actions)) if e]
        if errors:
            raise cb.TaskError(f"the phone refused {errors}")

    async def nodes(self) -> list[dict[str, Any]]:
        return await self.session.accessibility_tree()

    async def find_all(self, role: str | None = None, name: str | None = None, *,
                       within: tuple[str, str] | None = None) -> list[dict[str, Any]]:  # fmt: skip
        """Nodes of ``role`` and ``name`` (exact), inside the first node of ``within`` (role, name) if given."""
        nodes = await self.nodes()
        if within is not None:
            nodes = find_all(nodes, *within)[:1]
        return find_all(nodes, role, name)

    async def find(self, role: str | None = None, name: str | None = None, *,
                   within: tuple[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
        found = await self.find_all(role, name, within=within)
        if not found:
            where = f" in {within[0]} {within[1]!r}" if within else ""
            raise cb.TaskError(f"no {role or 'node'} {name!r}{where} on the phone's screen")
        return found[0]

    async def shows(
        self, role: str | None = None, name: str | None = None, *, within: tuple[str, str] | None = None
    ) -> bool:
        return bool(await self.find_all(role, name, within=within))

    async def tap(self, role: str | None = None, name: str | None = None, *,
                  within: tuple[str, str] | None = None) -> None:  # fmt: skip
        await self.act(Tap(center(await self.find(role, name, within=within))))

    async def long_press(self, role: str | None = None, name: str | None = None, *,
                         within: tuple[str, str] | None = None) -> None:  # fmt: skip
        await self.act(LongPress(center(await self.find(role, name, within=within))))

    async def type(self, text: str, *, enter: bool = False) -> None:
        await self.act(TypeText(text, press_enter=enter))

    async def key(self, *keys: str) -> None:
        await self.act(KeyPress(keys))

    async def fill(self, name: str, text: str, *, within: tuple[str, str] | None = None) -> None:
        """The text field ``name`` holds ``text``: tapped, emptied, typed into."""
        await self.tap("textbox", name, within=within)
        await self.key("ctrl", "a")
        if text:
            await self.type(text)
        else:  # typing nothing leaves the selection as it was
            await self.key("backspace")

    async def button(self, button: str) -> None:
        """A system button: ``home``, ``back``, ``recent`` or ``enter``."""
        await self.act(SystemButton(button))  # type: ignore[arg-type]

    async def launch(self, label: str) -> None:
        """Home, then the launcher's icon for the app ``label`` ("Contacts")."""
        await self.button("home")
        await self.tap("button", label, within=("window", "Home"))

    async def swipe_in(self, node: dict[str, Any], *, up: bool = True) -> None:
        """A swipe over most of ``node``'s height: finger up scrolls its content down."""
        left, top, right, bottom = node["bounds"]
        x, low, high = (left + right) / 2, top + 0.8 * (bottom - top), top + 0.2 * (bottom - top)
        start, end = (Point(x, low), Point(x, high)) if up else (Point(x, high), Point(x, low))
        await self.act(Swipe(start, end))

    async def scroll_to(self, role: str, name: str, *, within: tuple[str, str], tries: int = 30) -> None:
        """Swipe ``within`` (a list) until the node shows: back to the list's top first (it keeps where it
        was left scrolled), then down."""
        for _ in range(tries):
            if await self.shows(role, name, within=within):
                return
            rows = await self.texts(role, within=within)
            await self.swipe_in(await self.find(*within), up=False)
            if await self.texts(role, within=within) == rows:
                break  # at the top
        for _ in range(tries):
            if await self.shows(role, name, within=within):
                return
            await self.swipe_in(await self.find(*within))
        raise cb.TaskError(f"no {role} {name!r} came into view in {within[0]} {within[1]!r}")

    async def open_shade(self) -> None:
        """A swipe down from the status bar."""
        bar = await self.find("statusbar")
        left, top, right, bottom = bar["bounds"]
        x = (left + right) / 2
        await self.act(Swipe(Point(x, (top + bottom) / 2), Point(x, bottom + 20 * (bottom - top))))

    async def texts(self, role: str, *, within: tuple[str, str] | None = None) -> list[str]:
        """The names of the ``role`` nodes on screen (a list's rows), in order."""
        return [node["name"] for node in await self.find_all(role, within=within)]

    async def value(self, role: str, name: str, *, within: tuple[str, str] | None = None) -> Any:
        return (await self.find(role, name, within=within))["value"]
