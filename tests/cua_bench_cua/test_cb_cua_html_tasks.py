"""Cua Bench's HTML tasks as Cua's users write them, run with ``cb run`` and its defaults.

Real environments: three task folders in Cua's style (tests/support/cua_style: a form whose oracle
clicks a select's option and a submit button below the fold, a slider dragged to a point computed
from ``window.screenX``, a context menu opened by a RightClickAction at such a point) run on the
backend ``cb`` picks (local: Chromium windows on Xvfb), as Cua's native provider and as its simulated
one (a desktop drawn with the look of macOS or Windows 11, the windows inside it). Every oracle must
score 1 and doing nothing 0.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cua_bench.backends.local import unavailable
from cua_bench_cua.cb import main

STYLE = Path(__file__).parents[1] / "support" / "cua_style"
LOCAL = unavailable()
pytestmark = pytest.mark.skipif(
    LOCAL is not None and not os.environ.get("CI"), reason=f"local backend unavailable: {LOCAL}"
)


COMPUTERS = [("native", "linux"), ("simulated", "macos"), ("simulated", "win11")]


@pytest.fixture(params=COMPUTERS, ids=["-".join(c) for c in COMPUTERS])
def tasks(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    folder = Path(shutil.copytree(STYLE, tmp_path / "tasks"))
    for module in folder.glob("*/main.py"):
        text = module.read_text()
        assert 'PROVIDER, OS_TYPE = "native", "linux"' in text
        module.write_text(text.replace('"native", "linux"', '"{}", "{}"'.format(*request.param)))
    return folder


def rewards(run: Path) -> dict[str, float]:
    lines = (run / "episodes.jsonl").read_text().splitlines()
    return {entry["key"]: entry["reward"] for entry in map(json.loads, lines)}


def test_cua_style_oracles_score_one_on_the_backend_cb_picks(tasks: Path) -> None:
    result = CliRunner().invoke(main, ["run", str(tasks), "--output-dir", "runs/oracle", "-j", "2"])
    assert result.exit_code == 0, result.output
    assert "cb: backend local (its tasks need HTML windows (3 of 3)" in result.output
    scores = rewards(Path("runs/oracle"))
    assert len(scores) == 6 and set(scores.values()) == {1.0}, scores


def test_doing_nothing_scores_zero(tasks: Path) -> None:
    result = CliRunner().invoke(main, ["run", str(tasks), "--noop", "--output-dir", "runs/noop", "-j", "2"])
    assert result.exit_code == 0, result.output
    scores = rewards(Path("runs/noop"))
    assert len(scores) == 6 and set(scores.values()) == {0.0}, scores
