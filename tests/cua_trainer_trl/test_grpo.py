"""TRL's GRPOTrainer with rollouts on real sim env servers through ``cua_trainer_trl.rollout_func``.

A random-weight model writes no tool call, so every reward would be 0 and GRPO would have nothing to
learn from. The test first teaches it two answers to the variant's first prompt, about half each (the
oracle's click and a click on empty desktop), as SFT would, so groups have reward spread.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
import torch
import transformers
from cua_trainer_trl import env_reward, rollout_func, task_dataset
from cua_trainer_trl.dataset import make_adapter_for, parse_env
from cua_trainer_trl.prompts import turn_frame

from cua_bench.spec import EpisodeSpec
from cua_bench_rl.loader import RolloutError
from cua_bench_rl.workers import EnvWorkers, client_for
from cua_core.actions import Click, Point, action_from_dict
from cua_core.errors import CuaError
from cua_data.adapters.sft import load_processor

TASK = EpisodeSpec("sim/click-button", 2, "train")
SCREEN = (640, 400)


def _first_prompt(processor: Any, dataset: Any, answers: list[str]) -> tuple[dict[str, Any], Any, list[Any]]:
    """The dataset's first prompt as the model's inputs but its last token, that token, and each answer's
    tokens with the end of turn."""
    from trl.data_utils import apply_chat_template, prepare_multimodal_messages

    row = dataset[0]
    prompt = prepare_multimodal_messages(row["prompt"], row["images"])
    text = apply_chat_template({"prompt": prompt}, processor)["prompt"]
    inputs = processor(text=[text], images=row["images"], return_tensors="pt")
    length = inputs["input_ids"].shape[1]
    head = {k: (v[:, : length - 1] if v.dim() == 2 and v.shape[1] == length else v) for k, v in inputs.items()}
    tokenizer = processor.tokenizer
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    targets = [torch.tensor(tokenizer(a, add_special_tokens=False)["input_ids"] + [end]) for a in answers]
    return head, inputs["input_ids"][0, length - 1 :], targets


def answer_logprobs(model: Any, processor: Any, dataset: Any, answers: list[str]) -> list[float]:
    """log P(answer, then end of turn | the dataset's first prompt), for each answer."""
    head, last, targets = _first_prompt(processor, dataset, answers)
    scores = []
    with torch.no_grad():
        for target in targets:
            cache = model(**head, use_cache=True).past_key_values
            logits = model(input_ids=torch.cat([last, target[:-1]])[None], past_key_values=cache).logits[0]
            scores.append(float(torch.log_softmax(logits.float(), -1).gather(-1, target[:, None]).sum()))
    return scores


def fit_answers(model: Any, processor: Any, dataset: Any, answers: list[str], steps: int = 160) -> float:
    """Teach ``model`` to answer the dataset's first prompt with one of ``answers``, equally likely, against the
    prompt's cached keys and values (a step costs ~40 tokens, not the ~2300 of the prompt); the last loss.
    160 steps leave about 2% to other outputs (80 left 43%, enough for a group to hold no right answer)."""
    head, last, targets = _first_prompt(processor, dataset, answers)
    fitted = ("lm_head.", "model.language_model.norm.", "model.language_model.layers.1.self_attn.q_proj.",
              "model.language_model.layers.1.self_attn.o_proj.", "model.language_model.layers.1.mlp.",
              "model.language_model.layers.1.post_attention_layernorm.")  # fmt: skip
    for name, param in model.named_parameters():
        param.requires_grad_(name.startswith(fitted))
    with torch.no_grad():
        cache = model(**head, use_cache=True).past_key_values
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=2e-2)
    total = 0.0
    for _ in range(steps):
        optimiser.zero_grad()
        total = 0.0
        for target in targets:
            tokens = torch.cat([last, target[:-1]])[None]
            logits = model(input_ids=tokens, past_key_values=cache, use_cache=True).logits[0]
            cache.crop(-tokens.shape[1])
            loss = torch.nn.functional.cross_entropy(logits.float(), target) / len(targets)
            loss.backward()
            total += float(loss.detach())
        optimiser.step()
    model.requires_grad_(True)
    return total


