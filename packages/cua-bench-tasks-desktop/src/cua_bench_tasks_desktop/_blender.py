"""Blender 3.4 in the desktop tasks: seeded scenes, the app started on one, the oracle's keys and
clicks at known places of its window, and saved and exported files read back whole (not a task: no
``main.py``).

**The scenes.** ``scene`` draws a seed: a camera, a light and four mesh primitives of distinct kinds
(cube, UV sphere, cylinder, cone, torus, monkey, ico sphere), each named after a noun (its mesh
named the same), at distinct places on a 2 m grid, with a render resolution and a frame range. Setup
builds it with Blender itself (``blender -b --factory-startup --python-expr``) from the metadata, as
the environment's user, and saves it as ``~/path``; the same run saves Blender's preferences
(``PREFS``): no splash and no first-run Quick Setup, no autosave to the temp folder, no ``.blend1``
backup on save (``save_version = 0``) and no preferences written on quit. Setup then starts Blender on
the file (openbox maximises its window, so its layout is Blender's default at 1280x800) and keeps a
dump of the seed (``DUMP``) for the evaluator.

**Read back whole.** A ``.blend`` is read by Blender itself, in the evaluator: ``dump`` runs
``blender -b FILE --python-expr DUMP`` (``--factory-startup``, ``--disable-autoexec`` so the file's
own scripts never run, and HOME and Blender's user folders pointed at a fresh temp folder outside
home, so no startup script or add-on an agent left under home runs) and parses the one line of JSON
it prints: the file's path as loaded (Blender falls back to its factory scene on a file it cannot
read), the render settings, the counts of every kind of data, and each object with its type, data,
transform, parent, collections, modifiers, visibility and its mesh (counts, local coordinates and
faces). ``scene_problems`` compares a dump with the one expected, field by field. The file itself
must be a plain file with one link beginning ``BLENDER-v304`` (an uncompressed save of Blender
3.4: a file saved with compression, or by another version, is not accepted). Exports are read with
the stdlib: OBJ line by line (``read_obj``: only the statements Blender writes, nothing after its
last line), binary STL with ``struct`` (``read_stl``: its size exactly 84 + 50 per triangle), and
compared with the seed's world-space vertices (``world_vertices``).

**What Blender writes.** Blender writes ``recent-files.txt`` and ``platform_support.txt`` under
``CONFIG`` when it starts on a file, before setup's snapshot; a save to the same path does not rewrite
them (measured), so the save tasks allow no change but the .blend itself. No ``.blend1`` backup is
made (``save_version = 0`` in setup's preferences: a backup would be a second copy of the seed under
home), and no autosave. File View rewrites its ``bookmarks.txt`` (recent folders) when it closes: the
export tasks let that one file change (``ALLOWED``).

**On the screen.** Blender draws its own widgets with OpenGL: nothing of it reaches the
accessibility bus, so oracles play with keys and clicks at the places of its default layout
(``Spot``), and wait on its title (``Blender* [PATH]`` while unsaved), its File View window, and
the file appearing. Keys go to the region under the pointer: the oracle moves the pointer over the
3D viewport first. An object is picked by its row in the Outliner (rows sorted by name), which
makes it the active object the Properties editor shows.
"""

from __future__ import annotations

import io
import json
import math
import os
import random
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from cua_bench import Session, Task, TaskError
from cua_bench_tasks_desktop._common import (
    NOUNS,
    OUTPUT_IS_THE_WORK,
    act,
    env_var,
    files_since_setup,
    key,
    no_window,
    nothing_else_changed,
    output_bytes,
    remember_files,
    shell,
    start,
    wait_for,
    window,
)
from cua_bench_tasks_desktop._office import still
from cua_core import Action, Click, CuaError, MouseMove, Point, TypeText, Wait

__all__ = [
    "ALLOWED",
    "APP",
    "CONFIG",
    "DUMP",
    "FILE_VIEW",
    "HEADER",
    "KINDS",
    "OBJ_SELECTED",
    "PREFS",
    "STL_ASCII",
    "STL_SELECTED",
    "WAIVERS",
    "Dump",
    "Obj",
    "Spot",
    "Stl",
    "blend_title",
    "click",
    "dump",
    "edit",
    "edit_field",
    "export_task",
    "export_to",
    "exported_scored",
    "mesh_objects",
    "meshes",
    "moved_to",
    "next_object",
    "open_in_blender",
    "parse_dump",
    "pick",
    "read_obj",
    "read_stl",
    "same_points",
    "save",
    "saved_scene",
    "scene",
    "scene_problems",
    "scored_blend",
    "seed_of",
    "seed_script",
    "to_viewport",
    "triangles",
    "typed",
    "with_object",
    "without_object",
    "world_vertices",
]

