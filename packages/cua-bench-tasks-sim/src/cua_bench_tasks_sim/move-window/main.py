"""move-window: drag a window by its title bar into a named quarter of the screen or into a
highlighted area (a large window standing for a zone), without moving that area.

Easy: a lone window to a corner. Medium: a corner or a roomy area, with one other window. Hard:
a tight area, and other windows that may overlap the one to move.

The evaluator checks that the window lies inside the region (above the zone window), and, by
window id against what setup kept, that every other window is still open and exactly where it
was (the zone too). "By its title bar" holds by construction: the sim moves a window only by
its title bar. Chance 0 (a drag to anywhere).

Wrong ways: ``drop_half_outside`` (centred on an inner edge of the region, half of it outside)
and ``oracle_then_one_more_drag`` (another window dragged aside; with no other window in reach, the
target dragged half out again).
"""

from __future__ import annotations

import random
from typing import Any

import cua_bench as cb
from cua_bench.sim import TITLE_HEIGHT, Rect
from cua_bench_tasks_sim._desktop_common import (
    NOUNS,
    Screen,
    desktop,
    fresh,
    keep,
    kept,
    line,
    loaders,
    snapshot_windows,
    window,
    window_changes,
)
from cua_core import Point

FAMILY = "move-window"
CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
ZONES = ("Parking area", "Drop zone", "Staging area", "Dock", "Workspace B", "Holding pen")
OTHERS = {"easy": 0, "medium": 1, "hard": 3}
TITLES = ("Sticky note", "Timer", "Clipboard", "To do", "Music", "Clock", "Memo", "Scratchpad")


def build(rng: random.Random, difficulty: str) -> cb.Task:
    target = f"{rng.choice(TITLES)} {rng.randint(2, 99)}"
    zone = None if difficulty == "easy" or (difficulty == "medium" and rng.random() < 0.5) else rng.choice(ZONES)
    corner = None if zone else rng.choice(CORNERS)
    others = [f"{rng.choice(NOUNS).capitalize()} {rng.randint(2, 99)}" for _ in range(OTHERS[difficulty])]
    size = (rng.randint(220, 320), rng.randint(130, 190))
    slack = rng.randint(50, 90) if difficulty == "hard" else rng.randint(120, 220)
    if zone:
        goal = f"lies entirely inside the '{zone}' window, on top of it. Do not move the '{zone}' window"
    else:
        goal = f"lies entirely inside the {corner} quarter of the screen"
    description = f"Drag the '{target}' window by its title bar so that the whole window {goal}."
    if others:
        description += " Leave the other windows where they are."
    metadata = {"target": target, "zone": zone, "corner": corner, "others": others, "size": size, "slack": slack,
                "note": line(rng), "seed": rng.randrange(2**32)}  # fmt: skip
    return cb.Task(description=description, metadata=metadata, difficulty=difficulty, max_steps=6, chance=0.0)


load_train, load_test = loaders(FAMILY, build)


def region(session: cb.Session, meta: dict[str, object]) -> Rect:
    """Where the window must end up, in pixels: the zone window's place or a quarter of the screen."""
    sim = desktop(session)
    if meta["zone"]:
        zone = window(sim, str(meta["zone"]))
        return zone.data["home"] if zone is not None else Rect()
    area, corner = sim.work_area, str(meta["corner"])
    half_w, half_h = area.width // 2, area.height // 2
    return Rect(half_w if "right" in corner else 0, half_h if "bottom" in corner else 0, half_w, half_h)


