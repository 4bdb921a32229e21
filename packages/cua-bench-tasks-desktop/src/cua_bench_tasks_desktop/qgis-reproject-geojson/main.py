"""qgis-reproject-geojson: save a line layer loaded in QGIS as GeoJSON in Web Mercator (EPSG:3857).

The layer comes from a GeoJSON file in EPSG:4326 under home (``_qgis.seed_layer``: lines, each with a
name, a kind, a count and a height). The oracle picks the layer in the Layers panel, opens Layer >
Save As…, picks GeoJSON in the Format list, types the file's absolute path, opens the CRS selector
beside the CRS list, types EPSG:3857 into its Filter and clicks its row, OK, and OK again; then waits
for the file.

The evaluator reads the file with ``json`` (``_qgis.read_geojson``): a plain file with one link, a
FeatureCollection whose ``crs`` names EPSG:3857, every feature by name with the seed's four fields (no
more) and values, and each vertex where the spherical Mercator formula puts the seed's
(``_qgis.mercator``: x = R·λ, y = R·ln tan(π/4 + φ/2), R = 6378137 m) within 5 cm; no blank lines after
the JSON; and no other file under home changed (the seed among them; QGIS's profile, and the ``.qmd``
metadata file QGIS writes beside the export, may change). Wrong ways: ``keeps_wgs84`` (saved in
EPSG:4326), ``world_mercator`` (EPSG:3395, the ellipsoidal Mercator: the same x, a y kilometres off) and
``saves_as_geopackage``. Waived: ``forged-write`` (the file is the output asked for: writing it right is
the work)."""

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
    exported,
    features_problem,
    geojson_crs,
    mercator,
    open_layers,
    read_geojson,
    save_layer_as,
    seed_layer,
    transformed,
)

NAME = "qgis-reproject-geojson"
WAIVED = WAIVERS


def build(rng: random.Random) -> cb.Task:
    layer = seed_layer(rng, "LineString", (4, 7))
    out = f"{layer.folder}/{layer.name}_{rng.choice(['3857', 'mercator', 'web', 'webmap'])}.geojson"
    return cb.Task(
        description=f"The line layer '{layer.name}' (from ~/{layer.path}, in EPSG:4326) is loaded in QGIS. Save "
        f"all its features, with all their fields, as a GeoJSON file ~/{out} in the CRS EPSG:3857 "
        "(WGS 84 / Pseudo-Mercator). Leave the source file as it is.",
        metadata={"layer": layer.as_meta(), "out": out},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, data: bytes | None) -> str | None:
    found = read_geojson(data)
    if isinstance(found, str):
        return found
    crs = geojson_crs(data or b"")
    if crs is None or not crs.endswith(("EPSG::3857", "EPSG:3857")):
        return f"the file's crs is {crs!r}, not EPSG:3857"
    want = [Feature(f.props, transformed(f.geometry, mercator)) for f in Layer.of(meta["layer"]).features]
    return features_problem(found, want, list(FIELDS), tolerance=0.05)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(task.metadata["layer"])])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    return await exported(task, session, task.metadata["out"], lambda data: problem_of(task.metadata, data))


async def _save(meta: Meta, session: cb.Session, crs: str | None, fmt: str = "GeoJSON") -> None:
    await save_layer_as(session, Layer.of(meta["layer"]).name, fmt, meta["out"], crs=crs)


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _save(task.metadata, session, "EPSG:3857")


@cb.wrong_way
async def keeps_wgs84(task: cb.Task, session: cb.Session) -> None:
    """Saved as GeoJSON in the layer's own CRS, EPSG:4326."""
    await _save(task.metadata, session, None)


@cb.wrong_way
async def world_mercator(task: cb.Task, session: cb.Session) -> None:
    """Saved in EPSG:3395 (WGS 84 / World Mercator), the ellipsoidal Mercator."""
    await _save(task.metadata, session, "EPSG:3395")


@cb.wrong_way
async def saves_as_geopackage(task: cb.Task, session: cb.Session) -> None:
    """The Format list left at GeoPackage, saved in EPSG:3857 under the asked name."""
    await _save(task.metadata, session, "EPSG:3857", "GeoPackage")
