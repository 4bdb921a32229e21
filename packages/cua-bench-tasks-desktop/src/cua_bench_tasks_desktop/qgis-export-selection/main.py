"""qgis-export-selection: select a point layer's features by an attribute condition in QGIS and save
only those as GeoJSON.

The layer comes from a GeoJSON file under home (``_qgis.seed_layer``: points with distinct counts);
the threshold is one of the counts, so "greater than" and "at least" select different features. The
oracle picks the layer, opens Select by Expression (ctrl+F3), types ``"count" > N``, clicks Select
Features and Close, then Layer > Save As…, GeoJSON, the file's absolute path, ticks Save only
selected features (read back from the accessibility tree), OK, and waits for the file.

The evaluator reads the file with ``json`` (``_qgis.read_geojson``): a plain file with one link, a
FeatureCollection holding exactly the seed's features whose count is greater than the threshold (by
name, with the seed's four fields, values and points), no blank lines after the JSON; and no other file
under home changed (the seed among them; QGIS's profile, and the ``.qmd`` metadata file QGIS writes
beside the export, may change). Wrong ways: ``saves_every_feature`` (selected, but Save only selected
features left off), ``selects_at_least`` (``>=``: one feature more) and ``selects_at_most`` (the
complement). Waived: ``forged-write`` (the file is the output asked for: writing it right is the work).
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
    features_problem,
    open_layers,
    read_geojson,
    save_layer_as,
    seed_layer,
    select_by_expression,
)

NAME = "qgis-export-selection"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    layer = seed_layer(rng, "Point", (6, 9))
    counts = sorted(f.props["count"] for f in layer.features)
    threshold = rng.choice(counts[1:-2])
    out = f"{layer.folder}/{layer.name}_{rng.choice(['over', 'above', 'large', 'selected'])}_{threshold}.geojson"
    return cb.Task(
        description=f"The point layer '{layer.name}' (from ~/{layer.path}) is loaded in QGIS. Select its features "
        f"whose 'count' is greater than {threshold} and save only those features, with all their fields, as a "
        f"GeoJSON file ~/{out}. Leave the source file as it is.",
        metadata={"layer": layer.as_meta(), "out": out, "threshold": threshold},
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, data: bytes | None) -> str | None:
    found = read_geojson(data)
    if isinstance(found, str):
        return found
    want = [f for f in Layer.of(meta["layer"]).features if f.props["count"] > meta["threshold"]]
    return features_problem(found, want, list(FIELDS))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(task.metadata["layer"])])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await exported(task, session, task.metadata["out"], lambda data: problem_of(task.metadata, data))


async def _select_and_save(meta: Meta, session: cb.Session, op: str, selected_only: bool = True) -> None:
    name = Layer.of(meta["layer"]).name
    await select_by_expression(session, name, f'"count" {op} {meta["threshold"]}')
    await save_layer_as(session, name, "GeoJSON", meta["out"], selected_only=selected_only)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _select_and_save(task.metadata, session, ">")


@cb.wrong_way
async def saves_every_feature(task: cb.Task, session: cb.Session) -> None:
    """The features selected, but Save only selected features left off: every feature saved."""
    await _select_and_save(task.metadata, session, ">", selected_only=False)


@cb.wrong_way
async def selects_at_least(task: cb.Task, session: cb.Session) -> None:
    """``"count" >= N``: the feature with count N saved too."""
    await _select_and_save(task.metadata, session, ">=")


@cb.wrong_way
async def selects_at_most(task: cb.Task, session: cb.Session) -> None:
    """``"count" <= N``: the other features saved."""
    await _select_and_save(task.metadata, session, "<=")
