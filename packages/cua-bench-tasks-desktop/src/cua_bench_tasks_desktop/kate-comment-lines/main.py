"""kate-comment-lines: comment out a range of lines of a Python file in Kate with its own comment syntax, and save.

The instruction names the lines (by number) and Kate's Selection > Toggle Comment, which puts the
file's own line comment marker (Python's ``#``, from the file's highlighting) before each selected
line. The oracle selects the lines with the keyboard, clicks Selection > Toggle Comment in the menu
bar (found in the accessibility tree), and saves with ctrl+s.

The evaluator reads the file's bytes (a plain file with one link, strict UTF-8): every line outside the
range exactly as it was, and each line of the range commented, ``# `` inserted somewhere in its leading
indentation (Kate puts it at the range's smallest indentation) with the rest of the line unchanged;
no other file under home changed but Kate's own (``_kate.KATE_WRITES``).
Wrong ways: ``comments_the_whole_file`` (ctrl+a first) and ``c_style_comments`` (``// `` typed before
each line, as in C). Waived: ``forged-write`` (the file is the output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import NOUNS, OUTPUT_IS_THE_WORK, VERBS, WORDS, act, key, loaders
from cua_bench_tasks_desktop._kate import from_menu, open_in_kate, save, saved, select_lines, strict_text
from cua_core import TypeText

NAME = "kate-comment-lines"
WAIVED = OUTPUT_IS_THE_WORK


def _function(rng: random.Random) -> list[str]:
    name, arg = f"{rng.choice(VERBS).rstrip('s')}_{rng.choice(NOUNS)}", rng.choice(NOUNS)
    body = [f"    {arg} = {arg} {rng.choice('+-*')} {rng.randint(2, 99)}" for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.5:
        body += [f"    if {arg} > {rng.randint(100, 999)}:", f"        {arg} = {rng.randint(0, 9)}"]
    return [f"def {name}({arg}):", *body, f"    return {arg}", ""]


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{rng.choice(WORDS)}_{rng.choice(NOUNS)}.py"
    lines = ["import math", ""]
    for _ in range(rng.randint(2, 3)):
        lines += _function(rng)
    lines.append(f"print({rng.choice(NOUNS)!r})")
    code = [n for n, line in enumerate(lines) if line.strip()]
    first = rng.choice(code[1:-2])
    last = first
    while last + 1 < len(lines) - 1 and lines[last + 1].strip() and last - first < rng.randint(0, 3):
        last += 1
    return cb.Task(
        description=f"The Python file ~/{path} is open in Kate. Comment out lines {first + 1} to {last + 1} with "
        "Kate's Selection > Toggle Comment (Python's # comments), leaving the other lines as they are, then "
        "save the file."
        if first != last
        else f"The Python file ~/{path} is open in Kate. Comment out line {first + 1} with Kate's Selection > "
        "Toggle Comment (Python's # comments), leaving the other lines as they are, then save the file.",
        metadata={"path": path, "text": "\n".join(lines) + "\n", "first": first, "last": last},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def commented(line: str, original: str) -> bool:
    """``original`` with ``# `` put somewhere in its leading indentation."""
    indent = len(original) - len(original.lstrip(" "))
    return any(line == original[:at] + "# " + original[at:] for at in range(indent + 1))


def problem(data: bytes | None, meta: Meta) -> str | None:
    """Why the saved file is not the seed with the range commented out (None: it is)."""
    text = strict_text(data)
    if text is None:
        return "no UTF-8 text file there (or not a plain file with one link)"
    got, want = text.split("\n"), meta["text"].split("\n")
    if len(got) != len(want):
        return f"{len(got)} lines, not {len(want)}"
    for number, (line, original) in enumerate(zip(got, want, strict=True)):
        inside = meta["first"] <= number <= meta["last"]
        if (inside and not commented(line, original)) or (not inside and line != original):
            return f"line {number + 1} is {line!r}, from {original!r}"
    return None


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_kate(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    data, untouched = await saved(task, session, task.metadata["path"])
    wrong = problem(data, task.metadata)
    if wrong:
        task.explain(f"{task.metadata['path']}: {wrong}")
    return [1.0 if wrong is None and untouched else 0.0]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await act(session, *select_lines(meta["first"], meta["last"]))
    await from_menu(session, "Selection", "Toggle Comment")
    await save(session, meta["path"])


@cb.wrong_way
async def comments_the_whole_file(task: cb.Task, session: cb.Session) -> None:
    """Every line selected (ctrl+a) and commented, and saved."""
    await act(session, key("ctrl+a"))
    await from_menu(session, "Selection", "Toggle Comment")
    await save(session, task.metadata["path"])


@cb.wrong_way
async def c_style_comments(task: cb.Task, session: cb.Session) -> None:
    """``// `` typed at the start of each line of the range, as in C, and saved."""
    meta = task.metadata
    steps = [
        step
        for _ in range(meta["last"] - meta["first"] + 1)
        for step in (key("home"), key("home"), TypeText("// "), key("down"))
    ]
    await act(session, key("ctrl+home"), *[key("down")] * meta["first"], *steps)
    await save(session, meta["path"])
