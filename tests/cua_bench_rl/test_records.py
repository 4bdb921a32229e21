"""Rollouts as LiteSample RL rows: valid CUA-Lite rows that give back everything a policy needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.rl_episodes import episode, plain, screenshot

from cua_bench.spec import EpisodeSpec, Observes
from cua_bench_rl.records import episode_to_sample, sample_to_episode
from cua_bench_rl.rollouts import Decision, Rollout, Taken, Turn, spec_of_key
from cua_core.actions import Click, Done, Fail, KeyPress, Point, Scroll, TypeText, Wait
from cua_data.errors import SampleError
from cua_data.lite_actions import from_lite_tool_call
from cua_data.reader import DatasetReader
from cua_data.schema import LiteSample
from cua_data.writer import DatasetWriter


def _through_a_dataset(sample: LiteSample, root: Path) -> tuple[LiteSample, list[bytes]]:
    with DatasetWriter(root) as writer:
        assert writer.add(sample, split="train", variant="g1")
    reader = DatasetReader(root)
    (back,) = list(reader)
    return back, [reader.images.get(str(ref)) for ref in back.images]


def test_round_trip_through_a_dataset_keeps_everything_a_policy_needs(tmp_path: Path) -> None:
    played = episode("ep-1", turns=3, version=4, seed=5)
    back, images = _through_a_dataset(episode_to_sample(played, "g1"), tmp_path / "data")
    again = sample_to_episode(back, images)
    assert plain(again) == plain(played)
    # screenshots come back as HxWx3 uint8 arrays, pixel for pixel
    shot = again.turns[2].turn.observation["screenshot"]
    assert isinstance(shot, np.ndarray) and shot.dtype == np.uint8 and shot.shape == (80, 128, 3)
    assert np.array_equal(shot, screenshot(5002))
    # each turn's history is the earlier turns of the episode read back
    assert again.turns[2].turn.history == again.turns[:2]
    assert again.turns[2].turn.history[1] is again.turns[1]
    assert again.versions == [4, 5, 6] and again.version == 4


def test_png_screenshots_come_back_as_the_same_bytes() -> None:
    played = episode("ep-png", turns=2, png=True, a11y=False)
    sample = episode_to_sample(played, "g7")
    again = sample_to_episode(sample, [bytes(i) for i in sample.images if isinstance(i, bytes)])
    assert plain(again) == plain(played)
    assert isinstance(again.turns[0].turn.observation["screenshot"], bytes)
    assert "a11y" not in again.turns[0].turn.observation


def test_the_row_is_a_valid_cua_lite_use_row_with_the_rl_trace() -> None:
    played = episode("ep-2", turns=3, version=2, reward=0.75)
    sample = episode_to_sample(played, "g9")
    assert sample.problems() == []
    assert (sample.metadata.platform, sample.metadata.task_type) == ("desktop", "use")
    others = sample.metadata.others
    assert others["id"] == "ep-2" and others["episode"] == "ep-2"
    assert others["task"] == "sim/click-button/train/3" and others["group"] == "g9"
    assert others["versions"] == [2, 3, 4] and others["steps"] == [0, 1, 2]
    assert others["errors"] == [["wait: too long"], [], []]
    assert others["status"] == "completed" and others["started_after"] == 1
    assert others["resolution"] == [128, 80]
    # one user message per turn (screenshot first, the instruction in the first, a11y as JSON text)
    roles = [m["role"] for m in sample.messages]
    assert roles == ["user", "assistant"] * 3
    first = sample.messages[0]["content"]
    assert [p["type"] for p in first] == ["image", "text", "text"]
    assert first[1]["text"] == played.instruction and '"role": "button"' in first[2]["text"]
    assert len(sample.images) == 3
    # actions as CUA-Lite tool calls (rounded to its integer grid); done is not a tool call
    click = sample.messages[1]["tool_calls"][0]["function"]
    assert from_lite_tool_call(click) == [Click(Point(412, 233))]
    assert "tool_calls" not in sample.messages[5]
    assert sample.messages[5]["content"][0] == {"type": "text", "text": "raw output 2"}
    # the RL trace
    assert sample.rl is not None
    assert (sample.rl.status, sample.rl.reward) == ("completed", 0.75)
    assert [s.response_tokens for s in sample.rl.steps] == [[0, 7, 0], [1, 7, 11], [2, 7, 22]]
    assert [s.logprobs for s in sample.rl.steps][1] == [-0.5, -2.25, -0.125]
    assert [s.reward for s in sample.rl.steps] == [0.0, 0.0, 0.75]


def test_an_episode_the_policy_never_acted_in_round_trips() -> None:
    played = Rollout("ep-0", EpisodeSpec("sim/x", 1), "do nothing", reward=0.0, status="truncated")
    sample = episode_to_sample(played, "g0")
    assert sample.problems() == []
    assert plain(sample_to_episode(sample, [])) == plain(played)


def test_what_cannot_be_stored_is_named() -> None:
    bad = episode("ep-bad", turns=1)
    bad.turns[0].turn.observation["screenshot"] = np.zeros((4, 4), dtype=np.float32)
    with pytest.raises(SampleError, match="episode ep-bad turn 0: the screenshot must be PNG bytes or an HxWx3 uint8"):
        episode_to_sample(bad, "g")
    odd = episode("ep-odd", turns=1)
    odd.turns[0].turn.observation["when"] = object()
    with pytest.raises(SampleError, match="episode ep-odd turn 0: observation cannot be stored as JSON"):
        episode_to_sample(odd, "g")
    tupled = episode("ep-tuple", turns=1)
    tupled.turns[0].turn.observation["size"] = (1, 2)
    with pytest.raises(SampleError, match="changes through JSON"):
        episode_to_sample(tupled, "g")


def test_a_row_written_by_something_else_is_refused(tmp_path: Path) -> None:
    from support.lite_rows import sample as lite_sample

    with pytest.raises(SampleError, match="is not an episode written by cua-bench-rl"):
        sample_to_episode(lite_sample(3), [])


# -- every non-image field, generated ------------------------------------------------------------

_points = st.builds(Point, st.floats(0, 1000), st.floats(0, 1000))
_actions = st.lists(
    st.one_of(
        st.builds(Click, _points, st.sampled_from(["left", "right"]), st.integers(1, 3)),
        st.builds(TypeText, st.text(), st.booleans()),
        st.builds(KeyPress, st.sampled_from([("ctrl", "c"), ("enter",), ("numlock",)])),
        st.builds(Scroll, st.sampled_from(["up", "down"]), st.integers(1, 5), st.none() | _points),
        st.builds(Wait, st.floats(0, 10)),
        st.builds(Done, st.none() | st.text()),
        st.builds(Fail, st.none() | st.text()),
    ),
    max_size=3,
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def _names_a_task(task: str) -> bool:
    try:
        EpisodeSpec(task)
    except ValueError:
        return False
    return True


_task = st.builds(
    EpisodeSpec,
    st.text(min_size=1).filter(_names_a_task) | st.builds(lambda t: "/" + t, st.text(min_size=1)).filter(_names_a_task),
    st.integers(0, 10_000),
    st.sampled_from([None, "train", "test", "validation"]),
    st.sampled_from([Observes(), Observes("png", (64, 40), "nodes"), Observes("none", a11y="osworld")]),
    st.none() | st.integers(1, 100),
    st.none() | st.integers(-(2**31), 2**31),
)


@st.composite
def _episodes(draw: st.DrawFn) -> Rollout:
    task = draw(_task)
    ident = draw(st.text(min_size=1))
    instruction = draw(st.text())
    played = Rollout(
        ident,
        task,
        instruction,
        reward=draw(st.none() | st.floats(allow_nan=False)),
        status=draw(st.sampled_from(["completed", "truncated", "aborted", "failed"])),
        started_after=draw(st.integers(0, 50)),
        seconds=draw(st.floats(0, 1e6)),
    )
    for step in range(draw(st.integers(0, 4))):
        observation: dict[str, Any] = {
            "instruction": instruction,
            "step": draw(st.integers(0, 100)),
            "width": draw(st.integers(0, 4000)),
            "height": draw(st.integers(1, 4000)),
            "errors": draw(st.lists(st.text(), max_size=2)),
            "extra": draw(_json),
        }
        tree = draw(st.none() | st.text() | st.lists(st.dictionaries(st.text(max_size=4), _json, max_size=3)))
        if tree is not None:
            observation["a11y"] = tree
        tokens = draw(st.lists(st.integers(0, 2**31), max_size=6))
        logprobs = draw(st.lists(st.floats(max_value=0, allow_nan=False), min_size=len(tokens), max_size=len(tokens)))
        decision = Decision(
            draw(_actions),
            tokens,
            logprobs,
            draw(st.none() | st.text()),
            draw(st.integers(0, 1000)),
            draw(st.booleans()),
        )
        turn = Turn(
            ident,
            task,
            draw(st.sampled_from([instruction, "another instruction"])),
            step,
            observation,
            list(played.turns),
            draw(st.integers(0, 100)),
        )
        played.turns.append(
            Taken(turn, decision, draw(st.floats(allow_nan=False)), draw(st.lists(st.text(), max_size=2)))
        )
    return played


@given(_episodes())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_non_image_field_round_trips(played: Rollout) -> None:
    sample = episode_to_sample(played, "g00000001-abcdef")
    assert sample.problems() == []
    # through the stored row form (JSON strings), as the buffer's Parquet holds it
    row = LiteSample(sample.metadata, sample.messages, [], sample.rl).to_row()
    again = sample_to_episode(LiteSample.from_row(row), [])
    assert plain(again) == plain(played)


@given(_task)
@settings(max_examples=300, deadline=None)
def test_a_key_names_its_episode_and_one_from_before_episode_specs_too(spec: EpisodeSpec) -> None:
    """``spec_of_key`` reads ``EpisodeSpec.key`` and the ``task@split:variant`` written before it, and
    cannot take one for the other: what a resumed buffer or an old TRL dataset holds is read as written."""
    # A task given by its path is named by its folder: the key keeps the name, not where the folder was.
    named = spec.with_(task=spec.name) if spec.task.startswith("/") else spec
    assert spec_of_key(spec.key) == named  # as specs compare: task, variant, split
    if spec.split is not None:
        assert spec_of_key(f"{spec.task}@{spec.split}:{spec.variant}") == spec


def test_a_task_that_names_nothing_is_refused() -> None:
    """Hypothesis found "/" (and "/0" keyed as "0"): a spec whose task has no name has no key to parse."""
    for task in ("/", "//", "a/.json"):
        with pytest.raises(ValueError, match="names no task"):
            EpisodeSpec(task)
    assert spec_of_key(EpisodeSpec("/tasks/press-a", 2, "test").key) == EpisodeSpec("press-a", 2, "test")


def test_a_row_from_before_episode_specs_reads_its_old_key(tmp_path: Path) -> None:
    """A row of rl_format 1 has ``task@split:variant`` and no spec: its rollout is that episode."""
    played = episode("ep-old", turns=1)
    sample = episode_to_sample(played, "g0")
    others = sample.metadata.others
    assert others["task"] == "sim/click-button/train/3" and others["spec"]["observes"]["screenshot"] == "rgb"
    del others["spec"]
    others["task"], others["rl_format"] = "sim/click-button@train:3", 1
    back, images = _through_a_dataset(sample, tmp_path)
    assert sample_to_episode(back, images).task == EpisodeSpec("sim/click-button", 3, "train")
    others["task"] = "sim/click-button:3"
    with pytest.raises(SampleError, match="is not an episode key like 'sim/click-button/train/3'"):
        sample_to_episode(sample, images)
