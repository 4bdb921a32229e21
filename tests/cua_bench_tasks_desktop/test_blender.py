"""``_blender``'s pure parts: seeds, the dump Blender prints of a .blend read back strictly, scenes
compared field by field, and exported OBJ and binary STL files read whole (a clear reason, never a
crash, for what is not the asked format), built here; wrong files score 0. With Blender installed, a
seed is built and dumped by Blender itself, as setup and the evaluators do."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import struct
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from cua_bench import TaskError
from cua_bench.tasks import load_task_module
from cua_bench_tasks_desktop._blender import (
    HEADER,
    MARK,
    STL_ASCII,
    TICKED,
    Obj,
    Stl,
    _command,
    mesh_objects,
    moved_to,
    parse_dump,
    read_obj,
    read_stl,
    same_points,
    scene,
    scene_problems,
    seed_script,
    tick,
    triangles,
    with_object,
    without_object,
    world_vertices,
)

TASKS = Path(__file__).parents[2] / "packages/cua-bench-tasks-desktop/src/cua_bench_tasks_desktop"
HOME = "/home/user"
PATH = "models/scene_1.blend"


def _cube(name: str, location: tuple[float, float, float]) -> dict[str, object]:
    corners = [[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)]
    matrix = [[1.0, 0.0, 0.0, location[0]], [0.0, 1.0, 0.0, location[1]], [0.0, 0.0, 1.0, location[2]], [0, 0, 0, 1.0]]
    faces = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]]
    return {
        "name": name, "type": "MESH", "data": name, "location": list(location), "rotation": [0.0] * 3,
        "scale": [1.0] * 3, "parent": None, "collections": ["Collection"], "modifiers": [],
        "hidden": [False, False, False], "matrix": matrix, "mesh": {"vertices": corners, "faces": faces, "edges": 12},
    }  # fmt: skip


def _dump() -> dict[str, object]:
    objects = [_cube("Anchor", (2.0, -2.0, 0.0)), _cube("Teapot", (-4.0, 2.0, 0.0))]
    return {
        "file": f"{HOME}/{PATH}", "scene": "Scene", "render": [1920, 1080, 100, 1, 250, 1, 24, "BLENDER_EEVEE"],
        "camera": None, "counts": {"objects": 2, "meshes": 2}, "in_scene": ["Anchor", "Teapot"], "objects": objects,
    }  # fmt: skip


def _printed(dump: object) -> str:
    return f"Blender 3.4.1\nRead blend: ...\n{MARK}{json.dumps(dump)}\nBlender quit\n"


def test_seeds_vary_and_name_four_distinct_meshes() -> None:
    metas = [scene(random.Random(f"blender/{i}")) for i in range(25)]
    assert len({json.dumps(m) for m in metas}) == 25
    for meta in metas:
        names = mesh_objects(meta)
        assert len(set(names)) == 4 and not {"Camera", "Light"} & set(names)
        assert meta["path"].endswith(".blend") and "/" in meta["path"]
        assert "SPEC = " in seed_script(meta, HOME) and f"{HOME}/{meta['path']}" in seed_script(meta, HOME)


def test_a_dump_is_read_only_once_whole_and_of_the_file_asked() -> None:
    assert parse_dump(_printed(_dump()), f"{HOME}/{PATH}") == _dump()
    assert isinstance(parse_dump("Blender quit\n", f"{HOME}/{PATH}"), str)
    assert isinstance(parse_dump(_printed(_dump()) * 2, f"{HOME}/{PATH}"), str)
    assert isinstance(parse_dump(f"{MARK}{{not json\n", f"{HOME}/{PATH}"), str)
    factory = {**_dump(), "file": ""}  # Blender could not read the file and dumped its factory scene
    assert isinstance(parse_dump(_printed(factory), f"{HOME}/{PATH}"), str)


def test_scenes_compare_field_by_field() -> None:
    seed = _dump()
    assert scene_problems(seed, seed) == []
    renamed = with_object(seed, "Anchor", lambda o: {**o, "name": "Harbor_Main"})
    assert [o["name"] for o in renamed["objects"]] == ["Harbor_Main", "Teapot"]
    assert renamed["in_scene"] == ["Harbor_Main", "Teapot"]
    assert scene_problems(seed, renamed) and scene_problems(renamed, seed)
    moved = with_object(seed, "Teapot", lambda o: moved_to(o, [1.5, -2.25, 0.75]))
    teapot = moved["objects"][1]
    assert teapot["location"] == [1.5, -2.25, 0.75] and [row[3] for row in teapot["matrix"][:3]] == [1.5, -2.25, 0.75]
    assert any("Teapot's location" in p for p in scene_problems(seed, moved))
    gone = without_object(seed, "Anchor")
    assert gone["counts"] == {"objects": 1, "meshes": 1} and gone["in_scene"] == ["Teapot"]
    assert scene_problems(gone, seed) and scene_problems(seed, gone) and scene_problems(gone, gone) == []
    hidden = with_object(seed, "Anchor", lambda o: {**o, "hidden": [False, False, True]})
    assert scene_problems(hidden, gone)  # hidden is not deleted
    resized = {**seed, "render": [1280, 720, *seed["render"][2:]]}  # type: ignore[index]
    assert scene_problems(resized, seed) == ["render is [1280, 720, 100, 1, 250, 1, 24, 'BLENDER_EEVEE'], not "
                                             "[1920, 1080, 100, 1, 250, 1, 24, 'BLENDER_EEVEE']"]  # fmt: skip


def _obj(objects: dict[str, list[tuple[float, float, float]]], faces: int = 6) -> bytes:
    lines = ["# Blender v3.4.1 OBJ File: ''", "# www.blender.org", "mtllib scene.mtl"]
    count = 0
    for name, points in objects.items():
        lines.append(f"o {name}")
        lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in points]
        lines += ["vn -0.0000 1.0000 -0.0000", "vt 0.625000 0.500000", "s 0"]
        lines += [f"f {count + 1}/1/1 {count + 2}/1/1 {count + 3}/1/1"] * faces
        count += len(points)
    return ("\n".join(lines) + "\n").encode()


def _as_obj(points: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    return [(x, z, -y) for x, y, z in points]  # the exporter's Y-up axes


def test_an_obj_reads_back_whole_and_strictly() -> None:
    seed = _dump()
    anchor = world_vertices(seed, "Anchor")
    assert (1.0, -3.0, -1.0) in anchor and len(anchor) == 8
    found = read_obj(_obj({"Anchor": _as_obj(anchor)}))
    assert isinstance(found, Obj) and list(found.objects) == ["Anchor"] and found.objects["Anchor"][1] == 6
    points = found.objects["Anchor"][0]
    assert same_points([(x, -z, y) for x, y, z in points], anchor)
    assert not same_points([(x, -z, y) for x, y, z in points], world_vertices(seed, "Teapot"))
    assert not same_points(points, anchor)  # not turned back from Y-up
    good = _obj({"Anchor": _as_obj(anchor)})
    for bad in (
        good + b"\n\n\n",  # blank lines after it
        good.replace(b"\n", b"\r\n"),
        good.replace(b"o Anchor", b"o Anchor\nhello world"),
        good.replace(b"f 1/1/1 2/1/1 3/1/1", b"f 1/1/1 2/1/1 9/1/1", 1),  # a vertex index out of range
        good.replace(b"v 1.000000", b"v x.000000", 1),
        b"\xff\xfe" + good,
        good.rstrip(b"\n"),
    ):
        assert isinstance(read_obj(bad), str), bad[:40]
    assert isinstance(read_obj(None), str)
    both = read_obj(_obj({"Anchor": _as_obj(anchor), "Teapot": _as_obj(world_vertices(seed, "Teapot"))}))
    assert isinstance(both, Obj) and sorted(both.objects) == ["Anchor", "Teapot"]


def _stl(tris: Sequence[Sequence[tuple[float, float, float]]], header: bytes = b"Exported from Blender-3.4.1") -> bytes:
    body = b"".join(struct.pack("<12fH", 0.0, 0.0, 0.0, *a, *b, *c, 0) for a, b, c in tris)
    return header.ljust(80, b" ") + struct.pack("<I", len(tris)) + body


def test_a_binary_stl_reads_back_whole() -> None:
    seed = _dump()
    corners = world_vertices(seed, "Anchor")
    tris = [(corners[i % 8], corners[(i + 1) % 8], corners[(i + 2) % 8]) for i in range(12)]
    assert triangles(seed, "Anchor") == 12
    found = read_stl(_stl(tris))
    assert isinstance(found, Stl) and len(found.triangles) == 12
    assert same_points([p for t in found.triangles for p in t], corners)
    for bad in (
        _stl(tris) + b"\0",  # a byte more than its triangles
        _stl(tris)[:-1],
        _stl(tris, header=b"solid Anchor"),  # an ASCII STL begins so
        b"solid Anchor\n  facet normal 0 0 1\nendsolid Anchor\n",
        _stl(tris)[:60],
        _stl([((float("nan"), 0.0, 0.0), (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))]),
    ):
        assert isinstance(read_stl(bad), str)


def _task(name: str) -> object:
    return load_task_module(TASKS / name)


def test_the_export_tasks_refuse_the_wrong_object_or_all_of_them() -> None:
    seed = _dump()
    obj = _task("blender-export-obj").function("evaluate_task", "test").__globals__["problem_of"]  # type: ignore[attr-defined]
    right = _obj({"Anchor": _as_obj(world_vertices(seed, "Anchor"))})
    assert obj(seed, "Anchor", right) is None
    assert obj(seed, "Teapot", right) is not None
    every = _obj({"Anchor": _as_obj(world_vertices(seed, "Anchor")), "Teapot": _as_obj(world_vertices(seed, "Teapot"))})
    assert obj(seed, "Anchor", every) is not None
    assert obj(seed, "Anchor", _obj({"Anchor": _as_obj(world_vertices(seed, "Anchor"))}, faces=5)) is not None
    stl = _task("blender-export-stl").function("evaluate_task", "test").__globals__["problem_of"]  # type: ignore[attr-defined]
    corners = world_vertices(seed, "Anchor")
    tris = [(corners[i % 8], corners[(i + 1) % 8], corners[(i + 2) % 8]) for i in range(12)]
    assert stl(seed, "Anchor", _stl(tris)) is None
    assert stl(seed, "Teapot", _stl(tris)) is not None
    assert stl(seed, "Anchor", _stl(tris[:11])) is not None


@pytest.mark.skipif(shutil.which("blender") is None, reason="Blender is not installed")
def test_blender_builds_a_seed_and_dumps_it_as_the_evaluators_read_it(tmp_path: Path) -> None:
    meta = scene(random.Random("blender-test"))
    home = str(tmp_path)
    (tmp_path / meta["path"]).parent.mkdir(parents=True)
    env = {"HOME": home, "PATH": "/usr/bin:/bin"}
    made = subprocess.run(
        ["blender", "-b", "--factory-startup", "-noaudio", "--python-exit-code", "3", "--python-expr",
         seed_script(meta, home)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr[-500:]
    data = (tmp_path / meta["path"]).read_bytes()
    assert data.startswith(HEADER)
    assert (tmp_path / ".config/blender/3.4/config/userpref.blend").is_file()
    out = subprocess.run(
        ["bash", "-c", _command(home, meta["path"])], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    found = parse_dump(out.stdout, f"{home}/{meta['path']}")
    assert isinstance(found, dict), (found, out.stderr[-500:])
    assert found["in_scene"] == sorted(["Camera", "Light", *mesh_objects(meta)])
    assert found["render"][:2] == meta["scene"]["resolution"] and found["render"][3:5] == meta["scene"]["frames"]
    for item in meta["scene"]["objects"]:
        got = next(o for o in found["objects"] if o["name"] == item["name"])
        assert got["location"] == item["location"] and got["data"] == item["name"] and got["modifiers"] == []
        assert len(world_vertices(found, item["name"])) == len(got["mesh"]["vertices"]) > 0
    assert scene_problems(found, found) == []
    # Not a .blend: Blender falls back to its factory scene, which is no dump of the file.
    (tmp_path / meta["path"]).write_bytes(b"BLENDER-v304 but not really")
    out = subprocess.run(
        ["bash", "-c", _command(home, meta["path"])], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert isinstance(parse_dump(out.stdout, f"{home}/{meta['path']}"), str)


class _CheckBoxes:
    """A screen of File View's check boxes for ``tick``: ``lost`` clicks are dropped, as Blender drops the
    second of two clicks it reads as one double-click; a click that lands turns the box blue."""

    width, height = 1280, 800

    def __init__(self, lost: int) -> None:
        self.lost = lost
        self.clicks = 0
        self.screen = np.full((self.height, self.width, 3), 84, dtype=np.uint8)  # an unticked box's grey

    async def apply(self, actions: Sequence[object]) -> list[str | None]:
        for action in actions:
            if type(action).__name__ == "Click":
                self.clicks += 1
                if self.clicks > self.lost:
                    self.screen[180:200, 1030:1050] = TICKED
        return [None] * len(actions)

    async def settle(self) -> None:
        return None

    def frame(self) -> np.ndarray:
        return self.screen


def test_a_check_box_is_clicked_again_only_while_it_shows_unticked() -> None:
    session = _CheckBoxes(lost=1)
    asyncio.run(tick(session, STL_ASCII))  # type: ignore[arg-type]
    assert session.clicks == 2  # once lost, once taken; a third click would untick it
    session = _CheckBoxes(lost=10)
    with pytest.raises(TaskError, match=r"1040,189 never showed ticked after 2 clicks: it read \(84, 84, 84\)"):
        asyncio.run(tick(session, STL_ASCII, tries=2))  # type: ignore[arg-type]
    assert session.clicks == 2