GLX = "CUA_LOCAL_GLX"
"""What turns GLX on in the local backend's X servers (``cua_bench.backends.local.display``): Blender needs it."""

APP = "blender"
CONFIG = ".config/blender/3.4"
ALLOWED = [f"{CONFIG}/config/bookmarks.txt"]
"""File View's bookmarks and recent folders, which Blender rewrites on its own when File View closes."""
HEADER = b"BLENDER-v304"
"""How a .blend saved by Blender 3.4 begins (uncompressed, 64-bit pointers, little-endian)."""
FILE_VIEW = "Blender File View"
WAIVERS = {
    **OUTPUT_IS_THE_WORK,
    "trailing-blank-lines": "the work is a binary file (a .blend or a binary STL, which the mutation leaves alone); "
    "the only text file Blender changes is File View's bookmarks.txt (ALLOWED, in the export tasks), which it "
    "rewrites on its own",
}
"""What the tasks that save the .blend waive, and why (their ``WAIVED``)."""
KINDS = ("cube", "sphere", "cylinder", "cone", "torus", "monkey", "ico")
MAX_OUTPUT = 16 << 20
"""The largest export the evaluator reads (the seeds' are well under 1 MiB)."""

PREFS = """
import bpy
p = bpy.context.preferences
p.view.show_splash = False
p.filepaths.use_auto_save_temporary_files = False
p.filepaths.save_version = 0
p.use_preferences_save = False
bpy.ops.wm.save_userpref()
"""
"""Blender's preferences as setup saves them (see the module's docstring)."""

SEED = """
import bpy, json
spec = json.loads(SPEC)
for o in list(bpy.data.objects):
    if o.type == "MESH":
        bpy.data.objects.remove(o)
for m in list(bpy.data.meshes):
    bpy.data.meshes.remove(m)
adders = {
    "cube": bpy.ops.mesh.primitive_cube_add,
    "sphere": bpy.ops.mesh.primitive_uv_sphere_add,
    "cylinder": bpy.ops.mesh.primitive_cylinder_add,
    "cone": bpy.ops.mesh.primitive_cone_add,
    "torus": bpy.ops.mesh.primitive_torus_add,
    "monkey": bpy.ops.mesh.primitive_monkey_add,
    "ico": bpy.ops.mesh.primitive_ico_sphere_add,
}
for item in spec["objects"]:
    adders[item["kind"]](location=item["location"])
    o = bpy.context.active_object
    o.name = item["name"]
    o.data.name = item["name"]
    o.scale = item["scale"]
bpy.ops.object.select_all(action="DESELECT")
scene = bpy.context.scene
scene.render.resolution_x, scene.render.resolution_y = spec["resolution"]
scene.frame_start, scene.frame_end = spec["frames"]
bpy.ops.wm.save_as_mainfile(filepath=spec["path"])
"""

DUMP = """
import bpy, json
def r(values):
    return [round(float(v), 4) + 0.0 for v in values]
view_layer = bpy.context.scene.view_layers[0]
objects = []
for o in bpy.data.objects:
    item = {
        "name": o.name, "type": o.type, "data": o.data.name if o.data else None,
        "location": r(o.location), "rotation": r(o.rotation_euler), "scale": r(o.scale),
        "parent": o.parent.name if o.parent else None,
        "collections": sorted(c.name for c in o.users_collection),
        "modifiers": [[m.type, getattr(m, "levels", None)] for m in o.modifiers],
        "hidden": [o.hide_viewport, o.hide_render, o.hide_get(view_layer=view_layer)],
        "matrix": [r(row) for row in o.matrix_world],
    }
    if o.type == "MESH":
        me = o.data
        item["mesh"] = {
            "vertices": [r(v.co) for v in me.vertices],
            "faces": [list(p.vertices) for p in me.polygons],
            "edges": len(me.edges),
        }
    objects.append(item)
scene = bpy.context.scene
render = scene.render
kinds = ("objects", "meshes", "materials", "cameras", "lights", "collections", "scenes", "images", "texts",
         "node_groups", "actions", "curves", "worlds")
out = {
    "file": bpy.data.filepath,
    "scene": scene.name,
    "render": [render.resolution_x, render.resolution_y, render.resolution_percentage, scene.frame_start,
               scene.frame_end, scene.frame_step, render.fps, render.engine],
    "camera": scene.camera.name if scene.camera else None,
    "counts": {k: len(getattr(bpy.data, k)) for k in kinds},
    "in_scene": sorted(o.name for o in scene.objects),
    "objects": sorted(objects, key=lambda o: o["name"]),
}
print("CUA-BLEND-DUMP " + json.dumps(out, sort_keys=True))
"""
"""What the evaluators read of a .blend: printed as one line ``CUA-BLEND-DUMP {json}``."""
MARK = "CUA-BLEND-DUMP "

