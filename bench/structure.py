"""The code base's structure, counted: the figures of issue 34 that say whether the layout holds.

A distribution is a folder ``packages/*``, ``plugins/*`` or ``tui`` with a ``pyproject.toml`` and a
``src/<import_name>/`` package; every figure reads the ``src/`` trees only (tests live under ``tests/``).

- ``import_contracts_broken``: contracts in ``.importlinter`` (the layers of ARCHITECTURE.md, and
  cua-pool on cua-core only) that import-linter finds broken, with the chains it prints. The layers
  are the design; a broken one is a dependency pointing the wrong way. ``-1``: import-linter missing.
- ``private_cross_imports``: import statements (read with ``ast``, ``if TYPE_CHECKING:`` and
  function bodies included) by which distribution A reaches into distribution B beyond B's top-level
  package: ``import b.x``, ``from b.x import y``, or ``from b import y`` where ``y`` is not in
  ``b.__all__`` (read statically; a package without one declares nothing). Each is a private
  module another package cannot rename, split or fix without breaking A.
- ``duplicate_pairs``: places that repeat each other: pairs of runs of 6 or more lines of the same
  shape (names, strings and numbers replaced by placeholders; blank, comment, import and lone
  punctuation lines passed over; a docstring is one line). Overlapping windows of two files are
  merged into one run; two runs of the same two files count 2; a run that overlaps itself in one
  file is a pattern. Left out as boilerplate: windows with 3 of 6 lines thin (at most one name or
  value, or a field declared: ``v : v = 0``) and shapes found in more than 8 places. A repeat is
  logic that must be fixed twice. The ``duplicates`` command (not on CI) differs: one row per pair
  of files (further runs are a note on the row), the whole tree (tests, bench, examples, HTML and
  JS too), boilerplate marked rather than dropped; where it is installed its count is printed
  beside ours for calibration (same order of magnitude).
- ``max_module_lines``, ``modules_over_400``, ``modules_over_600``: physical lines of src modules;
  ARCHITECTURE.md calls a module over ~400 lines a sign to split it.
- ``public_docstring_ratio``: public definitions (module-level functions and classes without a
  leading ``_``, public methods of public classes, in modules without one; ``__init__`` counts as
  public) that have a docstring, over all of them. A docstring says why, for a reader outside.
- ``contract_docstring_ratio``: the contracts third parties implement (``Backend``, ``Session``,
  the data ``Adapter``, ``Trainer``, ``Agent``): the class and each public method defined in its
  body, counted when the docstring has a Google-style ``Args:``/``Returns:``/``Raises:`` section.

Last line: ``import_contracts_broken=… private_cross_imports=… duplicate_pairs=… max_module_lines=…
modules_over_400=… modules_over_600=… public_docstring_ratio=… contract_docstring_ratio=…``.
Run: .venv/bin/python bench/structure.py [--json] [--show N]
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import keyword
import os
import re
import shutil
import subprocess
import sys
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WINDOW = 6
TOO_COMMON = 8
CONTRACTS = {  # module -> class: what plugins and third parties implement
    "cua_bench.backends.base": "Backend",
    "cua_bench.session": "Session",
    "cua_data.adapters.base": "Adapter",
    "cua_bench_rl.trainer": "Trainer",
    "cua_bench.agents.base": "Agent",
}
GOOGLE_SECTION = re.compile(r"^\s*(Args|Arguments|Returns|Yields|Raises):\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Distribution:
    folder: Path
    name: str  # the import name


@dataclass(frozen=True)
class CrossImport:
    importer: str  # the importing distribution's import name
    path: Path
    line: int
    target: str  # the private module it reaches, or ``package.name (not in __all__)``


def distributions(root: Path) -> list[Distribution]:
    folders = [*sorted(root.glob("packages/*")), *sorted(root.glob("plugins/*")), root / "tui"]
    return [
        Distribution(folder, init.parent.name)
        for folder in folders
        if (folder / "pyproject.toml").is_file()
        for init in sorted((folder / "src").glob("*/__init__.py"))
    ]


def source_files(dist: Distribution) -> list[Path]:
    return sorted(p for p in (dist.folder / "src").rglob("*.py") if "__pycache__" not in p.parts)


def static_all(init: Path) -> set[str] | None:
    """``__all__`` as written in a package's ``__init__.py`` (lists, tuples, ``+`` and ``+=``)."""
    names: set[str] | None = None
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            found = {c.value for c in ast.walk(value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
            names = found | (names or set()) if isinstance(node, ast.AugAssign) else found
    return names


def _sub_all(dist: Distribution, sub: str) -> set[str] | None:
    base = dist.folder / "src" / dist.name / sub
    init = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return static_all(init) if init.is_file() else None


def _public_sub_all(dist: Distribution, names: set[str], dotted: str) -> set[str] | None:
    """The ``__all__`` of ``dist``'s submodule ``dotted`` when each step down is named in its parent's
    ``__all__`` (``names``: the package's own), else None: the submodule is private."""
    parts = dotted.split(".")
    for depth, part in enumerate(parts, 1):
        if part not in names:
            return None
        inner = _sub_all(dist, "/".join(parts[:depth]))
        if inner is None:
            return None
        names = inner
    return names


def private_cross_imports(dists: list[Distribution]) -> list[CrossImport]:
    owner = {d.name: d for d in dists}
    public = {d.name: static_all(d.folder / "src" / d.name / "__init__.py") or set() for d in dists}
    found: list[CrossImport] = []
    for dist in dists:
        for path in source_files(dist):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names if "." in a.name]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    top = node.module.split(".")[0]
                    if node.module != top:
                        # A submodule the package names in its __all__ (cua_bench.backend_kit) is public
                        # too, for the names in its own __all__; and so on down (cua_bench.sim.provenance).
                        rest = node.module.partition(".")[2]
                        inner = _public_sub_all(owner[top], public.get(top, set()), rest) if top in owner else None
                        if inner is None:
                            targets = [node.module]
                        else:
                            hidden = [a.name for a in node.names if a.name not in inner]
                            targets = [f"{node.module}.{name} (not in __all__)" for name in hidden]
                    else:
                        hidden = [a.name for a in node.names if a.name not in public.get(top, ())]
                        targets = [f"{top}.{name} (not in __all__)" for name in hidden]
                else:
                    continue
                targets = [t for t in targets if t.split(".")[0] in owner and t.split(".")[0] != dist.name]
                if targets:  # one statement counts once
                    found.append(CrossImport(dist.name, path, node.lineno, targets[0]))
    return found


def _shapes(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, shape) of each line worth comparing, in order."""
    rows: dict[int, list[str]] = defaultdict(list)
    ends: dict[int, int] = {}
    skip_logical, first, fstring = False, True, 0
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for tok in tokens:
        kind = tokenize.tok_name[tok.type]
        if kind in ("NEWLINE", "NL", "COMMENT", "INDENT", "DEDENT", "ENDMARKER"):
            first = first or kind == "NEWLINE"
            continue
        if first:
            skip_logical, first = tok.string in ("import", "from"), False
        if skip_logical:
            continue
        if kind == "FSTRING_START":  # Python 3.12+: an f-string is one value, like a string
            fstring += 1
        if fstring:
            fstring -= kind == "FSTRING_END"
            shape = "s"
        elif kind == "NAME":
            shape = tok.string if keyword.iskeyword(tok.string) else "v"
        else:
            shape = {"STRING": "s", "NUMBER": "0"}.get(kind, tok.string)
        row = rows[tok.start[0]]
        if not (shape == "s" and row[-1:] == ["s"]):  # "a" "b" and f-string parts read as one value
            row.append(shape)
        ends[tok.start[0]] = max(ends.get(tok.start[0], 0), tok.end[0])
    return [
        (line, ends[line], " ".join(row))
        for line, row in sorted(rows.items())
        if any(t[0].isalnum() or t[0] in "'\"" for t in row)  # lone punctuation is passed over
    ]


def _thin(shape: str) -> bool:
    """At most one name or value (``return v``, ``else :``), or a field declared (``v : v = 0``)."""
    tokens = shape.split()
    return sum(t in ("v", "s", "0") for t in tokens) <= 1 or (tokens[:2] == ["v", ":"] and "(" not in tokens)


def duplicate_runs(files: list[Path], root: Path) -> list[tuple[str, int, int, str, int, int]]:
    """Runs of WINDOW or more same-shape lines two places share: (file a, first, last, file b, first, last)."""
    shapes = {path: _shapes(path.read_text(errors="replace")) for path in files}
    places: dict[tuple[str, ...], list[tuple[Path, int]]] = defaultdict(list)
    for path, rows in shapes.items():
        for i in range(len(rows) - WINDOW + 1):
            window = tuple(shape for _, _, shape in rows[i : i + WINDOW])
            if sum(_thin(shape) for shape in window) < WINDOW / 2:  # else mostly thin: boilerplate
                places[window].append((path, i))
    matches: dict[tuple[Path, Path], set[tuple[int, int]]] = defaultdict(set)
    for spots in places.values():
        if len(spots) <= TOO_COMMON:
            for (pa, ia), (pb, ib) in combinations(sorted(spots), 2):
                if pa != pb or ib - ia >= WINDOW:
                    matches[pa, pb].add((ia, ib))
    runs = []
    for (pa, pb), pairs in sorted(matches.items()):
        merged: list[list[int]] = []  # [a first, a last, b first, b last] in shape rows
        for ia, ib in sorted(pairs):
            run = next((r for r in merged if r[0] <= ia <= r[1] + 1 and r[2] <= ib <= r[3] + 1), None)
            if run is None:
                merged.append([ia, ia + WINDOW - 1, ib, ib + WINDOW - 1])
            else:
                run[1], run[3] = max(run[1], ia + WINDOW - 1), max(run[3], ib + WINDOW - 1)
        for a0, a1, b0, b1 in merged:
            if pa == pb and b0 <= a1:  # a run that overlaps itself is a pattern, not a copy
                continue
            ra, rb = shapes[pa], shapes[pb]
            name_a, name_b = str(pa.relative_to(root)), str(pb.relative_to(root))
            runs.append((name_a, ra[a0][0], ra[a1][1], name_b, rb[b0][0], rb[b1][1]))
    return runs


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _is_public(name: str) -> bool:
    return not name.startswith("_")


def _with_methods(node: Definition) -> list[Definition]:
    """A definition, and for a class the public methods defined in its body."""
    body = node.body if isinstance(node, ast.ClassDef) else []
    return [node, *(m for m in body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and _is_public(m.name))]


def docstring_counts(files: list[Path]) -> tuple[int, int]:
    """(public definitions with a docstring, public definitions) over modules that are public."""
    have = total = 0
    for path in files:
        inside = path.parts[len(path.parts) - path.parts[::-1].index("src") :]  # below src/
        if not all(_is_public(part) for part in inside if part != "__init__.py"):
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, Definition) and _is_public(node.name):
                defs = _with_methods(node)
                total += len(defs)
                have += sum(ast.get_docstring(d) is not None for d in defs)
    return have, total


def contract_docstring_counts(dists: list[Distribution]) -> tuple[int, int, list[str]]:
    """(documented with a Google section, all, what was not found) over the contracts' classes and methods."""
    src = {d.name: d.folder / "src" for d in dists}
    have = total = 0
    missing = []
    for module, name in CONTRACTS.items():
        base = src.get(module.split(".")[0], Path("/nonexistent")) / module.replace(".", "/")
        path = next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)
        tree = ast.parse(path.read_text()) if path else ast.Module(body=[], type_ignores=[])
        cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
        if cls is None:
            missing.append(f"{module}.{name}")
            continue
        defs = _with_methods(cls)
        total += len(defs)
        have += sum(bool(GOOGLE_SECTION.search(ast.get_docstring(d) or "")) for d in defs)
    return have, total, missing


