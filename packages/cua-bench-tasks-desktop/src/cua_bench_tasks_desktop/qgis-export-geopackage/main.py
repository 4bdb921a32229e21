"""qgis-export-geopackage: save a polygon layer loaded in QGIS as a GeoPackage with a given table name.

The layer comes from a GeoJSON file under home (``_qgis.seed_layer``: polygons, each with a name, a
kind, a count and a height). The oracle picks the layer in the Layers panel, opens Layer > Save As…,
keeps the GeoPackage format, types the file's absolute path and the asked layer name into the
dialog's fields (read back from the accessibility tree), clicks OK and waits for the file.

The evaluator reads the file with sqlite3 (``_qgis.read_gpkg``, on a private copy): a plain file with
one link, an SQLite database with the GeoPackage application id, exactly one feature table, named as
asked, in EPSG:4326, its columns the seed's four fields and no more, and every feature by name with
the seed's values and polygon (the blob's GeoPackage header and WKB parsed with ``struct``); and no other
file under home changed (the seed among them; QGIS's profile may change, and the database's
``-wal``/``-shm`` companions that SQLite keeps beside it while QGIS has the new layer open).
Wrong ways: ``keeps_the_default_layer_name`` (the table named after the file), ``saves_as_geojson``
(GeoJSON under the asked name) and ``drops_a_field``.
Waived: ``forged-write`` (the GeoPackage is the output asked for) and ``trailing-blank-lines`` (the
output is binary; the only text file changed besides is QGIS's own QGIS3.ini, which it rewrites).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._qgis import (
    BINARY_OUTPUT,
    FIELDS,
    PLACES,
    WAIVERS,
    Layer,
    exported,
    features_problem,
    open_layers,
    read_gpkg,
    save_layer_as,
    seed_layer,
)

NAME = "qgis-export-geopackage"
WAIVED = {**WAIVERS, **BINARY_OUTPUT}


def build(rng: random.Random) -> cb.Task:
    layer = seed_layer(rng, "Polygon")
    out = f"{layer.folder}/{rng.choice(['export', 'package', 'layers', layer.name])}_{rng.randint(1, 99)}.gpkg"
    table = f"{rng.choice(PLACES)}_{layer.name}"
    return cb.Task(
        description=f"The polygon layer '{layer.name}' (from ~/{layer.path}) is loaded in QGIS. Save all its "
        f"features, with all their fields, as a GeoPackage file ~/{out} in which the layer (table) is named "
        f"'{table}', in EPSG:4326 as the source is. Leave the GeoJSON file as it is.",
        metadata={"layer": layer.as_meta(), "out": out, "table": table},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, data: bytes | None) -> str | None:
    found = read_gpkg(data, meta["table"])
    if isinstance(found, str):
        return found
    if found.tables != {meta["table"]: 4326}:
        return f"feature tables {found.tables}, not only {meta['table']!r} in EPSG:4326"
    if found.columns != list(FIELDS):
        return f"the columns {found.columns}, not {list(FIELDS)}"
    return features_problem(found.features, list(Layer.of(meta["layer"]).features), list(FIELDS))


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(task.metadata["layer"])])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    out = task.metadata["out"]
    return await exported(task, session, out, lambda data: problem_of(task.metadata, data),
                          also=(f"{out}-wal", f"{out}-shm"))  # fmt: skip


async def _save(meta: Meta, session: cb.Session, **options: object) -> None:
    layer = Layer.of(meta["layer"])
    fmt = str(options.pop("fmt", "GeoPackage"))
    await save_layer_as(session, layer.name, fmt, meta["out"], **options)  # type: ignore[arg-type]


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _save(task.metadata, session, layer_name=task.metadata["table"])


@cb.wrong_way
async def keeps_the_default_layer_name(task: cb.Task, session: cb.Session) -> None:
    """Saved as a GeoPackage with the layer name QGIS fills in (the file's name)."""
    await _save(task.metadata, session)


@cb.wrong_way
async def saves_as_geojson(task: cb.Task, session: cb.Session) -> None:
    """GeoJSON chosen in the Format list, saved under the asked name."""
    await _save(task.metadata, session, fmt="GeoJSON")


@cb.wrong_way
async def drops_a_field(task: cb.Task, session: cb.Session) -> None:
    """The height field unticked in the fields to export."""
    await _save(task.metadata, session, layer_name=task.metadata["table"], drop=("height",))