Dump = dict[str, Any]


# --- seeds ---------------------------------------------------------------------------------------------

FOLDERS = ("models", "scenes", "blender", "projects", "renders")
STEMS = ("scene", "layout", "props", "level", "set", "study", "shot", "mockup")
RESOLUTIONS = ((1920, 1080), (1280, 720), (1024, 768), (800, 600), (1600, 900), (2560, 1440))
ENDS = (120, 180, 200, 240, 250, 300)


def scene(rng: random.Random) -> dict[str, Any]:
    """A seed: ``path`` (``FOLDER/STEM.blend``) and ``scene`` (four mesh objects with their kinds,
    names and places; the render resolution; the frame range)."""
    pool = [n.capitalize() for n in NOUNS if n not in ("camera",)]
    names = sorted(rng.sample(pool, 4))
    kinds = rng.sample(KINDS, 4)
    spots = rng.sample([(x, y) for x in range(-4, 5, 2) for y in range(-4, 5, 2) if (x, y) != (0, 0)], 4)
    objects = [
        {"name": n, "kind": k, "location": [float(x), float(y), 0.0], "scale": [1.0, 1.0, 1.0]}
        for n, k, (x, y) in zip(names, kinds, spots, strict=True)
    ]
    path = f"{rng.choice(FOLDERS)}/{rng.choice(STEMS)}{rng.choice('_-')}{rng.randint(1, 99)}.blend"
    resolution = list(rng.choice(RESOLUTIONS))
    return {"path": path, "scene": {"objects": objects, "resolution": resolution, "frames": [1, rng.choice(ENDS)]}}


def mesh_objects(meta: dict[str, Any]) -> list[str]:
    """The seed's mesh objects' names, sorted."""
    return sorted(item["name"] for item in meta["scene"]["objects"])


def next_object(meta: dict[str, Any], name: str) -> str:
    """The mesh object after ``name`` in the Outliner (the one before, for the last): the wrong ways' neighbour."""
    names = mesh_objects(meta)
    at = names.index(name)
    return names[at + 1] if at + 1 < len(names) else names[at - 1]


def export_task(rng: random.Random, what: str, ext: str, suffixes: list[str]) -> Task:
    """An "export only this object" variant: the scene, one of its meshes, and ``~/FOLDER/NAME{suffix}{ext}``
    to export it to as ``what`` ("a Wavefront OBJ file")."""
    meta = scene(rng)
    name = rng.choice(mesh_objects(meta))
    folder = meta["path"].rsplit("/", 1)[0]
    out = f"{folder}/{name.lower()}{rng.choice(suffixes)}{ext}"
    return Task(
        description=f'The scene ~/{meta["path"]} is open in Blender. Export only the object "{name}" (no other '
        f"object) as {what} ~/{out}, with Blender's default export settings otherwise. "
        f"Leave the .blend file as it is.",
        metadata={**meta, "name": name, "out": out},
        max_steps=15,
        chance=0.0,
    )


def seed_script(meta: dict[str, Any], home: str) -> str:
    """The Python that setup runs in ``blender -b``: the preferences, then the seed saved at ``~/path``."""
    spec = {**meta["scene"], "path": f"{home}/{meta['path']}"}
    return f"{PREFS}\nSPEC = {json.dumps(json.dumps(spec))}\n{SEED}"


# --- reading a .blend ---------------------------------------------------------------------------------


def _command(home: str, path: str) -> str:
    """``blender -b`` on ``~/path`` printing ``DUMP``, cut off from everything under home: the system's
    programs by absolute path and PATH (no program an agent left under home runs in their place), HOME
    and Blender's user folders a fresh temp folder, factory settings, no autoexec."""
    blend = f"{home}/{path}"
    return (
        'export PATH=/usr/bin:/bin; tmp=$(mktemp -d) && HOME="$tmp" BLENDER_USER_CONFIG="$tmp/config" '
        'BLENDER_USER_SCRIPTS="$tmp/scripts" BLENDER_USER_DATAFILES="$tmp/data" '
        "timeout 120 /usr/bin/blender -b --factory-startup --disable-autoexec -noaudio "
        f"{shell(blend)} --python-exit-code 3 --python-expr {shell(DUMP)}; "
        'rc=$?; rm -rf "$tmp"; exit $rc'
    )


