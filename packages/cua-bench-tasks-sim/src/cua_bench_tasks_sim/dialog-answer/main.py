"""dialog-answer: a modal dialog asks a question; answer with the button the instruction calls for.

Easy variants name the button, medium ones say what the user wants, and hard ones need reading
the window behind the dialog first (a note saying what to do, or a code to pick).

The evaluator checks the whole end state: exactly one answer, the right button, the dialog gone and
the window behind it still open, with no other window opened; and where the instruction says to
click the button (easy), the desktop's record of a left press on it (Tab and Enter answer too, but
do not click).

Wrong ways: ``clicks_another_button`` (another of the dialog's buttons) and
``oracle_then_closes_the_window_behind``. Chance is 1/k for the dialog's k buttons.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.nodes import find_all
from cua_bench.sim import Label, Rect
from cua_bench_tasks_sim._widgets_common import (
    as_before_but,
    click_in,
    desktop,
    fresh_desktop,
    remember,
    score,
    splits,
    window_by_title,
)

FAMILY = "dialog-answer"
FILES = ["report.txt", "budget.xlsx", "notes.md", "photo.png", "plan.odt", "slides.pptx"]
APPS = ["Writer", "Mapper", "PhotoLab", "Mailbox", "Music", "Browser"]
SCENARIOS = {  # title: (question, {button: what choosing it means})
    "Save changes": ("Save changes to {file} before closing?", {"Save": "keep your edits",
                     "Don't Save": "throw your edits away", "Cancel": "go back without closing"}),
    "Delete files": ("Delete the {n} selected files?", {"Delete": "remove the files", "Keep": "keep the files"}),
    "Replace file": ("{file} already exists. Replace it?", {"Replace": "overwrite the existing file",
                     "Keep Both": "keep both copies", "Skip": "leave the existing file alone"}),
    "Location": ("Allow {app} to use your location?", {"Allow": "share your location", "Deny": "refuse the request"}),
    "Update": ("An update for {app} is ready. Install it now?", {"Install Now": "install the update right away",
               "Later": "postpone the update"}),
    "Quit": ("Quit {app}? Unsaved work will be lost.", {"Quit": "close the application",
             "Stay": "keep the application open"}),
    "Trash": ("Permanently erase the {n} items in the trash?", {"Empty Trash": "erase the items for good",
              "Cancel": "leave the trash as it is"}),
}  # fmt: skip
CODE = "Your sign-in code is "


def make(rng: random.Random, difficulty: str) -> cb.Task:
    app = rng.choice(APPS)
    kind = "code" if difficulty == "hard" and rng.random() < 0.5 else "note" if difficulty == "hard" else difficulty
    meanings: dict[str, str] = {}
    if kind == "code":
        codes = [str(c) for c in rng.sample(range(1000, 10000), rng.randint(3, 4))]
        title, question, answer = "Confirm sign-in", "Which code does the Sign-in window show?", codes[0]
        rng.shuffle(codes)
        buttons, note = codes, CODE + answer
        description = "Answer the open dialog with the code that the Sign-in window shows."
    else:
        title = rng.choice(sorted(SCENARIOS))
        template, meanings = SCENARIOS[title]
        question = template.format(file=rng.choice(FILES), app=app, n=rng.randint(2, 40))
        buttons = rng.sample(sorted(meanings), len(meanings))
        answer = rng.choice(buttons)
        note = f"Note from your team:\nwhen asked, always choose to {meanings[answer]}."
        description = {"easy": f'A dialog asks: "{question}" Click "{answer}".',
                       "medium": f"A dialog is open. Answer it so that you {meanings[answer]}.",
                       "note": "Answer the open dialog the way the note in the Notes window says."}[kind]  # fmt: skip
    meta = {"kind": kind, "title": title, "question": question, "buttons": buttons, "answer": answer, "note": note,
            "meanings": meanings, "main": "Sign-in" if kind == "code" else "Notes" if kind == "note" else app,
            "dialog_at": [round(rng.random(), 3), round(rng.random(), 3)]}  # fmt: skip
    return cb.Task(description=description, metadata=meta, max_steps=4, chance=1 / len(buttons))


train_variants, test_variants = splits(FAMILY, make)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    """The main window in the top left part of the screen, the dialog in the lower right part."""
    meta = task.metadata
    sim = fresh_desktop(session)
    main = sim.open_window(meta["main"], int(meta["at"][0] * sim.width * 0.3), int(meta["at"][1] * sim.height * 0.25),
                           440, 180, app="dialog-answer")  # fmt: skip
    main.add(Label(meta["note"] if meta["kind"] in ("code", "note") else "Draft: quarterly summary, second pass."))
    answers: list[str | None] = []
    main.data["answers"] = answers
    dialog = sim.open_dialog(meta["title"], meta["question"], tuple(meta["buttons"]), on_result=answers.append)
    fx, fy = meta["dialog_at"]
    x = sim.width // 2 + int(fx * max(0, sim.width // 2 - dialog.rect.width))
    y = int(sim.height * 0.45) + int(fy * max(0, int(sim.height * 0.55) - dialog.rect.height))
    dialog.rect = Rect(x, y, dialog.rect.width, dialog.rect.height)
    task.scratch["dialog"] = dialog.id
    remember(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    main = window_by_title(session, meta["main"])
    clicked = meta["kind"] != "easy" or bool(
        desktop(session).provenance.clicks_on(task.scratch["dialog"], meta["answer"])
    )
    return score(main is not None and main.data.get("answers") == [meta["answer"]] and clicked
                 and as_before_but(task, session, {meta["title"]: None}))  # fmt: skip


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    """Hard variants read the main window's label first, as the instruction asks."""
    meta = task.metadata
    answer = meta["answer"]
    if meta["kind"] in ("code", "note"):
        main = await session.find(role="window", name=meta["main"])
        text = next(n["name"] for n in find_all([main], role="label"))
        if meta["kind"] == "code":
            answer = text.removeprefix(CODE)
        else:
            answer = next(b for b, meaning in meta["meanings"].items() if text.endswith(f"choose to {meaning}."))
    await click_in(session, "button", answer, within=("dialog", meta["title"]))


@cb.wrong_way
async def clicks_another_button(task: cb.Task, session: cb.Session) -> None:
    """The dialog's button next to the right one."""
    buttons = task.metadata["buttons"]
    other = buttons[(buttons.index(task.metadata["answer"]) + 1) % len(buttons)]
    await click_in(session, "button", other, within=("dialog", task.metadata["title"]))


@cb.wrong_way
async def oracle_then_closes_the_window_behind(task: cb.Task, session: cb.Session) -> None:
    """The right answer, then the window behind the dialog closed with its title bar's Close button."""
    await solve(task, session)
    await click_in(session, "button", "Close", within=("window", task.metadata["main"]))