def inside(rect: Rect, outer: Rect) -> bool:
    return outer.x <= rect.x and outer.y <= rect.y and rect.right <= outer.right and rect.bottom <= outer.bottom


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    sim = fresh(session)
    meta = task.metadata
    rng = random.Random(meta["seed"])
    area = sim.work_area
    (w, h), label = meta["size"], [{"type": "label", "text": meta["note"]}]
    if meta["zone"]:
        zw, zh = w + meta["slack"], h + meta["slack"]
        spot = Rect(rng.randint(0, area.width - zw), rng.randint(0, area.height - zh), zw, zh)
        zone = sim.get_window(
            await session.launch(
                "form",
                title=meta["zone"],
                width=zw,
                height=zh,
                x=spot.x,
                y=spot.y,
                widgets=[{"type": "label", "text": "Drop here"}],
            )
        )
        zone.data["home"] = spot
    goal = region(session, meta)
    while True:
        rect = Rect(rng.randint(0, area.width - w), rng.randint(0, area.height - h), w, h)
        if rect.intersect(goal) is None or (not inside(rect, goal) and rng.random() < 0.2):
            break
    moved = await session.launch("form", title=meta["target"], widgets=label, width=w, height=h, x=rect.x, y=rect.y)
    for title in meta["others"]:
        ow, oh = rng.randint(260, 420), rng.randint(120, 260)
        while True:  # anywhere, but leaving the title bar to grab in sight
            x, y = rng.randint(0, area.width - ow), rng.randint(0, area.height - oh)
            if Rect(x, y, ow, oh).intersect(Rect(rect.x, rect.y, w, TITLE_HEIGHT)) is None:
                break
        await session.launch("form", title=title, widgets=label, width=ow, height=oh, x=x, y=y)
    keep(task, sim)
    task.scratch["target"] = moved


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    sim, meta = desktop(session), task.metadata
    target = window(sim, meta["target"])
    zone = window(sim, meta["zone"]) if meta["zone"] else None
    titles = {meta["target"], *meta["others"], *([meta["zone"]] if meta["zone"] else [])}
    if target is None or {w.title for w in sim.windows()} != titles or not inside(target.rect, region(session, meta)):
        return [0.0]
    if zone is not None and (zone.rect != zone.data["home"] or sim.windows().index(zone) < sim.windows().index(target)):
        return [0.0]
    others = window_changes(kept(task, "windows"), snapshot_windows(sim), expect=[kept(task, "target")], moved=False)
    return [0.0 if others else 1.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    screen = Screen(session)
    goal = await _goal(screen, task.metadata)
    await _drag_centre_to(screen, task.metadata["target"], (goal[0] + goal[2]) / 2, (goal[1] + goal[3]) / 2)


async def _goal(screen: Screen, meta: dict[str, Any]) -> list[float]:
    """The region, in action coordinates, as an agent reads it off the screen."""
    if meta["zone"]:
        return list((await screen.window(meta["zone"]))["bounds"])
    right, bottom = "right" in meta["corner"], "bottom" in meta["corner"]
    return [500.0 if right else 0.0, 500.0 if bottom else 0.0, 1000.0 if right else 500.0, 1000 if bottom else 500]


async def _drag_centre_to(screen: Screen, title: str, x: float, y: float) -> None:
    """Drag window ``title`` by its title bar so that its centre lands on (``x``, ``y``)."""
    win = await screen.front(await screen.window(title))
    left, top, right_edge, bottom_edge = win["bounds"]
    close = await screen.find(win, "button", "Close")
    grab = Point((left + close["bounds"][0]) / 2, (close["bounds"][1] + close["bounds"][3]) / 2)
    new_left, new_top = x - (right_edge - left) / 2, y - (bottom_edge - top) / 2
    await screen.drag(grab, Point(grab.x + new_left - left, grab.y + new_top - top))


async def _half_outside(screen: Screen, meta: dict[str, Any]) -> None:
    """The target centred on the region's vertical edge farther from the screen's border."""
    goal = await _goal(screen, meta)
    edge = goal[0] if goal[0] > 1000 - goal[2] else goal[2]
    await _drag_centre_to(screen, meta["target"], edge, (goal[1] + goal[3]) / 2)


@cb.wrong_way
async def drop_half_outside(task: cb.Task, session: cb.Session) -> None:
    await _half_outside(Screen(session), task.metadata)


@cb.wrong_way
async def oracle_then_one_more_drag(task: cb.Task, session: cb.Session) -> None:
    await solve(task, session)
    screen = Screen(session)
    for title in [*task.metadata["others"], *([task.metadata["zone"]] if task.metadata["zone"] else [])]:
        left, top, right_edge, bottom_edge = (await screen.window(title))["bounds"]
        x, y = (left + right_edge) / 2, (top + bottom_edge) / 2
        try:  # the first other window an agent can grab (the moved one may now cover some)
            await _drag_centre_to(screen, title, x + (-120 if x > 500 else 120), y + (-80 if y > 500 else 80))
            return
        except LookupError:
            continue
    await _half_outside(screen, task.metadata)
