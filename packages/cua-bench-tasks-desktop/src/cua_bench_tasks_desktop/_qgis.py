"""QGIS 3.22 (Qt 5) in the desktop tasks: seeded vector layers, the app started on them, the oracle's
moves in its menus and dialogs, and what it writes read back whole (not a task: no ``main.py``).

**The layers.** ``seed_layer`` makes a layer of points, lines or polygons in longitude and latitude
(EPSG:4326): a handful of features, each with a unique ``name``, a ``kind``, a whole ``count`` and a
``height`` with one decimal, placed in a box of the world picked per variant. The task's metadata keeps
the layer (``Layer``); setup writes it as GeoJSON (``geojson_text``) under a folder of home and starts
QGIS with it loaded (``open_layers``).

**Read back whole.** Each reader takes a file's bytes and returns what it holds, or why it is not
that format (a string, never an exception): GeoJSON with ``json`` (``read_geojson``), a CSV with
``csv`` (``read_csv``), a GeoPackage with ``sqlite3`` (``read_gpkg``: its ``gpkg_contents`` and
feature table, each geometry blob's GeoPackage header and WKB parsed with ``struct``, ``parse_wkb``),
and a project (``read_project``: a ``.qgz`` zip holding one ``.qgs``, or a ``.qgs``, parsed with
lxml without entities or network). ``features_problem`` compares the features read with the ones
expected: the same number, by name, with exactly the fields asked (no more), their values, and each
geometry's coordinates within a tolerance (a single part of a multi-geometry counts as the part). A
text file that ends in blank lines is not what QGIS writes (``blank_tail``).

**QGIS on the desktop.** The local backend asks Qt for its accessibility bridge
(``QT_LINUX_ACCESSIBILITY_ALWAYS_ON``), and QGIS's menus, dialogs, tables and trees all reach the bus
named, a few seconds after its window shows (setup waits for the menu bar). The oracles open menus by
clicking the menu bar's item and then the popped-up item (``menu``), set fields by clicking into them
and typing (``set_text``), pick a drop-down's entry by typing its text into the opened list
(``choose``), toggle check boxes and a table's checkable cells until the tree reads them so
(``set_check``), and wait on window titles: the main window is ``*Untitled Project — QGIS`` until a
project is saved (``project_title``), dialogs have their own titles.

**What QGIS writes.** QGIS keeps its profile under ``.local/share/QGIS`` (``PROFILE``: QGIS3.ini,
qgis.db, the auth and style databases), written at start and whenever a setting changes (the last
folder of a dialog, recently used CRSs), and its network and tile cache under ``.cache``
(``cua_bench.filestate.CACHES``); the evaluators let the profile change as QGIS changes it (a file
rewritten, added or removed, never chmod'ed or set back in time: ``_common.app_wrote``), and no task's
answer is there. Save As writes a ``.qmd`` metadata file beside a GeoJSON or CSV while its Persist
layer metadata box is on (as it starts), and Qt's file dialog (Project > Save As…) keeps its state in
``.config/QtProject.conf`` (``QT_DIALOGS``): both may appear. That dialog starts at QGZ files, and QGIS
adds ``.qgz`` to a name that lacks it (``x.qgs`` becomes ``x.qgs.qgz``), so the tasks ask for ``.qgz``.
Setup writes the profile's QGIS3.ini first, with the look for a newer version off (nothing outside can
be reached). QGIS starts in about 2 s on two cores here; its widgets reach the bus a few seconds later.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import posixpath
import random
import sqlite3
import struct
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lxml import etree

from cua_bench import Session, Task, TaskError
from cua_bench.filestate import Snapshot
from cua_bench.nodes import center, walk
from cua_bench_tasks_desktop._common import (
    OUTPUT_IS_THE_WORK,
    PATIENCE,
    act,
    app_wrote,
    env_var,
    files_since_setup,
    key,
    nothing_else_changed,
    output_bytes,
    remember_files,
    shell,
    start,
    wait_for,
    window,
    write_files,
)
from cua_bench_tasks_desktop._office import still
from cua_core import Click, CuaError, Point, TypeText, Wait

__all__ = [
    "APP",
    "BINARY_OUTPUT",
    "FIELDS",
    "KINDS",
    "MERCATOR",
    "PLACES",
    "PROFILE",
    "PROFILE_INI",
    "QT_DIALOGS",
    "WAIVERS",
    "Feature",
    "Layer",
    "Project",
    "blank_tail",
    "calculate_field",
    "choose",
    "click_node",
    "edit_cell",
    "exported",
    "features_problem",
    "geojson_crs",
    "geojson_text",
    "layers_problem",
    "live_project",
    "menu",
    "mercator",
    "node",
    "only_changed",
    "open_layers",
    "open_table",
    "parse_wkb",
    "pick_crs",
    "project_score",
    "project_title",
    "read_csv",
    "read_geojson",
    "read_gpkg",
    "read_project",
    "rename_layer",
    "save_edits",
    "save_layer_as",
    "save_project_as",
    "saved_file",
    "seed_layer",
    "select_by_expression",
    "set_check",
    "set_project_crs",
    "set_text",
    "source_path",
    "table_title",
    "transformed",
    "wait_node",
]

APP = "qgis"
PROFILE = ".local/share/QGIS"
"""QGIS's profile: written at its first start and whenever a setting changes (a dialog's last folder,
recently used CRSs, window states), so the evaluators let it change."""
PROFILE_INI = f"{PROFILE}/QGIS3/profiles/default/QGIS/QGIS3.ini"
QT_DIALOGS = ".config/QtProject.conf"
"""Qt's file dialog state (its history and last folder), written when Project > Save As… closes."""
INI = "[qgis]\ncheckVersion=false\n\n[locale]\nuserLocale=C\n\n[Projections]\nshowDatumTransformDialog=false\n"
"""Setup's QGIS3.ini: no look for a newer version (nothing outside can be reached), the C locale (a
decimal point, never a comma), no datum transformation dialog popping up over the task."""
WAIVERS = {
    **OUTPUT_IS_THE_WORK,
}
"""What every export task waives, and why (its ``WAIVED``)."""
BINARY_OUTPUT = {
    "trailing-blank-lines": "the work is a binary file (a GeoPackage, a zipped .qgz), which the mutation leaves "
    "alone; the only text file it changes besides is QGIS's own QGIS3.ini in its profile, which QGIS rewrites "
    "whenever a setting changes and the evaluator lets change",
}
"""What a task whose output is binary waives besides, and why."""
MAX_FILE = 16 << 20
"""The largest file the evaluators read (the tasks' files are a few KiB)."""
MERCATOR = 6378137.0
"""EPSG:3857's sphere radius, in metres."""

