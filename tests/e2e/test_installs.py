"""Every install line in the READMEs installs this checkout's packages, never another project's.

On PyPI the names ``cua-core`` and ``cua-bench`` belong to Cua's own published packages (a different
project). Each line runs as written, from the repository root, in a fresh ``python -m venv`` as
``pip install --dry-run --ignore-installed --report``, with this machine's pip configuration and a
find-links folder that serves a decoy of every one of our names at 0.1.0 (so an index that serves
them is always in reach): every ``cua*`` distribution in the report must come from a folder of this
checkout.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
import venv
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
READMES = [ROOT / "README.md", *sorted(ROOT.glob("packages/*/README.md")), *sorted(ROOT.glob("plugins/*/README.md"))]
# cua-bench brings its tasksets, OSWorld's plugin and Cua's interop, distributions of their own, by dependency.
BENCH = {
    "cua-core", "cua-data", "cua-bench", "cua-bench-tasks-sim", "cua-bench-tasks-desktop", "cua-bench-osworld",
    "cua-bench-cua",
}  # fmt: skip
CORE = {*BENCH, "cua-bench-rl", "cua-pool"}

# Each documented line, and the cua distributions it must install (and nothing else named cua*).
DOCUMENTED = {
    "pip install .": {"cua", *CORE},
    'pip install "./packages/cua-bench"': BENCH,
    'pip install "./packages/cua-bench[docker]"': {*BENCH, "cua-bench-docker"},
    'pip install "./packages/cua-bench[android]"': {*BENCH, "cua-bench-android"},
    "pip install ./packages/cua-bench ./plugins/cua-adapters-qwen": {*BENCH, "cua-adapters-qwen"},
    "pip install './packages/cua-pool[docker]'": {"cua-core", "cua-pool"},
    'pip install "./packages/cua-pool[ray]"': {"cua-core", "cua-pool"},
    "pip install ./tui": {*CORE, "cua-tui"},
    'pip install "./packages/cua-bench[osworld]"': BENCH,
    "pip install ./packages/cua-bench-rl": {*BENCH, "cua-bench-rl"},
    'pip install "./packages/cua-bench-rl[ray]"': {*BENCH, "cua-bench-rl"},
    'pip install "./plugins/cua-bench-cua[rl]"': {*BENCH, "cua-bench-rl"},
    "pip install -e packages/cua-data": {"cua-core", "cua-data"},
    "pip install -e plugins/cua-adapters-api": {"cua-core", "cua-data", "cua-adapters-api"},
    "pip install -e plugins/cua-adapters-opencua": {"cua-core", "cua-data", "cua-adapters-opencua"},
    "pip install -e plugins/cua-adapters-uitars": {"cua-core", "cua-data", "cua-adapters-uitars"},
    # In a clone whose workspace is installed already: only the plugin itself, editable.
    "pip install --no-deps -e plugins/cua-trainer-grpo": {"cua-trainer-grpo"},
    "pip install --no-deps -e plugins/cua-trainer-ddp": {"cua-trainer-ddp"},
    "pip install --no-deps -e plugins/cua-trainer-mlx": {"cua-trainer-mlx"},
    "pip install --no-deps -e plugins/cua-trainer-trl": {"cua-trainer-trl"},
    "pip install --no-deps -e plugins/cua-adapters-qwen": {"cua-adapters-qwen"},
    "pip install --no-deps -e plugins/cua-bench-cua": {"cua-bench-cua"},
    "pip install --no-deps -e plugins/cua-bench-libvirt": {"cua-bench-libvirt"},
    "pip install --no-deps -e plugins/cua-bench-macos": {"cua-bench-macos"},
    "pip install --no-deps -e plugins/cua-bench-android": {"cua-bench-android"},
}  # fmt: skip
MEMBERS = sorted(
    p.parent.relative_to(ROOT)
    for pattern in ("packages/*/pyproject.toml", "plugins/*/pyproject.toml", "tui/pyproject.toml")
    for p in ROOT.glob(pattern)
)
# Not in a README, and checked all the same: what a tester typed first, and the resolving call of
# scripts/setup.sh (without its `dev` extra, which only adds third-party tools).
ALSO = {
    "pip install -e .": {"cua", *CORE},
    "pip install " + " ".join(f"./{m}" for m in MEMBERS) + " -e .": {
        "cua",
        *(tomllib.loads((ROOT / m / "pyproject.toml").read_text())["project"]["name"] for m in MEMBERS),
    },
}


def readme_install_lines() -> set[str]:
    """The `pip install` commands of the READMEs: code-block lines and inline code, comments dropped."""
    found = set()
    for readme in READMES:
        text = readme.read_text()
        spans = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
        lines = [line for block in spans for line in block.splitlines()]
        outside = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
        lines += re.findall(r"`([^`]+)`", outside)
        for line in lines:
            for part in re.split(r"&&|;", " ".join(line.split())):
                command = part.split(" #")[0].strip()
                if command.startswith("pip install") and "desktop-env" not in command:
                    found.add(command)
    return found


def our_names() -> list[str]:
    pyprojects = [ROOT / "pyproject.toml", *(ROOT / m / "pyproject.toml" for m in MEMBERS)]
    return sorted(tomllib.loads(p.read_text())["project"]["name"] for p in pyprojects)


def decoy_wheel(folder: Path, name: str) -> None:
    """A wheel of `name` 0.1.0 that is not ours: what an index may serve under our names."""
    stem = f"{name.replace('-', '_')}-0.1.0"
    with zipfile.ZipFile(folder / f"{stem}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{stem}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
        wheel.writestr(
            f"{stem}.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: decoy\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        wheel.writestr(f"{stem}.dist-info/RECORD", "")


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, str] | str]]:
    """Every command's dry run, in parallel in one fresh venv: {command: {cua name: url} or pip's error}.

    This venv's pip drives the fresh one (``--python``), and the fresh venv holds hatchling so that
    builds skip pip's per-build isolated environment (the same hatchling, fetched once: 3x faster).
    """
    base = tmp_path_factory.mktemp("installs")
    venv.create(base / "venv", with_pip=False)
    python = base / "venv" / "bin" / "python"
    decoys = base / "decoys"
    decoys.mkdir()
    for name in our_names():
        decoy_wheel(decoys, name)
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    env.pop("PIP_REQUIRE_VIRTUALENV", None)
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    # Our build backend, and what it asks for to build an editable wheel (get_requires_for_build_editable).
    backend = [*tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"], "editables"]
    subprocess.run([*pip, "install", "-q", *backend], env=env, check=True, capture_output=True, timeout=240)

    def run(item: tuple[int, str]) -> dict[str, str] | str:
        number, command = item
        report = base / f"report-{number}.json"
        args = shlex.split(command)[2:]
        done = subprocess.run(
            [*pip, "install", "--dry-run", "--ignore-installed", "--no-build-isolation", "--quiet",
             "--find-links", str(decoys), "--report", str(report), *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            return f"pip exited {done.returncode}:\n{done.stderr[-3000:]}"
        installs = json.loads(report.read_text())["install"]
        return {
            i["metadata"]["name"]: i["download_info"]["url"]
            for i in installs
            if i["metadata"]["name"].startswith("cua")
        }

    commands = sorted({**DOCUMENTED, **ALSO})
    with ThreadPoolExecutor(max_workers=4) as pool:
        yield dict(zip(commands, pool.map(run, enumerate(commands)), strict=True))


def test_every_readme_install_line_is_checked() -> None:
    lines = readme_install_lines()
    assert lines, "no `pip install` line found in the READMEs: has the extraction broken?"
    assert lines == set(DOCUMENTED), (
        f"README install lines not checked here: {sorted(lines - set(DOCUMENTED))}; "
        f"checked but no longer in a README: {sorted(set(DOCUMENTED) - lines)}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted({**DOCUMENTED, **ALSO}), ids=lambda c: c if len(c) < 80 else "setup.sh")
def test_installs_only_our_packages(command: str, dry_run: dict[str, dict[str, str] | str]) -> None:
    result = dry_run[command]
    assert isinstance(result, dict), f"{command}: {result}"
    checkout = ROOT.as_uri() + "/"
    foreign = {name: url for name, url in result.items() if not (url + "/").startswith(checkout)}
    assert not foreign, f"{command} installs packages that are not this checkout's: {foreign}"
    expected = {**DOCUMENTED, **ALSO}[command]
    assert set(result) == expected, f"{command}: installs {sorted(result)}, expected {sorted(expected)}"
