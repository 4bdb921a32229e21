"""The README's worked task example is a real task (check runs it: oracle 1.0, doing nothing 0), and its
plugin table names every hook."""

from __future__ import annotations

import re
from pathlib import Path

from cua_bench.checks import check_task

README = Path(__file__).resolve().parents[2] / "packages" / "cua-bench" / "README.md"


def test_the_worked_task_example_passes_check(tmp_path: Path) -> None:
    section = README.read_text().split("## Writing a task", 1)[1]
    source = re.search(r"```python\n(.*?)```", section, re.S)
    assert source is not None, "the section lost its example"
    folder = tmp_path / "greet"
    folder.mkdir()
    (folder / "main.py").write_text(source.group(1))
    assert check_task(folder) == []  # the oracle 1.0, doing nothing 0, each wrong way 0
    assert source.group(1).count("@cb.wrong_way") >= 2


def test_the_readme_names_every_hook() -> None:
    from cua_bench import hookspecs

    readme = README.read_text()
    hooks = [name for name in vars(hookspecs) if name.startswith("cua_bench_")]
    assert len(hooks) >= 6
    assert [name for name in hooks if f"`{name}(" not in readme] == []
