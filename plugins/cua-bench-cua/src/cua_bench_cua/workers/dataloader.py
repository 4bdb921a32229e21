"""``MultiTurnDataloader``: Cua's multi-turn dataloader over our rollout loader, and
``create_dataloader_from_urls``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from cua_bench import Backend, BackendError, Computer, EpisodeSpec, Observes
from cua_bench_cua.workers.buffer import ReplayBuffer
from cua_bench_cua.workers.client import CBEnvWorkerClient, _turn_prompt
from cua_bench_cua.workers.pool import _check_address, _known
from cua_bench_cua.workers.prompts import _screen_size, cua_actions
from cua_bench_rl import Decision, EnvWorkers, RolloutLoader, Turn, TurnBatch
from cua_core import ActionError

log = logging.getLogger(__name__)


class _Given(Backend):
    """Env servers started elsewhere, handed out by address; never torn down or replaced here."""

    name = "given"

    def __init__(self, addresses: Sequence[str]) -> None:
        self.addresses = list(addresses)
        self._next = 0
        self._lock = threading.Lock()

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        with self._lock:
            if self._next >= len(self.addresses):
                raise BackendError(
                    "an env server given by address died and cannot be replaced from here; "
                    "start the workers with create_workers so they are replaced"
                )
            address, self._next = self.addresses[self._next], self._next + 1
        return _known(address, width, height)

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        return None  # the servers belong to whoever started them (cleanup_workers)


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


class MultiTurnDataloader:
    """Cua's multi-turn dataloader over our ``RolloutLoader``: iterate for batches of pending turns,
    answer them with ``async_step(batch_return)``; finished episodes fill ``replay``
    (``sample_from_buffer``). ``env_configs``: one dict per env server, ``{"server_url": address}``
    plus ``CBEnvWorkerClient``'s ``img_w``/``img_h``/``max_step``/``max_hist``; ``task_configs``:
    ``[{"env_path": task, "task_index": variant, "split": split}, ...]``, drawn at random per
    episode. See the module docstring for where it differs from Cua's."""

    def __init__(
        self,
        env_class: type = CBEnvWorkerClient,
        env_configs: Sequence[Mapping[str, Any]] = (),
        tokenizer: Any = None,
        processor: Any = None,
        is_multi_modal: bool = False,
        batch_size: int = 8,
        replay_capacity: int = 10000,
        replay_reward_discount: float = 0.9,
        max_prompt_length: int = 1024,
        max_response_length: int = 1024,
        only_keep_outcome_in_replay: bool = False,
        task_configs: Sequence[Mapping[str, Any]] | None = None,
        *,
        seed: int = 0,
    ) -> None:
        if not (isinstance(env_class, type) and issubclass(env_class, CBEnvWorkerClient)):
            raise TypeError(
                f"env_class must be CBEnvWorkerClient (the rollouts use our env clients), got {env_class!r}"
            )
        if not env_configs:
            raise ValueError("env_configs needs one {'server_url': <env server address>} per env")
        # Cua's env_config form puts task_configs in each env's config (ours draw from their union).
        per_env = [t for c in env_configs for t in c.get("task_configs", [])]
        self._thousandths = any("task_configs" in c for c in env_configs)
        task_configs = list(task_configs or []) or per_env
        if not task_configs:
            raise ValueError(
                "task_configs is required: [{'env_path': 'sim/click-button', 'task_index': 0, 'split': 'train'}, ...]"
            )
        self.num_envs = len(env_configs)
        if not 1 <= batch_size <= self.num_envs:
            raise ValueError(f"batch_size ({batch_size}) must be between 1 and num_envs ({self.num_envs})")
        first = dict(env_configs[0])
        self.img_w, self.img_h = int(first.get("img_w", 1920)), int(first.get("img_h", 1080))
        self.max_hist = int(first.get("max_hist", 10))
        max_step = int(first.get("max_step", 50))
        self.batch_size = batch_size
        self._tokenizer, self._processor, self._is_multi_modal = tokenizer, processor, is_multi_modal
        self._max_prompt_length, self._max_response_length = max_prompt_length, max_response_length
        self.replay = ReplayBuffer(replay_capacity, replay_reward_discount, only_keep_outcome_in_replay)
        self.replay._shape = (self.img_w, self.img_h, self.max_hist)
        tasks = list(
            dict.fromkeys(
                EpisodeSpec(str(t.get("env_path", "")), int(t.get("task_index", 0)), str(t.get("split", "train")))
                for t in task_configs
            )
        )
        addresses = [_check_address(str(c.get("server_url", ""))) for c in env_configs]
        self.workers = EnvWorkers(_Given(addresses), self.num_envs).start()
        self.loader = RolloutLoader(
            self.workers,
            tasks,
            group_size=1,
            observes=Observes("png"),
            max_steps=max_step,
            seed=seed,
            episode_retries=0,
        ).start()
        self._batches: Iterator[TurnBatch] = self.loader.batches(max_batch=batch_size, wait=0.05)
        self._pending: dict[str, tuple[TurnBatch, list[Any]]] = {}  # uid -> its batch, and the answers so far
        self._running_reward = 0.0
        self._closed = False

    # -- Cua's surface ---------------------------------------------------------------------------

    def __iter__(self) -> MultiTurnDataloader:
        return self

    def __next__(self) -> dict[str, Any]:
        self._collect()
        batch = next(self._batches)  # StopIteration when the loader ends
        answers: list[Any] = [None] * len(batch)
        for turn in batch.turns:
            self._pending[turn.episode] = (batch, answers)
        obs = [_turn_prompt(t, self.img_w, self.img_h, self.max_hist) for t in batch.turns]
        out: dict[str, Any] = {
            "obs": obs,
            "worker_id": np.array(range(len(obs)), dtype=object),
            "meta_info": np.array(
                [{"uid": t.episode, "task": t.task.key, "step": t.step} for t in batch.turns], dtype=object
            ),
        }
        if self._tokenizer is not None:
            out.update(self._tokenize(obs, self._max_prompt_length, left=True))
        return out

    def async_step(self, batch_return: Mapping[str, Any]) -> None:
        """Send the policy's actions back: ``responses`` (strings, or token ids decoded with the
        tokenizer, Cua's way) and ``meta_info`` of the batch they answer."""
        metas = list(batch_return["meta_info"])
        responses = self._responses(batch_return)
        if len(responses) != len(metas):
            raise ValueError(f"async_step: {len(responses)} responses for {len(metas)} meta_info entries")
        touched: list[tuple[TurnBatch, list[Any]]] = []
        for meta, text in zip(metas, responses, strict=True):
            uid = str(meta["uid"])
            if uid not in self._pending:
                raise ValueError(f"async_step: no pending turn of episode {uid!r} (answered already, or not from here)")
            batch, answers = self._pending.pop(uid)
            position = next(i for i, t in enumerate(batch.turns) if t.episode == uid)
            answers[position] = self._decision(text, batch.turns[position])
            if all(b is not batch for b, _ in touched):
                touched.append((batch, answers))
        for batch, answers in touched:
            if all(a is not None for a in answers):
                batch.respond(answers)
        self._collect()

    def sample_from_buffer(self, batch_size: int | None = None) -> dict[str, Any]:
        self._collect()
        steps = self.replay.sample(batch_size or self.batch_size)
        out: dict[str, Any] = {
            "prev_obs": [ret["prev_obs"] for _, ret, _ in steps],
            "action": [ret["action"] for _, ret, _ in steps],
            "reward": np.array([ret["reward"] for _, ret, _ in steps], dtype=np.float32),
            "worker_id": np.array([w for w, _, _ in steps], dtype=object),
            "meta_info": np.array([m for _, _, m in steps], dtype=object),
        }
        if self._tokenizer is not None and steps:
            prompts = self._tokenize(out["prev_obs"], self._max_prompt_length, left=True)
            answers = self._tokenize(out["action"], self._max_response_length, left=False)
            out["responses"] = answers["input_ids"]
            torch = _torch()
            if torch is not None:
                out["input_ids"] = torch.cat([prompts["input_ids"], answers["input_ids"]], dim=1)
                out["attention_mask"] = torch.cat([prompts["attention_mask"], answers["attention_mask"]], dim=1)
            else:
                out["input_ids"] = [a + b for a, b in zip(prompts["input_ids"], answers["input_ids"], strict=True)]
                out["attention_mask"] = [
                    a + b for a, b in zip(prompts["attention_mask"], answers["attention_mask"], strict=True)
                ]
        return out

    def clear_replay_buffer(self) -> None:
        self.replay.clear()

    def get_balance_stats(self) -> tuple[int, int]:
        return self.replay.get_balance_stats()

    def calculate_outcome_reward(self) -> float:
        rewards = [float(e.reward or 0.0) for g in self.replay.groups.groups() for e in g.episodes]
        return float(np.mean(rewards)) if rewards else 0.0

    def print_examples(self, n: int = 2) -> None:
        for _, ret, _ in self.replay.sample(n):
            print(ret["obs"] if "obs" in ret else ret.get("prev_obs", ""))

    def print_stats_in_replay_buffer(self) -> None:
        """Cua's line: the buffer's size, its episodes, and how many steps each holds (count-episodes)."""
        per_uid: dict[str, int] = {}
        for _, _, meta in self.replay._all():
            per_uid[str(meta.get("uid"))] = per_uid.get(str(meta.get("uid")), 0) + 1
        histogram: dict[int, int] = {}
        for count in per_uid.values():
            histogram[count] = histogram.get(count, 0) + 1
        counts = ", ".join(f"{c}-{histogram[c]}" for c in sorted(histogram))
        print(
            f"Replay buffer size: {len(self.replay)}. Number of uids: {len(per_uid)}. "
            f"Histogram of item counts per uid in replay buffer (x-y): {counts}"
        )

    def running_outcome_reward(self) -> float:
        return self._running_reward

    @property
    def stats(self) -> dict[str, float]:
        """Our loader's counters (episodes, env_steps, replaced, ...)."""
        return self.loader.stats

    def close(self) -> None:
        """Stop the rollouts; the env servers stay up for whoever started them (``cleanup_workers``)."""
        if self._closed:
            return
        self._closed = True
        self.loader.close()
        self.workers.close()

    def __enter__(self) -> MultiTurnDataloader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers ---------------------------------------------------------------------------------

    def _collect(self) -> None:
        for group in self.loader.pop_groups():
            self.replay.add_group(group)
            for episode in group.episodes:
                self._running_reward = 0.99 * self._running_reward + 0.01 * float(episode.reward or 0.0)

    def _decision(self, text: str, turn: Turn) -> Decision:
        try:
            actions = cua_actions(text, screen=_screen_size(turn.observation), thousandths=self._thousandths)
        except ActionError as exc:
            log.warning("unreadable action %r taken as done(), as Cua does: %s", text[:200], exc)
            actions = cua_actions("done()")
        if not actions:
            actions = cua_actions("done()")
        return Decision(actions, [], [], text=text)

    def _responses(self, batch_return: Mapping[str, Any]) -> list[str]:
        responses = batch_return["responses"]
        if len(responses) and isinstance(responses[0], str):
            return [str(r) for r in responses]
        if self._tokenizer is None:
            raise TypeError("async_step got token ids but the dataloader has no tokenizer: pass responses as strings")
        texts = []
        for i, ids in enumerate(responses):
            prompt_length = len(batch_return["prompts"][i])
            valid = int(sum(batch_return["attention_mask"][i][prompt_length:]))
            texts.append(str(self._tokenizer.decode(list(ids)[:valid], skip_special_tokens=False)))
        return texts

    def _tokenize(self, texts: Sequence[str], length: int, *, left: bool) -> dict[str, Any]:
        pad = self._tokenizer.pad_token_id
        pad = self._tokenizer.eos_token_id if pad is None else pad
        ids_rows, masks = [], []
        for text in texts:
            ids = list(self._tokenizer.encode(text, add_special_tokens=False))
            ids = ids[-length:] if left else ids[:length]
            fill = [pad] * (length - len(ids))
            mask = [1] * len(ids)
            ids_rows.append(fill + ids if left else ids + fill)
            masks.append([0] * len(fill) + mask if left else mask + [0] * len(fill))
        positions = [[max(0, p) for p in np.cumsum(m) - 1] for m in masks]
        torch = _torch()
        if torch is None:
            return {"input_ids": ids_rows, "attention_mask": masks, "position_ids": positions}
        return {
            "input_ids": torch.tensor(ids_rows, dtype=torch.int64),
            "attention_mask": torch.tensor(masks, dtype=torch.int64),
            "position_ids": torch.tensor(positions, dtype=torch.int64),
        }


def create_dataloader_from_urls(
    worker_urls: Sequence[str],
    task_configs: Sequence[Mapping[str, Any]],
    tokenizer: Any = None,
    processor: Any = None,
    is_multi_modal: bool = False,
    batch_size: int = 8,
    **kwargs: Any,
) -> MultiTurnDataloader:
    """A ``MultiTurnDataloader`` over env server addresses (``WorkerPool.urls``); an ``http(s)://``
    URL of Cua's worker servers is refused with a clear error."""
    img: dict[str, Any] = {k: kwargs.pop(k) for k in ("img_w", "img_h", "max_step", "max_hist") if k in kwargs}
    return MultiTurnDataloader(
        env_class=CBEnvWorkerClient,
        env_configs=[{"server_url": _check_address(url), **img} for url in worker_urls],
        task_configs=task_configs,
        tokenizer=tokenizer,
        processor=processor,
        is_multi_modal=is_multi_modal,
        batch_size=batch_size,
        **kwargs,
    )
