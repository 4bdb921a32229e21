"""The trainer contract: one optimisation step on GRPO groups, checkpoints, and publishing weights.

Trainers are plugins (hook ``cua_bench_rl_register_trainers``); ``cua-trainer-grpo`` is the built-in
one. The training loop (``cua_bench_rl.train``) owns rollouts, the replay buffer and the run folder,
and calls a trainer only through this contract. Each trainer owns its settings, as TRL's trainers do:
a :class:`TrainerConfig` subclass declared as ``Trainer.Config``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Group
from cua_core import typed_options

__all__ = ["Trainer", "TrainerConfig"]


@dataclass
class TrainerConfig:
    """The base of a trainer's settings: each field of a subclass is one ``--trainer-option`` (and one key of
    ``trainer_options`` in a run's config file), typed by its annotation, with its default.

    A trainer declares its subclass as ``Trainer.Config`` (cua-trainer-grpo's ``GRPOConfig``, TRL's way: each
    trainer owns its typed config), and the loop types and checks the options against it before anything
    heavy loads; ``__post_init__`` checks values (choices, ranges) and raises ValueError naming the field.
    The base has no field: a trainer that keeps it takes no option.
    """

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """From a command line, a config file or a stored run.

        Args:
            data: field name to value, text (``"3e-4"``) or already of the field's type.

        Returns:
            The config, each value of its field's type.

        Raises:
            OptionError: a key that is no field (naming the closest and every field), or a value not of
                its field's type (``cua_core.options.typed_options``).
            ValueError: a value the subclass's ``__post_init__`` refuses.
        """
        return cls(**typed_options(cls, data, what="trainer option"))

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON takes them (tuples as lists): what a run folder and a checkpoint record."""
        return {name: list(value) if isinstance(value, tuple) else value for name, value in asdict(self).items()}


class Trainer(ABC):
    """Updates ``policy`` from groups of episodes. ``reference`` is the frozen policy of a KL term, for
    trainers that have one; left None, the trainer makes its own (a LoRA trainer: the base, adapter off).

    ``Config`` is the trainer's typed settings (a :class:`TrainerConfig` subclass): ``--trainer-option``
    and a run's ``trainer_options`` are checked against it before anything heavy loads, so importing the
    trainer's class must stay cheap (a torch trainer imports torch in its methods, not at the top).

    Args:
        policy: the policy trained (its ``trainable()`` is what the optimiser updates).
        config: an instance of this trainer's ``Config``.
        reference: the frozen policy of a KL term, or None.
    """

    name: ClassVar[str]
    Config: ClassVar[type[TrainerConfig]] = TrainerConfig

    def __init__(self, policy: Policy, config: TrainerConfig, reference: Policy | None = None) -> None:
        self.policy = policy
        self.config = config
        self.reference = reference
        self.step = 0  # optimiser steps taken (the policy version), kept in checkpoints

    @abstractmethod
    def train_step(self, groups: Sequence[Group]) -> dict[str, float]:
        """One optimiser step on ``groups``. ``step`` advances only when the weights moved: a call that took
        no optimiser step leaves it.

        Args:
            groups: groups of episodes of one (task, variant) each, within the staleness bound.

        Returns:
            The step's figures: at least ``loss``, ``kl``, ``clip_fraction``, ``groups_used`` and
            ``groups_dropped`` (groups it could not learn from).
        """

    def informative(self, group: Group) -> bool:
        """Whether ``group`` can move the policy. The loop replaces groups that cannot with newly played
        ones (``TrainConfig.resample_limit``) instead of spending a step on them.

        Args:
            group: a played group.

        Returns:
            True unless the trainer says otherwise (GRPO: False when every episode scored the same).
        """
        return True

    @abstractmethod
    def save(self, folder: Path) -> None:
        """Write model (or adapter), optimiser and ``step``, so that ``load`` continues exactly.

        Args:
            folder: an existing, empty folder.
        """

    @abstractmethod
    def load(self, folder: Path) -> None:
        """Restore what ``save`` wrote, so the next ``train_step`` continues exactly.

        Args:
            folder: a folder ``save`` filled.

        Raises:
            CuaError: the folder holds no checkpoint of this trainer, or one whose weights do not fit.
        """