def parse_dump(stdout: str, path: str) -> Dump | str:
    """The dump in Blender's output, or why there is none: exactly one ``MARK`` line, JSON, of the
    file at ``path`` (absolute) as Blender loaded it."""
    lines = [line for line in stdout.splitlines() if line.startswith(MARK)]
    if len(lines) != 1:
        return f"Blender printed {len(lines)} dumps (it could not read the file?)"
    try:
        found = json.loads(lines[0][len(MARK) :])
    except json.JSONDecodeError as exc:
        return f"the dump is no JSON ({exc})"
    if not isinstance(found, dict) or found.get("file") != path:
        return "Blender did not load the file (it fell back to its factory scene)"
    return found


async def dump(session: Session, path: str) -> Dump | str:
    """What Blender reads in ``~/path`` (``DUMP``), or why it could not."""
    home = await env_var(session, "HOME")
    result = await session.run_command(_command(home, path), timeout=150)
    if result.returncode != 0:
        return f"Blender could not read it (exit {result.returncode}: {result.stderr.strip()[-200:]})"
    return parse_dump(result.stdout, f"{home}/{path}")


async def saved_scene(task: Task, session: Session, path: str) -> Dump | None:
    """The .blend at ``~/path`` as the end state has it: a plain file with one link that begins with
    ``HEADER``, dumped by Blender; None (explained) when it is not one."""
    _, after = await files_since_setup(task, session)
    data = await output_bytes(session, after, path)
    if data is None:
        task.explain(f"{path}: no such file (or not a plain file with one link)")
        return None
    if not data.startswith(HEADER):
        task.explain(f"{path}: not an uncompressed Blender 3.4 file (it begins {data[:12]!r})")
        return None
    found = await dump(session, path)
    if isinstance(found, str):
        task.explain(f"{path}: {found}")
        return None
    return found


async def scored_blend(task: Task, session: Session, want: Dump) -> list[float]:
    """A save task's reward: 1.0 when ``~/path`` is a .blend (``saved_scene``) whose dump is ``want``
    in every field (``scene_problems``) and no other file under home changed (the path alone is expected)."""
    path = task.metadata["path"]
    found = await saved_scene(task, session, path)
    if found is None:
        return [0.0]
    problems = scene_problems(found, want)
    if problems:
        task.explain(f"{path}: {'; '.join(problems[:5])}{' ...' if len(problems) > 5 else ''}")
        return [0.0]
    before, after = await files_since_setup(task, session)
    return [1.0 if nothing_else_changed(task, before, after, expect=[path]) else 0.0]


def seed_of(task: Task) -> Dump:
    """The seed's dump, as setup kept it."""
    seed = task.scratch.get("seed")
    if not isinstance(seed, dict):
        raise TaskError("setup kept no dump of the seed")
    return seed


def moved_to(item: dict[str, Any], location: list[float]) -> dict[str, Any]:
    """An object's dump with its location (and its matrix's translation) set to ``location``."""
    matrix = [[*row[:3], location[i] if i < 3 else row[3]] for i, row in enumerate(item["matrix"])]
    return {**item, "location": [float(v) for v in location], "matrix": matrix}


def _object(found: Dump, name: str) -> dict[str, Any] | None:
    return next((o for o in found.get("objects", []) if o.get("name") == name), None)


def scene_problems(got: Dump, want: Dump) -> list[str]:
    """Where ``got`` differs from ``want`` (every field of the dump but the file's path); [] when it does not."""
    problems = []
    for field in sorted(set(got) | set(want)):
        if field in ("file", "objects"):
            continue
        if got.get(field) != want.get(field):
            problems.append(f"{field} is {got.get(field)!r}, not {want.get(field)!r}")
    names = [o["name"] for o in got.get("objects", [])]
    wanted = [o["name"] for o in want.get("objects", [])]
    for name in sorted(set(names) - set(wanted)):
        problems.append(f"an object {name!r} that should not be there")
    for name in sorted(set(wanted) - set(names)):
        problems.append(f"no object {name!r}")
    for item in want.get("objects", []):
        other = _object(got, item["name"])
        if other is None:
            continue
        for field in sorted(set(item) | set(other)):
            if item.get(field) != other.get(field):
                shown = "changed" if field in ("mesh", "matrix") else f"{other.get(field)!r}, not {item.get(field)!r}"
                problems.append(f"{item['name']}'s {field}: {shown}")
    return problems