def import_contracts(root: Path) -> tuple[int, list[str]]:
    """(broken contracts, the broken section of lint-imports' report); -1 when import-linter is missing."""
    lint = Path(sys.executable).parent / "lint-imports"
    command = str(lint) if lint.exists() else shutil.which("lint-imports")
    if command is None:
        return -1, ["import-linter is not installed (it is in the dev extra)"]
    sources = os.pathsep.join(str(d.folder / "src") for d in distributions(root))  # this tree, installed or not
    env = {**os.environ, "PYTHONPATH": sources, "COLUMNS": "200"}  # COLUMNS: a chain's step on one line
    args = [command, "--config", str(root / ".importlinter"), "--no-cache", "--no-logo"]
    out = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, check=False).stdout
    counted = re.search(r"Contracts: (\d+) kept, (\d+) broken", out)
    if counted is None:
        return -1, out.strip().splitlines()[-5:]
    report = out.split("Broken contracts", 1)[-1] if "Broken contracts" in out else ""
    return int(counted[2]), [line for line in report.splitlines() if line.strip() and set(line.strip()) != {"-"}]


def duplicates_tool(root: Path) -> str | None:
    """The first line of the ``duplicates`` command over the whole tree, where it is installed."""
    if shutil.which("duplicates") is None:
        return None
    args = ["duplicates", "--most", "1", "--seconds", "120"]
    out = subprocess.run(args, cwd=root, capture_output=True, text=True, check=False).stdout
    return out.splitlines()[0] if out else None


