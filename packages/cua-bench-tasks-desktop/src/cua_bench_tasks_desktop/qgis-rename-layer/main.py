"""qgis-rename-layer: rename one of two layers loaded in QGIS and save the project as a .qgz file.

Two layers come from GeoJSON files under home (``_qgis.seed_layer``: points and lines, in one
folder). The oracle picks the asked layer's row in the Layers panel, presses F2, types the new name
and Enter (the row read back from the accessibility tree), then Project > Save As… (ctrl+shift+s),
types the project's absolute path into the file dialog and Enter, and waits for QGIS's title to show
the project saved.

The evaluator reads the project with zipfile and lxml (``_qgis.read_project``: a zip holding one
``.qgs``, no entities, no network): a plain file with one link holding exactly the two layers, the
renamed one under its new name and the other under its own, each with its GeoJSON file as data source
(read by OGR; relative sources resolved from the project's folder) and each once in the layer tree;
QGIS's live title shows that project saved (no ``*``: a file written behind its back leaves QGIS
unsaved); and no other file under home changed (the seeds among them; QGIS's profile and Qt's file
dialog state may change). Wrong ways: ``keeps_the_old_name`` (saved without the rename),
``renames_the_other_layer`` and ``renames_after_saving`` (saved, then renamed: the file has the old
name). Waived: ``trailing-blank-lines`` (the .qgz is a zip; the only text file changed besides is QGIS's
own QGIS3.ini, which it rewrites). A forged write scores 0: QGIS's live title would not show the
project."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._qgis import (
    BINARY_OUTPUT,
    PLACES,
    Layer,
    Project,
    layers_problem,
    open_layers,
    project_score,
    rename_layer,
    save_project_as,
    seed_layer,
)

NAME = "qgis-rename-layer"
WAIVED = BINARY_OUTPUT


def build(rng: random.Random) -> cb.Task:
    points = seed_layer(rng, "Point")
    lines = seed_layer(rng, "LineString", (3, 5))
    lines = Layer(f"{points.folder}/{rng.choice(['roads', 'rivers', 'trails', 'pipes'])}.geojson", lines.kind,
                  lines.features)  # fmt: skip
    layers = [points, lines]
    target = rng.randrange(2)
    new = f"{rng.choice(PLACES).title()} {rng.choice(['Points', 'Network', 'Survey', 'Assets'])} {rng.randint(2, 30)}"
    project = f"{points.folder}/{rng.choice(['project', 'map', 'overview', 'city'])}_{rng.randint(1, 99)}.qgz"
    return cb.Task(
        description=f"The layers '{points.name}' and '{lines.name}' (from ~/{points.path} and ~/{lines.path}) are "
        f"loaded in QGIS. Rename the layer '{layers[target].name}' to '{new}' (in the Layers panel), then save the "
        f"project as ~/{project} (QGIS's zipped .qgz format), keeping both layers.",
        metadata={"layers": [layer.as_meta() for layer in layers], "target": target, "new": new,
                  "project": project},
        max_steps=20,
        chance=0.0,
    )  # fmt: skip


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, project: Project, home: str) -> str | None:
    layers = [Layer.of(layer) for layer in meta["layers"]]
    want = {meta["new"] if i == meta["target"] else layer.name: layer.path for i, layer in enumerate(layers)}
    return layers_problem(project, meta["project"], home, want)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(layer) for layer in task.metadata["layers"]])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    return await project_score(
        task, session, meta["project"], "qgz", lambda project, home: problem_of(meta, project, home)
    )


async def _rename(meta: Meta, session: cb.Session, index: int) -> None:
    await rename_layer(session, Layer.of(meta["layers"][index]).name, meta["new"])


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await _rename(task.metadata, session, task.metadata["target"])
    await save_project_as(session, task.metadata["project"])


@cb.wrong_way
async def keeps_the_old_name(task: cb.Task, session: cb.Session) -> None:
    """The project saved without the rename."""
    await save_project_as(session, task.metadata["project"])


@cb.wrong_way
async def renames_the_other_layer(task: cb.Task, session: cb.Session) -> None:
    """The other layer renamed, then the project saved."""
    await _rename(task.metadata, session, 1 - task.metadata["target"])
    await save_project_as(session, task.metadata["project"])


@cb.wrong_way
async def renames_after_saving(task: cb.Task, session: cb.Session) -> None:
    """The project saved first, the layer renamed after (and not saved again)."""
    await save_project_as(session, task.metadata["project"])
    await _rename(task.metadata, session, task.metadata["target"])