def with_object(seed: Dump, name: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Dump:
    """``seed`` with the object ``name`` replaced by ``change(it)`` (a copy; the list kept in name order)."""
    objects = [change(json.loads(json.dumps(o))) if o["name"] == name else o for o in seed["objects"]]
    out = {**seed, "objects": sorted(objects, key=lambda o: o["name"])}
    if any(o["name"] != p["name"] for o, p in zip(objects, seed["objects"], strict=True)):
        out["in_scene"] = sorted(o["name"] for o in objects)
    return out


def without_object(seed: Dump, name: str) -> Dump:
    """``seed`` with the mesh object ``name`` and its mesh gone."""
    counts = {**seed["counts"], "objects": seed["counts"]["objects"] - 1, "meshes": seed["counts"]["meshes"] - 1}
    return {
        **seed,
        "counts": counts,
        "in_scene": [n for n in seed["in_scene"] if n != name],
        "objects": [o for o in seed["objects"] if o["name"] != name],
    }


# --- exports --------------------------------------------------------------------------------------------

Point3 = tuple[float, float, float]


def world_vertices(seed: Dump, name: str) -> list[Point3]:
    """The mesh object ``name``'s vertices in world space (its matrix applied to its local coordinates)."""
    item = _object(seed, name)
    if item is None or "mesh" not in item:
        raise TaskError(f"the seed has no mesh object {name!r}")
    m = item["matrix"]
    return [
        (
            m[0][0] * x + m[0][1] * y + m[0][2] * z + m[0][3],
            m[1][0] * x + m[1][1] * y + m[1][2] * z + m[1][3],
            m[2][0] * x + m[2][1] * y + m[2][2] * z + m[2][3],
        )
        for x, y, z in item["mesh"]["vertices"]
    ]


def triangles(seed: Dump, name: str) -> int:
    """How many triangles the mesh object ``name``'s faces make (an n-gon makes n - 2)."""
    item = _object(seed, name)
    if item is None or "mesh" not in item:
        raise TaskError(f"the seed has no mesh object {name!r}")
    return sum(len(face) - 2 for face in item["mesh"]["faces"])


def meshes(seed: Dump) -> list[str]:
    return [o["name"] for o in seed["objects"] if "mesh" in o]


def same_points(got: Iterable[Point3], want: Iterable[Point3], slack: float = 2e-3) -> bool:
    """The same set of points, each within ``slack`` on every axis (rounded to a grid of ``slack``)."""

    def grid(points: Iterable[Point3]) -> set[tuple[int, int, int]]:
        return {(round(x / slack), round(y / slack), round(z / slack)) for x, y, z in points}

    a, b = grid(got), grid(want)
    if a == b:
        return True

    # A value on a cell's edge may round either way: accept a point whose neighbour cell matches.
    def near(p: tuple[int, int, int], cells: set[tuple[int, int, int]]) -> bool:
        return any((p[0] + i, p[1] + j, p[2] + k) in cells for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1))

    return all(near(p, b) for p in a) and all(near(p, a) for p in b)


@dataclass(frozen=True)
class Obj:
    """An OBJ file read whole: each object's name with its vertices (``v``) and face count (``f``)."""

    objects: dict[str, tuple[list[Point3], int]]


OBJ_STATEMENTS = ("#", "mtllib", "o", "v", "vn", "vt", "s", "usemtl", "f", "l", "g")


def read_obj(data: bytes | None) -> Obj | str:
    """An OBJ as Blender 3.4's exporter writes it, or why it is not one: UTF-8 text of known statements,
    every ``v`` three numbers, every ``f`` at least three vertex indices in range, ending with one
    newline (no blank lines at the end)."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_OUTPUT:
        return f"too large to read ({len(data)} bytes)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    if not text.endswith("\n") or text.endswith("\n\n") or "\r" in text:
        return "not ended as Blender ends an OBJ (one newline, no blank lines)"
    objects: dict[str, tuple[list[Point3], int]] = {}
    current: str | None = None
    vertices: list[Point3] = []
    owner: list[str] = []
    for number, line in enumerate(text.split("\n")[:-1], start=1):
        words = line.split()
        if not words or words[0] not in OBJ_STATEMENTS:
            return f"line {number} is not an OBJ statement: {line[:60]!r}"
        head, rest = words[0], words[1:]
        if head == "o":
            if len(rest) != 1 or rest[0] in objects:
                return f"line {number}: a bad or repeated object name"
            current = rest[0]
            objects[current] = ([], 0)
        elif head == "v":
            if current is None or len(rest) != 3:
                return f"line {number}: a vertex outside an object or not of three numbers"
            try:
                x, y, z = (float(v) for v in rest)
            except ValueError:
                return f"line {number}: a vertex that is not numbers"
            if not all(math.isfinite(v) for v in (x, y, z)):
                return f"line {number}: a vertex that is not finite"
            vertices.append((x, y, z))
            owner.append(current)
            objects[current][0].append((x, y, z))
        elif head == "f":
            if current is None or len(rest) < 3:
                return f"line {number}: a face outside an object or of fewer than three vertices"
            for corner in rest:
                index = corner.split("/")[0]
                if not index.isdigit() or not 1 <= int(index) <= len(vertices) or owner[int(index) - 1] != current:
                    return f"line {number}: a face with a vertex index out of range"
            points, faces = objects[current]
            objects[current] = (points, faces + 1)
    return Obj(objects)


@dataclass(frozen=True)
class Stl:
    """A binary STL read whole: its triangles' corners."""

    triangles: list[tuple[Point3, Point3, Point3]]


