"""QwenVLPolicy on a tiny random-weight Qwen2.5-VL: the hf agent's prompts, sampled log-probs that teacher
forcing reproduces, parse failures as no-op steps, and the weights a trainer publishes."""

from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from cua_bench.agents.model import ModelAgent
from cua_bench.spec import EpisodeSpec
from cua_bench.tasks import Task
from cua_bench_rl.registry import policies
from cua_bench_rl.rollouts import Decision, Taken, Turn
from cua_core.actions import Click, Point
from cua_core.errors import CuaError
from cua_trainer_grpo import GRPOConfig
from cua_trainer_grpo.policies.vlm import QwenVLPolicy
from cua_trainer_grpo.trainer import GRPOTrainer

TASK = EpisodeSpec("sim/click-button", 0, "train")


def observation(seed: int, errors: list[str] | None = None) -> dict[str, Any]:
    shot = np.random.default_rng(seed).integers(0, 255, (200, 320, 3), dtype=np.uint8)
    return {
        "instruction": "Click OK",
        "step": 0,
        "width": 1280,
        "height": 800,
        "errors": errors or [],
        "screenshot": shot,
    }


def first_turn(episode: str = "e0", seed: int = 0) -> Turn:
    return Turn(episode, TASK, "Click OK", 0, observation(seed), max_steps=3)


@pytest.fixture(scope="module")
def policy(tiny_vl: Path) -> QwenVLPolicy:
    return QwenVLPolicy(str(tiny_vl), max_new_tokens=12, max_size="320x200")


def test_teacher_forcing_reproduces_the_sampled_log_probs(policy: QwenVLPolicy) -> None:
    torch.manual_seed(0)
    turns = [first_turn(f"e{i}", seed=i) for i in range(3)]
    decisions = policy.act(turns)
    taken = [Taken(t, d) for t, d in zip(turns, decisions, strict=True)]
    second = Turn("e0", TASK, "Click OK", 1, observation(5, errors=["off the screen"]), [taken[0]], max_steps=3)
    taken.append(Taken(second, policy.act([second])[0]))  # a turn with history, alone in its batch
    scores = policy.logprobs(taken)
    for t, score in zip(taken, scores, strict=True):
        assert 0 < len(t.decision.tokens) <= 12 and len(t.decision.logprobs) == len(t.decision.tokens)
        assert score.requires_grad and score.shape == (len(t.decision.tokens),)
        assert all(v <= 0 for v in t.decision.logprobs)
        torch.testing.assert_close(score.detach(), torch.tensor(t.decision.logprobs), atol=1e-4, rtol=0)
    _, entropies = policy.logprobs_and_entropy(taken[:1])
    vocabulary = policy.model.get_output_embeddings().weight.shape[0]
    assert all(0 < float(e) <= math.log(vocabulary) for e in entropies[0].detach())


@pytest.mark.parametrize(("temperature", "top_p"), [(1.0, 1.0), (0.7, 1.0), (1.0, 0.8), (0.6, 0.5)])
def test_scores_are_of_the_distribution_generate_samples_from(temperature: float, top_p: float) -> None:
    import transformers

    from cua_trainer_grpo.policies.vlm import sampling_log_softmax

    torch.manual_seed(1)
    logits = torch.randn(3, 50) * 3
    warped = transformers.TemperatureLogitsWarper(temperature)(None, logits.clone())
    if top_p < 1:
        warped = transformers.TopPLogitsWarper(top_p)(None, warped)
    ours = sampling_log_softmax(logits, temperature, top_p)
    theirs = torch.log_softmax(warped, dim=-1)
    assert torch.equal(torch.isinf(ours), torch.isinf(theirs))  # the same nucleus
    torch.testing.assert_close(ours[torch.isfinite(ours)], theirs[torch.isfinite(theirs)])


