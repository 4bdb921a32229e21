"""qgis-project-crs: set the CRS of the QGIS project and save the project as a .qgz file.

A point layer comes from a GeoJSON file under home (``_qgis.seed_layer``, in EPSG:4326); the task
names a projected CRS by its EPSG code. The oracle clicks the status bar's CRS button (Project
Properties, its CRS page), types the code into the Filter field, clicks its row in the predefined
list and OK (the button then names the code), then Project > Save As… (ctrl+shift+s), types the
project's absolute ``.qgz`` path and Enter, and waits for QGIS's title to show the project saved.

The evaluator reads the project with zipfile and lxml (``_qgis.read_project``: a zip holding one
``.qgs``, no entities, no network): a plain file with one link whose ``projectCrs`` has the asked
authority id, holding the one layer with its GeoJSON file as data source; the live app agrees: QGIS's
title shows that project saved (no ``*``) and its status bar's CRS button names the asked code (a file
written behind its back changes neither); and no other file under home changed (the seed among them;
QGIS's profile, where it keeps recently used CRSs, and Qt's file dialog state may change). Wrong ways:
``picks_another_crs`` (a neighbouring code of the list), ``saves_before_setting`` (saved, then the CRS
set: the file keeps EPSG:4326) and ``saves_under_the_layer_name`` (the project named after the layer).
Waived: ``trailing-blank-lines`` (the .qgz is a zip; the only text file changed besides is QGIS's own
QGIS3.ini)."""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench_tasks_desktop._common import loaders
from cua_bench_tasks_desktop._qgis import (
    BINARY_OUTPUT,
    Layer,
    Project,
    layers_problem,
    node,
    open_layers,
    project_score,
    project_title,
    save_project_as,
    seed_layer,
    set_project_crs,
)

NAME = "qgis-project-crs"
WAIVED = BINARY_OUTPUT
CODES = ("EPSG:32630", "EPSG:32633", "EPSG:4087", "EPSG:32631", "EPSG:32634", "EPSG:3857", "EPSG:32632", "EPSG:3395")
"""Projected CRSs on the WGS 84 datum: from the layer's EPSG:4326 no datum transformation is asked for."""


def build(rng: random.Random) -> cb.Task:
    layer = seed_layer(rng, "Point")
    code = rng.choice(CODES)
    project = f"{layer.folder}/{rng.choice(['project', 'map', 'survey', 'planning'])}_{code.split(':')[1]}.qgz"
    return cb.Task(
        description=f"The point layer '{layer.name}' (from ~/{layer.path}) is loaded in QGIS. Set the project's "
        f"coordinate reference system to {code}, then save the project as ~/{project} (QGIS's zipped .qgz "
        "format). Leave the layer's file as it is.",
        metadata={"layer": layer.as_meta(), "code": code, "project": project},
        max_steps=20,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


def problem_of(meta: Meta, project: Project, home: str) -> str | None:
    if project.crs != meta["code"]:
        return f"the project's CRS is {project.crs}, not {meta['code']}"
    layer = Layer.of(meta["layer"])
    return layers_problem(project, meta["project"], home, {layer.name: layer.path})


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await open_layers(task, session, [Layer.of(task.metadata["layer"])])


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    score = await project_score(
        task, session, meta["project"], "qgz", lambda project, home: problem_of(meta, project, home)
    )
    if score == [1.0] and await node(session, "push button", meta["code"], project_title()) is None:
        task.explain(f"QGIS's status bar does not show {meta['code']}")
        return [0.0]
    return score


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    await set_project_crs(session, task.metadata["code"])
    await save_project_as(session, task.metadata["project"])


@cb.wrong_way
async def picks_another_crs(task: cb.Task, session: cb.Session) -> None:
    """The next code of the task's list set instead."""
    code = task.metadata["code"]
    await set_project_crs(session, CODES[(CODES.index(code) + 1) % len(CODES)])
    await save_project_as(session, task.metadata["project"])


@cb.wrong_way
async def saves_before_setting(task: cb.Task, session: cb.Session) -> None:
    """The project saved first, the CRS set after (and not saved again)."""
    await save_project_as(session, task.metadata["project"])
    await set_project_crs(session, task.metadata["code"])


@cb.wrong_way
async def saves_under_the_layer_name(task: cb.Task, session: cb.Session) -> None:
    """The CRS set and the project saved beside the asked one, named after the layer."""
    meta = task.metadata
    layer = Layer.of(meta["layer"])
    await set_project_crs(session, meta["code"])
    await save_project_as(session, f"{layer.folder}/{layer.name}.qgz")