def read_stl(data: bytes | None) -> Stl | str:
    """A binary STL, or why it is not one: an 80-byte header that does not begin ``solid`` (an ASCII
    STL does), a triangle count, and exactly 50 bytes for each triangle, every number finite."""
    if data is None:
        return "no such file (or not a plain file with one link)"
    if len(data) > MAX_OUTPUT:
        return f"too large to read ({len(data)} bytes)"
    if len(data) < 84 or data.lstrip()[:5].lower() == b"solid":
        return "not a binary STL (an ASCII STL, or too short)"
    (count,) = struct.unpack_from("<I", data, 80)
    if len(data) != 84 + 50 * count:
        return f"{len(data)} bytes, not the 84 + 50 x {count} of a binary STL of {count} triangles"
    found = []
    for index in range(count):
        values = struct.unpack_from("<12fH", data, 84 + 50 * index)
        if not all(math.isfinite(v) for v in values[:12]):
            return f"triangle {index + 1} has a number that is not finite"
        a, b, c = (tuple(values[i : i + 3]) for i in (3, 6, 9))
        found.append((a, b, c))
    return Stl(found)


# --- setup and the oracle's hands ----------------------------------------------------------------------


def blend_title(home: str, path: str, *, dirty: bool | None = None) -> Callable[[str], bool]:
    """Blender's title while it shows ``~/path`` (``Blender* [...]`` with unsaved changes)."""

    def accepts(title: str) -> bool:
        if not title.endswith(f" [{home}/{path}]"):
            return False
        return dirty is None or title.startswith("Blender*") == dirty

    return accepts


async def open_in_blender(task: Task, session: Session) -> None:
    """Setup: Blender's preferences and the seed saved (``seed_script``), the seed dumped into
    ``task.scratch["seed"]``, Blender started on it and the files under home remembered."""
    if os.environ.get(GLX) != "1":
        # Without it Blender exits at once ("GLX_ARB_create_context not available"), and the window never comes.
        raise TaskError(
            f"Blender draws with OpenGL, and this desktop's X server has no GLX: set {GLX}=1 where the env server "
            "starts (the local backend leaves GLX off by default, 25 MiB less per display)"
        )
    home = await env_var(session, "HOME")
    meta = task.metadata
    await session.run_command(f"mkdir -p {shell(meta['path'].rsplit('/', 1)[0])}", timeout=20, check=True)
    made = await session.run_command(
        f"blender -b --factory-startup -noaudio --python-exit-code 3 --python-expr {shell(seed_script(meta, home))}",
        timeout=150,
    )
    if made.returncode != 0:
        raise TaskError(f"Blender could not build the seed: {made.stderr.strip()[-300:]}")
    seed = await dump(session, meta["path"])
    if isinstance(seed, str):
        raise TaskError(f"the seed: {seed}")
    task.scratch["seed"] = seed
    await start(session, APP, f"{home}/{meta['path']}", timeout=180)
    await window(session, blend_title(home, meta["path"], dirty=False), timeout=120)
    await still(session)
    await remember_files(task, session)


@dataclass(frozen=True)
class Spot:
    """A place in Blender's default layout at 1280x800, in pixels."""

    x: float
    y: float


VIEWPORT = Spot(520, 560)
"""An empty part of the 3D viewport (below the objects, above the timeline)."""
OUTLINER_FIRST = Spot(1160, 122)
"""The first object's row in the Outliner (under Scene Collection > Collection); rows are 20 px apart."""
ROW = 20


def at(session: Session, spot: Spot) -> Point:
    return Point(spot.x * 1000 / session.width, spot.y * 1000 / session.height)


