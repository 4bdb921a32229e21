"""TRL's ``GRPOTrainer`` with its rollouts played on cua-bench-rl's env workers.

``GRPOTrainer(model, reward_funcs=env_reward, train_dataset=task_dataset(...),
rollout_func=rollout_func("sim:click-button"), processing_class=processor, args=GRPOConfig(...))``.
TRL calls the rollout with its slice of prompts (each repeated ``num_generations`` times); every
entry is played as one episode of the ``EpisodeSpec`` its message names by key (``task``), on env servers of
the env's backend, through :class:`cua_bench_rl.loader.RolloutLoader`. ``trainer.model`` writes every
turn; the task's evaluator gives the reward, which reaches :func:`env_reward` as the ``env_reward``
column. A platform failure (a task that fails on its server, a worker that dies and stays dead)
raises: it never becomes a reward of 0.

**What the training forward sees (the limit of TRL's custom-rollout path).** TRL trains on one row
per episode, ``prompt_ids + completion_ids``, and takes images only from the dataset's ``images``
column. So an episode is one growing sequence: the dataset's first prompt (with the reset
screenshot), then each turn the model wrote (``env_mask`` 1), then between turns a short user message
of what the environment said (the step, actions it refused, output that did not parse; ``env_mask``
0). Screenshots taken mid-episode cannot reach TRL's forward, so they are not shown to the model
while it plays either: the sampled and the trained sequences are the same, but after the first turn
the model acts blind. That is faithful for one-step tasks and for tasks whose later turns need no new
screen; for long visual episodes use the ``grpo`` trainer of cua-trainer-grpo (``cua-bench-rl train``),
which re-renders every turn with its screenshot.

**Sampling is what TRL scores.** TRL's GRPOTrainer recomputes every log-probability from the logits
divided by ``GRPOConfig.temperature`` and applies no top-p, so the rollout samples at that temperature
(a ``temperature`` given here that differs is refused) with no top-p (``top_p < 1`` is refused), and the
logprobs it returns are of that distribution. An episode with a turn cut off at ``max_new_tokens`` is
left out of the loss (``mask_truncated``, on by default, as the ``grpo`` trainer's ``mask_truncated``):
its ``env_mask`` is all 0. TRL's own ``mask_truncated_completions`` sees only a row's last token, so a
turn cut off mid-episode would pass it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cua_bench import EpisodeSpec
from cua_bench_rl import Decision, Rollout, RolloutError, Turn
from cua_core import CuaError
from cua_trainer_trl.prompts import images_of, task_of, turn_frame

__all__ = ["CuaRollout", "RolloutFunc", "env_reward", "rollout_func"]

log = logging.getLogger(__name__)

RolloutFunc = Callable[[list[Any], Any], dict[str, Any]]


def env_reward(prompts: Any, completions: Any, env_reward: Sequence[float], **_: Any) -> list[float]:
    """TRL reward function: the task evaluator's reward for each episode, as the rollout returned it."""
    return [float(r) for r in env_reward]


@dataclass
class _Prompt:
    """One distinct dataset prompt: its episode and its tokens and image tensors as TRL computes them."""

    task: EpisodeSpec
    ids: list[int]
    tensors: dict[str, Any]  # pixel_values, image_grid_thw, mm_token_type_ids (prompt part) when it has images
    image: Any  # the first image (what the live first screen is checked against), or None


@dataclass
class _Row:
    """One episode as a growing sequence: prompt, then model turns (mask 1) and environment text (mask 0)."""

    prompt: _Prompt
    ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)


