"""qgis-export-csv-fields: save a point layer loaded in QGIS as a CSV file with only some of its fields.

The layer comes from a GeoJSON file under home (``_qgis.seed_layer``: points, each with a name, a kind,
a count and a height). The oracle picks the layer in the Layers panel, opens Layer > Save As…, picks
Comma Separated Value [CSV] in the Format list, types the file's absolute path, opens the dialog's
"Select fields to export" group and unticks the fields not asked for (each checked in the
accessibility tree), clicks OK and waits for the file.

The evaluator reads the file with ``csv`` (``_qgis.read_csv``): a plain file with one link, UTF-8 text
whose header is exactly the asked fields in the layer's order (no geometry columns, no others) and one
row a feature, in the layer's order, each value the seed's (numbers compared as numbers), with no blank
lines after; and no other file under home changed (the seed among them; QGIS's profile, and the ``.qmd``
metadata file QGIS writes beside the export, may change). Wrong ways: ``keeps_every_field``,
``drops_the_wrong_field`` (a kept field unticked instead of a dropped one) and ``saves_as_geojson``
(GeoJSON under the asked name). Waived: ``forged-write`` (the file is the output asked for: writing it
right is the work).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._qgis import (
    FIELDS,
    WAIVERS,
    Layer,
    exported,
    open_layers,
    read_csv,
    save_layer_as,
    seed_layer,
)

NAME = "qgis-export-csv-fields"
WAIVED = WAIVERS
CSV = "Comma Separated Value [CSV]"


def build(rng: random.Random) -> cb.Task:
    layer = seed_layer(rng, "Point")
    keep = sorted(rng.sample(range(len(FIELDS)), rng.choice([2, 2, 3])))
    fields = [FIELDS[i] for i in keep]
    out = f"{layer.folder}/{layer.name}_{rng.choice(['table', 'attributes', 'list', 'export'])}.csv"
    return cb.Task(
        description=f"The point layer '{layer.name}' (from ~/{layer.path}) is loaded in QGIS. Save its features "
        f"as a CSV file ~/{out} (QGIS's Comma Separated Value format) holding only the fields "
        f"{', '.join(repr(f) for f in fields)}: no other fields and no geometry columns. Leave the GeoJSON file "
        "as it is.",
        metadata={"layer": layer.as_meta(), "out": out, "fields": fields},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def _same(text: str, value: object) -> bool:
    if isinstance(value, float):
        try:
            return abs(float(text) - value) < 1e-9
        except ValueError:
            return False
    return text == str(value)


def problem_of(meta: Meta, data: bytes | None) -> str | None:
    found = read_csv(data)
    if isinstance(found, str):
        return found
    header, rows = found
    if header != meta["fields"]:
        return f"the columns {header}, not {meta['fields']}"
    features = Layer.of(meta["layer"]).features
    if len(rows) != len(features):
        return f"{len(rows)} rows, not {len(features)}"
    for row, feature in zip(rows, features, strict=True):
        for field, text in zip(header, row, strict=True):
            if not _same(text, feature.props[field]):
                return f"{field} of {feature.props['name']!r} is {text!r}, not {feature.props[field]!r}"
    return None


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(task.metadata["layer"])])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await exported(task, session, task.metadata["out"], lambda data: problem_of(task.metadata, data))


async def _save(meta: Meta, session: cb.Session, drop: tuple[str, ...], fmt: str = CSV) -> None:
    await save_layer_as(session, Layer.of(meta["layer"]).name, fmt, meta["out"], drop=drop)


def _dropped(meta: Meta) -> tuple[str, ...]:
    return tuple(f for f in FIELDS if f not in meta["fields"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _save(task.metadata, session, _dropped(task.metadata))


@cb.wrong_way
async def keeps_every_field(task: cb.Task, session: cb.Session) -> None:
    """Saved as CSV with every field ticked."""
    await _save(task.metadata, session, ())


@cb.wrong_way
async def drops_the_wrong_field(task: cb.Task, session: cb.Session) -> None:
    """One asked field unticked in place of one of the others."""
    meta = task.metadata
    dropped = _dropped(meta)
    await _save(meta, session, (*dropped[1:], meta["fields"][-1]))


@cb.wrong_way
async def saves_as_geojson(task: cb.Task, session: cb.Session) -> None:
    """GeoJSON chosen in the Format list (the asked fields only), under the asked name."""
    await _save(task.metadata, session, _dropped(task.metadata), "GeoJSON")
