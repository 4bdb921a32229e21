"""``_qgis``'s pure parts: seeds written as GeoJSON and read back, GeoPackages built here with sqlite3
(GeoPackage header and WKB packed with struct) read back whole, CSVs, projects (.qgz and .qgs), the
Web Mercator formula, and the tasks' problem functions on right and wrong files (each wrong one found)."""

from __future__ import annotations

import io
import json
import os
import random
import sqlite3
import struct
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from cua_bench.tasks import load_task_module
from cua_bench_tasks_desktop._qgis import (
    FIELDS,
    Feature,
    Layer,
    features_problem,
    geojson_text,
    layers_problem,
    mercator,
    parse_wkb,
    project_title,
    read_csv,
    read_geojson,
    read_gpkg,
    read_project,
    seed_layer,
    source_path,
    transformed,
)

TASKS = Path(__file__).resolve().parents[2] / "packages/cua-bench-tasks-desktop/src/cua_bench_tasks_desktop"


def _module(name: str) -> Any:
    return load_task_module(TASKS / name).module


def _meta(name: str, index: int = 0) -> dict[str, Any]:
    return dict(load_task_module(TASKS / name).variants("test")[index].metadata)


def _wkb(geometry: tuple[str, Any]) -> bytes:
    kind, coords = geometry
    if kind == "Point":
        return struct.pack("<BIdd", 1, 1, *coords)
    if kind == "LineString":
        return struct.pack("<BII", 1, 2, len(coords)) + b"".join(struct.pack("<dd", *p) for p in coords)
    rings = b"".join(struct.pack("<I", len(r)) + b"".join(struct.pack("<dd", *p) for p in r) for r in coords)
    return struct.pack("<BII", 1, 3, len(coords)) + rings


def _gpkg(features: list[Feature], table: str, columns: list[str], *, srs: int = 4326, envelope: bool = True,
          application: bytes = b"GPKG") -> bytes:  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.gpkg")
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA application_id = {int.from_bytes(application, 'big')}")
        db.execute("CREATE TABLE gpkg_contents (table_name TEXT, data_type TEXT, srs_id INTEGER)")
        db.execute("CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT)")
        db.execute("INSERT INTO gpkg_contents VALUES (?, 'features', ?)", (table, srs))
        db.execute("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom')", (table,))
        cols = ", ".join(f'"{c}"' for c in columns)
        db.execute(f'CREATE TABLE "{table}" (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom BLOB, {cols})')
        for feature in features:
            head = b"GP\x00" + bytes([0x03 if envelope else 0x01]) + struct.pack("<i", srs)
            blob = head + (struct.pack("<4d", 0, 1, 0, 1) if envelope else b"") + _wkb(feature.geometry)
            values = [feature.props.get(c) for c in columns]
            marks = ", ".join("?" * (len(columns) + 1))
            db.execute(f'INSERT INTO "{table}" (geom, {cols}) VALUES ({marks})', [blob, *values])
        db.commit()
        db.close()
        return Path(path).read_bytes()


def test_a_seed_reads_back_from_its_geojson_and_its_metadata() -> None:
    for index, kind in enumerate(("Point", "LineString", "Polygon")):
        layer = seed_layer(random.Random(index), kind)
        assert Layer.of(json.loads(json.dumps(layer.as_meta()))) == layer
        found = read_geojson(geojson_text(layer).encode())
        assert isinstance(found, list)
        assert features_problem(found, list(layer.features), list(FIELDS)) is None
        assert len({f.props["name"] for f in layer.features}) == len(layer.features)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (None, "no such file"),
        (b"not json", "not JSON"),
        (b'{"type": "Feature"}', "not a GeoJSON FeatureCollection"),
        (b'{"type": "FeatureCollection", "features": []}\n\n\n', "blank lines"),
    ],
)
def test_what_is_not_geojson_says_why(data: bytes | None, reason: str) -> None:
    found = read_geojson(data)
    assert isinstance(found, str) and reason in found


def test_features_problem_finds_each_difference() -> None:
    layer = seed_layer(random.Random(5), "Point")
    want = list(layer.features)
    first = want[0]
    assert features_problem(want[1:], want, list(FIELDS)) is not None
    moved = Feature(first.props, ("Point", [first.geometry[1][0] + 0.001, first.geometry[1][1]]))
    assert "geometry" in (features_problem([moved, *want[1:]], want, list(FIELDS)) or "")
    as_text = Feature({**first.props, "count": str(first.props["count"])}, first.geometry)
    assert "count" in (features_problem([as_text, *want[1:]], want, list(FIELDS)) or "")
    extra = Feature({**first.props, "extra": 1}, first.geometry)
    assert "attributes" in (features_problem([extra, *want[1:]], want, list(FIELDS)) or "")
    multi = Feature(first.props, ("MultiPoint", [first.geometry[1]]))
    assert features_problem([multi, *want[1:]], want, list(FIELDS)) is None