Node = dict[str, Any]
Geometry = tuple[str, Any]
"""A geometry as the evaluators compare it: its type ("Point", "LineString", "Polygon") and its
coordinates as nested lists of [x, y]."""


def project_title(name: str | None = None, *, dirty: bool | None = None) -> Callable[[str], bool]:
    """QGIS's main window title: ``*Untitled Project — QGIS`` before any save, ``NAME — QGIS`` once the
    project ``NAME`` (the file's stem) is saved; a ``*`` in front while it has changes."""

    def accepts(title: str) -> bool:
        if not title.endswith(" — QGIS"):
            return False
        if dirty is not None and title.startswith("*") != dirty:
            return False
        return name is None or title.lstrip("*") == f"{name} — QGIS"

    return accepts


# --- the layers -------------------------------------------------------------------------------

FIELDS = ("name", "kind", "count", "height")
"""Every seed layer's fields, in order: text, text, whole number, decimal number (one decimal)."""
KINDS = ("depot", "school", "clinic", "market", "office", "garage", "library", "station")
PLACES = (
    "alder", "birch", "cedar", "delta", "ember", "fjord", "grove", "heath", "inlet", "juniper", "knoll", "larch",
    "maple", "north", "oak", "pine", "quarry", "ridge", "spruce", "tarn", "upland", "vale", "willow", "yew",
)  # fmt: skip
LAYER_NAMES = ("depots", "wells", "stations", "schools", "hydrants", "shops", "sites", "stops", "parcels", "routes")
FOLDERS = ("gis", "maps", "survey", "fieldwork", "projects/gis")


@dataclass(frozen=True)
class Feature:
    """One feature: its attributes (``FIELDS``) and geometry."""

    props: dict[str, Any]
    geometry: Geometry

    def as_json(self) -> dict[str, Any]:
        geometry = {"type": self.geometry[0], "coordinates": self.geometry[1]}
        return {"type": "Feature", "properties": self.props, "geometry": geometry}


@dataclass(frozen=True)
class Layer:
    """A seed layer: where setup writes it (``path``, relative to home: ``FOLDER/NAME.geojson``), its
    geometry type and features."""

    path: str
    kind: str
    features: tuple[Feature, ...]

    @property
    def name(self) -> str:
        return posixpath.basename(self.path).rsplit(".", 1)[0]

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)

    def as_meta(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "features": [f.as_json() for f in self.features]}

    @staticmethod
    def of(meta: dict[str, Any]) -> Layer:
        """A layer as the task's metadata keeps it, typed back."""
        return Layer(
            str(meta["path"]),
            str(meta["kind"]),
            tuple(
                Feature(dict(f["properties"]), (str(f["geometry"]["type"]), f["geometry"]["coordinates"]))
                for f in meta["features"]
            ),
        )


def _shape(rng: random.Random, kind: str, x: float, y: float) -> Geometry:
    def at(dx: float, dy: float) -> list[float]:
        return [round(x + dx, 5), round(y + dy, 5)]

    if kind == "Point":
        return kind, at(0, 0)
    if kind == "LineString":
        return kind, [at(0, 0)] + [at(rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)) for _ in range(rng.randint(1, 3))]
    w, h = rng.uniform(0.02, 0.2), rng.uniform(0.02, 0.2)
    return kind, [[at(0, 0), at(w, 0), at(w, h), at(0, h), at(0, 0)]]


def seed_layer(rng: random.Random, kind: str = "Point", count: tuple[int, int] = (5, 8)) -> Layer:
    """A layer of ``kind`` with ``count`` features (a range) in a box of Europe and around, each named
    after a distinct place, with distinct counts and heights, under a folder of home."""
    total = rng.randint(*count)
    lon, lat = rng.uniform(-10, 25), rng.uniform(36, 58)
    names = rng.sample(PLACES, total)
    counts = rng.sample(range(1, 500), total)
    heights = rng.sample(range(10, 9990), total)
    features = tuple(
        Feature(
            {
                "name": f"{names[i].title()} {rng.choice(KINDS).title()}",
                "kind": rng.choice(KINDS),
                "count": counts[i],
                "height": heights[i] / 10,
            },
            _shape(rng, kind, lon + rng.uniform(0, 4), lat + rng.uniform(0, 3)),
        )
        for i in range(total)
    )
    path = f"{rng.choice(FOLDERS)}/{rng.choice(LAYER_NAMES)}.geojson"
    return Layer(path, kind, features)


def geojson_text(layer: Layer) -> str:
    """The seed as setup writes it: a GeoJSON FeatureCollection, one feature a line."""
    lines = ",\n".join(json.dumps(f.as_json()) for f in layer.features)
    return f'{{"type": "FeatureCollection", "name": "{layer.name}", "features": [\n{lines}\n]}}\n'


