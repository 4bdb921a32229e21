"""qgis-edit-attribute: change one attribute value of one feature in QGIS's attribute table and save
the layer's edits to its GeoJSON file.

The layer comes from a GeoJSON file under home (``_qgis.seed_layer``: points, each named); the task
names the feature, the field (``kind``, text, or ``count``, a whole number) and the new value. The
oracle picks the layer, opens its attribute table (F6), turns on Toggle editing mode, double-clicks
the cell in the feature's row and the field's column, types the value and Enter (read back from the
accessibility tree), clicks Save edits and waits for the file to change.

The evaluator reads the layer's file with ``json`` (``_qgis.read_geojson``): a plain file with one link,
a FeatureCollection with the seed's features (by name), their four fields and points, and every value
the seed's but the one asked, which is the new value (a number for ``count``, not its text); no blank
lines after the JSON; and no other file under home changed (QGIS's profile may change as QGIS changes
it: ``_common.app_wrote``). Wrong ways: ``edits_the_neighbour`` (the next feature's cell),
``never_saved`` (edited in the table, edits never saved) and ``edits_another_field``. Waived:
``forged-write`` (the layer's own file, edited in place, is the output asked for: writing it right is
the work)."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._qgis import (
    FIELDS,
    KINDS,
    WAIVERS,
    Feature,
    Layer,
    edit_cell,
    exported,
    features_problem,
    open_layers,
    open_table,
    read_geojson,
    save_edits,
    seed_layer,
)

NAME = "qgis-edit-attribute"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    layer = seed_layer(rng, "Point", (4, 7))
    index = rng.randrange(len(layer.features))
    feature = layer.features[index]
    field = rng.choice(["kind", "count"])
    if field == "kind":
        value: object = rng.choice([k for k in KINDS if k != feature.props["kind"]])
    else:
        value = rng.choice([c for c in range(1, 999) if c not in {f.props["count"] for f in layer.features}])
    return cb.Task(
        description=f"The point layer '{layer.name}' (from ~/{layer.path}) is loaded in QGIS. In its attribute "
        f"table, set the '{field}' of the feature named '{feature.props['name']}' to {value!r}"
        f"{' (a whole number)' if field == 'count' else ''}, and save the layer's edits to its GeoJSON file. "
        "Change nothing else.",
        metadata={"layer": layer.as_meta(), "index": index, "field": field, "value": value},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, data: bytes | None) -> str | None:
    found = read_geojson(data)
    if isinstance(found, str):
        return found
    features = list(Layer.of(meta["layer"]).features)
    edited = features[meta["index"]]
    features[meta["index"]] = Feature({**edited.props, meta["field"]: meta["value"]}, edited.geometry)
    return features_problem(found, features, list(FIELDS))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(task.metadata["layer"])])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    path = task.metadata["layer"]["path"]
    return await exported(task, session, path, lambda data: problem_of(task.metadata, data))


async def _edit(meta: Meta, session: cb.Session, *, index: int | None = None, field: str | None = None,
                saved: bool = True) -> None:  # fmt: skip
    layer = Layer.of(meta["layer"])
    feature = layer.features[meta["index"] if index is None else index]
    field = field or meta["field"]
    other = next(k for k in KINDS if k != feature.props["kind"]) if field == "kind" else "1234"
    value = str(meta["value"]) if field == meta["field"] else other
    await open_table(session, layer.name)
    await edit_cell(session, layer.name, str(feature.props["name"]), field, value)
    if saved:
        await save_edits(session, layer.name, layer.path)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _edit(task.metadata, session)


@cb.wrong_way
async def edits_the_neighbour(task: cb.Task, session: cb.Session) -> None:
    """The value typed into the cell of the next feature whose value differs from it."""
    meta = task.metadata
    features = meta["layer"]["features"]
    order = [(meta["index"] + step) % len(features) for step in range(1, len(features))]
    index = next((i for i in order if features[i]["properties"][meta["field"]] != meta["value"]), order[0])
    await _edit(meta, session, index=index)


@cb.wrong_way
async def never_saved(task: cb.Task, session: cb.Session) -> None:
    """The cell edited in the table, the edits never saved."""
    await _edit(task.metadata, session, saved=False)


@cb.wrong_way
async def edits_another_field(task: cb.Task, session: cb.Session) -> None:
    """The other of kind and count edited in the feature's row."""
    meta = task.metadata
    await _edit(meta, session, field="count" if meta["field"] == "kind" else "kind")