def test_teacher_forcing_reproduces_the_log_probs_sampled_at_a_temperature_and_top_p(tiny_vl: Path) -> None:
    tempered = QwenVLPolicy(str(tiny_vl), max_new_tokens=8, max_size="320x200", temperature=0.7, top_p=0.9)
    torch.manual_seed(0)
    turns = [first_turn(f"e{i}", seed=i) for i in range(2)]
    taken = [Taken(t, d) for t, d in zip(turns, tempered.act(turns), strict=True)]
    for t, score in zip(taken, tempered.logprobs(taken), strict=True):
        assert all(math.isfinite(v) for v in t.decision.logprobs)  # sampled tokens are in the nucleus
        torch.testing.assert_close(score.detach(), torch.tensor(t.decision.logprobs), atol=1e-4, rtol=0)
    plain = QwenVLPolicy(str(tiny_vl), max_new_tokens=8, max_size="320x200")
    assert not torch.allclose(plain.logprobs(taken[:1])[0].detach(), torch.tensor(taken[0].decision.logprobs))


def test_greedy_is_repeatable_and_an_unparseable_answer_is_a_no_op(tiny_vl: Path) -> None:
    policy = QwenVLPolicy(str(tiny_vl), max_new_tokens=4, max_size="320x200")
    one, two = policy.act([first_turn()], greedy=True)[0], policy.act([first_turn()], greedy=True)[0]
    assert (one.tokens, one.text) == (two.tokens, two.text)
    assert one.actions == [] and one.text is not None  # random weights write no tool call


def test_prompts_are_the_hf_agents_prompts(policy: QwenVLPolicy) -> None:
    """An episode played by cua-bench's ModelAgent (what the hf agent is) prompts exactly as the policy does:
    the history replayed verbatim, and the notes on an unparseable answer and a refused action."""
    written = ["no tool call here", policy.adapter.format_output([Click(Point(500, 500))], (320, 200))]

    class Scripted(ModelAgent):
        def generate(self, prompt: Any) -> str:
            return written.pop(0)

    agent = Scripted(adapter="qwen2.5-vl", adapter_options={"min_pixels": 3136, "max_pixels": 31360})
    agent.reset(Task(description="Click OK"))
    played: list[Taken] = []
    for step in range(3):
        obs = observation(step, errors=["click refused"] if step == 2 else None)
        turn = Turn("e0", TASK, "Click OK", step, obs, list(played))
        assert policy.render(turn).messages == agent.prompt(obs).messages, f"step {step}"
        text = written[0] if written else ""
        actions = agent.act(obs) if written else []
        played.append(Taken(turn, Decision(actions, [1], [-1.0], text)))
    notes = str(policy.render(Turn("e0", TASK, "Click OK", 1, observation(1), played[:1])).messages[-1])
    assert "could not be parsed" in notes


def test_options_are_checked_with_the_fix_named(tiny_vl: Path) -> None:
    with pytest.raises(ValueError, match="rgb or png"):
        QwenVLPolicy(str(tiny_vl), screenshot="none")
    with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
        QwenVLPolicy(str(tiny_vl), max_size="big")
    with pytest.raises(CuaError, match="cannot load a transformers vision-language model"):
        QwenVLPolicy(str(tiny_vl / "missing"))
    built = policies()["qwen-vl"](model=str(tiny_vl), max_size=[320, 200], screenshot="png")
    assert isinstance(built, QwenVLPolicy)
    assert (built.observes.screenshot, built.observes.max_size) == ("png", (320, 200))
    assert (built.adapter.min_pixels, built.adapter.max_pixels) == (3136, 31360)  # the processor's budget
    with pytest.raises(TypeError, match="temprature"):
        policies()["qwen-vl"](model=str(tiny_vl), temprature=0.5)


