"""writer-heading: give one paragraph of a document open in LibreOffice Writer the paragraph style
Heading 1, and save it in its own format (``.odt`` or ``.docx``, by variant).

The document has a title (already a Heading 1), body sentences, and two short paragraphs that read
like section names; the instruction names one of them. The evaluator reads the saved document in the
format its name asks for (``_writer.scored``): that paragraph in the style Heading 1 at outline level
1, every other paragraph's text, style, level and marks as they were, no formatting by hand anywhere
(the paragraph made bold and big is not a heading), nothing added to the document, and no other file
under home changed.
The oracle finds the paragraph's text with Find and Replace's Find Next, closes the dialog, applies
Heading 1 with ctrl+1 (Writer's shortcut for the style) and saves.
Wrong ways: ``heading_2_instead`` (ctrl+2), ``the_other_section_name`` (the other short paragraph made
the heading), ``bold_by_hand`` (the paragraph made bold, its style left) and ``never_saved``.
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press
from cua_bench_tasks_desktop._office import save
from cua_bench_tasks_desktop._writer import find, open_writer, plain, scored, seed_lines

NAME = "writer-heading"
WAIVED = OUTPUT_IS_THE_WORK
SECTIONS = (
    "Next steps", "Open questions", "Background", "Action items", "Risks and issues", "Timeline", "Decisions",
    "Team notes", "Key figures", "Lessons learned", "Scope", "Follow-up",
)  # fmt: skip


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.odt', '.docx']))}"
    lines = seed_lines(rng, rng.randint(3, 5))
    first, second = rng.sample(SECTIONS, 2)
    # One section name after the title's first sentence, the other further down, each before a sentence.
    lines.insert(2, first)
    lines.insert(rng.randint(4, len(lines) - 1), second)
    target, other = rng.sample([first, second], 2)
    text = "\n".join(plain(line) for line in lines).lower()
    assert text.count(target.lower()) == 1 and text.count(other.lower()) == 1, lines
    return cb.Task(
        description=f'The document ~/{path} is open in LibreOffice Writer. Make the paragraph "{target}" a '
        "heading with the paragraph style Heading 1, then save the document in its current format.",
        metadata={"path": path, "lines": lines, "target": target, "other": other},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def expected(meta: dict[str, object]) -> list[str]:
    lines, target = meta["lines"], meta["target"]
    assert isinstance(lines, list)
    return [f"# {line}" if line == target else line for line in lines]


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_writer(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return [await scored(task, session, expected(task.metadata))]


async def _styled(session: cb.Session, path: str, text: str, combo: str, *, saved: bool = True) -> None:
    """The paragraph holding ``text`` found (Find Next), ``combo`` pressed, and saved (unless not ``saved``)."""
    await find(session, path, text)
    await press(session, combo)
    if saved:
        await save(session, path)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _styled(session, meta["path"], meta["target"], "ctrl+1")


@cb.wrong_way
async def heading_2_instead(task: cb.Task, session: cb.Session) -> None:
    """The paragraph given the style Heading 2 (ctrl+2)."""
    meta = task.metadata
    await _styled(session, meta["path"], meta["target"], "ctrl+2")


@cb.wrong_way
async def the_other_section_name(task: cb.Task, session: cb.Session) -> None:
    """The other short paragraph made a Heading 1, the one named left as it was."""
    meta = task.metadata
    await _styled(session, meta["path"], meta["other"], "ctrl+1")


@cb.wrong_way
async def bold_by_hand(task: cb.Task, session: cb.Session) -> None:
    """The paragraph's text selected and made bold (ctrl+b): it looks like a heading, its style is body text."""
    meta = task.metadata
    await _styled(session, meta["path"], meta["target"], "ctrl+b")


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The paragraph made a Heading 1, and the document never saved."""
    meta = task.metadata
    await _styled(session, meta["path"], meta["target"], "ctrl+1", saved=False)
