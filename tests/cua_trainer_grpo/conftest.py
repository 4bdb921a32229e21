"""Fixtures for the GRPO trainer's tests: a small linear policy, groups built from its decisions, and
the tiny random-weight Qwen2.5-VL checkpoint (built once per session, nothing downloaded)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import torch

from cua_bench import Observes
from cua_bench.spec import EpisodeSpec
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Group, Rollout, Taken, Turn
from cua_data.tiny_models import build_tiny_qwen25_vl


class LinearPolicy(Policy, torch.nn.Module):
    """``choices`` options scored by one linear layer of the turn's step (one-hot). Turn ``k``'s decision
    is ``k + 1`` draws, so batches mix sequence lengths. ``proj`` is a LoRA target."""

    observes = Observes("none")

    def __init__(self, choices: int = 6, features: int = 4, seed: int = 0) -> None:
        torch.nn.Module.__init__(self)
        init = torch.Generator().manual_seed(seed)
        self.proj = torch.nn.Linear(features, choices)
        with torch.no_grad():
            self.proj.weight.copy_(torch.randn(choices, features, generator=init) * 0.5)
            self.proj.bias.zero_()
        self.features = features
        self.generator = torch.Generator().manual_seed(seed)

    def _logp(self, turn: Turn) -> torch.Tensor:
        x = torch.nn.functional.one_hot(torch.tensor(turn.step % self.features), self.features).float()
        return torch.log_softmax(self.proj(x), dim=-1)

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        decisions = []
        with torch.no_grad():
            for turn in turns:
                logp = self._logp(turn)
                n = turn.step + 1
                if greedy:
                    tokens = [int(logp.argmax())] * n
                else:
                    tokens = [int(t) for t in torch.multinomial(logp.exp(), n, True, generator=self.generator)]
                decisions.append(Decision([], tokens, [float(logp[t]) for t in tokens]))
        return decisions

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        return [self._logp(t.turn)[torch.tensor(t.decision.tokens)] for t in taken]


class EntropyLinearPolicy(LinearPolicy):
    def logprobs_and_entropy(self, taken: Sequence[Taken]) -> tuple[list[Any], list[Any]]:
        scores, entropies = [], []
        for t in taken:
            logp = self._logp(t.turn)
            scores.append(logp[torch.tensor(t.decision.tokens)])
            entropies.append((-(logp.exp() * logp).sum()).expand(len(t.decision.tokens)))
        return scores, entropies


def groups_from(policy: Policy, rewards: Sequence[Sequence[float]], turns: int = 2) -> list[Group]:
    """One group per reward list (one episode per reward), each episode ``turns`` turns the policy played."""
    groups = []
    for g, values in enumerate(rewards):
        task = EpisodeSpec("sim/click-button", g, "train")
        episodes = []
        for e, reward in enumerate(values):
            episode = f"g{g}e{e}"
            played: list[Taken] = []
            for step in range(turns):
                turn = Turn(episode, task, "pick well", step, {"instruction": "pick well", "step": step}, list(played))
                played.append(Taken(turn, policy.act([turn])[0]))
            episodes.append(Rollout(episode, task, "pick well", played, reward=float(reward)))
        groups.append(Group(task, episodes))
    return groups


@pytest.fixture
def linear_policy() -> Callable[..., LinearPolicy]:
    return LinearPolicy


@pytest.fixture
def entropy_policy() -> Callable[..., EntropyLinearPolicy]:
    return EntropyLinearPolicy


@pytest.fixture
def make_groups() -> Callable[..., list[Group]]:
    return groups_from


@pytest.fixture(scope="session")
def tiny_vl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-weight Qwen2.5-VL checkpoint folder, shared by the session's tests (read-only)."""
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen25-vl") / "model")
