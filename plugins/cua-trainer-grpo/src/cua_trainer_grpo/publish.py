"""Publishing the trained weights to the rollout side, with a version that only goes up.

Rollouts must run on a stable copy while the trainer updates its own weights, and every decision
must say which weights made it (the policy's ``version``). Two ways to get the weights there:

- :class:`InProcessPublisher`: the rollout policy is a second object in this process (a deep copy
  of the trained one); each publish copies ``state_dict_for_publish()`` into it under a lock.
- :class:`ServerPublisher`: the rollouts ask an OpenAI-compatible server (vLLM, SGLang); each
  publish saves the weights under ``folder/v{version}`` (a LoRA adapter or a full model, written by
  ``save_pretrained``) and asks the server to load them through the ``cua_bench_rl_reload_weights``
  hook, whose built-in answers speak vLLM's LoRA API and SGLang's ``update_weights_from_disk``.

Both are callables ``publisher(policy, version)`` as ``cua_bench_rl.train(publisher=...)`` expects.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any

from cua_bench_rl import Policy
from cua_core import CuaError
from cua_trainer_grpo.policies import SavesPretrained
from cua_trainer_grpo.reload import lora_name

__all__ = ["InProcessPublisher", "ServerPublisher", "save_for_server"]

_VERSION_DIR = re.compile(r"v(\d+)")


def _next_version(current: int, version: int | None) -> int:
    new = current + 1 if version is None else int(version)
    if new <= current:
        raise ValueError(f"published versions only go up: version {new} after {current}")
    return new


class InProcessPublisher:
    """Copies the trained policy's weights into ``rollout_policy`` (a separate object) on each publish.

    ``lock`` is held while the copy happens; give the rollout side the same lock around ``act`` so
    no decision is sampled from half-copied weights.
    """

    def __init__(self, rollout_policy: Policy, *, lock: threading.Lock | None = None) -> None:
        self.rollout_policy = rollout_policy
        self.version = rollout_policy.version
        self.lock = lock or threading.Lock()

    def publish(self, policy: Policy, version: int | None = None) -> int:
        """Copy ``policy``'s published weights over; returns the new version (the last + 1 by default)."""
        if policy is self.rollout_policy or policy.trainable() is self.rollout_policy.trainable():
            raise ValueError(
                "the rollout policy is the trained policy itself: publish into a separate copy "
                "(copy.deepcopy(policy)), or rollouts would see weights change mid-episode"
            )
        new = _next_version(self.version, version)
        weights = policy.state_dict_for_publish()
        with self.lock:
            self.rollout_policy.load_published(weights, new)
        self.version = new
        return new

    def __call__(self, policy: Policy, version: int | None = None) -> int:
        return self.publish(policy, version)


def save_for_server(policy: Policy, folder: Path) -> None:
    """The weights a serving engine reads: the policy's own ``save_pretrained`` if it has one (a LoRA
    adapter or the full model with its processor), else its trainable module's."""
    if isinstance(policy, SavesPretrained):
        policy.save_pretrained(folder)
        return
    module: Any = policy.trainable()
    if not callable(getattr(module, "save_pretrained", None)):
        raise CuaError(
            f"{type(policy).__name__} cannot be saved for a server: neither it nor its trainable module has "
            "save_pretrained (a transformers model or a peft adapter); publish in process instead"
        )
    module.save_pretrained(str(folder))


class ServerPublisher:
    """Saves each version under ``folder/v{version}`` and has the server at ``base_url`` load it.

    ``base_url`` is the OpenAI base URL rollouts use (``http://host:8000/v1``); ``folder`` must be
    readable by the server at the same path. A LoRA adapter is served under ``model_name`` (the
    folder's name), the same name for every version. The ``keep`` newest versions stay on disk.
    """

    def __init__(self, base_url: str, folder: Path, *, keep: int = 2, version: int = 0) -> None:
        if keep < 1:
            raise ValueError(f"keep must be at least 1 (the version being served), got {keep}")
        self.base_url = base_url
        self.folder = Path(folder).resolve()
        self.keep = keep
        self.version = version

    @property
    def model_name(self) -> str:
        """What rollouts pass as ``model`` to get the published LoRA adapter from a vLLM server."""
        return lora_name(self.folder / "v0")

    def publish(self, policy: Policy, version: int | None = None) -> int:
        from cua_bench_rl import plugin_manager

        new = _next_version(self.version, version)
        target = self.folder / f"v{new}"
        partial = self.folder / f".v{new}.partial"
        for stale in (target, partial):
            shutil.rmtree(stale, ignore_errors=True)
        partial.mkdir(parents=True)
        save_for_server(policy, partial)
        os.replace(partial, target)  # the server never sees a half-written folder
        answer = plugin_manager().hook.cua_bench_rl_reload_weights(
            base_url=self.base_url, path=str(target), version=new
        )
        if answer is None:
            raise CuaError(
                f"no installed plugin could make the server at {self.base_url} load {target}: for a LoRA adapter "
                "start vLLM with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True; for a full model use "
                "SGLang (/update_weights_from_disk), or install a plugin implementing cua_bench_rl_reload_weights"
            )
        if answer is not True:
            raise CuaError(f"the server at {self.base_url} did not confirm loading {target} (answer {answer!r})")
        self.version = new
        self._prune()
        return new

    def __call__(self, policy: Policy, version: int | None = None) -> int:
        return self.publish(policy, version)

    def _prune(self) -> None:
        versions = sorted(
            (int(m.group(1)), p)
            for p in self.folder.iterdir()
            if p.is_dir() and (m := _VERSION_DIR.fullmatch(p.name)) is not None
        )
        for number, path in versions[: -self.keep]:
            if number != self.version:
                shutil.rmtree(path, ignore_errors=True)
