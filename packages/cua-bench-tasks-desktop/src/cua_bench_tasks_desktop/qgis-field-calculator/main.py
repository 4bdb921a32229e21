"""qgis-field-calculator: add a whole-number field computed from another with QGIS's field calculator
and save the layer's edits to its GeoJSON file.

The layer comes from a GeoJSON file under home (``_qgis.seed_layer``: points with a count each); the
task names the new field and the factor. The oracle picks the layer, opens its attribute table (F6),
turns on Toggle editing mode, opens the field calculator, types the field's name (Create a new field,
Whole number (integer), as the dialog starts), types ``"count" * K`` into the expression editor, OK,
waits for the new column, clicks Save edits and waits for the file to change.

The evaluator reads the layer's file with ``json`` (``_qgis.read_geojson``): a plain file with one link,
a FeatureCollection with the seed's features (by name) and points, the seed's four fields with their
values and the new field, a whole number (not text, not a decimal) equal to count × K in every feature,
and no other field; no blank lines after the JSON; and no other file under home changed (QGIS's profile
may change as QGIS changes it: ``_common.app_wrote``). Wrong ways: ``adds_instead_of_multiplies``
(count + K), ``multiplies_the_height`` (the height field's values) and ``never_saved`` (the column
added, the edits never saved). Waived: ``forged-write`` (the layer's own file, edited in place, is the
output asked for: writing it right is the work)."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._qgis import (
    FIELDS,
    WAIVERS,
    Feature,
    Layer,
    calculate_field,
    exported,
    features_problem,
    open_layers,
    open_table,
    read_geojson,
    save_edits,
    seed_layer,
)

NAME = "qgis-field-calculator"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    layer = seed_layer(rng, "Point", (4, 7))
    factor = rng.randint(2, 12)
    field = rng.choice(["total", "scaled", "weighted", "capacity", "estimate", "demand"]) + rng.choice(["", "_n"])
    return cb.Task(
        description=f"The point layer '{layer.name}' (from ~/{layer.path}) is loaded in QGIS. With the field "
        f"calculator, add a new whole-number (integer) field named '{field}' whose value for each feature is its "
        f"'count' multiplied by {factor}, and save the layer's edits to its GeoJSON file. Change nothing else.",
        metadata={"layer": layer.as_meta(), "field": field, "factor": factor},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, data: bytes | None) -> str | None:
    found = read_geojson(data)
    if isinstance(found, str):
        return found
    field, factor = meta["field"], meta["factor"]
    want = [
        Feature({**f.props, field: f.props["count"] * factor}, f.geometry) for f in Layer.of(meta["layer"]).features
    ]
    return features_problem(found, want, [*FIELDS, field])


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(task.metadata["layer"])])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    path = task.metadata["layer"]["path"]
    return await exported(task, session, path, lambda data: problem_of(task.metadata, data))


async def _calculate(meta: Meta, session: cb.Session, expression: str, *, saved: bool = True) -> None:
    layer = Layer.of(meta["layer"])
    await open_table(session, layer.name)
    await calculate_field(session, layer.name, meta["field"], expression)
    if saved:
        await save_edits(session, layer.name, layer.path)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _calculate(task.metadata, session, f'"count" * {task.metadata["factor"]}')


@cb.wrong_way
async def adds_instead_of_multiplies(task: cb.Task, session: cb.Session) -> None:
    """``"count" + K``."""
    await _calculate(task.metadata, session, f'"count" + {task.metadata["factor"]}')


@cb.wrong_way
async def multiplies_the_height(task: cb.Task, session: cb.Session) -> None:
    """``"height" * K``: the wrong source field."""
    await _calculate(task.metadata, session, f'"height" * {task.metadata["factor"]}')


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The field calculated in the table, the edits never saved."""
    await _calculate(task.metadata, session, f'"count" * {task.metadata["factor"]}', saved=False)
