"""writer-save-as: save a copy of the document open in LibreOffice Writer in the other format, under a
given name: an ``.odt`` as Word's ``.docx``, or a ``.docx`` as OpenDocument's ``.odt`` (by variant),
leaving the original as it was.

The evaluator reads the new file in the format its name asks for, by content (``_writer.scored``: an
``.odt`` under the ``.docx`` name is no ``.docx``): the same paragraphs as the original, each with its
text, style, level and marks (the title a Heading 1, the word in italics), nothing added, and no other
file under home changed (the original untouched, no stray copy).
The oracle uses File > Save As (ctrl+shift+s), types ``~/NAME`` and Enter (Writer picks the format from
the extension), and keeps the Word format when Writer asks.
Wrong ways: ``saved_in_the_home_folder`` (the right name, in ~ instead of the document's folder),
``edited_before_saving_as`` (a word added to the text first), ``saved_the_original_too`` (the original
saved again with ctrl+s before Save As) and ``saved_in_a_neighbouring_format`` (Word 97's ``.doc``
for ``.docx``, Flat XML's ``.fodt`` for ``.odt``).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, file_name, loaders, press, type_text
from cua_bench_tasks_desktop._office import save, save_as
from cua_bench_tasks_desktop._writer import open_writer, scored, seed_lines

NAME = "writer-save-as"
WAIVED = OUTPUT_IS_THE_WORK
FORMATS = {".odt": "OpenDocument Text (.odt)", ".docx": "Word (.docx)"}


def build(rng: random.Random) -> cb.Task:
    ext, new_ext = rng.choice([(".odt", ".docx"), (".docx", ".odt")])
    folder = rng.choice(WORDS)
    name = file_name(rng, ext)
    stem = name.removesuffix(ext) if rng.random() < 0.5 else file_name(rng, "")
    path, copy = f"{folder}/{name}", f"{folder}/{stem}{new_ext}"
    return cb.Task(
        description=f"The document ~/{path} is open in LibreOffice Writer. Save a copy of it in "
        f"{FORMATS[new_ext]} format as ~/{copy}, leaving the original file as it is.",
        metadata={"path": path, "copy": copy, "lines": seed_lines(rng, rng.randint(2, 5))},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_writer(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return [await scored(task, session, meta["lines"], meta["copy"])]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await save_as(session, task.metadata["copy"], "writer")


@cb.wrong_way
async def saved_in_the_home_folder(task: cb.Task, session: cb.Session) -> None:
    """Save As under the right name, but in the home folder instead of the document's own."""
    await save_as(session, task.metadata["copy"].rsplit("/", 1)[-1], "writer")


@cb.wrong_way
async def edited_before_saving_as(task: cb.Task, session: cb.Session) -> None:
    """A word typed at the end of the text (ctrl+end), then Save As: the copy is not the original's content."""
    await press(session, "ctrl+end")
    await type_text(session, " draft")
    await save_as(session, task.metadata["copy"], "writer")


@cb.wrong_way
async def saved_the_original_too(task: cb.Task, session: cb.Session) -> None:
    """A letter typed and deleted, the original saved over (ctrl+s), then Save As: the copy is right,
    the original is not the file it was."""
    meta = task.metadata
    await press(session, "ctrl+end")
    await type_text(session, "x")
    await press(session, "backspace")
    await save(session, meta["path"])
    await save_as(session, meta["copy"], "writer")


@cb.wrong_way
async def saved_in_a_neighbouring_format(task: cb.Task, session: cb.Session) -> None:
    """Save As in the format next to the one asked for in the list: Word 97-2003 (``NAME.doc``) for
    ``NAME.docx``, Flat XML ODF (``NAME.fodt``) for ``NAME.odt``."""
    stem, ext = task.metadata["copy"].rsplit(".", 1)
    await save_as(session, f"{stem}.{'doc' if ext == 'docx' else 'fodt'}", "writer")
