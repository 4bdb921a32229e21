"""Cua's ``ReplayBuffer``: its add/sample names over our group buffer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cua_bench_cua.workers.client import _spec_of, _turn_prompt
from cua_bench_cua.workers.prompts import _action_tag
from cua_bench_rl import Decision, Group, Rollout, Taken, Turn
from cua_bench_rl import ReplayBuffer as _GroupBuffer


class ReplayBuffer:
    """Cua's replay buffer over ours: ``add(worker_id, env_ret, meta_info)`` collects an episode's
    steps by ``meta_info["uid"]`` and keeps it once ``done``; ``sample(batch_size)`` returns Cua's
    ``(worker_id, env_ret, meta_info)`` steps with discounted returns (``gamma``), only the last
    of each episode with ``only_keep_outcome``. ``capacity`` counts episodes (ours keeps whole
    episodes), not steps as Cua's does."""

    def __init__(
        self, capacity: int = 10000, gamma: float = 1.0, only_keep_outcome: bool = False, balance_thres: float = 0.1
    ) -> None:
        self.capacity, self.gamma = capacity, gamma
        self.only_keep_outcome, self.balance_thres = only_keep_outcome, balance_thres
        self.groups = _GroupBuffer(capacity=capacity, max_staleness=None)
        self.episode_buffer: dict[str, list[tuple[Any, dict[str, Any], dict[str, Any]]]] = {}
        self._shape = (1920, 1080, 10)  # image size and history of prompts made from our turns

    def add(
        self, worker_id: Any, env_ret: Mapping[str, Any] | None = None, meta_info: Mapping[str, Any] | None = None
    ) -> None:
        """One step: ``add(worker_id, env_ret, meta_info)``, or Cua's other form ``add((worker_id, env_ret,
        meta_info))``."""
        if env_ret is None and meta_info is None and isinstance(worker_id, tuple) and len(worker_id) == 3:
            worker_id, env_ret, meta_info = worker_id
        if not isinstance(env_ret, Mapping) or not isinstance(meta_info, Mapping):
            raise TypeError("add takes (worker_id, env_ret, meta_info), or one such tuple")
        uid = str(meta_info.get("uid", "unknown"))
        self.episode_buffer.setdefault(uid, []).append((worker_id, dict(env_ret), dict(meta_info)))
        if env_ret.get("done", False):
            steps = self.episode_buffer.pop(uid)
            task = _spec_of(str(meta_info.get("task", "cua")))
            episode = Rollout(uid, task, "")
            for number, (wid, ret, meta) in enumerate(steps):
                turn = Turn(uid, task, "", number, {"cua_step": (wid, ret, meta)})
                episode.turns.append(Taken(turn, Decision([], [], [], text=str(ret.get("action", ""))),
                                           float(ret.get("reward", 0.0))))  # fmt: skip
            episode.reward = float(steps[-1][1].get("reward", 0.0))
            self.groups.add(Group(task, [episode]))

    def add_group(self, group: Group) -> None:
        """Keep a finished group of our rollouts (what ``MultiTurnDataloader`` does)."""
        self.groups.add(group)

    def _steps(self, episode: Rollout) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
        rewards = [t.reward for t in episode.turns]
        returns = [0.0] * len(rewards)
        following = 0.0
        for i in range(len(rewards) - 1, -1, -1):
            following = rewards[i] + (self.gamma * following if i < len(rewards) - 1 else 0.0)
            returns[i] = following
        out = []
        width, height, max_hist = self._shape
        for i, taken in enumerate(episode.turns):
            last = i == len(episode.turns) - 1
            if "cua_step" in taken.turn.observation:
                wid, ret, meta = taken.turn.observation["cua_step"]
                ret = {**ret, "reward": returns[i]}
            else:
                after = episode.turns[i + 1].turn if not last else None
                prev_obs = _turn_prompt(taken.turn, width, height, max_hist)
                obs = _turn_prompt(after, width, height, max_hist) if after is not None else prev_obs
                wid, meta = -1, {"uid": episode.id, "task": episode.task.key, "step": taken.turn.step}
                ret = {
                    "prev_obs": prev_obs,
                    "action": _action_tag(taken.decision.text or ""),
                    "obs": obs,
                    "reward": returns[i],
                    "done": last,
                    "is_init": False,
                }
            if last or not self.only_keep_outcome:
                out.append((wid, ret, meta))
        return out

    def _all(self) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
        return [s for g in self.groups.groups() for e in g.episodes for s in self._steps(e)]

    def sample(self, batch_size: int) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
        steps = self._all()
        return self.groups.rng.sample(steps, min(batch_size, len(steps)))

    def get_balance_stats(self) -> tuple[int, int]:
        rewards = [ret["reward"] for _, ret, _ in self._all()]
        below = sum(r < self.balance_thres for r in rewards)
        return below, len(rewards) - below

    def clear(self) -> None:
        self.groups = _GroupBuffer(capacity=self.capacity, max_staleness=None)
        self.episode_buffer = {}

    def __len__(self) -> int:
        return sum(1 if self.only_keep_outcome else len(e.turns) for g in self.groups.groups() for e in g.episodes)


# -- the dataloader ------------------------------------------------------------------------------
