from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from cua_bench_rl.checkpoints import newest_checkpoint, save_checkpoint
from cua_bench_rl.curves import CurveLog, draw_curves, read_curve


def _write(text: str):  # type: ignore[no-untyped-def]
    def write(folder: Path) -> None:
        (folder / "weights.bin").write_text(text)

    return write


def test_the_newest_complete_checkpoint_wins_and_old_ones_go(tmp_path: Path) -> None:
    for step in (1, 2, 3):
        save_checkpoint(tmp_path, step, _write(f"w{step}"), {"version": step}, keep=2)
    found = newest_checkpoint(tmp_path)
    assert found is not None
    path, meta = found
    assert path.name == "step-000003" and meta == {"step": 3, "version": 3}
    assert (path / "weights.bin").read_text() == "w3"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-000002", "step-000003"]


def test_a_checkpoint_killed_mid_write_is_not_the_newest(tmp_path: Path) -> None:
    save_checkpoint(tmp_path, 1, _write("w1"), {}, keep=2)
    script = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from cua_bench_rl.checkpoints import save_checkpoint\n"
        "def write(folder):\n"
        "    (folder / 'weights.bin').write_text('half')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        f"save_checkpoint(Path({str(tmp_path)!r}), 2, write, {{}}, keep=2)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == -9
    found = newest_checkpoint(tmp_path)
    assert found is not None and found[0].name == "step-000001"
    save_checkpoint(tmp_path, 2, _write("w2"), {}, keep=2)  # the leftover is cleared, not in the way
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-000001", "step-000002"]


def test_no_checkpoint_yet(tmp_path: Path) -> None:
    assert newest_checkpoint(tmp_path / "none") is None
    (tmp_path / "step-000004").mkdir()  # no meta.json: incomplete
    assert newest_checkpoint(tmp_path) is None


def test_curve_rows_survive_a_torn_line_and_a_resume_drops_later_steps(tmp_path: Path) -> None:
    path = tmp_path / "curve.csv"
    log = CurveLog(path)
    for step in (1, 2, 3):
        log.add({"step": step, "minutes": step / 10, "reward_mean": step / 4, "success": 0.5})
    with path.open("a") as handle:
        handle.write("4,0.4,0.9")  # a kill mid-row
    assert [r["step"] for r in read_curve(path)] == [1, 2, 3]
    resumed = CurveLog(path, keep_until=2)
    assert [r["step"] for r in resumed.rows] == [1, 2]
    assert [r["step"] for r in read_curve(path)] == [1, 2]
    assert read_curve(path)[0]["eval_success"] is None
    with pytest.raises(ValueError, match="rewards"):
        resumed.add({"step": 5, "rewards": 1})


def test_the_curve_png_draws_each_series(tmp_path: Path) -> None:
    rows = [
        {"step": s, "minutes": s / 2, "reward_mean": s / 10, "success": s / 20, "eval_success": None} for s in range(10)
    ]
    rows[-1]["eval_success"] = 0.9
    draw_curves(rows, tmp_path / "curve.png", title="test")
    image = Image.open(tmp_path / "curve.png").convert("RGB")
    colours = {image.getpixel((x, y)) for x in range(image.width) for y in range(image.height)}
    assert (31, 119, 180) in colours and (44, 160, 44) in colours and (214, 39, 40) in colours
    assert not any(name.endswith(".tmp.png") for name in os.listdir(tmp_path))