def measure(root: Path, show: int = 10) -> tuple[dict[str, Any], list[str]]:
    dists = distributions(root)
    files = [path for dist in dists for path in source_files(dist)]
    lines = {path: len(path.read_text(errors="replace").splitlines()) for path in files}
    cross = private_cross_imports(dists)
    runs = duplicate_runs(files, root)
    doc_have, doc_total = docstring_counts(files)
    con_have, con_total, missing = contract_docstring_counts(dists)
    broken, chains = import_contracts(root)
    figures: dict[str, Any] = {
        "import_contracts_broken": broken,
        "private_cross_imports": len(cross),
        "duplicate_pairs": len(runs),
        "max_module_lines": max(lines.values(), default=0),
        "modules_over_400": sum(n > 400 for n in lines.values()),
        "modules_over_600": sum(n > 600 for n in lines.values()),
        "public_docstring_ratio": round(doc_have / doc_total, 3) if doc_total else 1.0,
        "contract_docstring_ratio": round(con_have / con_total, 3) if con_total else 1.0,
    }
    text = [f"{len(dists)} distributions, {len(files)} src modules, {sum(lines.values())} lines"]
    text += ["", f"largest modules (of {figures['modules_over_400']} over 400 lines):"]
    text += [f"  {n:5d}  {p.relative_to(root)}" for p, n in Counter(lines).most_common(show)]
    text += ["", f"private cross imports ({len(cross)}), by importing distribution:"]
    for importer, count in Counter(c.importer for c in cross).most_common():
        reached = Counter(c.target for c in cross if c.importer == importer)
        text.append(f"  {importer}: {count}  " + ", ".join(f"{t} x{n}" for t, n in reached.most_common(show)))
    text += ["", f"broken import contracts ({broken}):", *(f"  {line}" for line in chains)]
    pairs = len({(r[0], r[3]) for r in runs})
    text += ["", f"duplicate runs: {len(runs)} in {pairs} pairs of files (src/ only); longest:"]
    longest = sorted(runs, key=lambda r: r[2] - r[1], reverse=True)[:show]
    text += [f"  {a}:{a0}-{a1} ~ {b}:{b0}-{b1}" for a, a0, a1, b, b0, b1 in longest]
    if (tool := duplicates_tool(root)) is not None:
        text.append(f"  the duplicates command (whole tree, one row per pair of files): {tool}")
    text += ["", f"docstrings: {doc_have}/{doc_total} public definitions have one"]
    text.append(f"contract classes and their public methods with Args/Returns/Raises: {con_have}/{con_total}")
    text += [f"  contract class not found: {name}" for name in missing]
    return figures, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--show", type=int, default=10, help="worst offenders to list per figure")
    args = parser.parse_args(argv)
    figures, text = measure(ROOT, args.show)
    if args.json:
        print(json.dumps({**figures, "details": text}, indent=2))
    else:
        print("\n".join(text))
        print(" ".join(f"{key}={value}" for key, value in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