def mercator(lon: float, lat: float) -> list[float]:
    """EPSG:4326 longitude and latitude in EPSG:3857 metres (the spherical Web Mercator)."""
    return [MERCATOR * math.radians(lon), MERCATOR * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))]


def transformed(geometry: Geometry, to: Callable[[float, float], list[float]]) -> Geometry:
    def walk_coords(value: Any) -> Any:
        if value and isinstance(value[0], (int, float)):
            return to(float(value[0]), float(value[1]))
        return [walk_coords(v) for v in value]

    return geometry[0], walk_coords(geometry[1])


# --- reading files back ------------------------------------------------------------------------


def blank_tail(data: bytes) -> bool:
    """Whether a text file ends in a blank line (QGIS ends its files with one line break at most)."""
    return data.endswith((b"\n\n", b"\r\n\r\n", b"\n\r\n", b" ", b"\t"))


def _geometry(value: Any) -> Geometry | str:
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return "a feature without a geometry"
    return str(value["type"]), value.get("coordinates")


def read_geojson(data: bytes | None) -> list[Feature] | str:
    """The features of a GeoJSON FeatureCollection, or why ``data`` is not one."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE:
        return f"too large ({len(data)} bytes)"
    if blank_tail(data):
        return "blank lines after the GeoJSON"
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return f"not JSON ({type(exc).__name__})"
    if not isinstance(doc, dict) or doc.get("type") != "FeatureCollection" or not isinstance(doc.get("features"), list):
        return "not a GeoJSON FeatureCollection"
    found = []
    for item in doc["features"]:
        if not isinstance(item, dict) or not isinstance(item.get("properties"), dict):
            return "a feature without properties"
        geometry = _geometry(item.get("geometry"))
        if isinstance(geometry, str):
            return geometry
        found.append(Feature(dict(item["properties"]), geometry))
    return found


def geojson_crs(data: bytes) -> str | None:
    """The ``crs`` member's name in a GeoJSON file (QGIS writes one for any CRS but EPSG:4326)."""
    try:
        crs = json.loads(data.decode("utf-8")).get("crs") or {}
        return str(crs.get("properties", {}).get("name"))
    except (UnicodeDecodeError, ValueError, AttributeError):
        return None


def read_csv(data: bytes | None) -> tuple[list[str], list[list[str]]] | str:
    """A CSV's header and rows (every value text), or why ``data`` is not one: no blank lines, every
    row as long as the header."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE or b"\0" in data:
        return "not a text file"
    if blank_tail(data):
        return "blank lines after the rows"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        return f"not a CSV ({exc})"
    if not rows:
        return "an empty file"
    header, body = rows[0], rows[1:]
    if any(len(row) != len(header) for row in body):
        return "a row with another number of values than the header"
    return header, body


def _point(data: bytes, at: int, little: bool) -> tuple[list[float], int]:
    x, y = struct.unpack_from("<dd" if little else ">dd", data, at)
    return [x, y], at + 16


def parse_wkb(data: bytes, at: int = 0) -> tuple[Geometry, int]:
    """A 2-D WKB geometry (Point, LineString, Polygon and their Multi kinds) from ``data[at:]``, and
    where it ends; ValueError for anything else."""
    if len(data) < at + 5:
        raise ValueError("truncated WKB")
    little = data[at] == 1
    (code,) = struct.unpack_from("<I" if little else ">I", data, at + 1)
    at += 5
    count = "<I" if little else ">I"

    def points(at: int) -> tuple[list[list[float]], int]:
        (n,) = struct.unpack_from(count, data, at)
        at += 4
        out = []
        for _ in range(n):
            pt, at = _point(data, at, little)
            out.append(pt)
        return out, at

    if code == 1:
        pt, at = _point(data, at, little)
        return ("Point", pt), at
    if code == 2:
        line, at = points(at)
        return ("LineString", line), at
    if code == 3:
        (rings,) = struct.unpack_from(count, data, at)
        at += 4
        polygon = []
        for _ in range(rings):
            ring, at = points(at)
            polygon.append(ring)
        return ("Polygon", polygon), at
    if code in (4, 5, 6):
        (parts,) = struct.unpack_from(count, data, at)
        at += 4
        found = []
        for _ in range(parts):
            part, at = parse_wkb(data, at)
            found.append(part[1])
        return ("Multi" + ("Point", "LineString", "Polygon")[code - 4], found), at
    raise ValueError(f"WKB geometry type {code} (not a 2-D point, line or polygon)")


def gpkg_geometry(blob: Any) -> Geometry | str:
    """A GeoPackage geometry blob (``GP`` header, flags, SRS id, envelope, then WKB) parsed."""
    if not isinstance(blob, bytes) or len(blob) < 8 or blob[:2] != b"GP":
        return "a geometry that is not a GeoPackage blob"
    flags = blob[3]
    envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}.get((flags >> 1) & 7)
    if envelope is None:
        return "a GeoPackage blob with a bad envelope flag"
    try:
        geometry, end = parse_wkb(blob, 8 + envelope)
    except (ValueError, struct.error) as exc:
        return f"unreadable WKB ({exc})"
    return geometry if end == len(blob) else "bytes after the WKB"


@dataclass(frozen=True)
class Package:
    """A GeoPackage read: its feature tables (``gpkg_contents``: name to SRS id), and one table's columns
    (but its primary key and geometry column) and features."""

    tables: dict[str, int]
    columns: list[str]
    features: list[Feature]


def read_gpkg(data: bytes | None, table: str) -> Package | str:
    """The GeoPackage in ``data`` with its feature table ``table`` read (sqlite3, on a private copy:
    never the file in home), or why it is not one."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE or not data.startswith(b"SQLite format 3\0"):
        return "not an SQLite database"
    if data[68:72] != b"GPKG":
        return "an SQLite database, not a GeoPackage (no GPKG application id)"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "read.gpkg")
        with open(path, "wb") as out:
            out.write(data)
        try:
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                return _package(db, table)
        except sqlite3.Error as exc:
            return f"not a readable GeoPackage ({exc})"