def test_the_turn_frame_is_read_off_the_chat_template(tiny_vl: Path) -> None:
    end, frame = turn_frame(load_processor(tiny_vl))
    assert end == load_processor(tiny_vl).tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert frame.format(env="hi") == "\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"


def test_env_names_parse() -> None:
    assert parse_env("sim:click-button") == ("sim", "sim/click-button")
    assert parse_env("docker:desktop/xterm-create-file") == ("docker", "desktop/xterm-create-file")
    assert parse_env("docker:xterm-create-file") == ("docker", "desktop/xterm-create-file")  # its taskset's
    assert parse_env("sim") == ("sim", None)
    with pytest.raises(CuaError, match="BACKEND:TASK"):
        parse_env(":click-button")
    with pytest.raises(CuaError, match=r"one task here; give several as task_dataset\(tasks=\[\.\.\.\]\)"):
        parse_env("sim:click-button,login")


@pytest.mark.slow
def test_grpo_trains_on_episodes_scored_by_the_sim_evaluator(tiny_vl: Path, tmp_path: Path) -> None:
    import trl

    torch.manual_seed(0)
    processor = load_processor(tiny_vl)
    dataset = task_dataset("sim:click-button", [TASK.variant], "train", processor=processor)
    assert dataset[0]["task"] == TASK.key and dataset[0]["prompt"][1]["task"] == TASK.key
    model = transformers.AutoModelForImageTextToText.from_pretrained(str(tiny_vl), dtype=torch.float32)
    adapter = make_adapter_for(processor, "qwen2.5-vl")
    with EnvWorkers("sim", 4, width=SCREEN[0], height=SCREEN[1]) as workers:
        with client_for(workers[0].computer) as env:
            env.reset(options=TASK.with_(observes="none"))
            (oracle,) = [action_from_dict(a) for a in env.solve()["steps"][0]["actions"]]
        assert isinstance(oracle, Click)
        answers = [adapter.format_output([c], SCREEN) for c in (Click(oracle.coordinate), Click(Point(40, 960)))]
        assert fit_answers(model, processor, dataset, answers) < 0.1
        fitted = answer_logprobs(model, processor, dataset, answers)

        args = trl.GRPOConfig(
            output_dir=str(tmp_path / "grpo"), max_steps=2, per_device_train_batch_size=6, num_generations=6,
            max_completion_length=64, learning_rate=3e-5, report_to="none", logging_steps=1, save_strategy="no",
            use_cpu=True, bf16=False, activation_checkpointing=False, disable_tqdm=True, seed=0,
        )  # fmt: skip
        returned: list[list[float]] = []
        logged: list[dict[str, float]] = []
        with rollout_func("sim:click-button", workers=workers, max_steps=1, max_new_tokens=48) as rollout:

            def recording(prompts: list[Any], trainer: Any) -> dict[str, Any]:
                out = rollout(prompts, trainer)
                returned.append(list(out["env_reward"]))
                return out

            class Logs(transformers.TrainerCallback):  # type: ignore[misc]
                def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
                    if logs and "loss" in logs:
                        logged.append(dict(logs))

            trainer = trl.GRPOTrainer(
                model=model, reward_funcs=env_reward, args=args, train_dataset=dataset, processing_class=processor,
                rollout_func=recording, callbacks=[Logs()],
            )  # fmt: skip
            before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
            trainer.train()
            last = list(rollout.episodes)
            trained = answer_logprobs(trainer.model, processor, dataset, answers)

            # The same rollout with two turns per episode: environment text between turns is masked out.
            prompts = [trl.data_utils.prepare_multimodal_messages(dataset[0]["prompt"], dataset[0]["images"])] * 2
            with rollout_func(
                "sim:click-button", workers=workers, max_steps=2, max_new_tokens=16, mask_truncated=False
            ) as two:
                out = two(prompts, trainer)
            # Turns cut off at 4 tokens (an answer is ~30): each such episode is left out of the loss whole.
            with rollout_func("sim:click-button", workers=workers, max_steps=2, max_new_tokens=4) as cut:
                short = cut(prompts, trainer)
                truncated = [any(t.decision.truncated for t in e.turns) for e in cut.episodes]

        # Rewards are the evaluator's: the same actions replayed on a fresh env server score the same.
        with client_for(workers[0].computer) as env:
            for episode in last:
                env.reset(options=TASK.with_(observes="none"))
                for taken in episode.turns:
                    env.step(taken.decision.actions)
                assert env.evaluate() == episode.reward

    print(f"\nrewards per step {returned}; logged {[(d['loss'], d['reward']) for d in logged]}; "
          f"log P(right, wrong answer) fitted {fitted}, trained {trained}")  # fmt: skip
    assert len(logged) == 2 and all(math.isfinite(d["loss"]) for d in logged)
    for rewards, logs in zip(returned, logged, strict=True):
        assert logs["rewards/env_reward/mean"] == pytest.approx(sum(rewards) / len(rewards))
    assert {r for step in returned for r in step} == {0.0, 1.0}  # spread: GRPO had something to learn from
    assert [e.reward for e in last] == returned[-1]
    after = dict(trainer.model.named_parameters())
    assert any(not torch.equal(before[n], after[n].detach()) for n in before)
    # The update went the reward's way (at lr 3e-5 two steps moved the gap by ~1.5 nats; a sign error or
    # rewards paired with the wrong completions would move it the other way).
    assert trained[0] - trained[1] > fitted[0] - fitted[1]

    assert set(out) == {"prompt_ids", "completion_ids", "logprobs", "env_mask", "env_reward"}
    for completion, mask, logprobs in zip(out["completion_ids"], out["env_mask"], out["logprobs"], strict=True):
        assert len(completion) == len(mask) == len(logprobs)
        assert mask[0] == 1 and mask[-1] == 1 and 0 in mask  # turn 1, the environment's text, turn 2
        said = processor.tokenizer.decode([t for t, m in zip(completion, mask, strict=True) if m == 0])
        assert "<|im_start|>user\nStep 2: your last action was applied" in said and said.endswith("assistant\n")
    assert all(r in (0.0, 1.0) for r in out["env_reward"])
    assert any(truncated) and all(short["completion_ids"])
    assert [set(mask) == {0} for mask in short["env_mask"]] == truncated


