"""``CBEnvWorkerClient``: one of Cua's env workers, an env server driven episode by episode."""

from __future__ import annotations

import io
import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from cua_bench import EnvClient, EpisodeSpec, Observes, client_for
from cua_bench_cua.workers.pool import _check_address, _known
from cua_bench_cua.workers.prompts import _action_tag, _action_text, _prompt, _screen_size, _vision, cua_actions
from cua_bench_rl import Turn, episode_spec, spec_of_key
from cua_core import RpcError


@dataclass
class CBEnvWorkerClient:
    """Cua's client of one worker, over our ``EnvClient``: ``reset`` and ``step(action)`` return
    Cua's ``(env_ret, meta_info)``; ``obs`` is Cua's prompt string (the instruction, then JPEG
    screenshots at ``img_w`` x ``img_h`` between vision tags and the actions between action tags,
    the last ``max_hist`` pairs). ``server_url`` is an env server address (``WorkerHandle.api_url``);
    ``env_path`` a task name (``sim/click-button``) or folder; ``timeout`` bounds each step (s).

    Both of Cua's shapes: keywords (``CBEnvWorkerClient(server_url=.., img_w=..)``, then
    ``reset(env_path, task_index, split)``; an integer coordinate is a pixel, a float in [0, 1] a
    fraction) or one ``env_config`` dict (``CBEnvWorkerClient({"server_url": .., "task_configs":
    [..], "max_step": .., ...})``, then ``reset()`` draws one of its ``task_configs``; an integer
    coordinate is in thousandths of the screen, as in Cua's ``click(500,500)``)."""

    server_url: str | Mapping[str, Any]
    img_w: int = 1920
    img_h: int = 1080
    max_step: int = 50
    max_hist: int = 10
    timeout: int = 300
    task_configs: list[dict[str, Any]] = field(default_factory=list)

    env_id: int | None = field(default=None, init=False)
    uid: str | None = field(default=None, init=False)
    step_count: int = field(default=0, init=False)
    done: bool = field(default=False, init=False)
    prompt: dict[str, Any] | None = field(default=None, init=False)
    _client: EnvClient | None = field(default=None, init=False, repr=False)
    _screen: tuple[int, int] | None = field(default=None, init=False, repr=False)
    _thousandths: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.server_url, Mapping):  # Cua's env_config form
            config = dict(self.server_url)
            unknown = sorted(set(config) - {"server_url", "task_configs", "img_w", "img_h", "max_step", "max_hist",
                                             "timeout"})  # fmt: skip
            if unknown:
                raise ValueError(f"unknown env_config key(s) {', '.join(unknown)}")
            self.server_url = str(config.get("server_url", ""))
            self.task_configs = [dict(t) for t in config.get("task_configs", [])]
            for key in ("img_w", "img_h", "max_step", "max_hist", "timeout"):
                if key in config:
                    setattr(self, key, int(config[key]))
            self._thousandths = True
        _check_address(self.server_url)

    @property
    def address(self) -> str:
        return str(self.server_url)

    def _env(self) -> EnvClient:
        if self._client is None:
            computer = _known(self.address, self.img_w, self.img_h)
            self._client = client_for(computer, step_timeout=float(self.timeout))
        return self._client

    def _obs(self) -> str:
        return "" if self.prompt is None else _prompt(self.prompt["instruction"], self.prompt["steps"], self.max_hist)

    def reset(
        self, env_path: str | None = None, task_index: int = 0, split: str = "train"
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode of ``env_path`` (variant ``task_index``), or of one of ``task_configs``
        drawn at random when no ``env_path`` is given (Cua's ``env_config`` form)."""
        if env_path is None:
            if not self.task_configs:
                raise ValueError("reset() without env_path draws from task_configs, and this client has none")
            drawn = random.choice(self.task_configs)
            env_path, task_index, split = drawn["env_path"], drawn.get("task_index", 0), drawn.get("split", "train")
        spec = episode_spec(EpisodeSpec(str(env_path), int(task_index), split), Observes(), self.max_step)
        observation, info = self._env().reset(options=spec)
        self.env_id, self.uid, self.step_count, self.done = 0, str(uuid.uuid4()), 0, False
        self._screen = _screen_size(observation)
        self.prompt = {
            "instruction": str(info["task"]["description"]),
            "steps": [_vision(observation, self.img_w, self.img_h)],
        }
        return {"obs": self._obs(), "done": False, "is_init": True}, {"uid": self.uid}

    def step(self, action: str | Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.env_id is None or self.prompt is None:
            raise RuntimeError("Environment not initialized. Call reset() first.")
        if self.done:
            raise RuntimeError("Episode is done. Call reset() to start a new episode.")
        prev_obs = self._obs()
        actions = cua_actions(action, screen=self._screen, thousandths=self._thousandths)
        text = _action_text(action)
        observation, reward, terminated, truncated, info = self._env().step(actions)
        self.step_count += 1
        self.done = bool(terminated or truncated)
        self.prompt["steps"] += [_action_tag(text), _vision(observation, self.img_w, self.img_h)]
        return {
            "prev_obs": prev_obs,
            "action": _action_tag(text),
            "obs": self._obs(),
            "reward": float(info.get("reward", reward)) if self.done else float(reward),
            "done": self.done,
            "is_init": False,
        }, {"uid": self.uid}

    def get_screenshot(self) -> bytes:
        """The current screen as PNG bytes."""
        if self.env_id is None:
            raise RuntimeError("Environment not initialized. Call reset() first.")
        shot = self._env().observe()["screenshot"]
        if isinstance(shot, bytes | bytearray | memoryview):
            return bytes(shot)
        out = io.BytesIO()
        Image.fromarray(np.asarray(shot)).save(out, format="PNG")
        return out.getvalue()

    def shutdown(self) -> None:
        """Close this client (the env server belongs to whoever started it: ``cleanup_workers``)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        self.env_id = None

    def health_check(self) -> dict[str, Any]:
        try:
            healthy = self._env().rpc.call("rpc.ping") == "pong"
        except RpcError as exc:
            return {"status": "unhealthy", "address": self.address, "error": str(exc)}
        return {"status": "healthy" if healthy else "unhealthy", "address": self.address}


# -- the replay buffer ---------------------------------------------------------------------------


def _spec_of(task: str) -> EpisodeSpec:
    """The episode a step's ``meta_info["task"]`` names: an episode key (``sim/click-button/train/3``,
    as our dataloader's steps carry) or else a task name (Cua's own steps), variant 0 of train."""
    try:
        return spec_of_key(task)
    except ValueError:
        return EpisodeSpec(task or "cua", 0, "train")


def _turn_prompt(turn: Turn, width: int, height: int, max_hist: int, *, upto: int | None = None) -> str:
    steps: list[str] = []
    for taken in turn.history[:upto]:
        steps += [_vision(taken.turn.observation, width, height), _action_tag(taken.decision.text or "")]
    steps.append(_vision(turn.observation, width, height))
    return _prompt(turn.instruction, steps, max_hist)