def _package(db: sqlite3.Connection, table: str) -> Package | str:
    query = "SELECT table_name, srs_id FROM gpkg_contents WHERE data_type='features'"
    tables = {str(n): int(s) for n, s in db.execute(query)}
    if table not in tables:
        return f"no feature table {table!r} (it has {sorted(tables)})"
    query = "SELECT column_name FROM gpkg_geometry_columns WHERE table_name=?"
    geometry_columns = [str(r[0]) for r in db.execute(query, (table,))]
    if len(geometry_columns) != 1:
        return f"table {table!r} has {len(geometry_columns)} geometry columns"
    info = list(db.execute(f'PRAGMA table_info("{table.replace(chr(34), "")}")'))
    keys = [str(r[1]) for r in info if r[5]]
    columns = [str(r[1]) for r in info if not r[5] and str(r[1]) != geometry_columns[0]]
    names = ", ".join(f'"{c}"' for c in [geometry_columns[0], *columns])
    features = []
    order = f' ORDER BY "{keys[0]}"' if keys else ""
    for row in db.execute(f'SELECT {names} FROM "{table}"{order}'):
        geometry = gpkg_geometry(row[0])
        if isinstance(geometry, str):
            return geometry
        features.append(Feature(dict(zip(columns, row[1:], strict=True)), geometry))
    return Package(tables, columns, features)


def _single(geometry: Geometry) -> Geometry:
    kind, coords = geometry
    if kind.startswith("Multi") and isinstance(coords, list) and len(coords) == 1:
        return kind[5:], coords[0]
    return kind, coords


def _close(got: Any, want: Any, tolerance: float) -> bool:
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(float(got) - want) <= tolerance
    if isinstance(want, list):
        if not isinstance(got, list):
            return False
        if want and isinstance(want[0], (int, float)):  # a position: [x, y] (a z would be extra)
            return len(got) == len(want) and all(_close(g, w, tolerance) for g, w in zip(got, want, strict=True))
        return len(got) == len(want) and all(_close(g, w, tolerance) for g, w in zip(got, want, strict=True))
    return False


def _same_value(got: Any, want: Any) -> bool:
    if isinstance(want, float):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - want) < 1e-9
    if isinstance(want, int) and not isinstance(want, bool):
        return isinstance(got, int) and not isinstance(got, bool) and got == want
    return type(got) is type(want) and got == want


def features_problem(
    got: list[Feature], want: list[Feature], fields: list[str], *, tolerance: float = 1e-7
) -> str | None:
    """None when ``got`` holds the features ``want`` (matched by name, in any order) with exactly the
    attributes ``fields`` (values equal, a decimal within rounding) and geometries whose coordinates
    are within ``tolerance``; else the first difference."""
    if len(got) != len(want):
        return f"{len(got)} features, not {len(want)}"
    by_name = {str(f.props.get("name")): f for f in got}
    for expected in want:
        name = str(expected.props["name"])
        found = by_name.get(name)
        if found is None:
            return f"no feature named {name!r}"
        if sorted(found.props) != sorted(fields):
            return f"{name!r} has the attributes {sorted(found.props)}, not {sorted(fields)}"
        for field in fields:
            if not _same_value(found.props[field], expected.props[field]):
                return f"{name!r}: {field} is {found.props[field]!r}, not {expected.props[field]!r}"
        kind, coords = _single(found.geometry)
        if kind != expected.geometry[0] or not _close(coords, expected.geometry[1], tolerance):
            return f"{name!r}: the geometry is not where it was ({kind})"
    return None


@dataclass(frozen=True)
class Project:
    """A QGIS project read: its CRS's authority id and its map layers (id, name, data source, provider)
    in the layer tree's order."""

    crs: str | None
    layers: list[dict[str, str]]
    tree: list[str]


def _project_xml(data: bytes) -> etree._Element | str:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        return f"not XML ({str(exc)[:80]})"
    return root if root.tag == "qgis" else f"XML with the root <{root.tag}>, not a QGIS project"


