"""The replay buffer: capacity, staleness, on- and off-policy sampling, and persistence that a kill -9 cannot corrupt."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.rl_episodes import TASK, group, plain

from cua_bench.spec import EpisodeSpec, Observes
from cua_bench_rl.buffer import INDEX_FILE, ReplayBuffer
from cua_bench_rl.rollouts import Group, Turn
from cua_data.cli import main as cua_data
from cua_data.errors import StoreError
from cua_data.reader import DatasetReader

OTHER = EpisodeSpec("sim/type-text", 1, "train")
TESTS = Path(__file__).resolve().parents[1]


def _tags(groups: list[Group]) -> list[str]:
    return [g.episodes[0].id for g in groups]


# -- in memory --------------------------------------------------------------------------------------


def test_capacity_evicts_the_oldest_and_counts_it() -> None:
    buffer = ReplayBuffer(capacity=3, max_staleness=None)
    for seed in range(5):
        buffer.add(group(2, task=TASK if seed % 2 else OTHER, seed=seed))
    assert len(buffer) == 3
    assert _tags(buffer.groups()) == ["e2-0", "e3-0", "e4-0"]
    assert buffer.stats == {
        "added": 5,
        "used": 0,
        "evicted_capacity": 2,
        "evicted_stale": 0,
        "evicted_ahead": 0,
        "lost": 0,
        "size": 3,
    }


def test_groups_of_the_same_task_coexist() -> None:
    buffer = ReplayBuffer(capacity=8, max_staleness=None)
    buffer.add(group(2, seed=1))
    buffer.add(group(2, seed=2))
    assert [g.task for g in buffer.groups()] == [TASK, TASK]
    assert _tags(buffer.sample(5, version=0)) == ["e1-0", "e2-0"]


def test_stale_groups_are_evicted_when_met_and_never_returned() -> None:
    buffer = ReplayBuffer(capacity=10, max_staleness=2)
    for version in range(5):
        buffer.add(group(2, version=version, seed=version))
    # at version 5 a group is usable while 5 - its version <= 2: versions 3 and 4 only
    off = buffer.sample(10, version=5, on_policy=False)
    assert sorted(_tags(off)) == ["e3-0", "e4-0"]
    assert buffer.stats["evicted_stale"] == 3 and len(buffer) == 2
    # a group's version is its oldest decision's: a 2-turn episode started at version 2 is judged by 2
    mixed = group(2, turns=2, version=2, seed=9)
    assert mixed.version == 2 and mixed.episodes[0].versions == [2, 3]
    buffer.add(mixed)
    assert _tags(buffer.sample(10, version=5)) == ["e4-0", "e3-0"]
    assert buffer.stats["evicted_stale"] == 4


def test_no_staleness_bound_keeps_everything() -> None:
    buffer = ReplayBuffer(capacity=10, max_staleness=None)
    buffer.add(group(2, version=0, seed=0))
    assert _tags(buffer.sample(1, version=1000)) == ["e0-0"]
    assert buffer.stats["evicted_stale"] == 0


def test_on_policy_gives_the_freshest_once_each_and_what_there_is() -> None:
    buffer = ReplayBuffer(capacity=10, max_staleness=5)
    for seed, version in enumerate([1, 3, 2, 3]):
        buffer.add(group(2, version=version, seed=seed))
    # freshest version first; among equals, the first added first
    assert _tags(buffer.sample(3, version=3)) == ["e1-0", "e3-0", "e2-0"]
    assert _tags(buffer.sample(3, version=3)) == ["e0-0"]
    assert buffer.sample(3, version=3) == []
    assert buffer.stats == {
        "added": 4,
        "used": 4,
        "evicted_capacity": 0,
        "evicted_stale": 0,
        "evicted_ahead": 0,
        "lost": 0,
        "size": 0,
    }


def test_off_policy_draws_uniformly_seeded_with_reuse() -> None:
    def draws(seed: int) -> list[list[str]]:
        buffer = ReplayBuffer(capacity=10, max_staleness=None, seed=seed)
        for i in range(6):
            buffer.add(group(2, seed=i))
        out = [_tags(buffer.sample(3, version=0, on_policy=False)) for _ in range(40)]
        assert len(buffer) == 6 and buffer.stats["used"] == 0
        return out

    first = draws(seed=1)
    assert draws(seed=1) == first
    assert draws(seed=2) != first
    assert all(len(set(d)) == 3 for d in first)  # no repeats within one call
    seen = [tag for d in first for tag in d]
    assert {seen.count(f"e{i}-0") for i in range(6)} <= set(range(12, 29))  # 120 draws of 6: ~20 each
    # reuse across calls, and asking for more than there is gives all of them
    buffer = ReplayBuffer(capacity=10, max_staleness=None)
    buffer.add(group(2, seed=0))
    assert _tags(buffer.sample(5, version=0, on_policy=False)) == ["e0-0"]
    assert _tags(buffer.sample(5, version=0, on_policy=False)) == ["e0-0"]


def test_bad_arguments_and_groups_are_named() -> None:
    with pytest.raises(ValueError, match="capacity must be a positive number"):
        ReplayBuffer(capacity=0)
    with pytest.raises(ValueError, match="max_staleness must be None"):
        ReplayBuffer(max_staleness=-1)
    buffer = ReplayBuffer()
    with pytest.raises(ValueError, match="non-empty"):
        buffer.add(Group(TASK, []))
    aborted = group(2)
    aborted.episodes[1].status = "aborted"
    with pytest.raises(ValueError, match="is aborted: aborted and failed episodes are not trained on"):
        buffer.add(aborted)
    mixed = group(2)
    mixed.episodes[0].task = OTHER
    with pytest.raises(ValueError, match="plays sim/type-text/train/1, its group sim/click-button/train/3"):
        buffer.add(mixed)
    with pytest.raises(ValueError, match="count must be"):
        buffer.sample(-1, version=0)
    assert len(buffer) == 0


def test_a_group_is_one_episode_however_its_rollouts_observed_it() -> None:
    """An EpisodeSpec compares as (task, variant, split): rollouts of one that observed differently are
    one GRPO group (one key, one sampler unit, one buffer group); another split is another group."""
    from cua_bench_rl.sampling import DifficultySampler

    png = TASK.with_(observes=Observes("png", max_size=(160, 100)), max_steps=3)
    a11y = TASK.with_(observes=Observes("none", a11y="nodes"))
    test_split = TASK.with_(split="test")
    rollouts = [*group(2, task=png, seed=1).episodes, *group(2, task=a11y, seed=2).episodes]
    rollouts += group(2, task=test_split, seed=3).episodes
    by_episode: dict[EpisodeSpec, list[str]] = {}
    for rollout in rollouts:
        by_episode.setdefault(rollout.task, []).append(rollout.id)
    assert list(by_episode.values()) == [["e1-0", "e1-1", "e2-0", "e2-1"], ["e3-0", "e3-1"]]
    assert {r.task.key for r in rollouts} == {"sim/click-button/train/3", "sim/click-button/test/3"}
    buffer = ReplayBuffer(capacity=4, max_staleness=None)
    buffer.add(Group(TASK, rollouts[:4]))  # one group of the png and the a11y rollouts
    with pytest.raises(ValueError, match="plays sim/click-button/test/3, its group sim/click-button/train/3"):
        buffer.add(Group(TASK, rollouts[2:]))
    sampler = DifficultySampler([png, a11y, test_split], per="variant")
    assert sorted(sampler.weights()) == ["sim/click-button/test/3", "sim/click-button/train/3"]


def test_an_index_of_keys_from_before_episode_specs_loads(tmp_path: Path) -> None:
    """A buffer written when keys were ``task@split:variant`` is resumed with the same groups."""
    folder = tmp_path / "buffer"
    groups = [group(2, seed=1), group(2, task=OTHER, seed=2)]
    with ReplayBuffer(capacity=4, max_staleness=None, folder=folder) as buffer:
        for g in groups:
            buffer.add(g)
    index = folder / INDEX_FILE
    records = [json.loads(line) for line in index.read_text().splitlines()]
    old = {TASK.key: "sim/click-button@train:3", OTHER.key: "sim/type-text@train:1"}
    for record in records:
        if "task" in record:
            record["task"] = old[record["task"]]
    index.write_text("".join(json.dumps(r) + "\n" for r in records))
    loaded = ReplayBuffer.load(folder, capacity=4, max_staleness=None)
    assert [g.task for g in loaded.groups()] == [TASK, OTHER]
    assert [plain(g) for g in loaded.groups()] == [plain(g) for g in groups]


# -- on disk ----------------------------------------------------------------------------------------


def test_the_folder_is_a_valid_dataset_of_rl_rows_and_loads_back_the_same(tmp_path: Path) -> None:
    folder = tmp_path / "buffer"
    buffer = ReplayBuffer(capacity=8, max_staleness=None, folder=folder)
    groups = [group(4, turns=2, seed=1), group(3, task=OTHER, turns=1, seed=2, png=True)]
    for g in groups:
        buffer.add(g)
    reader = DatasetReader(folder)
    rows = list(reader)
    assert len(rows) == 7 and all(r.rl is not None for r in rows)
    assert {r.metadata.others["task"] for r in rows} == {TASK.key, OTHER.key}
    result = CliRunner().invoke(cua_data, ["validate", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["ok"] is True
    loaded = ReplayBuffer.load(folder, capacity=8, max_staleness=None)
    assert [plain(g) for g in loaded.groups()] == [plain(g) for g in groups]
    assert loaded.stats == buffer.stats


def test_resume_gives_the_same_live_groups_and_counts_and_nothing_dropped(tmp_path: Path) -> None:
    folder = tmp_path / "buffer"
    buffer = ReplayBuffer(capacity=5, max_staleness=1, folder=folder)
    for seed in range(6):  # versions 0 0 1 1 2 2; the first is evicted for capacity
        buffer.add(group(2, version=seed // 2, seed=seed))
    used = buffer.sample(1, version=2)  # the other version 0 is stale; the first version 2 is used
    assert _tags(used) == ["e4-0"]
    live = _tags(buffer.groups())
    assert live == ["e2-0", "e3-0", "e5-0"]
    expected = {
        "added": 6,
        "used": 1,
        "evicted_capacity": 1,
        "evicted_stale": 1,
        "evicted_ahead": 0,
        "lost": 0,
        "size": 3,
    }
    assert buffer.stats == expected
    loaded = ReplayBuffer.load(folder, capacity=5, max_staleness=1)
    assert _tags(loaded.groups()) == live and loaded.stats == expected
    assert [plain(g) for g in loaded.groups()] == [plain(g) for g in buffer.groups()]
    # the dropped groups' files and images are gone; the folder holds the live groups only
    assert len(list((folder / "desktop/use/train").glob("*.parquet"))) == 3
    assert len(list((folder / "images").rglob("*.png"))) == 6
    assert DatasetReader(folder).count() == 6
    result = CliRunner().invoke(cua_data, ["validate", str(folder)])
    assert result.exit_code == 0, result.output
    # and it goes on: a new add after the resume, then another resume
    loaded.add(group(2, version=2, seed=7))
    again = ReplayBuffer.load(folder, capacity=5, max_staleness=1)
    assert _tags(again.groups()) == ["e2-0", "e3-0", "e5-0", "e7-0"]
    assert again.stats["added"] == 7
    # a smaller capacity on resume evicts the oldest, counted
    small = ReplayBuffer.load(folder, capacity=1, max_staleness=1)
    assert _tags(small.groups()) == ["e7-0"] and small.stats["evicted_capacity"] == 4


def test_groups_played_by_weights_newer_than_the_checkpoint_are_dropped_on_resume(tmp_path: Path) -> None:
    """A trainer killed after its step-1 checkpoint had already published versions 2 and 3: the groups
    they played hold log-probs of weights nothing has any more, and must not be trained on."""
    folder = tmp_path / "buffer"
    buffer = ReplayBuffer(capacity=8, max_staleness=None, folder=folder)
    for seed, version in enumerate((0, 1, 2, 3)):
        buffer.add(group(2, version=version, seed=seed))
    loaded = ReplayBuffer.load(folder, capacity=8, max_staleness=None)
    assert loaded.drop_ahead_of(1) == 2
    assert _tags(loaded.groups()) == ["e0-0", "e1-0"] and loaded.stats["evicted_ahead"] == 2
    again = ReplayBuffer.load(folder, capacity=8, max_staleness=None)  # the drop is durable, and counted
    assert _tags(again.groups()) == ["e0-0", "e1-0"] and again.stats["evicted_ahead"] == 2
    assert again.drop_ahead_of(5) == 0


def test_compaction_keeps_the_index_and_the_folder_small(tmp_path: Path) -> None:
    folder = tmp_path / "buffer"
    buffer = ReplayBuffer(capacity=4, max_staleness=None, folder=folder)
    for seed in range(40):
        buffer.add(group(2, seed=seed))
    lines = (folder / INDEX_FILE).read_text().splitlines()
    assert len(lines) < 20, lines  # compacted every capacity // 4 = 1 drop: counts + live + the last records
    assert len(list((folder / "desktop/use/train").glob("*.parquet"))) <= 5
    assert len(list((folder / "images").rglob("*.png"))) <= 10
    assert json.loads(lines[0])["added"] >= 36
    buffer.close()
    marker = json.loads((folder / "cua-dataset.json").read_text())
    assert marker["rows"] == 8 and len(marker["partitions"]) == 4


def test_a_group_whose_index_line_was_never_written_does_not_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "buffer"
    buffer = ReplayBuffer(capacity=8, max_staleness=None, folder=folder)
    buffer.add(group(2, seed=1))

    def killed(records: object) -> None:
        raise KeyboardInterrupt  # stands for a kill between the Parquet file and its index line

    monkeypatch.setattr(buffer, "_append", killed)
    with pytest.raises(KeyboardInterrupt):
        buffer.add(group(2, seed=2))
    assert len(list((folder / "desktop/use/train").glob("*.parquet"))) == 2  # the orphan is on disk
    # and a torn last line from a kill mid-append
    with (folder / INDEX_FILE).open("a") as index:
        index.write('{"op":"add","group":"g00000009-abc')
    loaded = ReplayBuffer.load(folder, capacity=8, max_staleness=None)
    assert _tags(loaded.groups()) == ["e1-0"] and loaded.stats["added"] == 1
    assert len(list((folder / "desktop/use/train").glob("*.parquet"))) == 1
    assert len(list((folder / "images").rglob("*.png"))) == 2
    assert all(json.loads(line) for line in (folder / INDEX_FILE).read_text().splitlines())
    assert CliRunner().invoke(cua_data, ["validate", str(folder)]).exit_code == 0


def test_a_group_whose_file_was_deleted_behind_its_back_is_counted_lost(tmp_path: Path) -> None:
    folder = tmp_path / "buffer"
    buffer = ReplayBuffer(capacity=8, max_staleness=None, folder=folder)
    buffer.add(group(2, seed=1))
    buffer.add(group(2, seed=2))
    first = sorted((folder / "desktop/use/train").glob("*.parquet"))[0]
    first.unlink()
    loaded = ReplayBuffer.load(folder, capacity=8, max_staleness=None)
    assert _tags(loaded.groups()) == ["e2-0"]
    assert loaded.stats == {
        "added": 2,
        "used": 0,
        "evicted_capacity": 0,
        "evicted_stale": 0,
        "evicted_ahead": 0,
        "lost": 1,
        "size": 1,
    }
    assert ReplayBuffer.load(folder, capacity=8, max_staleness=None).stats == loaded.stats
    assert CliRunner().invoke(cua_data, ["validate", str(folder)]).exit_code == 0


def test_a_folder_is_one_buffer_and_a_foreign_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "buffer"
    ReplayBuffer(folder=folder).add(group(2))
    with pytest.raises(StoreError, match=r"holds a replay buffer already: resume it with ReplayBuffer\.load"):
        ReplayBuffer(folder=folder)
    from support.lite_rows import write

    write(tmp_path / "data", range(2))
    with pytest.raises(StoreError, match=r"has partitions but no buffer\.jsonl: it is not a replay buffer's folder"):
        ReplayBuffer.load(tmp_path / "data")
    empty = ReplayBuffer.load(tmp_path / "new")  # a run killed before its buffer was made
    assert len(empty) == 0 and (tmp_path / "new" / INDEX_FILE).exists()


_CHILD = """
import sys
from cua_bench_rl.buffer import ReplayBuffer
from support.rl_episodes import group
buffer = ReplayBuffer(capacity=100, max_staleness=None, folder=sys.argv[1])
for seed in range(1000):
    buffer.add(group(4, turns=2, seed=seed))
    print(f"added {seed}", flush=True)
