"""A run's trainer and its options, as ``check_settings`` and ``build_trainer`` take them: each trainer owns
its typed ``Config``, and a trainer a plugin registers gets its own options typed and checked by it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.rl_configs import small_train_config

from cua_bench_rl.build import build_trainer, check_settings
from cua_bench_rl.hookspecs import hookimpl
from cua_bench_rl.registry import plugin_manager, trainers
from cua_bench_rl.rollouts import Group
from cua_bench_rl.trainer import Trainer, TrainerConfig
from cua_core.errors import CuaError
from cua_core.plugins import Register


@dataclass
class SmallConfig(TrainerConfig):
    temperature: float = 1.0
    layers: tuple[int, ...] = ()
    sharpen: bool = False

    def __post_init__(self) -> None:
        if self.temperature <= 0:
            raise ValueError(f"temperature must be positive, got {self.temperature}")
        self.layers = tuple(self.layers)


class SmallTrainer(Trainer):
    name = "small"
    Config = SmallConfig

    def train_step(self, groups: Sequence[Group]) -> dict[str, float]:
        return {}

    def save(self, folder: Path) -> None:
        """Nothing to keep."""

    def load(self, folder: Path) -> None:
        """Nothing to restore."""


class _SmallPlugin:
    @hookimpl
    def cua_bench_rl_register_trainers(self, register: Register[type[Trainer]]) -> None:
        register("small", SmallTrainer, description="a trainer of the tests, with its own Config")


@pytest.fixture
def small() -> Iterator[str]:
    plugin = _SmallPlugin()
    plugin_manager().register(plugin, name="test-small-trainer")
    try:
        assert trainers()["small"] is SmallTrainer
        yield "small"
    finally:
        plugin_manager().unregister(plugin)


def test_a_registered_trainer_gets_its_options_typed_by_its_own_config(small: str) -> None:
    given = {"temperature": "0.5", "layers": "1,2", "sharpen": "yes"}
    config = check_settings(small_train_config(trainer=small, trainer_options=given))
    assert config.trainer_options == {"temperature": 0.5, "layers": (1, 2), "sharpen": True}  # as the run records
    trainer = build_trainer(config, policy=object())  # type: ignore[arg-type]
    assert isinstance(trainer, SmallTrainer) and trainer.config == SmallConfig(0.5, (1, 2), True)
    assert trainer.config.to_dict() == {"temperature": 0.5, "layers": [1, 2], "sharpen": True}


@pytest.mark.parametrize(
    ("options", "says"),
    [
        # GRPO's knobs are grpo's own: another trainer does not take them
        (
            {"lr": 0.1},
            r"trainer options: unknown trainer option 'lr' \(its trainer options: temperature, layers, sharpen\)",
        ),
        ({"temprature": 2}, "unknown trainer option 'temprature'; did you mean 'temperature'?"),
        ({"temperature": "hot"}, "--trainer-option temperature=hot: temperature must be a number"),
        ({"layers": "a,b"}, "--trainer-option layers=a,b: layers must be a list"),
        ({"temperature": "0"}, "trainer options: temperature must be positive, got 0.0"),  # its __post_init__
    ],
)
def test_a_registered_trainers_config_refuses_what_it_does_not_take(
    small: str, options: dict[str, Any], says: str
) -> None:
    with pytest.raises(CuaError, match=says):
        check_settings(small_train_config(trainer=small, trainer_options=options))


def test_a_trainer_that_declares_no_config_takes_no_option(small: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SmallTrainer, "Config", TrainerConfig)
    assert check_settings(small_train_config(trainer=small, trainer_options={})).trainer_options == {}
    with pytest.raises(CuaError, match=r"unknown trainer option 'temperature' \(its trainer options: none\)"):
        check_settings(small_train_config(trainer=small, trainer_options={"temperature": 1}))
    monkeypatch.setattr(SmallTrainer, "Config", dict)
    with pytest.raises(CuaError, match="trainer 'small': its Config must be a TrainerConfig subclass"):
        check_settings(small_train_config(trainer=small, trainer_options={}))


def test_an_unknown_trainer_is_named_with_the_installed_ones_before_the_policy_is_looked_at() -> None:
    with pytest.raises(CuaError, match="no trainer 'nosuch'; installed: grpo"):
        check_settings(small_train_config(trainer="nosuch", policy="nothing either"))