def test_lora_publishes_the_adapter_alone_into_a_rollout_copy(tiny_vl: Path, tmp_path: Path) -> None:
    trained = QwenVLPolicy(str(tiny_vl), max_new_tokens=4)
    GRPOTrainer(trained, GRPOConfig(lora=True, lora_rank=4))
    rollout = copy.deepcopy(trained)
    with torch.no_grad():
        for name, param in trained.model.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.5)
    weights = trained.state_dict_for_publish()
    assert weights and all("lora_" in k for k in weights)
    assert {k for k in weights if "q_proj" in k} and not {k for k in weights if "visual" in k}
    rollout.load_published(weights, 3)
    assert rollout.version == 3
    for key, value in rollout.state_dict_for_publish().items():
        assert torch.equal(value, weights[key])
    with pytest.raises(CuaError, match="do not fit"):
        QwenVLPolicy(str(tiny_vl)).load_published(weights, 1)  # no adapter layers to take them
    trained.save_pretrained(tmp_path / "adapter")
    assert {"adapter_config.json", "adapter_model.safetensors"} <= {p.name for p in (tmp_path / "adapter").iterdir()}
    # The trained policy as a model folder (train writes RUN/model): the hf agent plays it with the
    # policy's own prompt settings, and it holds the trained adapter (before: no processor, no settings).
    from cua_bench.agents.hf import HFAgent

    folder = trained.write_model_folder(tmp_path / "model")
    agent = HFAgent(model=str(folder), max_new_tokens=2)
    assert agent.adapter.name == "qwen2.5-vl" and agent.adapter.history == trained.adapter.history
    loaded = {n: p for n, p in agent.engine.model.named_parameters() if "lora_B" in n}
    assert loaded and all(torch.equal(p, dict(trained.model.named_parameters())[n]) for n, p in loaded.items())


def test_the_checkpoints_own_generation_defaults_do_not_change_what_is_sampled(tiny_vl: Path, tmp_path: Path) -> None:
    """A hub generation_config.json (suppressed tokens, a repetition penalty) must not reshape the sampling
    distribution behind the policy's back: the scored log-probs would then describe another distribution."""
    clean = QwenVLPolicy(str(tiny_vl), max_new_tokens=3, max_size="320x200").act([first_turn()], greedy=True)[0]
    shutil.copytree(tiny_vl, tmp_path / "hub")
    config = json.loads((tmp_path / "hub" / "generation_config.json").read_text())
    config.update(suppress_tokens=[clean.tokens[0]], repetition_penalty=5.0)
    (tmp_path / "hub" / "generation_config.json").write_text(json.dumps(config))
    hub = QwenVLPolicy(str(tmp_path / "hub"), max_new_tokens=3, max_size="320x200")
    assert hub.act([first_turn()], greedy=True)[0].tokens == clean.tokens
    assert hub.model.generation_config.suppress_tokens == [clean.tokens[0]]  # left as the checkpoint has it


def test_an_answer_without_its_end_of_turn_is_marked_cut_off(tiny_vl: Path) -> None:
    policy = QwenVLPolicy(str(tiny_vl), max_new_tokens=3, max_size="320x200")
    torch.manual_seed(0)
    decisions = policy.act([first_turn(f"e{i}", seed=i) for i in range(3)])
    for decision in decisions:
        ended = any(t in policy.eos_ids for t in decision.tokens)
        assert decision.truncated == (not ended) and (ended or len(decision.tokens) == 3)
    assert any(d.truncated for d in decisions)  # random weights rarely end a turn in 3 tokens


def test_a_folder_an_sft_run_wrote_is_trained_on_the_prompts_it_records(tiny_vl: Path, tmp_path: Path) -> None:
    """GRPO after SFT renders prompts as SFT did (history, adapter options); asking for others is refused."""
    from cua_data.model_folder import SETTINGS_FILE, PromptSettings

    folder = tmp_path / "sft-model"
    shutil.copytree(tiny_vl, folder)
    recorded = PromptSettings("qwen2.5-vl", "last=2", {"min_pixels": 3136, "max_pixels": 12544})
    (folder / SETTINGS_FILE).write_text(json.dumps(recorded.to_dict()))
    policy = QwenVLPolicy(str(folder), max_new_tokens=4)
    assert policy.settings == recorded and policy.adapter.max_pixels == 12544
    assert policy.adapter.history.spec() == "last=2"
    with pytest.raises(CuaError, match=r"trained with history 'last=2'.*asks for 'full'"):
        QwenVLPolicy(str(folder), history="full")
    plain = QwenVLPolicy(str(tiny_vl), max_new_tokens=4)  # records nothing: the defaults and the processor's budget
    assert plain.settings == PromptSettings("qwen2.5-vl", "full", {"min_pixels": 3136, "max_pixels": 31360})