"""


@pytest.mark.parametrize("into", [0.03, 0.09, 0.16])
def test_kill_9_mid_add_leaves_whole_groups_and_loses_nothing_written(tmp_path: Path, into: float) -> None:
    folder = tmp_path / "buffer"
    env = {**os.environ, "PYTHONPATH": str(TESTS), "CUA_BENCH_RL_BUFFER_SLOW_ADD": "0.05"}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(folder)], stdout=subprocess.PIPE, env=env, text=True)
    assert child.stdout is not None
    try:
        for line in child.stdout:
            if line.strip() == "added 2":
                break
        time.sleep(into)  # 4 rows of 0.05 s each: the kill lands inside the fourth group's add
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    reported = 3 + sum(1 for line in child.stdout if line.startswith("added"))
    loaded = ReplayBuffer.load(folder, capacity=100, max_staleness=None)
    assert len(loaded) in (reported, reported + 1)  # the one in flight: whole, or not at all
    assert _tags(loaded.groups())[:reported] == [f"e{s}-0" for s in range(reported)]
    for g in loaded.groups():
        assert len(g.episodes) == 4 and all(len(e.turns) == 2 for e in g.episodes)
    assert loaded.stats["added"] == len(loaded) and loaded.stats["lost"] == 0
    assert not [p for p in folder.rglob("*") if ".tmp-" in p.name]
    assert len(list((folder / "desktop/use/train").glob("*.parquet"))) == len(loaded)
    assert CliRunner().invoke(cua_data, ["validate", str(folder)]).exit_code == 0
    loaded.add(group(2, seed=999))  # and it goes on from there
    assert len(ReplayBuffer.load(folder, capacity=100, max_staleness=None)) == len(loaded)


# -- speed ------------------------------------------------------------------------------------------


def test_adding_a_group_is_cheap(tmp_path: Path) -> None:
    buffer = ReplayBuffer(capacity=64, max_staleness=None, folder=tmp_path / "buffer")
    groups = [group(8, turns=1, seed=seed) for seed in range(20)]
    started = time.perf_counter()
    for g in groups:
        buffer.add(g)
    each = (time.perf_counter() - started) / len(groups)
    print(f"\nadd: {each * 1000:.1f} ms per group of 8 single-turn episodes with 128x80 screenshots")
    assert each < 0.25  # a few ms on an idle machine; the bound leaves room for a loaded CI runner


@pytest.mark.slow
def test_loading_200_groups(tmp_path: Path) -> None:
    folder = tmp_path / "buffer"
    buffer = ReplayBuffer(capacity=256, max_staleness=None, folder=folder)
    for seed in range(200):
        buffer.add(group(8, turns=1, seed=seed))
    started = time.perf_counter()
    loaded = ReplayBuffer.load(folder, capacity=256, max_staleness=None)
    seconds = time.perf_counter() - started
    print(f"\nload: {seconds:.2f} s for 200 groups of 8 single-turn episodes with 128x80 screenshots")
    assert len(loaded) == 200 and loaded.stats == buffer.stats
    assert seconds < 30


# -- real rollouts ----------------------------------------------------------------------------------


def test_real_sim_rollouts_persist_and_load_back_pixel_for_pixel(tmp_path: Path) -> None:
    """Groups from the real loader on real sim env servers (RGB frames, a11y nodes, two turns each)."""
    import re

    from cua_bench import Observes
    from cua_bench.nodes import center, find
    from cua_bench_rl.loader import RolloutLoader
    from cua_bench_rl.rollouts import Decision
    from cua_bench_rl.workers import EnvWorkers
    from cua_core.actions import Click, Done

    def act(turn: Turn) -> Decision:
        if turn.step > 0:
            return Decision([Done()], [1], [-0.25], text="done")
        name = re.search(r'"(.+?)"', turn.instruction).group(1)  # type: ignore[union-attr]
        return Decision([Click(center(find(turn.observation["a11y"], role="button", name=name)))], [0, 2], [-1.0, -0.5])

    observes = Observes("rgb", a11y="nodes", max_size=(160, 100))
    buffer = ReplayBuffer(capacity=4, max_staleness=None, folder=tmp_path / "buffer")
    with EnvWorkers("sim", 2, width=320, height=200) as workers:
        loader = RolloutLoader(workers, [EpisodeSpec("sim/click-button", 1, "train")], group_size=2, observes=observes)
        with loader:
            for number, batch in enumerate(loader.batches(max_batch=4), 1):
                batch.respond([act(t) for t in batch.turns], version=number)
                for g in loader.pop_groups():
                    buffer.add(g)
                if len(buffer) >= 1:
                    break
    played = buffer.groups()[0]
    shot = played.episodes[0].turns[0].turn.observation["screenshot"]
    assert shot.shape == (100, 160, 3) and played.episodes[0].turns[0].turn.observation["a11y"]
    assert [len(e.turns) for e in played.episodes] == [2, 2] and played.rewards == [1.0, 1.0]
    loaded = ReplayBuffer.load(tmp_path / "buffer", capacity=4, max_staleness=None)
    # Under load two groups can finish in one batch: every group the buffer took comes back.
    assert [plain(g) for g in loaded.groups()] == [plain(g) for g in buffer.groups()]
