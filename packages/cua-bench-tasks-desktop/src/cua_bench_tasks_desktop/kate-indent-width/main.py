"""kate-indent-width: set Kate's default indentation width in its settings; read from katerc and from the live app.

The instruction asks for an indentation width of N spaces in Settings > Configure Kate… > Editing >
Indentation. The oracle opens the configuration (Kate 22.12 shows it as a tab), clicks Editing and the
Indentation tab (found in the accessibility tree), focuses "Indentation width" by its mnemonic (alt+w),
types N, clicks Save and Close, and waits for the status bar to show ``Soft Tabs: N``.

The evaluator parses ``~/.config/katerc`` with ``configparser`` (KConfig's INI): in its
``[KTextEditor Document]`` group ``Indentation Width`` is N and every other key is as Kate wrote it at
setup (read then, kept in the task's scratch), so tab width, spaces or tabs and the rest are untouched;
and asks the live app too: Kate's status bar for the open document must show ``Soft Tabs: N`` (an edit
of katerc from a shell never reaches the running Kate, and the status bar's own menu changes only the
open document, never katerc). No other file under home may change but Kate's own (``KATE_WRITES``).
Wrong ways: ``sets_the_tab_width`` (Tab width: N instead) and ``switches_to_tabs_too`` (the width, and
"Tabulators" ticked). Waived: ``trailing-blank-lines`` (katerc is judged as settings, as KConfig reads
it: blank lines mean nothing there).
"""

from __future__ import annotations

import configparser
import random

import cua_bench as cb
from cua_bench.nodes import walk
from cua_bench_tasks_desktop._common import (
    WORDS,
    act,
    app_wrote,
    file_name,
    files_since_setup,
    key,
    loaders,
    nothing_else_changed,
    read_text,
    sentence,
    wait_for,
)
from cua_bench_tasks_desktop._kate import KATE_WRITES, KATERC, click_item, from_menu, open_in_kate
from cua_core import TypeText, Wait

NAME = "kate-indent-width"
GROUP = "KTextEditor Document"
WAIVED = {
    "trailing-blank-lines": "katerc is judged as settings, as KConfig reads it (blank lines mean nothing in an INI "
    "file), not as text",
}


def build(rng: random.Random) -> cb.Task:
    width = rng.choice([2, 3, 5, 6, 8])
    path = f"{rng.choice(WORDS)}/{file_name(rng)}"
    return cb.Task(
        description=f"In Kate, set the default indentation width to {width} spaces (Settings > Configure Kate… > "
        "Editing > Indentation, Indentation width), and save the settings. Change no other setting.",
        metadata={"width": width, "path": path, "text": "\n".join(sentence(rng) for _ in range(3)) + "\n"},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def group(text: str | None) -> dict[str, str] | None:
    """The ``[KTextEditor Document]`` keys of katerc's text (None: no katerc, or not one KConfig reads)."""
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return dict(parser.items(GROUP)) if parser.has_section(GROUP) else None


async def status_bar(session: cb.Session) -> list[str]:
    """The names of the status bar's indentation button(s): ``Soft Tabs: 4``."""
    return [
        str(n.get("name"))
        for n in walk(await session.accessibility_tree())
        if str(n.get("name") or "").startswith(("Soft Tabs:", "Tab Size:", "Indent/Tab:"))
        and "showing" in (n.get("states") or [])
    ]


def shown_as(width: int) -> str:
    """Kate's status bar for a document indented with ``width`` spaces and the default tab width 4."""
    return f"Soft Tabs: {width} (4)"


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_kate(task, session, {meta["path"]: meta["text"]})
    task.scratch["katerc"] = await read_text(session, KATERC)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    width = str(task.metadata["width"])
    seeded = group(task.scratch.get("katerc"))
    if seeded is None:
        raise cb.TaskError("setup kept no katerc to compare with")
    now = group(await read_text(session, KATERC))
    wanted = {**seeded, "Indentation Width": width}
    shown, asked = await status_bar(session), shown_as(task.metadata["width"])
    if now != wanted:
        changed = sorted(k for k in {*wanted, *(now or {})} if (now or {}).get(k) != wanted.get(k))
        task.explain(f"katerc's [{GROUP}] differs from what was asked in {changed}")
    if shown != [asked]:
        task.explain(f"Kate's status bar shows {shown}, not {asked}")
    before, after = await files_since_setup(task, session)
    others = [p for p in KATE_WRITES if p != KATERC]
    untouched = nothing_else_changed(task, before, after, expect=[KATERC, *others]) and app_wrote(
        task, before, after, KATE_WRITES, "Kate"
    )
    return [1.0 if now == wanted and shown == [asked] and untouched else 0.0]


async def _configure(session: cb.Session, field: str, width: int, *, tabs: bool = False) -> None:
    await from_menu(session, "Settings", "Configure Kate...")
    await click_item(session, "Editing", "list item")
    await click_item(session, "Indentation", "page tab")
    await act(session, Wait(0.5), key(field), key("ctrl+a"), TypeText(str(width)), Wait(0.3))
    if tabs:
        await click_item(session, "Tabulators", "radio button")
    await click_item(session, "Save", "push button")
    await act(session, Wait(0.5))
    await click_item(session, "Close", "push button")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    width = task.metadata["width"]
    await _configure(session, "alt+w", width)

    async def shown() -> bool:
        return await status_bar(session) == [shown_as(width)]

    await wait_for(shown, "Kate's status bar to show the new width")


@cb.wrong_way
async def sets_the_tab_width(task: cb.Task, session: cb.Session) -> None:
    """Tab width (alt+d) set to N instead of the indentation width, saved."""
    await _configure(session, "alt+d", task.metadata["width"])
    await act(session, Wait(1.0))


@cb.wrong_way
async def switches_to_tabs_too(task: cb.Task, session: cb.Session) -> None:
    """The indentation width set, and "Tabulators" ticked as well, saved."""
    await _configure(session, "alt+w", task.metadata["width"], tabs=True)
    await act(session, Wait(1.0))