def test_wkb_parses_points_lines_polygons_and_refuses_3d() -> None:
    assert parse_wkb(struct.pack("<BIdd", 1, 1, 2.5, -1.0))[0] == ("Point", [2.5, -1.0])
    assert parse_wkb(struct.pack(">BIdd", 0, 1, 2.5, -1.0))[0] == ("Point", [2.5, -1.0])
    line = ("LineString", [[0.0, 1.0], [2.0, 3.0]])
    assert parse_wkb(_wkb(line))[0] == line
    with pytest.raises(ValueError, match="1001"):
        parse_wkb(struct.pack("<BIddd", 1, 1001, 1, 2, 3))


def test_a_geopackage_reads_back_and_its_task_scores_it() -> None:
    meta = _meta("qgis-export-geopackage")
    module = _module("qgis-export-geopackage")
    features = list(Layer.of(meta["layer"]).features)
    good = _gpkg(features, meta["table"], list(FIELDS))
    package = read_gpkg(good, meta["table"])
    assert not isinstance(package, str) and package.columns == list(FIELDS)
    assert module.problem_of(meta, good) is None
    assert module.problem_of(meta, _gpkg(features, meta["table"], list(FIELDS), envelope=False)) is None
    assert "no feature table" in module.problem_of(meta, _gpkg(features, "other", list(FIELDS)))
    assert "columns" in module.problem_of(meta, _gpkg(features, meta["table"], list(FIELDS[:3])))
    assert "EPSG:4326" in module.problem_of(meta, _gpkg(features, meta["table"], list(FIELDS), srs=3857))
    assert "features" in module.problem_of(meta, _gpkg(features[1:], meta["table"], list(FIELDS)))
    assert "not a GeoPackage" in module.problem_of(meta, _gpkg(features, meta["table"], list(FIELDS),
                                                               application=b"\0\0\0\0"))  # fmt: skip
    assert "not an SQLite" in module.problem_of(meta, geojson_text(Layer.of(meta["layer"])).encode())


def _csv(meta: dict[str, Any], fields: list[str], end: str = "\r\n") -> bytes:
    rows = [",".join(fields)]
    for feature in Layer.of(meta["layer"]).features:
        rows.append(",".join(str(feature.props[f]) for f in fields))
    return (end.join(rows) + end).encode()


def test_the_csv_task_wants_exactly_its_fields() -> None:
    meta = _meta("qgis-export-csv-fields")
    module = _module("qgis-export-csv-fields")
    assert module.problem_of(meta, _csv(meta, meta["fields"])) is None
    assert module.problem_of(meta, _csv(meta, meta["fields"], "\n")) is None
    assert "columns" in module.problem_of(meta, _csv(meta, list(FIELDS)))
    assert "blank" in module.problem_of(meta, _csv(meta, meta["fields"]) + b"\r\n\r\n")
    assert read_csv(b"a,b\r\n1\r\n") == "a row with another number of values than the header"


def _collection(features: list[Feature], crs: str | None = None) -> bytes:
    doc: dict[str, Any] = {"type": "FeatureCollection", "features": [f.as_json() for f in features]}
    if crs:
        doc["crs"] = {"type": "name", "properties": {"name": crs}}
    return (json.dumps(doc) + "\n").encode()


def test_web_mercator_and_the_reproject_task() -> None:
    assert mercator(180, 0)[0] == pytest.approx(20037508.342789244)
    assert mercator(0, 0) == [0.0, pytest.approx(0.0, abs=1e-6)]
    assert mercator(10, 50)[1] == pytest.approx(6446275.841017158)
    meta = _meta("qgis-reproject-geojson")
    module = _module("qgis-reproject-geojson")
    features = list(Layer.of(meta["layer"]).features)
    moved = [Feature(f.props, transformed(f.geometry, mercator)) for f in features]
    crs = "urn:ogc:def:crs:EPSG::3857"
    assert module.problem_of(meta, _collection(moved, crs)) is None
    assert "crs" in module.problem_of(meta, _collection(moved))
    assert "geometry" in module.problem_of(meta, _collection(features, crs))
    off = [
        Feature(f.props, transformed(f.geometry, lambda x, y: [mercator(x, y)[0], mercator(x, y)[1] + 1]))
        for f in features
    ]
    assert "geometry" in module.problem_of(meta, _collection(off, crs))


