"""examples/training/grpo_sim.py's baselines: a fixed click is played and scored for real (so the best
fixed click's 0.00 is what the screen gives, not a silent zero)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from cua_bench import make
from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import evaluate
from cua_bench_rl.workers import EnvWorkers
from cua_core.actions import Click, action_from_dict

_EXAMPLE = Path(__file__).parents[2] / "examples" / "training" / "grpo_sim.py"


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("grpo_sim_example", _EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_fixed_click_on_the_named_button_scores_and_elsewhere_does_not() -> None:
    grpo_sim = example()
    ref, other = EpisodeSpec("sim/click-button", 0, "train"), EpisodeSpec("sim/click-button", 1, "train")
    with make("sim/click-button", observes="none") as env:
        env.reset(options={"variant": ref.variant, "split": ref.split})
        actions = [action_from_dict(a) for a in env.solve(steps=1)["steps"][0]["actions"]]
    point = next(a.coordinate for a in actions if isinstance(a, Click) and a.coordinate is not None)
    with EnvWorkers("sim", 1) as workers:
        assert evaluate(workers, grpo_sim.FixedClick(point.x, point.y), [ref])["success"] == 1.0
        assert evaluate(workers, grpo_sim.FixedClick(point.x, point.y), [other])["success"] == 0.0


def test_baseline_flags_are_checked_before_anything_starts(capsys: pytest.CaptureFixture[str]) -> None:
    grpo_sim = example()
    for argv, why in (
        (["--family", "a11y", "--bc"], "--best-fixed and --bc are for --family pixel"),
        (["--family", "pixel", "--bc", "-1"], "give the minutes of behaviour cloning"),
    ):
        with pytest.raises(SystemExit) as stopped:
            grpo_sim.main(argv)
        assert stopped.value.code == 2 and why in capsys.readouterr().err