def read_project(data: bytes | None, fmt: str) -> Project | str:
    """The project in ``data``, a ``.qgz`` (``fmt`` "qgz": a zip holding one ``.qgs``) or a ``.qgs``
    (plain XML), or why it is not one."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_FILE:
        return "too large"
    if fmt == "qgz":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                inner = [i for i in archive.infolist() if i.filename.endswith(".qgs")]
                if len(inner) != 1 or inner[0].file_size > MAX_FILE:
                    return f"a zip with {len(inner)} .qgs files, not one"
                xml = archive.read(inner[0])
        except (zipfile.BadZipFile, OSError) as exc:
            return f"not a .qgz zip ({exc})"
    else:
        if data.startswith(b"PK"):
            return "a zip (.qgz), not a .qgs project"
        if blank_tail(data):
            return "blank lines after the project's XML"
        xml = data
    root = _project_xml(xml)
    if isinstance(root, str):
        return root
    crs = root.findtext("projectCrs/spatialrefsys/authid")
    layers = [
        {"id": m.findtext("id") or "", "name": m.findtext("layername") or "",
         "source": m.findtext("datasource") or "", "provider": m.findtext("provider") or ""}
        for m in root.iterfind("projectlayers/maplayer")
    ]  # fmt: skip
    tree = [str(n.get("name")) for n in root.iter("layer-tree-layer")]
    return Project(crs, layers, tree)


def source_path(source: str, project: str, home: str) -> str:
    """A layer's data source as a path relative to home (``home`` its absolute path): QGIS saves it
    relative to the project's folder (``./gis/x.geojson``) or absolute; any ``|layername=`` part is
    dropped. A path outside home stays absolute."""
    path = source.split("|", 1)[0]
    if path.startswith("/"):
        path = posixpath.normpath(path)
        return path.removeprefix(home.rstrip("/") + "/")
    return posixpath.normpath(posixpath.join(posixpath.dirname(project), path))


# --- the end state ------------------------------------------------------------------------------


def only_changed(task: Task, before: Snapshot, after: Snapshot, expect: Sequence[str]) -> bool:
    """Nothing under home changed but ``expect``, and QGIS's profile (which it rewrites whole, unchanged files too)
    only as QGIS writes it (``app_wrote``)."""
    return nothing_else_changed(task, before, after, expect=[*expect, PROFILE]) and app_wrote(
        task, before, after, [PROFILE], "QGIS", rewrites_unchanged=True
    )


async def saved_file(task: Task, session: Session, path: str) -> bytes | None:
    """The bytes of ``~/path`` when it is a plain file with one link (explained when not)."""
    _, after = await files_since_setup(task, session)
    data = await output_bytes(session, after, path)
    if data is None:
        task.explain(f"{path}: no such file (or not a plain file with one link)")
    return data


async def exported(task: Task, session: Session, path: str, problem: Callable[[bytes | None], str | None],
                   *, also: tuple[str, ...] = ()) -> list[float]:  # fmt: skip
    """An export task's reward: 1.0 when ``problem`` finds nothing wrong with the bytes of ``~/path`` (a
    plain file with one link) and no other file under home changed (QGIS's profile, ``also``, and the
    ``.qmd`` metadata file that Save As writes beside a GeoJSON or CSV while Persist layer metadata is
    on, as it starts, aside)."""
    before, after = await files_since_setup(task, session)
    wrong = problem(await output_bytes(session, after, path))
    if wrong:
        task.explain(f"{path}: {wrong}")
        return [0.0]
    sidecar = path.rsplit(".", 1)[0] + ".qmd"
    expect = [path, sidecar, QT_DIALOGS, *also]
    return [1.0 if only_changed(task, before, after, expect) else 0.0]


# --- setup and the oracle's hands ----------------------------------------------------------------


async def open_layers(task: Task, session: Session, layers: list[Layer], *, remember: bool = True) -> None:
    """Setup: each layer written as GeoJSON, QGIS3.ini written, QGIS started with the layers loaded,
    its menu bar and each layer's row in the Layers panel in the accessibility tree, the screen still,
    and (with ``remember``) the files under home remembered."""
    await write_files(session, {**{layer.path: geojson_text(layer) for layer in layers}, PROFILE_INI: INI})
    home = await env_var(session, "HOME")
    args = [f"{home}/{layer.path}" for layer in layers]
    await start(session, APP, "--noversioncheck", "--nologo", *args, title=project_title(), timeout=180)
    await wait_node(session, "menu bar", timeout=120)
    for layer in layers:
        await wait_node(session, "tree item", layer.name, timeout=120)
    await still(session)
    if remember:
        await remember_files(task, session)


async def _tree(session: Session) -> list[Node]:
    try:
        return await session.accessibility_tree()
    except CuaError:
        return []


async def node(
    session: Session,
    role: str,
    name: str | None = None,
    title: str | Callable[[str], bool] | None = None,
    where: Callable[[Node], bool] | None = None,
) -> Node | None:
    """The first widget of ``role`` on screen (named ``name``, in the window whose title is or passes
    ``window``, passing ``where``), front window first."""
    for top in await _tree(session):
        shown = str(top.get("name") or "")
        if title is not None and not (shown == title if isinstance(title, str) else title(shown)):
            continue
        for found in walk([top]):
            if found.get("role") != role or not found.get("bounds"):
                continue
            if name is not None and found.get("name") != name:
                continue
            if where is None or where(found):
                return found
    return None


async def wait_node(
    session: Session,
    role: str,
    name: str | None = None,
    title: str | Callable[[str], bool] | None = None,
    where: Callable[[Node], bool] | None = None,
    timeout: float = PATIENCE,
) -> Node:
    return await wait_for(lambda: node(session, role, name, title, where), f"the {role} {name or ''}", timeout)


async def click_node(session: Session, role: str, name: str | None = None,
                     title: str | Callable[[str], bool] | None = None, where: Callable[[Node], bool] | None = None,
                     *, double: bool = False) -> Node:  # fmt: skip
    """Oracle move: the widget clicked in its middle once it shows."""
    found = await wait_node(session, role, name, title, where)
    await act(session, Click(center(found), clicks=2 if double else 1))
    return found


def _popped(found: Node) -> bool:
    bounds = found.get("bounds") or [0, 0, 0, 0]
    return bool(bounds[0] > 0 or bounds[1] > 0)  # a closed menu's items sit at the screen's corner


async def menu(session: Session, top: str, item: str) -> None:
    """Oracle move: the main window's menu ``top`` clicked and its item ``item`` clicked once it shows
    (three tries: a click on the bar while a dialog was closing can go nowhere)."""
    for _ in range(3):
        await click_node(session, "menu item", top, project_title())
        try:
            found = await wait_node(session, "menu item", item, where=_popped, timeout=8)
        except TaskError:
            await act(session, key("escape"))
            continue
        await act(session, Click(center(found)))
        return
    raise TaskError(f"QGIS's menu {top} would not show {item!r}")


async def set_text(session: Session, field: Callable[[], Any], text: str, what: str) -> None:
    """Oracle move: the text field that ``field`` finds clicked, emptied, ``text`` typed, until the tree
    reads it so."""
    for _ in range(4):
        found = await wait_for(field, what)
        if (found.get("value") or "") == text:
            return
        await act(session, Click(center(found)), Wait(0.2), key("ctrl+a"), key("delete"), TypeText(text), Wait(0.3))
        try:
            await wait_for(lambda: _reads(field, text), f"{what} to read {text!r}", timeout=5)
            return
        except TaskError:
            continue
    raise TaskError(f"{what} would not take {text!r}")


async def _reads(field: Callable[[], Any], text: str) -> bool:
    found = await field()
    return found is not None and (found.get("value") or "") == text


async def choose(session: Session, box: Callable[[], Any], item: str, what: str) -> None:
    """Oracle move: the drop-down that ``box`` finds opened with a click, ``item`` typed into its list
    (Qt picks the entry that starts so) and Enter, until the box shows it."""
    for _ in range(4):
        found = await wait_for(box, what)
        if found.get("name") == item:
            return
        await act(session, Click(center(found)), Wait(0.5), TypeText(item), Wait(0.2), key("enter"), Wait(0.3))
        try:
            await wait_for(lambda: _named(box, item), f"{what} to show {item!r}", timeout=5)
            return
        except TaskError:
            await act(session, key("escape"))
            continue
    raise TaskError(f"{what} would not show {item!r}")


async def _named(box: Callable[[], Any], item: str) -> bool:
    found = await box()
    return found is not None and found.get("name") == item


async def set_check(session: Session, box: Callable[[], Any], checked: bool, what: str, *, space: bool = False) -> None:
    """Oracle move: the check box (or a table's checkable cell, with ``space``: clicked, then Space)
    that ``box`` finds toggled until the tree reads it ``checked``."""
    for attempt in range(4):
        found = await wait_for(box, what)
        if ("checked" in (found.get("states") or [])) == checked:
            return
        if space and attempt % 2 == 0:  # a checkable cell: its box at the cell's left edge
            left, top, _, bottom = found["bounds"]
            actions: list[Any] = [Click(Point(left + 10 * 1000 / session.width, (top + bottom) / 2)), Wait(0.2)]
        else:
            actions = [Click(center(found)), Wait(0.2)] + ([key("space")] if space else [])
        await act(session, *actions)
        with contextlib.suppress(TaskError):
            await wait_for(lambda: _checked(box, checked), f"{what} to be {'on' if checked else 'off'}", timeout=4)
    found = await wait_for(box, what)
    if ("checked" in (found.get("states") or [])) != checked:
        raise TaskError(f"{what} would not turn {'on' if checked else 'off'}")


async def _checked(box: Callable[[], Any], checked: bool) -> bool:
    found = await box()
    return found is not None and ("checked" in (found.get("states") or [])) == checked


SAVE_LAYER = "Save Vector Layer as…"
CRS_SELECTOR = "Coordinate Reference System Selector"


def _in(title: str) -> Callable[[str], bool]:
    return lambda name: name == title


async def pick_crs(session: Session, dialog: Callable[[str], bool], code: str) -> None:
    """Oracle move: in a CRS selector (its own dialog or Project Properties' CRS page), ``code``
    ("EPSG:3857") typed into the Filter field and its row in the predefined list clicked."""
    await set_text(session, lambda: node(session, "text", None, dialog, _right_of_filter), code, "the CRS filter")
    row = await wait_node(session, "tree item", code, dialog)
    await act(session, Click(center(row)))
    await wait_for(lambda: node(session, "tree item", code, dialog, _selected), f"{code} selected")


def _selected(found: Node) -> bool:
    return "selected" in (found.get("states") or [])


def _right_of_filter(found: Node) -> bool:
    return "editable" in (found.get("states") or []) and found.get("name") == ""


async def save_layer_as(
    session: Session,
    layer: str,
    fmt: str,
    path: str,
    *,
    layer_name: str | None = None,
    crs: str | None = None,
    drop: tuple[str, ...] = (),
    selected_only: bool = False,
) -> None:
    """Oracle move: ``layer`` picked in the Layers panel, Layer > Save As…, the format ``fmt`` (as the
    Format list names it: "GeoPackage", "GeoJSON", "Comma Separated Value [CSV]") chosen, the file
    name ``~/path`` typed (absolute), and as asked the layer name, the CRS (its selector), the fields
    in ``drop`` unticked and Save only selected features ticked; OK, then the wait for the dialog to
    close and the file to be there."""
    await click_node(session, "tree item", layer, project_title())
    await menu(session, "Layer", "Save As…")
    dialog = _in(SAVE_LAYER)
    await wait_node(session, "push button", "OK", dialog)
    await choose(session, lambda: node(session, "combo box", None, dialog, _format_box), fmt, "the Format list")
    home = await env_var(session, "HOME")
    await set_text(session, lambda: _file_name(session, dialog), f"{home}/{path}", "the File name field")
    if layer_name is not None:
        await set_text(session, lambda: node(session, "text", "Layer name", dialog), layer_name, "the Layer name field")
    if crs is not None:
        crs_box = await wait_node(session, "combo box", None, dialog, lambda n: str(n.get("name")).startswith("EPSG:"))
        await click_node(session, "push button", "", dialog, lambda n: _beside(n, crs_box))
        await pick_crs(session, _in(CRS_SELECTOR), crs)
        await click_node(session, "push button", "OK", _in(CRS_SELECTOR))
        await wait_node(session, "combo box", None, dialog, lambda n: str(n.get("name")).startswith(f"{crs} "))
    if drop:
        fields = "Select fields to export and their export options"
        await click_node(session, "push button", fields, dialog)
        await wait_for(lambda: _expanded(session, dialog, drop[0]), "the fields to export to show")
    for field in drop:
        cell = lambda f=field: node(session, "cell", f, dialog)  # noqa: E731
        await set_check(session, cell, False, f"the field {field}", space=True)
    if selected_only:
        await set_check(session, lambda: node(session, "check box", "Save only selected features", dialog), True,
                        "Save only selected features")  # fmt: skip
    await click_node(session, "push button", "OK", dialog, lambda n: "enabled" in (n.get("states") or []))
    await wait_for(lambda: _no_window(session, dialog), "the Save dialog to close")

    async def there() -> bool:  # QGIS adds the format's extension to a name that lacks it
        found = await session.run_command(f"ls {shell(path)}*", timeout=20)
        return found.returncode == 0 and bool(found.stdout.strip())

    await wait_for(there, f"{path} to be written")
    await still(session)


async def _no_window(session: Session, match: Callable[[str], bool]) -> bool:
    return not any(match(str(info["title"])) for info in await session.windows())


async def _expanded(session: Session, dialog: Callable[[str], bool], field: str) -> bool:
    """Whether the Save dialog's field list shows (its group expanded): the Select All button is on screen."""
    return await node(session, "push button", "Select All", dialog) is not None


def _format_box(found: Node) -> bool:
    return str(found.get("name")) in ("GeoPackage", "GeoJSON", "Comma Separated Value [CSV]", "ESRI Shapefile") or (
        "[" in str(found.get("name")) and "]" in str(found.get("name"))
    )


def _beside(found: Node, box: Node) -> bool:
    a, b = found.get("bounds") or [0, 0, 0, 0], box["bounds"]
    return bool(abs(a[1] - b[1]) < 5 and 0 <= a[0] - b[2] < 10)


async def _file_name(session: Session, dialog: Callable[[str], bool]) -> Node | None:
    for top in await _tree(session):
        if not dialog(str(top.get("name") or "")):
            continue
        for found in walk([top]):
            if found.get("role") == "filler" and found.get("name") == "File name":
                return next((c for c in found.get("children") or [] if c.get("role") == "text"), None)
    return None


# --- more of the oracle's hands: selection, the attribute table, projects --------------------------


def _dialog_of(suffix: str) -> Callable[[str], bool]:
    return lambda title: title.endswith(suffix)


async def select_by_expression(session: Session, layer: str, expression: str) -> None:
    """Oracle move: ``layer`` picked in the Layers panel, Edit > Select > Select Features by Expression
    (ctrl+F3), ``expression`` typed into its editor, Select Features clicked, the dialog closed."""
    await click_node(session, "tree item", layer, project_title())
    dialog = _dialog_of(" — Select by Expression")
    for _ in range(3):
        await act(session, key("ctrl+F3"))
        try:
            await wait_node(session, "push button", "Select Features", dialog, timeout=8)
            break
        except TaskError:
            continue
    editor = await wait_node(
        session,
        "text",
        None,
        dialog,
        lambda n: (
            "editable" in (n.get("states") or [])
            and (n.get("bounds") or [0, 0, 0, 0])[3] - (n.get("bounds") or [0, 0, 0, 0])[1] > 100
        ),
    )
    await act(session, Click(center(editor)), Wait(0.2), key("ctrl+a"), key("delete"), TypeText(expression), Wait(0.5))
    await click_node(session, "push button", "Select Features", dialog)
    await act(session, Wait(0.5))
    await click_node(session, "push button", "Close", dialog)
    await wait_for(lambda: _no_window(session, dialog), "the Select by Expression dialog to close")


TABLE = " — Features Total: "


def table_title(layer: str) -> Callable[[str], bool]:
    """The attribute table's title: `` NAME — Features Total: N, Filtered: N, Selected: N``."""
    return lambda title: title.strip().startswith(f"{layer} — Features Total: ")


async def open_table(session: Session, layer: str, *, editing: bool = True) -> None:
    """Oracle move: ``layer`` picked in the Layers panel, its attribute table opened (F6) and, with
    ``editing``, its Toggle editing mode button on."""
    await click_node(session, "tree item", layer, project_title())
    for _ in range(3):
        await act(session, key("F6"))
        try:
            await wait_node(session, "table", None, table_title(layer), timeout=10)
            break
        except TaskError:
            continue
    if editing:
        await set_check(session, lambda: node(session, "check box", "Toggle editing mode", table_title(layer)), True,
                        "Toggle editing mode")  # fmt: skip


async def edit_cell(session: Session, layer: str, row_name: str, field: str, value: str) -> None:
    """Oracle move: in the open attribute table, the cell of the feature named ``row_name`` in the
    column ``field`` double-clicked, ``value`` typed and Enter, until the cell reads it."""
    title = table_title(layer)
    for _ in range(3):
        header = await wait_node(session, "column header", field, title)
        row = await wait_node(session, "cell", row_name, title)
        x = (header["bounds"][0] + header["bounds"][2]) / 2
        y = (row["bounds"][1] + row["bounds"][3]) / 2
        await act(session, Click(Point(x, y), clicks=2), Wait(0.8), key("ctrl+a"), TypeText(value), key("enter"))
        try:
            await wait_node(session, "cell", value, title, _in_row(y), timeout=5)
            return
        except TaskError:
            await act(session, key("escape"))
    raise TaskError(f"the cell {field} of {row_name!r} would not take {value!r}")


def _in_row(y: float) -> Callable[[Node], bool]:
    return lambda found: bool(abs((found["bounds"][1] + found["bounds"][3]) / 2 - y) < 3)


async def save_edits(session: Session, layer: str, path: str) -> None:
    """Oracle move: the attribute table's Save edits clicked, and the wait for ``~/path`` to change."""
    try:
        before = await session.read_bytes(path)
    except (OSError, CuaError, ValueError):
        before = b""
    await click_node(session, "push button", "Save edits", table_title(layer),
                     lambda n: "enabled" in (n.get("states") or []))  # fmt: skip

    async def changed() -> bool:
        try:
            return await session.read_bytes(path) != before
        except (OSError, CuaError, ValueError):
            return False

    await wait_for(changed, f"{path} to be saved")
    await still(session)


CALCULATOR = " — Field Calculator"


async def calculate_field(session: Session, layer: str, name: str, expression: str, *, virtual: bool = False) -> None:
    """Oracle move: the open attribute table's field calculator, a new whole-number field ``name``
    (virtual with ``virtual``) filled with ``expression``; OK, and the wait for its column."""
    dialog = _dialog_of(CALCULATOR)
    await click_node(session, "push button", "Open field calculator", table_title(layer))
    await wait_node(session, "push button", "OK", dialog)
    await set_text(session, lambda: node(session, "text", "Output field name", dialog), name, "the Output field name")
    if virtual:
        await set_check(session, lambda: node(session, "check box", "Create virtual field", dialog), True,
                        "Create virtual field")  # fmt: skip
    editor = await wait_node(
        session,
        "text",
        None,
        dialog,
        lambda n: (
            "editable" in (n.get("states") or [])
            and (n.get("bounds") or [0, 0, 0, 0])[3] - (n.get("bounds") or [0, 0, 0, 0])[1] > 100
        ),
    )
    await act(session, Click(center(editor)), Wait(0.2), key("ctrl+a"), key("delete"), TypeText(expression), Wait(0.8))
    await click_node(session, "push button", "OK", dialog, lambda n: "enabled" in (n.get("states") or []))
    await wait_for(lambda: _no_window(session, dialog), "the Field Calculator to close")
    await wait_node(session, "column header", name, table_title(layer))


async def rename_layer(session: Session, layer: str, name: str) -> None:
    """Oracle move: ``layer``'s row in the Layers panel picked, F2, ``name`` typed and Enter, until the
    row reads ``name``."""
    for _ in range(3):
        await click_node(session, "tree item", layer, project_title())
        await act(session, Wait(0.3), key("F2"), Wait(0.5), key("ctrl+a"), TypeText(name), key("enter"))
        try:
            await wait_node(session, "tree item", name, project_title(), timeout=5)
            return
        except TaskError:
            await act(session, key("escape"))
    raise TaskError(f"the layer {layer!r} would not take the name {name!r}")


SAVE_PROJECT = "Save Project As"


async def save_project_as(session: Session, path: str) -> None:
    """Oracle move: Project > Save As… (ctrl+shift+s), the absolute ``~/path`` (a ``.qgz``) typed into the
    dialog's File name and Enter; waits for QGIS's title to show the saved project."""
    dialog = _in(SAVE_PROJECT)
    for _ in range(3):
        await act(session, key("ctrl+shift+s"))
        try:
            await wait_node(session, "text", "File name:", dialog, timeout=8)
            break
        except TaskError:
            continue
    home = await env_var(session, "HOME")
    await set_text(session, lambda: node(session, "text", "File name:", dialog), f"{home}/{path}", "the File name")
    await act(session, key("enter"))
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    await wait_for(lambda: _no_window(session, dialog), "the Save Project As dialog to close")
    await window(session, project_title(stem, dirty=False))
    await still(session)


PROPERTIES_CRS = "Project Properties — CRS"


async def set_project_crs(session: Session, code: str) -> None:
    """Oracle move: the status bar's CRS button (Project Properties, its CRS page), ``code`` picked
    (``pick_crs``) and OK; waits for the button to show the new CRS."""
    button = await wait_node(
        session, "push button", None, project_title(), lambda n: str(n.get("name")).startswith("EPSG:")
    )
    await act(session, Click(center(button)))
    dialog = _in(PROPERTIES_CRS)
    await wait_node(session, "push button", "OK", dialog)
    await pick_crs(session, dialog, code)
    await click_node(session, "push button", "OK", dialog)
    await wait_for(lambda: _no_window(session, dialog), "Project Properties to close")
    await wait_node(session, "push button", code, project_title())


async def live_project(task: Task, session: Session, path: str) -> bool:
    """Whether QGIS itself shows the project ``~/path`` saved and open: its title ``STEM — QGIS`` without
    a ``*`` (a file written behind its back leaves the title as it was); explained when not."""
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    titles = [str(info["title"]) for info in await session.windows()]
    if not any(project_title(stem, dirty=False)(t) for t in titles):
        task.explain(f"QGIS does not show the project {stem} saved (its windows: {titles[:4]})")
        return False
    return True


async def project_score(task: Task, session: Session, path: str, fmt: str,
                        problem: Callable[[Project, str], str | None]) -> list[float]:  # fmt: skip
    """A project task's reward: 1.0 when ``~/path`` is a plain file with one link holding a ``fmt``
    project in which ``problem`` (given home's absolute path) finds nothing wrong, QGIS shows it saved
    (``live_project``) and no other file under home changed (QGIS's profile aside)."""
    before, after = await files_since_setup(task, session)
    found = read_project(await output_bytes(session, after, path), fmt)
    wrong = found if isinstance(found, str) else problem(found, await env_var(session, "HOME"))
    if wrong:
        task.explain(f"{path}: {wrong}")
        return [0.0]
    if not await live_project(task, session, path):
        return [0.0]
    expect = [path, QT_DIALOGS]
    return [1.0 if only_changed(task, before, after, expect) else 0.0]


def layers_problem(project: Project, path: str, home: str, want: dict[str, str]) -> str | None:
    """None when the project (saved at ``~/path``; home at ``home``) holds exactly the layers ``want`` ({name: data
    source relative to home}), each read by OGR, and its layer tree lists each once."""
    got = {layer["name"]: source_path(layer["source"], path, home) for layer in project.layers}
    if got != want or len(project.layers) != len(want):
        return f"the layers {got}, not {want}"
    if any(layer["provider"] != "ogr" for layer in project.layers):
        return "a layer not read from its file by OGR"
    if sorted(project.tree) != sorted(want):
        return f"the layer tree lists {project.tree}, not {sorted(want)}"
    return None
