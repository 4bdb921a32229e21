"""bench/rewards.py: random play with ``--record`` keeps its run folder and resumes it, so the desktop's
hours of random episodes can stop and go on."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from support.scripts import load_script


def rewards() -> ModuleType:
    return load_script("bench/rewards.py", "bench_rewards")


def test_random_play_resumes_its_run_folder_and_replays_only_what_is_missing(tmp_path: Path) -> None:
    bench = rewards()
    folder = tmp_path / "sim-noop"
    first = bench.random_play("sim", "sim", "noop", 1, folder)
    episodes = folder / "episodes.jsonl"
    lines = episodes.read_text().splitlines()
    assert len(lines) == len(first) > 1 and set(first.values()) == {0.0}
    episodes.write_text("\n".join(lines[:-1]) + "\n")  # as a run killed before its last episode left it
    again = bench.random_play("sim", "sim", "noop", 1, folder)
    assert again == first
    replayed = episodes.read_text().splitlines()
    assert len(replayed) == len(lines)
    assert replayed[:-1] == lines[:-1]  # the finished episodes were kept, not played again
    assert json.loads(replayed[-1])["task"] == json.loads(lines[-1])["task"]
