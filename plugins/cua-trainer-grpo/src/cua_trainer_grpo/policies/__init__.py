"""Policies this plugin ships, and the optional capabilities the GRPO trainer looks for on a policy.

The :class:`cua_bench_rl.policy.Policy` contract is all a trainer needs for full fine-tuning. A few
things need more from a policy, so a policy opts in by implementing a method, and the trainer
checks with ``isinstance`` against these runtime protocols (no base class to inherit):

- :class:`SuggestsLoraTargets`: LoRA with ``lora_targets=()`` asks the policy which modules to adapt.
- :class:`TakesTrainable`: after LoRA wraps ``trainable()`` in a peft model, the policy is handed the
  wrapper, so its ``trainable()``, publishing and saving see the adapter.
- :class:`ScoresEntropy`: ``entropy_coef > 0`` needs each token's full-distribution entropy, which
  ``logprobs`` alone (the taken tokens only) cannot give.
- :class:`SavesPretrained`: publishing to a server writes a folder the server can read.

Policy modules are imported lazily by the plugin (``policies.vlm`` pulls in transformers).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from cua_bench_rl import Taken

__all__ = ["SavesPretrained", "ScoresEntropy", "SuggestsLoraTargets", "TakesTrainable"]


@runtime_checkable
class SuggestsLoraTargets(Protocol):
    def lora_targets(self) -> Sequence[str]:
        """Module names (peft ``target_modules``) worth adapting when the user names none."""


@runtime_checkable
class TakesTrainable(Protocol):
    def use_trainable(self, module: Any) -> None:
        """From now on ``trainable()`` returns ``module`` (a peft model around the old one)."""


@runtime_checkable
class ScoresEntropy(Protocol):
    def logprobs_and_entropy(self, taken: Sequence[Taken]) -> tuple[list[Any], list[Any]]:
        """``logprobs(taken)`` and, per turn, a 1-D tensor of each token's entropy (both with grad)."""


@runtime_checkable
class SavesPretrained(Protocol):
    def save_pretrained(self, folder: Path) -> None:
        """Write the weights a serving engine loads: a LoRA adapter, or the full model and its processor."""
