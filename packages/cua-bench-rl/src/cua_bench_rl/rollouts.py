"""What rollouts are made of: the episode a rollout plays (cua-bench's ``EpisodeSpec``), the turn a
policy is asked, its decision, the rollout as played, and the GRPO group of rollouts of one episode.

These are plain dataclasses shared by the dataloader, the replay buffer, the GRPO maths and the
trainers, so each can be tested without the others. A group is one ``EpisodeSpec`` as it compares
(task, variant, split): rollouts of it that observed differently still belong together, and its
``key`` (``task/split/variant``) names it in the buffer's records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cua_bench import EpisodeSpec
from cua_core import Action

__all__ = ["Decision", "Group", "Rollout", "Taken", "Turn", "spec_of_key"]


def spec_of_key(key: str) -> EpisodeSpec:
    """The episode a stored key names: ``EpisodeSpec.key`` (``sim/click-button/train/3``), or the
    ``sim/click-button@train:3`` that cua-bench-rl wrote before it (a replay buffer resumed from then,
    a TRL dataset built then). The two cannot be confused: a new key's last ``@`` (if any) is always
    followed by a ``/``, an old key's never.

    Raises:
        ValueError: neither form.
    """
    name, at, rest = key.rpartition("@")
    split, colon, variant = rest.partition(":")
    if at and colon and name and split and "/" not in rest and variant.isdigit():
        return EpisodeSpec(name, int(variant), split)
    return EpisodeSpec.parse_key(key)


@dataclass
class Turn:
    """One environment waiting for the policy: what the policy may see, and nothing more.

    ``observation`` is the agent view the policy declared in ``Policy.observes`` (``instruction``,
    ``step``, ``width``, ``height``, ``errors``, and a ``screenshot`` and/or ``a11y``). ``history``
    holds this episode's earlier turns as played (observations included), oldest first.
    """

    episode: str
    task: EpisodeSpec
    instruction: str
    step: int  # 0 for the first turn the policy plays
    observation: dict[str, Any]
    history: list[Taken] = field(default_factory=list)
    max_steps: int = 0


@dataclass
class Decision:
    """The policy's answer to one turn.

    ``tokens`` are what it sampled (token ids for a language model; the indices of its discrete
    choices for a small policy) and ``logprobs`` their log-probabilities under the policy that
    sampled them, one each; the trainer recomputes them under the current weights for the importance
    ratio. ``text`` is a language model's raw output, kept in the record.
    """

    actions: list[Action]
    tokens: list[int]
    logprobs: list[float]
    text: str | None = None
    version: int = 0  # the policy version that sampled it (set by the dataloader)
    # The answer hit the token limit before its end: the grpo trainer leaves it out (GRPOConfig.mask_truncated),
    # as a cut-off answer's reward says little about its tokens (DAPO's overlong filtering).
    truncated: bool = False

    def __post_init__(self) -> None:
        if len(self.tokens) != len(self.logprobs):
            raise ValueError(
                f"a decision needs one logprob per token: {len(self.tokens)} tokens, {len(self.logprobs)} logprobs"
            )


@dataclass
class Taken:
    """One turn as played: the turn, the decision, and what the environment answered."""

    turn: Turn
    decision: Decision
    reward: float = 0.0  # the environment's reward for this step (the episode's, on the last)
    errors: list[str] = field(default_factory=list)  # actions the environment refused


@dataclass
class Rollout:
    """One played episode of ``task``: its turns and reward. ``status`` is one of cua-data's RL statuses: ``completed``
    (the policy said done or fail), ``truncated`` (the step limit), ``aborted`` (its worker died; not
    trained on) or ``failed`` (the platform failed; not trained on)."""

    id: str
    task: EpisodeSpec
    instruction: str
    turns: list[Taken] = field(default_factory=list)
    reward: float | None = None
    status: str = "completed"
    started_after: int = 0  # oracle steps a curriculum played before the policy's first turn
    seconds: float = 0.0

    @property
    def versions(self) -> list[int]:
        return [t.decision.version for t in self.turns]

    @property
    def version(self) -> int:
        """The oldest policy version that acted in it: what its staleness is judged by."""
        return min(self.versions, default=0)


@dataclass
class Group:
    """G rollouts of the same episode (``task``: task, variant, split): GRPO compares them with each other."""

    task: EpisodeSpec
    episodes: list[Rollout]

    @property
    def rewards(self) -> list[float]:
        """Each episode's reward. An episode without one was never scored (aborted or failed) and has
        no place in a group: that is an error, never a silent 0."""
        missing = [e.id for e in self.episodes if e.reward is None]
        if missing:
            raise ValueError(
                f"group {self.task.key}: episodes {missing} have no reward (aborted or failed ones are not trained on)"
            )
        return [float(e.reward) for e in self.episodes if e.reward is not None]

    @property
    def version(self) -> int:
        return min((e.version for e in self.episodes), default=0)