def test_the_selection_and_edit_tasks_want_exactly_their_features() -> None:
    meta = _meta("qgis-export-selection")
    module = _module("qgis-export-selection")
    features = list(Layer.of(meta["layer"]).features)
    over = [f for f in features if f.props["count"] > meta["threshold"]]
    least = [f for f in features if f.props["count"] >= meta["threshold"]]
    assert module.problem_of(meta, _collection(over)) is None
    assert module.problem_of(meta, _collection(least)) is not None
    assert module.problem_of(meta, _collection(features)) is not None

    meta = _meta("qgis-edit-attribute")
    module = _module("qgis-edit-attribute")
    features = list(Layer.of(meta["layer"]).features)
    target = features[meta["index"]]
    edited = [*features]
    edited[meta["index"]] = Feature({**target.props, meta["field"]: meta["value"]}, target.geometry)
    assert module.problem_of(meta, _collection(edited)) is None
    assert module.problem_of(meta, _collection(features)) is not None
    as_text = [*features]
    as_text[meta["index"]] = Feature({**target.props, meta["field"]: str(meta["value"]) + "x"}, target.geometry)
    assert module.problem_of(meta, _collection(as_text)) is not None

    meta = _meta("qgis-field-calculator")
    module = _module("qgis-field-calculator")
    features = list(Layer.of(meta["layer"]).features)
    field, factor = meta["field"], meta["factor"]
    good = [Feature({**f.props, field: f.props["count"] * factor}, f.geometry) for f in features]
    added = [Feature({**f.props, field: f.props["count"] + factor}, f.geometry) for f in features]
    real = [Feature({**f.props, field: float(f.props["count"] * factor)}, f.geometry) for f in features]
    assert module.problem_of(meta, _collection(good)) is None
    assert module.problem_of(meta, _collection(added)) is not None
    assert module.problem_of(meta, _collection(real)) is not None
    assert module.problem_of(meta, _collection(features)) is not None


def _qgs(crs: str, layers: list[tuple[str, str]]) -> bytes:
    maps = "".join(
        f"<maplayer><id>{name}_1</id><datasource>{source}</datasource><layername>{name}</layername>"
        f"<provider encoding='UTF-8'>ogr</provider></maplayer>"
        for name, source in layers
    )
    tree = "".join(f"<layer-tree-layer name='{name}' id='{name}_1'/>" for name, _ in layers)
    return (f"<!DOCTYPE qgis><qgis version='3.22.16'><layer-tree-group>{tree}</layer-tree-group>"
            f"<projectCrs><spatialrefsys><authid>{crs}</authid></spatialrefsys></projectCrs>"
            f"<projectlayers>{maps}</projectlayers></qgis>\n").encode()  # fmt: skip


def _qgz(xml: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("project.qgs", xml)
        archive.writestr("project.qgd", b"")
    return out.getvalue()


def test_projects_read_back_and_their_tasks_score_them() -> None:
    meta = _meta("qgis-project-crs")
    module = _module("qgis-project-crs")
    layer = Layer.of(meta["layer"])
    relative = "./" + layer.path.removeprefix(layer.folder + "/")
    good = read_project(_qgz(_qgs(meta["code"], [(layer.name, relative)])), "qgz")
    assert not isinstance(good, str) and module.problem_of(meta, good, "/home/user") is None
    wrong = read_project(_qgz(_qgs("EPSG:4326", [(layer.name, relative)])), "qgz")
    assert not isinstance(wrong, str) and "CRS" in module.problem_of(meta, wrong, "/home/user")
    assert "zip" in str(read_project(_qgz(_qgs(meta["code"], [])), "qgs"))
    assert "blank" in str(read_project(_qgs(meta["code"], []) + b"\n\n", "qgs"))
    assert "root" in str(read_project(b"<svg/>", "qgs"))

    meta = _meta("qgis-rename-layer")
    module = _module("qgis-rename-layer")
    layers = [Layer.of(m) for m in meta["layers"]]
    names = [meta["new"] if i == meta["target"] else layer.name for i, layer in enumerate(layers)]
    home = "/home/user/"
    good = read_project(
        _qgz(_qgs("EPSG:4326", [(n, home + layer.path) for n, layer in zip(names, layers, strict=True)])), "qgz"
    )
    assert not isinstance(good, str) and module.problem_of(meta, good, "/home/user") is None
    old = read_project(_qgz(_qgs("EPSG:4326", [(layer.name, layer.path) for layer in layers])), "qgz")
    assert not isinstance(old, str) and module.problem_of(meta, old, "/home/user") is not None
    assert "not a .qgz" in str(read_project(_qgs("EPSG:4326", []), "qgz"))


def test_sources_and_titles() -> None:
    assert source_path("./a/b.geojson|layername=b", "gis/p.qgz", "/h") == "gis/a/b.geojson"
    assert source_path("../x.geojson", "gis/sub/p.qgs", "/h") == "gis/x.geojson"
    assert source_path("/h/gis/x.geojson", "gis/sub/p.qgs", "/h/") == "gis/x.geojson"
    assert source_path("/tmp/x.geojson", "gis/p.qgs", "/h") == "/tmp/x.geojson"
    assert project_title()("*Untitled Project — QGIS")
    assert project_title("map_3", dirty=False)("map_3 — QGIS")
    assert not project_title("map_3", dirty=False)("*map_3 — QGIS")
    assert not project_title()("Untitled - Mousepad")
    assert layers_problem.__doc__
