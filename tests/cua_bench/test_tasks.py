from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from cua_bench.tasks import TaskError, load_task_module

GOOD = """
import cua_bench as cb

@cb.tasks_config(split="train")
def load_train():
    return [cb.Task(description=f"train {i}", metadata={"i": i}) for i in range(3)]

@cb.tasks_config(split="test")
def load_test():
    return [cb.Task(description="test 0")]

@cb.setup_task
async def setup(task, session):
    session.log.append(("setup", task.name, task.variant, task.split))

@cb.evaluate_task
async def evaluate(task, session):
    return [1.0]

@cb.solve_task(split="train")
async def solve(task, session):
    pass
"""


def _task(tmp_path: Path, source: str, name: str = "my-task") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(source))
    return folder


def test_variants_per_split_are_numbered(tmp_path: Path) -> None:
    module = load_task_module(_task(tmp_path, GOOD))
    assert module.name == "my-task"
    assert module.splits() == ["test", "train"]
    train = module.variants("train")
    assert [(t.name, t.variant, t.split, t.metadata) for t in train] == [
        ("my-task", i, "train", {"i": i}) for i in range(3)
    ]
    assert module.function("solve_task", "train") is not None
    assert module.function("solve_task", "test") is None  # split-specific oracle
    assert module.function("setup_task", "test") is not None  # split-less functions serve every split


def test_two_folders_with_main_py_do_not_shadow_each_other(tmp_path: Path) -> None:
    a = load_task_module(_task(tmp_path, GOOD, "a"))
    b = load_task_module(_task(tmp_path, GOOD.replace("test 0", "other"), "b"))
    assert a.variants("test")[0].description == "test 0"
    assert b.variants("test")[0].description == "other"


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("x = 1", "missing @tasks_config, @setup_task, @evaluate_task"),
        ("import nope_not_a_module", "import failed: ModuleNotFoundError"),
        (GOOD.replace("async def setup", "def setup"), "must be `async def fn(task, session)`"),
        (
            GOOD + "\n@cb.evaluate_task\nasync def evaluate2(task, session):\n    return 1\n",
            "two @evaluate_task functions",
        ),
    ],
)
def test_broken_task_folders_say_what_is_wrong(tmp_path: Path, source: str, fragment: str) -> None:
    with pytest.raises(TaskError, match=re.escape(fragment)):
        load_task_module(_task(tmp_path, source))


def test_bad_variants(tmp_path: Path) -> None:
    module = load_task_module(_task(tmp_path, GOOD.replace('return [cb.Task(description="test 0")]', "return 5")))
    with pytest.raises(TaskError, match=r"must return a list of cua_bench\.Task"):
        module.variants("test")
    with pytest.raises(TaskError, match="no @tasks_config for split 'validation'"):
        module.variants("validation")
    with pytest.raises(TaskError, match=r"not a task folder \(no main\.py\)"):
        load_task_module(tmp_path / "nowhere")


COUNTED = GOOD.replace(
    "def load_train():\n",
    "def load_train():\n    CALLS.append(1)\n",
).replace("import cua_bench as cb\n", "import cua_bench as cb\nCALLS = []\n", 1)


def test_a_split_is_loaded_once_and_every_caller_gets_its_own_copies(tmp_path: Path) -> None:
    """An env server resets a dozen times per variant under ``cua-bench check``: the loader runs once, and
    what one episode changes in its Task (setup's notes in metadata, history, scratch) never reaches the next."""
    module = load_task_module(_task(tmp_path, COUNTED))
    first = module.variant("train", 1)
    first.metadata["i"], first.scratch["x"], first.history = 99, 1, [{"kind": "click"}]
    again = load_task_module(module.path)  # what the server does on every reset
    assert again.count("train") == 3
    second = again.variant("train", 1)
    assert (second.metadata, second.scratch, second.history) == ({"i": 1}, {}, [])
    assert [t.metadata for t in again.variants("train")] == [{"i": i} for i in range(3)]
    assert module.module.CALLS == [1]
    with pytest.raises(TaskError, match=r"variant 3 does not exist \(split 'train' has 3\)"):
        again.variant("train", 3)


def test_a_variant_that_cannot_be_copied_is_refused_with_the_fix(tmp_path: Path) -> None:
    source = GOOD.replace(
        '[cb.Task(description="test 0")]', '[cb.Task(description="t", metadata={"f": __import__("threading").Lock()})]'
    )
    module = load_task_module(_task(tmp_path, source))
    with pytest.raises(TaskError, match=r"cannot be copied .*keep plain data in Task.metadata"):
        module.variant("test", 0)