class CuaRollout:
    """The callable :func:`rollout_func` returns; ``close()`` tears its env workers down.

    ``workers``: how many env servers to start on first use (or an ``EnvWorkers`` already started,
    which stays its owner's). ``max_steps``: turns per episode (None: each task's own limit).
    ``episodes`` holds the last call's episodes, aligned with its prompts.
    """

    def __init__(
        self,
        env: str = "sim:click-button",
        *,
        workers: Any = 4,
        adapter: str = "qwen2.5-vl",
        adapter_options: dict[str, Any] | None = None,
        max_steps: int | None = None,
        max_new_tokens: int = 128,
        temperature: float | None = None,
        top_p: float = 1.0,
        mask_truncated: bool = True,
        width: int = 640,
        height: int = 400,
        episode_retries: int = 1,
        heartbeat_timeout: float = 5.0,
    ) -> None:
        from cua_trainer_trl.dataset import parse_env

        self.backend, _ = parse_env(env)
        if max_new_tokens < 1:
            raise CuaError(f"rollout_func: max_new_tokens must be at least 1, got {max_new_tokens}")
        if temperature is not None and not temperature > 0:
            raise CuaError(f"rollout_func: temperature must be > 0 (or None: GRPOConfig's), got {temperature}")
        if top_p != 1:
            raise CuaError(
                f"rollout_func: top_p={top_p}: TRL's GRPOTrainer scores without top-p, so every importance ratio "
                "would be biased; leave top_p at 1, or use the grpo trainer (cua-bench-rl train), which scores it"
            )
        if max_steps is not None and max_steps < 1:
            raise CuaError(f"rollout_func: max_steps must be at least 1 (or None), got {max_steps}")
        self.adapter_name, self.adapter_options = adapter, dict(adapter_options or {})
        self.max_steps, self.max_new_tokens = max_steps, max_new_tokens
        self.temperature, self.top_p, self.mask_truncated = temperature, top_p, mask_truncated
        self._temperature = 1.0  # GRPOConfig's, read at each call
        self.width, self.height = width, height
        self.episode_retries, self.heartbeat_timeout = episode_retries, heartbeat_timeout
        self._workers_arg = workers
        self._workers: Any = None
        self._owned = False
        self._adapter: Any = None
        self._lock = threading.Lock()
        self.episodes: list[Rollout] = []
        self.stale_first_screens = 0  # live first screens that differed from the dataset's image

    # -- lifecycle ------------------------------------------------------------------------------

    def _env_workers(self) -> Any:
        from cua_bench_rl import EnvWorkers

        if self._workers is None:
            if isinstance(self._workers_arg, EnvWorkers):
                self._workers = self._workers_arg
            else:
                self._workers = EnvWorkers(self.backend, int(self._workers_arg), width=self.width, height=self.height)
                self._workers.start()
                self._owned = True
        return self._workers

    def close(self) -> None:
        workers, self._workers = self._workers, None
        if workers is not None and self._owned:
            workers.close()

    def __enter__(self) -> CuaRollout:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- TRL's hook -----------------------------------------------------------------------------

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        from cua_bench import Observes
        from cua_bench_rl import RolloutLoader
        from cua_trainer_trl.dataset import make_adapter_for

        scored_at = float(trainer.args.temperature)
        if self.temperature is not None and self.temperature != scored_at:
            raise CuaError(
                f"rollout_func samples at temperature {self.temperature}, and GRPOConfig(temperature={scored_at}) "
                "scores at that one: set one temperature (leave the rollout's out to take GRPOConfig's)"
            )
        with self._lock:
            self._temperature = scored_at
            processor = trainer.processing_class
            tokenizer = getattr(processor, "tokenizer", processor)
            tokenizer.padding_side = "left"  # TRL left-pads prompts: the processor's per-token fields must match
            if self._adapter is None:
                self._adapter = make_adapter_for(processor, self.adapter_name, self.adapter_options)
            distinct, order = self._prompts(prompts, trainer)
            workers = self._env_workers()
            loader = RolloutLoader(
                workers,
                [distinct[k].task for k in order],
                group_size=1,
                observes=Observes("rgb"),
                max_steps=self.max_steps,
                episode_retries=self.episode_retries,
                once=True,
                heartbeat_timeout=self.heartbeat_timeout,
            )
            by_task = {p.task.key: p for p in distinct.values()}
            rows: dict[str, _Row] = {}
            played: list[Rollout] = []
            with loader:
                for batch in loader.batches(max_batch=len(workers)):
                    batch.respond(self._turns(batch.turns, rows, by_task, trainer))
                    played += [e for g in loader.pop_groups() for e in g.episodes]
                played += [e for g in loader.pop_groups() for e in g.episodes]
            return self._output(order, distinct, played, rows, loader.stats)

    def _prompts(self, prompts: list[Any], trainer: Any) -> tuple[dict[str, _Prompt], list[str]]:
        """Each distinct prompt tokenized as TRL's forward will (its chat template, its processor)."""
        from trl.data_utils import apply_chat_template

        distinct: dict[str, _Prompt] = {}
        order: list[str] = []
        for prompt in prompts:
            task = task_of(prompt)
            images = images_of(prompt)
            text = apply_chat_template({"prompt": prompt}, trainer.processing_class, **trainer.chat_template_kwargs)
            encoded = trainer.processing_class(text=[text["prompt"]], images=images or None, return_tensors="pt")
            ids = [int(t) for t in encoded["input_ids"][0].tolist()]
            known = distinct.get(task.key)
            if known is not None and known.ids != ids:
                raise CuaError(
                    f"rollout_func: two prompts name episode {task.key} but differ; one dataset row per episode "
                    "(task_dataset builds them so)"
                )
            if known is None:
                tensors = {k: v for k, v in encoded.items() if k not in ("input_ids", "attention_mask")}
                distinct[task.key] = _Prompt(task, ids, tensors, images[0] if images else None)
            order.append(task.key)
        return distinct, order

    # -- playing ----------------------------------------------------------------------------------

    def _observation_tokens(self, row: _Row, turn: Turn, processor: Any) -> None:
        """Close the model's turn if it ran out of tokens, then the environment's answer as a user message."""
        tokenizer = getattr(processor, "tokenizer", processor)
        end, frame = turn_frame(processor)
        if row.ids[-1] != end:
            row.ids.append(end)
            row.mask.append(0)
            row.logprobs.append(0.0)
        last = turn.history[-1]
        lines = [f"Step {turn.step + 1}: your last action was applied; the new screen is not shown."]
        problems = [f"The environment refused: {e}" for e in last.errors]
        if not last.decision.actions:
            problems.insert(0, "your output could not be parsed into an action")
        if problems:
            lines.append("Your last step had problems:\n" + "\n".join(f"- {p}" for p in problems))
        text = frame.format(env="\n".join(lines))
        ids = [int(t) for t in tokenizer(text, add_special_tokens=False)["input_ids"]]
        row.ids += ids
        row.mask += [0] * len(ids)
        row.logprobs += [0.0] * len(ids)

    def _turns(
        self, turns: list[Turn], rows: dict[str, _Row], by_task: dict[str, _Prompt], trainer: Any
    ) -> list[Decision]:
        import numpy as np

        from cua_data import as_image

        active: list[_Row] = []
        for turn in turns:
            row = rows.get(turn.episode)
            if row is None:
                prompt = by_task[turn.task.key]
                row = rows[turn.episode] = _Row(prompt, list(prompt.ids), [], [])
                shot = turn.observation.get("screenshot")
                if prompt.image is not None and shot is not None:
                    live = self._adapter.resize(as_image(shot))
                    if live.size != prompt.image.size or not np.array_equal(np.asarray(live), np.asarray(prompt.image)):
                        self.stale_first_screens += 1
                        log.warning("%s: the live first screen differs from the dataset's image; the model acts on "
                                    "the dataset's (rebuild the dataset if the task's start screen changed)",
                                    turn.task.key)  # fmt: skip
            else:
                self._observation_tokens(row, turn, trainer.processing_class)
            active.append(row)
        return self._generate(turns, active, trainer)

    def _generate(self, turns: list[Turn], active: list[_Row], trainer: Any) -> list[Decision]:
        import torch
        import transformers

        from cua_data import AdapterParseError

        processor = trainer.processing_class
        tokenizer = getattr(processor, "tokenizer", processor)
        model = trainer.accelerator.unwrap_model(trainer.model)
        device = trainer.accelerator.device
        pad = int(tokenizer.pad_token_id)
        eos = {turn_frame(processor)[0]} | {int(e) for e in trainer.eos_token_ids}
        length = max(len(r.ids) for r in active)
        batch: dict[str, Any] = {
            "input_ids": torch.tensor([[pad] * (length - len(r.ids)) + r.ids for r in active]),
            "attention_mask": torch.tensor([[0] * (length - len(r.ids)) + [1] * len(r.ids) for r in active]),
        }
        keys = {k for r in active for k in r.prompt.tensors}
        for key in keys:
            values = [r.prompt.tensors[key] for r in active]
            if key in ("mm_token_type_ids", "token_type_ids"):
                batch[key] = torch.stack(
                    [
                        torch.nn.functional.pad(v[0], (length - len(r.ids), len(r.ids) - v.shape[-1]), value=0)
                        for v, r in zip(values, active, strict=True)
                    ]
                )
            else:
                batch[key] = torch.cat(values, dim=0)
        batch = {k: v.to(device) for k, v in batch.items()}
        settings: Any = transformers.GenerationConfig
        config = settings(
            do_sample=True,
            temperature=self._temperature,
            top_p=1.0,
            top_k=0,
            repetition_penalty=1.0,
            max_new_tokens=self.max_new_tokens,
            eos_token_id=sorted(eos),
            pad_token_id=pad,
            output_logits=True,
            return_dict_in_generate=True,
        )
        training = model.training
        model.eval()
        try:
            with torch.no_grad():
                out = model.generate(**batch, generation_config=config)
        finally:
            model.train(training)
        new = out.sequences[:, length:]
        logits = torch.stack(out.logits, dim=1).float() / self._temperature  # raw logits: as TRL scores them
        chosen = torch.log_softmax(logits, dim=-1).gather(-1, new[..., None].to(logits.device))[..., 0]
        decisions = []
        for index, (turn, row) in enumerate(zip(turns, active, strict=True)):
            tokens = [int(t) for t in new[index].tolist()]
            ended = next((i + 1 for i, t in enumerate(tokens) if t in eos), None)
            stop = len(tokens) if ended is None else ended
            tokens, scores = tokens[:stop], [float(v) for v in chosen[index, :stop].tolist()]
            row.ids += tokens
            row.mask += [1] * len(tokens)
            row.logprobs += scores
            text = str(tokenizer.decode(tokens, skip_special_tokens=True))
            size = (int(turn.observation["width"]), int(turn.observation["height"]))
            try:
                actions = list(self._adapter.parse(text, size).actions)
            except AdapterParseError:
                actions = []
            decisions.append(Decision(actions, tokens, scores, text, truncated=ended is None))
        return decisions

    def _output(
        self, order: list[str], distinct: dict[str, _Prompt], played: list[Rollout], rows: dict[str, _Row], stats: Any
    ) -> dict[str, Any]:
        by_task: dict[str, list[Rollout]] = {}
        for episode in played:
            by_task.setdefault(episode.task.key, []).append(episode)
        if len(played) != len(order):
            raise RolloutError(
                f"rollout_func: {len(order) - len(played)} of {len(order)} episodes were not played "
                f"({int(stats.get('dropped', 0))} dropped after their env workers died and could not be replayed); "
                "no reward is made up for them"
            )
        out: dict[str, list[Any]] = {k: [] for k in ("prompt_ids", "completion_ids", "logprobs", "env_mask")}
        out["env_reward"] = []
        self.episodes = []
        for key in order:
            episode = by_task[key].pop(0)
            if episode.reward is None:
                raise RolloutError(
                    f"rollout_func: episode {episode.id} of {key} ended without a reward ({episode.status})"
                )
            row = rows[episode.id]
            cut = len(row.prompt.ids)
            out["prompt_ids"].append(list(row.prompt.ids))
            out["completion_ids"].append(row.ids[cut:])
            cut_off = self.mask_truncated and any(t.decision.truncated for t in episode.turns)
            out["env_mask"].append([0] * len(row.mask) if cut_off else list(row.mask))
            out["logprobs"].append(list(row.logprobs))
            out["env_reward"].append(float(episode.reward))
            self.episodes.append(episode)
        return out


def rollout_func(env: str = "sim:click-button", **options: Any) -> CuaRollout:
    """A TRL ``rollout_func`` that plays each prompt as an episode on env servers of ``env``'s backend.

    ``env`` is ``BACKEND`` or ``BACKEND:TASK`` (the task comes from each prompt's episode key; see
    :func:`cua_trainer_trl.task_dataset`). Options are :class:`CuaRollout`'s. Use it as a context
    manager, or ``close()`` it, to tear the env servers down.
    """
    return CuaRollout(env, **options)
