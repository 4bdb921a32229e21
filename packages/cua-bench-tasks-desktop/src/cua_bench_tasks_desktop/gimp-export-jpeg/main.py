"""gimp-export-jpeg: export the PNG open in GIMP as a JPEG of a given quality.

The oracle opens File > Export As (shift+ctrl+e), saves under the ``.jpg`` name (GIMP picks the
format by the name), sets the JPEG dialog's Quality field to the asked number (checked in the
accessibility tree), clicks Export and waits for the file.

The evaluator reads the export with Pillow (``_gimp.exported``): a plain file with one link, a real
JPEG (by content), RGB, the seed's size and pixels within JPEG's loss (``_gimp.close_to``), and
its quantization tables exactly those libjpeg makes for the asked quality (``_gimp.jpeg_tables``: GIMP
and Pillow both scale the standard tables with ``jpeg_set_quality``), which tells every quality
from every other; and no other file under home changed (the seed among them; GIMP's
profile and GTK 2's file chooser settings may change: ``_gimp.scored``).
Wrong ways: ``keeps_the_default_quality`` (GIMP's 90), ``quality_one_off`` (the asked number plus
one) and ``exports_a_png`` (a PNG under a ``.png`` name beside: no JPEG).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._gimp import (
    PNG_DIALOG,
    WAIVERS,
    Read,
    as_picture,
    close_to,
    draw,
    export_as,
    jpeg_tables,
    rgb,
    scored,
    seed,
    set_spin,
    setup_edit,
)

NAME = "gimp-export-jpeg"
WAIVED = WAIVERS
JPEG_DIALOG = "Export Image as JPEG"
DEFAULT_QUALITY = 90


def build(rng: random.Random) -> cb.Task:
    meta = seed(rng, rng.choice(["", "_web", "-small", "_q"]), ".jpg")
    quality = rng.choice([q for q in range(40, 98) if q != DEFAULT_QUALITY and q + 1 != DEFAULT_QUALITY])
    return cb.Task(
        description=f"The image ~/{meta['path']} is open in GIMP. Export it as a JPEG file ~/{meta['out']} "
        f"with quality {quality}. Leave the original file as it is.",
        metadata={**meta, "quality": quality},
        max_steps=15,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, found: Read) -> str | None:
    pixels = rgb(found)
    if isinstance(pixels, str):
        return pixels
    if found.quantization != jpeg_tables(meta["quality"]):
        guess = next((q for q in range(1, 101) if found.quantization == jpeg_tables(q)), None)
        return f"saved with quality {guess}, not {meta['quality']}" if guess else "not libjpeg's tables of any quality"
    return close_to(pixels, draw(as_picture(meta["picture"])), mean=6.0, far=60, share=0.03)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await setup_edit(task, session)


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await scored(task, session, "JPEG", lambda found: problem_of(task.metadata, found))


async def _export(session: cb.Session, meta: Meta, quality: int | None) -> None:
    async def set_quality(session: cb.Session) -> None:
        if quality is not None:
            await set_spin(session, JPEG_DIALOG, 0, quality)

    await export_as(session, meta["out"], JPEG_DIALOG, set_quality)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _export(session, task.metadata, task.metadata["quality"])


@cb.wrong_way
async def keeps_the_default_quality(task: cb.Task, session: cb.Session) -> None:
    """Exported as JPEG at the dialog's own quality (90)."""
    await _export(session, task.metadata, None)


@cb.wrong_way
async def quality_one_off(task: cb.Task, session: cb.Session) -> None:
    """Exported as JPEG at the asked quality plus one."""
    await _export(session, task.metadata, task.metadata["quality"] + 1)


@cb.wrong_way
async def exports_a_png(task: cb.Task, session: cb.Session) -> None:
    """Exported as a PNG (the ``.png`` name beside the asked one): no JPEG where asked."""
    meta = task.metadata
    await export_as(session, meta["out"].removesuffix(".jpg") + "-export.png", PNG_DIALOG)
