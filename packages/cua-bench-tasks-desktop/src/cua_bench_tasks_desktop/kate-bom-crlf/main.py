"""kate-bom-crlf: save the file open in Kate with a UTF-8 byte order mark and Windows (CRLF) line endings.

The instruction names Kate's Tools > Add Byte Order Mark (BOM) and Tools > End of Line > Windows/DOS. The
oracle clicks both in Kate's menus (found in the accessibility tree) and saves with ctrl+s. Neither
changes the text, so Kate's title shows no ``*``: the oracle waits for the file's bytes to change, as a
person would look at the saved file.

The evaluator reads the file's bytes (a plain file with one link): exactly ``EF BB BF`` and the seed's
text (non-ASCII letters among it, in UTF-8) with every line ending CRLF, and no other file under home
changed but Kate's own (``_kate.KATE_WRITES``).
Wrong ways: ``crlf_without_bom`` (the line endings only) and ``bom_with_mac_endings`` (the BOM, and End
of Line > Macintosh: CR). Waived: ``forged-write`` (the file is the output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import OUTPUT_IS_THE_WORK, WORDS, act, file_name, key, loaders, sentence, wait_for
from cua_bench_tasks_desktop._kate import from_menu, open_in_kate, scored

NAME = "kate-bom-crlf"
WAIVED = OUTPUT_IS_THE_WORK
BOM = b"\xef\xbb\xbf"
ACCENTED = ("café", "naïve", "über", "señor", "crème", "déjà vu", "façade", "smörgåsbord")


def build(rng: random.Random) -> cb.Task:
    path = f"{rng.choice(WORDS)}/{file_name(rng, rng.choice(['.txt', '.csv', '.ini']))}"
    lines = [
        f"{sentence(rng)} {rng.choice(ACCENTED)}" if rng.random() < 0.5 else sentence(rng)
        for _ in range(rng.randint(3, 7))
    ]
    return cb.Task(
        description=f"The file ~/{path} is open in Kate. Save it (under the same name) as UTF-8 with a byte order "
        "mark and with Windows (CRLF) line endings, using Kate's Tools > Add Byte Order Mark (BOM) and "
        "Tools > End of Line > Windows/DOS.",
        metadata={"path": path, "text": "\n".join(lines) + "\n"},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def encoded(meta: Meta, *, bom: bool = True, ending: str = "\r\n") -> bytes:
    return (BOM if bom else b"") + str(meta["text"]).replace("\n", ending).encode()


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await open_in_kate(task, session, {meta["path"]: meta["text"]}, meta["path"])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, task.metadata["path"], [encoded(task.metadata)])


async def _save_as(session: cb.Session, meta: Meta, *, bom: bool, ending: str) -> None:
    if bom:
        await from_menu(session, "Tools", "Add Byte Order Mark (BOM)")
    await from_menu(session, "Tools", "End of Line", ending)
    await act(session, key("ctrl+s"))

    async def written() -> bool:
        return (await session.read_bytes(meta["path"])) != str(meta["text"]).encode()

    await wait_for(written, "the file to be saved")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _save_as(session, task.metadata, bom=True, ending="Windows/DOS")


@cb.wrong_way
async def crlf_without_bom(task: cb.Task, session: cb.Session) -> None:
    """End of Line > Windows/DOS only: no byte order mark."""
    await _save_as(session, task.metadata, bom=False, ending="Windows/DOS")


@cb.wrong_way
async def bom_with_mac_endings(task: cb.Task, session: cb.Session) -> None:
    """The byte order mark, with End of Line > Macintosh (CR only)."""
    await _save_as(session, task.metadata, bom=True, ending="Macintosh")
