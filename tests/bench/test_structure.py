"""bench/structure.py's counters on a tiny tree of two distributions whose figures are known by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.scripts import load_script

structure = load_script("bench/structure.py", "bench_structure")

# The same six lines in both distributions, under other names: one duplicate.
_TOTAL = """
def total(items):
    result = 0
    for item in items:
        if item.ok:
            result += item.size
    return result
"""
_COUNT = """
def count_all(rows):
    n = 0
    for row in rows:
        if row.valid:
            n += row.weight
    return n
"""
# Declared fields repeat everywhere and say nothing: boilerplate, never a duplicate.
_FIELDS = "\n".join(f"    {name}: int = 0" for name in "abcdefgh")

_INNER = f'''"""A module with a docstring."""


class Thing:
    """A thing.

    Args:
        size: how big it is.
    """

{_FIELDS}

    def size(self):
        return 1

    def _hidden(self):
        return 2


def helper():
    """Why it helps."""
    return Thing()
{_TOTAL}'''
_USE = f"""from typing import TYPE_CHECKING

import aa
from aa import Thing
from aa import helper
from bb.more import other
from . import more

if TYPE_CHECKING:
    from aa.inner import total


class Record:
{_FIELDS}

    def shape(self):
        return Thing, aa, other, more, helper
{_COUNT}"""
FILES = {
    "packages/aa/pyproject.toml": "",
    "packages/aa/src/aa/__init__.py": '"""Package aa."""\n\nfrom aa.inner import Thing\n\n__all__ = ["Thing"]\n',
    "packages/aa/src/aa/inner.py": _INNER,
    "plugins/bb/pyproject.toml": "",
    "plugins/bb/src/bb/__init__.py": "",
    "plugins/bb/src/bb/use.py": _USE,
    "plugins/bb/src/bb/more.py": "other = 1\n",
    "plugins/bb/src/bb/_private.py": "def undocumented():\n    return 0\n",
    "plugins/notadist/src/cc/__init__.py": "import aa.inner\n",  # no pyproject.toml: not a distribution
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_distributions_are_folders_with_a_pyproject(tree: Path) -> None:
    assert [(d.folder.relative_to(tree).as_posix(), d.name) for d in structure.distributions(tree)] == [
        ("packages/aa", "aa"),
        ("plugins/bb", "bb"),
    ]


def test_private_cross_imports_are_submodules_and_names_outside_all(tree: Path) -> None:
    found = structure.private_cross_imports(structure.distributions(tree))

    # `import aa`, `from aa import Thing`, bb's own modules and relative imports are fine.
    assert [(c.importer, c.path.name, c.line, c.target) for c in found] == [
        ("bb", "use.py", 5, "aa.helper (not in __all__)"),
        ("bb", "use.py", 10, "aa.inner"),  # under TYPE_CHECKING too
    ]


def test_one_duplicate_of_the_same_shape_and_no_boilerplate(tree: Path) -> None:
    files = [path for dist in structure.distributions(tree) for path in structure.source_files(dist)]

    runs = structure.duplicate_runs(files, tree)

    inner = (tree / "packages/aa/src/aa/inner.py").read_text().splitlines()
    use = (tree / "plugins/bb/src/bb/use.py").read_text().splitlines()
    first_a, first_b = inner.index("def total(items):") + 1, use.index("def count_all(rows):") + 1
    assert runs == [
        ("packages/aa/src/aa/inner.py", first_a, first_a + 5, "plugins/bb/src/bb/use.py", first_b, first_b + 5)
    ]


def test_public_docstrings_skip_private_names_and_modules(tree: Path) -> None:
    files = [path for dist in structure.distributions(tree) for path in structure.source_files(dist)]

    # Thing and helper have one; Thing.size, total, Record, Record.shape and count_all do not; _hidden and
    # _private.py are not counted.
    assert structure.docstring_counts(files) == (2, 7)


def test_contract_docstrings_need_a_google_section(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(structure, "CONTRACTS", {"aa.inner": "Thing", "aa.gone": "Missing"})

    # Thing's docstring has Args:, its method size has none.
    assert structure.contract_docstring_counts(structure.distributions(tree)) == (1, 2, ["aa.gone.Missing"])


def test_a_subpackage_the_package_names_in_its_all_is_public_for_its_own_all(tree: Path) -> None:
    (tree / "packages/aa/src/aa/kit").mkdir()
    (tree / "packages/aa/src/aa/kit/__init__.py").write_text('__all__ = ["tool"]\n\ntool = 1\nspare = 2\n')
    init = tree / "packages/aa/src/aa/__init__.py"
    init.write_text(init.read_text().replace('__all__ = ["Thing"]', '__all__ = ["Thing", "kit"]'))
    (tree / "plugins/bb/src/bb/kit_use.py").write_text("from aa.kit import tool\nfrom aa.kit import spare\n")
    found = structure.private_cross_imports(structure.distributions(tree))
    assert [(c.path.name, c.line, c.target) for c in found if c.path.name == "kit_use.py"] == [
        ("kit_use.py", 2, "aa.kit.spare (not in __all__)"),
    ]


def test_a_submodule_is_public_only_when_each_step_down_is_named_in_its_parents_all(tree: Path) -> None:
    (tree / "packages/aa/src/aa/kit").mkdir()
    (tree / "packages/aa/src/aa/kit/__init__.py").write_text('__all__ = ["deep"]\n')
    (tree / "packages/aa/src/aa/kit/deep.py").write_text('__all__ = ["tool"]\n\ntool = 1\nspare = 2\n')
    (tree / "packages/aa/src/aa/kit/hidden.py").write_text('__all__ = ["tool"]\n\ntool = 1\n')
    init = tree / "packages/aa/src/aa/__init__.py"
    init.write_text(init.read_text().replace('__all__ = ["Thing"]', '__all__ = ["Thing", "kit"]'))
    (tree / "plugins/bb/src/bb/deep_use.py").write_text(
        "from aa.kit.deep import tool\nfrom aa.kit.deep import spare\nfrom aa.kit.hidden import tool\n"
    )
    found = structure.private_cross_imports(structure.distributions(tree))
    assert [(c.line, c.target) for c in found if c.path.name == "deep_use.py"] == [
        (2, "aa.kit.deep.spare (not in __all__)"),
        (3, "aa.kit.hidden"),  # kit's __all__ does not name it
    ]