def click(session: Session, spot: Spot, clicks: int = 1) -> list[Action]:
    """The pointer moved to ``spot``, a pause, and a click there: Blender sends a click to the region
    it last saw the pointer in, so a click that jumps there at once can land in the region before."""
    return [MouseMove(at(session, spot)), Wait(0.2), Click(at(session, spot), clicks=clicks)]


def to_viewport(session: Session) -> MouseMove:
    """The pointer over the 3D viewport, where Blender sends the keys of its object shortcuts."""
    return MouseMove(at(session, VIEWPORT))


def _all_names(seed: Dump) -> list[str]:
    return sorted(o["name"] for o in seed["objects"])


async def _pixel(session: Session, spot: Spot) -> tuple[int, int, int]:
    """The colour the screen shows at ``spot`` now."""
    frame = session.frame()
    if frame is None:
        with Image.open(io.BytesIO(await session.screenshot())) as image:
            frame = np.asarray(image.convert("RGB"))
    r, g, b = (int(v) for v in frame[int(spot.y), int(spot.x)][:3])
    return r, g, b


async def _shows(session: Session, spot: Spot, colour: tuple[int, int, int], seen: list[tuple[int, int, int]]) -> bool:
    """Whether the screen shows ``colour`` (within 8 a channel) at ``spot`` now; what it showed goes to ``seen``."""
    found = await _pixel(session, spot)
    seen.append(found)
    return all(abs(a - b) <= 8 for a, b in zip(found, colour, strict=True))


SELECTED_ROW = (51, 77, 128)
"""The Outliner's colour behind the active object's row (selected and active)."""


async def pick(task: Task, session: Session, name: str) -> None:
    """Oracle move: the object ``name`` clicked in the Outliner (selected alone, and active: the row
    turns blue, which the oracle watches), and the pointer back over the viewport. A click that did not
    take is clicked again after an Escape over the Outliner: under load a click once left the row
    unselected through three tries, and Escape ends whatever the Outliner was in the middle of (a
    rename, a box select) without touching the scene."""
    row = _all_names(seed_of(task)).index(name)
    spot = Spot(OUTLINER_FIRST.x, OUTLINER_FIRST.y + ROW * row)
    probe = Spot(1225, spot.y)
    seen: list[tuple[int, int, int]] = []

    for attempt in range(4):
        if attempt:
            await act(session, MouseMove(at(session, spot)), Wait(0.2), key("escape"), Wait(0.3))
        # The pointer leaves the row (a row under the pointer is drawn lighter) before the oracle looks.
        await act(session, *click(session, spot), Wait(0.2), to_viewport(session))
        try:
            await wait_for(
                lambda: _shows(session, probe, SELECTED_ROW, seen),
                f"{name}'s row in the Outliner to show it selected",
                10,
            )
        except TaskError:
            continue
        await still(session)
        return
    raise TaskError(
        f"{name}'s row in the Outliner (row {row + 1}, at {probe.x:.0f},{probe.y:.0f}) never showed it selected "
        f"after 4 clicks: it read {seen[-1] if seen else 'nothing'}, not {SELECTED_ROW}"
    )


def typed(text: str) -> list[Action]:
    """``text`` typed, with a pause before a letter that repeats the one before it: Blender takes a
    second press of the same key that comes at once for the X server's auto-repeat, and drops it."""
    actions: list[Action] = []
    chunk = ""
    for char in text:
        if chunk and char == chunk[-1]:
            actions += [TypeText(chunk), Wait(0.15)]
            chunk = ""
        chunk += char
    return [*actions, TypeText(chunk)] if chunk else actions


def edit_field(session: Session, spot: Spot, *values: str) -> list[Action]:
    """Keys and clicks that type ``values`` into the number field at ``spot`` and the fields after it:
    a double-click starts editing, ctrl+a selects what is there, Tab moves to the next field, Enter ends."""
    actions: list[Action] = [Click(at(session, spot), clicks=2), Wait(0.3)]
    for index, value in enumerate(values):
        if index:
            actions += [key("tab"), Wait(0.2)]
        actions += [key("ctrl+a"), *typed(value)]
    return [*actions, key("enter"), Wait(0.3)]


async def edit(task: Task, session: Session, actions: list[Action], tries: int = 3) -> None:
    """Oracle move: ``actions`` (a field's edit) played until Blender's title shows unsaved changes.
    A double-click that comes while Blender is still redrawing the region (a tab just opened) is
    lost; typing a value again is harmless, so the oracle looks at the title and tries again."""
    home = await env_var(session, "HOME")
    for _ in range(tries):
        await still(session)
        await act(session, *actions)
        try:
            await window(session, blend_title(home, task.metadata["path"], dirty=True), timeout=5)
            return
        except TaskError:
            await act(session, key("escape"), Wait(0.3))
    raise TaskError(f"Blender's title never showed the edit after {tries} tries")