def test_the_rollout_samples_at_the_temperature_trl_scores_at(tiny_vl: Path) -> None:
    """TRL divides the logits by GRPOConfig.temperature and applies no top-p when it scores: anything else is refused."""

    class Trainer:
        processing_class = load_processor(tiny_vl)
        chat_template_kwargs: ClassVar[dict[str, Any]] = {}
        args = SimpleNamespace(temperature=1.0)

    prompt = [{"role": "user", "content": "click it", "task": TASK.key}]
    with (
        rollout_func("sim", temperature=0.7) as rollout,
        pytest.raises(CuaError, match=r"GRPOConfig\(temperature=1.0\)"),
    ):
        rollout([prompt], Trainer())
    with pytest.raises(CuaError, match="scores without top-p"):
        rollout_func("sim", top_p=0.9)


def test_a_prompt_without_a_task_key_is_refused(tiny_vl: Path) -> None:
    class Trainer:
        processing_class = load_processor(tiny_vl)
        chat_template_kwargs: ClassVar[dict[str, Any]] = {}
        args = SimpleNamespace(temperature=1.0)

    with rollout_func("sim") as rollout, pytest.raises(CuaError, match="no task key"):
        rollout([[{"role": "user", "content": "click it"}]], Trainer())


def test_a_task_the_env_server_cannot_play_raises(tiny_vl: Path) -> None:
    class Trainer:
        processing_class = load_processor(tiny_vl)
        chat_template_kwargs: ClassVar[dict[str, Any]] = {}
        args = SimpleNamespace(temperature=1.0)

    prompt = [{"role": "user", "content": "click it", "task": "sim/no-such-task/train/0"}]
    with rollout_func("sim", workers=1) as rollout, pytest.raises(RolloutError, match="no-such-task"):
        rollout([prompt], Trainer())
