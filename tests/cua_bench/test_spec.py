"""EpisodeSpec: one description of an episode, one key, one wire form, taken whole by the env server."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from PIL import Image

import cua_bench
from cua_bench import Agent, EnvClient, EpisodeSpec, Observes, RunConfig, Runner
from cua_bench_tasks_sim import FOLDER as SIM
from cua_core.actions import Action, Done
from cua_core.errors import CuaError
from cua_core.rpc import RpcServer


def test_a_spec_travels_whole_and_its_key_names_the_episode_not_how_it_is_seen() -> None:
    spec = EpisodeSpec("sim/click-button", 3, "train", Observes("png", (640, 400), "osworld"), 7, 11)
    assert EpisodeSpec.from_wire(spec.to_wire()) == spec
    back = EpisodeSpec.from_wire(spec.to_wire())
    assert (back.observes, back.max_steps, back.seed) == (spec.observes, 7, 11)
    assert spec.key == "sim/click-button/train/3" and EpisodeSpec.parse_key(spec.key) == spec
    assert spec.name == "click-button" and EpisodeSpec("/t/osworld/abc-123.json").name == "abc-123"
    # What the agent sees is no part of which episode it is (a GRPO group, a run's resume record).
    assert spec.with_(observes=Observes("none")) == spec and hash(spec.with_(seed=1)) == hash(spec)
    assert spec.with_(split="test") != spec
    assert EpisodeSpec("sim/click-button", observes="png,a11y").observes == Observes("png", None, "nodes")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"task": ""}, "an episode needs a task"),
        ({"task": "t", "variant": -1}, "variant must be an index >= 0, got -1"),
        ({"task": "t", "variant": True}, "variant must be an index"),
        ({"task": "t", "split": "a/b"}, "split must be a name like train or test"),
        ({"task": "t", "max_steps": 0}, "max_steps must be a whole number >= 1"),
        ({"task": "t", "seed": "1"}, "seed must be an int or None"),
        ({"task": "t", "observes": "jpeg"}, "unknown part 'jpeg'"),
        ({"task": "t", "observes": {"max_size": [0, 10]}}, "observes.max_size must be"),
        ({"task": "t", "observes": {"colour": 1}}, "observes: unknown field"),
        ({"task": "t", "obs": "png"}, "episode spec: unknown field.* obs; known: max_steps, observes"),
    ],
)
def test_a_bad_spec_is_refused_naming_what_is_wrong(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EpisodeSpec.from_wire(fields)


def test_a_key_that_is_no_episode_key_is_refused() -> None:
    with pytest.raises(ValueError, match="not an episode key like 'sim/click-button/train/3'"):
        EpisodeSpec.parse_key("sim/click-button@train:3")


def test_the_server_scales_the_screenshot_where_it_takes_it_and_records_the_full_screen() -> None:
    with cua_bench.make("sim/click-button", width=1280, height=800) as env:
        obs, _ = env.reset(options=EpisodeSpec("sim/click-button", observes=Observes("rgb", (640, 640))))
        assert np.asarray(obs["screenshot"]).shape == (400, 640, 3) and "recording" not in obs
        # A PNG the agent asked for at 320 wide arrives 320 wide; the recording asked for gets all of the screen.
        obs, _ = env.reset(options={"task": "sim/click-button", "observes": "png,max=320x320", "record": True})
        assert Image.open(io.BytesIO(bytes(obs["screenshot"]))).size == (320, 200)
        assert Image.open(io.BytesIO(bytes(obs["recording"]))).size == (1280, 800)
        obs, *_ = env.step([])
        assert Image.open(io.BytesIO(bytes(obs["recording"]))).size == (1280, 800)
        # Nothing to scale: the view is the recording, sent once.
        obs, _ = env.reset(options={"task": "sim/click-button", "observes": "png", "record": True})
        assert "recording" not in obs


def test_a_server_of_the_older_protocol_is_named_as_such() -> None:
    def old_reset(task: str, variant: int = 0, obs: str = "rgb") -> dict[str, Any]:
        raise AssertionError("not reached")

    with RpcServer("tcp://127.0.0.1:0") as server:
        server.register("reset", old_reset)
        with (
            EnvClient(server.address, frames="socket") as env,
            pytest.raises(
                CuaError,
                match=r"speaks an older env protocol than this client's \(2\): upgrade cua-bench where the server",
            ),
        ):
            env.reset(options=EpisodeSpec("sim/click-button"))


class Looker(Agent):
    observes = Observes("none", a11y="nodes")
    seen: ClassVar[list[dict[str, Any]]] = []

    def act(self, observation: dict[str, Any]) -> list[Action]:
        Looker.seen.append(observation)
        return [Done()]


def test_the_runs_obs_reaches_the_episode_and_the_agent_is_left_as_it_was(tmp_path: Path) -> None:
    Looker.seen = []
    agent = Looker()
    config = RunConfig(str(SIM / "click-button"), tmp_path / "run", agent=agent, max_parallel=1, variants=2)
    config.observes = Observes("png")
    Runner(config).run()
    assert agent.observes == Observes("none", a11y="nodes")  # the runner once wrote --obs onto the agent
    assert len(Looker.seen) == 2 and all("a11y" not in o and "screenshot" in o for o in Looker.seen)