async def save(task: Task, session: Session) -> None:
    """Oracle move: once the title shows unsaved changes, ctrl+s over the viewport and the wait for a clean title."""
    home = await env_var(session, "HOME")
    path = task.metadata["path"]
    await window(session, blend_title(home, path, dirty=True))
    await act(session, to_viewport(session), key("ctrl+s"))
    await window(session, blend_title(home, path, dirty=False))


OBJ_SELECTED = Spot(1041, 219)
"""File View's Limit to Selected Only box in Export > Wavefront (.obj)."""
STL_SELECTED = Spot(1040, 275)
"""File View's Selection Only box in Export > Stl (.stl)."""
STL_ASCII = Spot(1040, 189)
"""File View's Ascii box in Export > Stl (.stl)."""
FILE_NAME = Spot(600, 708)
"""File View's file name field, in the screen (File View opens centred at 1062x625)."""


TICKED = (71, 114, 179)
"""The blue of a ticked check box, beside its white tick (4 px up and left of the box's centre)."""


async def tick(session: Session, spot: Spot, tries: int = 4) -> None:
    """Oracle move: the check box at ``spot`` clicked until it shows ticked. Under load Blender handles two
    clicks that came half a second apart as one double-click (its clock is when it reads them, and a
    double-click on a check box leaves it as it was), so the second of two options was lost; the oracle
    looks at the box, and clicks again only when it still shows unticked."""
    probe = Spot(spot.x - 4, spot.y - 4)
    seen: list[tuple[int, int, int]] = []

    for _ in range(tries):
        await act(session, *click(session, spot))
        try:
            await wait_for(lambda: _shows(session, probe, TICKED, seen), "a check box in File View to show ticked", 3)
            return
        except TaskError:
            await act(session, Wait(0.5))  # longer than Blender's double-click time (0.35 s) before the next click
    raise TaskError(
        f"File View's check box at {spot.x:.0f},{spot.y:.0f} never showed ticked after {tries} clicks: "
        f"it read {seen[-1] if seen else 'nothing'}, not {TICKED}"
    )


async def export_to(
    session: Session, search: str, out: str, options: Iterable[Spot] = (), done: Callable[[bytes], bool] | None = None
) -> None:
    """Oracle move: F3 (menu search) with ``search`` typed and Enter (the first match: File > Export >
    ...), File View's check boxes at ``options`` clicked, the file name set to ``out``'s name
    (File View opens in the .blend's folder) and Enter; then the wait for File View to close and
    ``~/out`` to be there (whole, by ``done``)."""
    for _ in range(3):
        await act(session, to_viewport(session), Wait(0.3), key("f3"), Wait(0.5))
        await still(session)
        await act(session, TypeText(search), Wait(0.5))
        await still(session)
        await act(session, key("enter"))
        try:
            await window(session, FILE_VIEW, timeout=10)
            break
        except TaskError:
            await act(session, key("escape"), Wait(0.3))  # the search did not open: close what did
    await window(session, FILE_VIEW)
    await still(session)
    for spot in options:
        await tick(session, spot)
    name = out.rsplit("/", 1)[-1]
    await act(session, *click(session, FILE_NAME, clicks=2), Wait(0.3), key("ctrl+a"), *typed(name), key("enter"))
    for _ in range(3):
        try:
            await no_window(session, FILE_VIEW, timeout=5)
            break
        except TaskError:
            await act(session, key("enter"))  # the name was taken; Enter again runs the export
    await no_window(session, FILE_VIEW)

    async def written() -> bool:
        try:
            data = await session.read_bytes(out)
        except (OSError, CuaError, ValueError):
            return False
        return bool(data) and (done is None or done(data))

    await wait_for(written, f"{out} to be exported")


async def exported_scored(
    task: Task, session: Session, extra: Iterable[str], problem_of: Callable[[bytes | None], str | None]
) -> list[float]:
    """The reward of an export to ``metadata["out"]``: 1.0 when ``problem_of`` finds nothing wrong in its bytes
    (None: no plain file there) and no file under home changed but it (and ``extra`` beside it, ``ALLOWED``)."""
    out = task.metadata["out"]
    before, after = await files_since_setup(task, session)
    problem = problem_of(await output_bytes(session, after, out))
    if problem is not None:
        task.explain(f"{out}: {problem}")
        return [0.0]
    return [1.0 if nothing_else_changed(task, before, after, expect=[out, *extra, *ALLOWED]) else 0.0]
