"""A transformers Qwen-VL model as an RL policy, paired with its cua adapter.

Prompts are built exactly as the ``hf`` agent builds them at evaluation time (cua-bench's
``ModelAgent.prompt``: the adapter renders instruction, history and screenshot, then a note on what
the environment refused or could not parse), so a policy trained here is evaluated on the prompts it
was trained on. The prompt is re-rendered from the ``Turn`` for scoring, never stored, so ``act``
and ``logprobs`` see the same tokens by construction.

Log-probabilities are those of the distribution the tokens are sampled from: the logits divided by
the temperature, then cut to the top-p nucleus and renormalised, as transformers' warpers do
(``sampling_log_softmax``), in ``act`` from the generation's logits and in ``logprobs`` by teacher
forcing. Scored at temperature 1 instead, a run sampling at 0.7 would weigh every ratio by a
distribution it never sampled from. A token the updated model no longer keeps in its nucleus scores
-inf, a ratio of 0, which the clipped objective bounds. Sampling uses no top-k, and none of the
checkpoint's own generation defaults (a hub ``generation_config.json`` often sets a repetition
penalty, a low temperature, top-k 1): the policy's options are the only ones.

Output the adapter cannot parse becomes a decision with no actions: the environment records a step
that did nothing, the step counts toward the limit, and the next prompt says the output could not
be parsed (as the ``hf`` agent does). The tokens are kept, so GRPO can lower their probability.
"""

from __future__ import annotations

import inspect
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from cua_bench import ModelAgent, Observes
from cua_bench_rl import Decision, Policy, Taken, Turn
from cua_core import Action, CuaError
from cua_data import PromptSettings, prompt_settings, read_settings, write_model_folder
from cua_trainer_grpo.policies.served import Sampled, ServedSampler

__all__ = ["QwenVLPolicy"]

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
_VISION_TOKENS = ("image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id")


class _Prompter(ModelAgent):
    """cua-bench's ModelAgent, used for its prompt building only (the policy generates itself)."""

    def generate(self, prompt: Any) -> str:
        raise NotImplementedError("QwenVLPolicy generates its own answers")


def _max_size(value: Any) -> tuple[int, int] | None:
    if value is None or isinstance(value, tuple):
        return value
    if isinstance(value, str):
        width, x, height = value.lower().partition("x")
        if x and width.isdigit() and height.isdigit():
            return int(width), int(height)
        raise ValueError(f"max_size={value!r}: expected WIDTHxHEIGHT, like 640x400")
    if isinstance(value, list) and len(value) == 2:
        return int(value[0]), int(value[1])
    raise ValueError(f"max_size={value!r}: expected WIDTHxHEIGHT or [width, height]")


def _pixel_budget(processor: Any) -> dict[str, int]:
    """The image processor's own pixel budget, so the adapter's coordinate frame is the image the model sees."""
    image = getattr(processor, "image_processor", None)
    size = getattr(image, "size", None)
    low = getattr(size, "shortest_edge", None) or getattr(image, "min_pixels", None)
    high = getattr(size, "longest_edge", None) or getattr(image, "max_pixels", None)
    return {"min_pixels": int(low), "max_pixels": int(high)} if low and high else {}


def sampling_log_softmax(
    logits: torch.Tensor, temperature: float, top_p: float, banned: Sequence[int] = ()
) -> torch.Tensor:
    """Log-probabilities of the distribution ``generate`` samples from with this temperature and top-p:
    the ``banned`` tokens suppressed (transformers' SuppressTokensLogitsProcessor), then its
    TemperatureLogitsWarper and TopPLogitsWarper (the tokens whose ascending cumulative probability stays
    at or under 1 - top_p are cut, the most likely one always kept), renormalised."""
    if banned:
        logits = logits.clone()
        logits[..., list(banned)] = float("-inf")
    scaled = logits / temperature
    if top_p < 1:
        ordered, order = torch.sort(scaled, dim=-1, descending=False)
        cut = ordered.softmax(dim=-1).cumsum(dim=-1) <= 1 - top_p
        cut[..., -1:] = False
        scaled = scaled.masked_fill(cut.scatter(-1, order, cut), float("-inf"))
    return torch.log_softmax(scaled, dim=-1)


class QwenVLPolicy(Policy):
    """``QwenVLPolicy(model=PATH, adapter="qwen2.5-vl", ...)``: a local checkpoint folder (or a hub id
    already in the local cache) loaded with ``AutoModelForImageTextToText``.

    ``history`` is the adapter's history policy (``full``, ``last=2,images=1``); ``adapter_options``
    default to the processor's pixel budget; ``max_size`` (``WxH``) scales screenshots down before the
    adapter does; ``max_batch`` turns share one ``generate`` call.

    ``server=URL`` (an OpenAI base URL, ``http://127.0.0.1:8000/v1``) samples through a vLLM or SGLang
    server serving the same checkpoint instead of ``generate`` (``cua_trainer_grpo.policies.served``):
    ``served_model`` is the name it serves the checkpoint under (default: the first it lists), each
    published version is saved under ``publish_dir`` (default: a new temporary folder; the server
    must read the same path), and ``logprob_tolerance`` bounds how far the server's log-probabilities
    of its first answer may sit from this process's scoring.
    """

    def __init__(
        self,
        model: str,
        *,
        adapter: str | None = None,
        history: str | None = None,
        adapter_options: dict[str, Any] | None = None,
        screenshot: str = "rgb",
        max_size: Any = None,
        max_new_tokens: int = 128,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_batch: int = 8,
        device: str = "auto",
        dtype: str = "auto",
        server: str | None = None,
        served_model: str | None = None,
        publish_dir: str | None = None,
        logprob_tolerance: float = 0.1,
    ) -> None:
        import transformers

        from cua_data import load_processor
        from cua_data.registry import adapters

        if screenshot not in ("rgb", "png"):
            raise ValueError(
                f"screenshot must be rgb or png (a vision-language model needs the screen), got {screenshot!r}"
            )
        if max_new_tokens < 1 or max_batch < 1:
            raise ValueError(f"max_new_tokens and max_batch must be >= 1, got {max_new_tokens} and {max_batch}")
        if not temperature > 0 or not 0 < top_p <= 1:
            raise ValueError(f"temperature must be > 0 and top_p in (0, 1], got {temperature} and {top_p}")
        if dtype != "auto" and dtype not in _DTYPES:
            raise ValueError(f"dtype must be auto or one of {', '.join(_DTYPES)}, got {dtype!r}")
        self.observes = Observes(screenshot, _max_size(max_size))
        # A folder a trainer of ours wrote (an SFT result) records the prompts it was trained on: GRPO goes
        # on with the same ones, and an option asking for others is refused, naming both.
        recorded = read_settings(model) if Path(str(model)).is_dir() else None
        try:
            asked = prompt_settings(model, adapter or (None if recorded else "qwen2.5-vl"), history, adapter_options)
        except ValueError as exc:
            raise CuaError(str(exc).replace("--model", "model=")) from exc
        adapter = asked.adapter
        self.served: ServedSampler | None = None  # asked before the model loads: a wrong URL fails at once
        if server is not None:
            self.served = ServedSampler(
                server, adapter=adapter, model=served_model, publish_dir=publish_dir, concurrency=max_batch,
                tolerance=logprob_tolerance,
            )  # fmt: skip
        self.path = str(model)
        self.device = device if device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
        torch_dtype = (
            _DTYPES[dtype] if dtype != "auto" else (torch.bfloat16 if self.device == "cuda" else torch.float32)
        )
        try:
            self.processor = load_processor(self.path)
            auto: Any = transformers.AutoModelForImageTextToText  # untyped library: Any keeps mypy strict here
            self.model: Any = auto.from_pretrained(self.path, dtype=torch_dtype)
        except (OSError, ValueError) as exc:
            raise CuaError(f"model={self.path!r}: cannot load a transformers vision-language model: {exc}") from exc
        self.model.to(self.device).eval()
        self.processor.tokenizer.padding_side = "left"  # every row of a batch ends where its answer starts
        options = dict(asked.options)
        if recorded is None:  # nothing recorded: the adapter's frame is the image the processor keeps
            accepted = inspect.signature(adapters()[adapter]).parameters
            for key, value in _pixel_budget(self.processor).items():
                if key in accepted:
                    options.setdefault(key, value)
        self.settings = PromptSettings(adapter, asked.history, options)  # recorded with the model it trains
        self.prompter = _Prompter(adapter=adapter, history=self.settings.history, adapter_options=options)
        self.adapter = self.prompter.adapter
        generation = self.model.generation_config
        eos = generation.eos_token_id
        self.eos_ids = {int(e) for e in (eos if isinstance(eos, list) else [eos]) if e is not None}
        self.eos_ids.add(int(self.processor.tokenizer.convert_tokens_to_ids("<|im_end|>")))
        pad = generation.pad_token_id
        self.pad_id = int(pad if pad is not None else self.processor.tokenizer.pad_token_id)
        # Vision placeholders are never sampled: an answer holding an image token could not be scored (the
        # model would count it as a picture without pixels), so sampling and scoring both leave them out.
        config = self.model.config
        self.banned = sorted(
            {int(v) for k in _VISION_TOKENS if isinstance(v := getattr(config, k, None), int)} - self.eos_ids
        )
        self.max_new_tokens, self.temperature, self.top_p, self.max_batch = (
            max_new_tokens,
            temperature,
            top_p,
            max_batch,
        )
        self._trainable: Any = None
        self._lock = threading.Lock()

    # deepcopy (the rollout copy, a KL reference) copies everything but the lock.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- prompts ------------------------------------------------------------------------------

    def _parse(self, text: str | None, shot: Any, observation: dict[str, Any]) -> tuple[list[Action], str | None]:
        """The adapter's actions for ``text`` in the frame of the screenshot the model saw, or why not."""
        from cua_data import AdapterParseError, as_image

        size = as_image(shot).size if shot is not None else (int(observation["width"]), int(observation["height"]))
        try:
            return list(self.adapter.parse(text or "", size).actions), None
        except AdapterParseError as exc:
            return [], str(exc)

    def render(self, turn: Turn) -> Any:
        """The adapter's prompt for ``turn``: what ``act`` generated from and ``logprobs`` scores against."""
        from cua_data import Turn as AdapterTurn

        past = []
        feedback: list[str] = []
        for taken in turn.history:
            shot = taken.turn.observation.get("screenshot")
            resized = self.adapter.resize(shot) if shot is not None else None
            past.append(AdapterTurn(resized, tuple(taken.decision.actions), taken.decision.text))
        if turn.history:
            last = turn.history[-1]
            if not last.decision.actions and last.decision.text is not None:
                _, error = self._parse(
                    last.decision.text, last.turn.observation.get("screenshot"), last.turn.observation
                )
                if error is not None:
                    feedback = [f"your output could not be parsed: {error}"]
        with self._lock:
            self.prompter.instruction = turn.instruction
            self.prompter.turns = past
            self.prompter.feedback = feedback
            return self.prompter.prompt(turn.observation)

    def _chat(self, prompt: Any) -> str:
        return str(
            self.processor.apply_chat_template(prompt.processor_messages(), add_generation_prompt=True, tokenize=False)
        )

    # -- sampling -----------------------------------------------------------------------------

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        decisions: list[Decision] = []
        sample = self._generate if self.served is None else self._served
        for start in range(0, len(turns), self.max_batch):
            decisions += sample(turns[start : start + self.max_batch], greedy)
        return decisions

    def _decision(self, turn: Turn, tokens: list[int], scores: list[float], truncated: bool) -> Decision:
        text = str(self.processor.tokenizer.decode(tokens, skip_special_tokens=True))
        actions, _ = self._parse(text, turn.observation.get("screenshot"), turn.observation)
        return Decision(actions, tokens, scores, text, truncated=truncated)

    def _served(self, turns: Sequence[Turn], greedy: bool) -> list[Decision]:
        """The server samples; each sampled answer is scored here under the weights it was sampled with (this
        copy holds the version the server serves), as verl recomputes the old log-probabilities: the ratio
        the trainer takes is then exact in this process's numerics, whatever precision the server runs at."""
        assert self.served is not None
        prompts = [self.render(turn) for turn in turns]
        temperature = 0.0 if greedy else self.temperature
        answers = self.served.sample(
            prompts, temperature=temperature, top_p=self.top_p, max_tokens=self.max_new_tokens, banned=self.banned
        )
        scores = [a.logprobs for a in answers]  # a greedy answer is never trained on: the server's are kept
        if not greedy:
            played = [
                (i, Taken(t, Decision([], a.tokens, a.logprobs)))
                for i, (t, a) in enumerate(zip(turns, answers, strict=True))
                if a.tokens
            ]
            with torch.no_grad():
                local = self._score([t for _, t in played], entropy=False)[0]
            for (i, _), row in zip(played, local, strict=True):
                scores[i] = [float(v) for v in row.tolist()]
        if not self.served.checked and turns:
            self._check_served(prompts[0], answers[0], scores[0], greedy)
        return [self._decision(t, a.tokens, s, a.truncated) for t, a, s in zip(turns, answers, scores, strict=True)]

    def _check_served(self, prompt: Any, answer: Sampled, scored: list[float], greedy: bool) -> None:
        """The server sampled from the prompt and the distribution this process scores (served.py's doc)."""
        assert self.served is not None
        local = None
        if answer.prompt_ids is not None:
            encoded = self.processor(text=[self._chat(prompt)], images=prompt.images or None)["input_ids"][0]
            local = [int(t) for t in encoded]
        self.served.check(answer, local, None if greedy else scored, version=self.version, checkpoint=self.path,
                          sampling=f"temperature {self.temperature} / top-p {self.top_p}")  # fmt: skip

    def _generate(self, turns: Sequence[Turn], greedy: bool) -> list[Decision]:
        import transformers

        prompts = [self.render(turn) for turn in turns]
        images = [image for prompt in prompts for image in prompt.images]
        inputs = self.processor(
            text=[self._chat(p) for p in prompts], images=images or None, padding=True, return_tensors="pt"
        ).to(self.device)
        settings: Any = transformers.GenerationConfig
        config = settings(
            do_sample=not greedy,
            temperature=self.temperature if not greedy else None,
            top_p=self.top_p if not greedy else None,
            top_k=0 if not greedy else None,
            suppress_tokens=self.banned or None,
            max_new_tokens=self.max_new_tokens,
            eos_token_id=sorted(self.eos_ids),
            pad_token_id=self.pad_id,
            output_logits=True,
            return_dict_in_generate=True,
        )
        # generate() fills every setting left unset from the model's own generation_config (a checkpoint's
        # repetition_penalty, suppressed tokens, min_new_tokens...), which would sample from another
        # distribution than the one scored: for the call, the model's defaults are none but its special tokens.
        checkpoint = self.model.generation_config
        self.model.generation_config = settings(
            eos_token_id=checkpoint.eos_token_id,
            pad_token_id=checkpoint.pad_token_id,
            bos_token_id=checkpoint.bos_token_id,
        )
        try:
            with torch.no_grad():
                out = self.model.generate(**inputs, generation_config=config)
        finally:
            self.model.generation_config = checkpoint
        new = out.sequences[:, inputs["input_ids"].shape[1] :]
        logits = torch.stack(out.logits, dim=1).float()  # raw: before the temperature and top-p
        logp = sampling_log_softmax(logits, self.temperature, self.top_p, self.banned)
        chosen = logp.gather(-1, new[..., None].to(logits.device))[..., 0]
        decisions = []
        for row, turn in enumerate(turns):
            tokens = [int(t) for t in new[row].tolist()]
            ended = next((i + 1 for i, t in enumerate(tokens) if t in self.eos_ids), None)
            end = len(tokens) if ended is None else ended
            scores = [float(v) for v in chosen[row, :end].tolist()]
            decisions.append(self._decision(turn, tokens[:end], scores, ended is None))
        return decisions

    # -- scoring ------------------------------------------------------------------------------

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        return self._score(taken, entropy=False)[0]

    def logprobs_and_entropy(self, taken: Sequence[Taken]) -> tuple[list[Any], list[Any]]:
        return self._score(taken, entropy=True)

    def _score(self, taken: Sequence[Taken], entropy: bool) -> tuple[list[Any], list[Any]]:
        """Teacher forcing: each turn's prompt then its decision's tokens, right-aligned in one batch, so
        the last ``longest answer + 1`` positions hold every logit needed (``logits_to_keep``)."""
        if not taken:
            return [], []
        rows, answers = [], []
        for t in taken:
            prompt = self.render(t.turn)
            rows.append(
                dict(self.processor(text=[self._chat(prompt)], images=prompt.images or None, return_tensors="pt"))
            )
            answers.append(torch.tensor(t.decision.tokens, dtype=torch.long))
        length = max(int(r["input_ids"].shape[1]) + len(a) for r, a in zip(rows, answers, strict=True))
        batch: dict[str, Any] = {}
        for key in rows[0]:
            values = [r[key] for r in rows if key in r]
            if key in ("input_ids", "attention_mask", "mm_token_type_ids", "token_type_ids"):
                fill = self.pad_id if key == "input_ids" else 0
                lines = []
                for r, a in zip(rows, answers, strict=True):
                    tail = a if key == "input_ids" else torch.full_like(a, 1 if key == "attention_mask" else 0)
                    line = torch.cat([r[key][0].long(), tail])
                    lines.append(torch.nn.functional.pad(line, (length - line.shape[0], 0), value=fill))
                batch[key] = torch.stack(lines).to(self.device)
            else:
                batch[key] = torch.cat(values, dim=0).to(self.device)
        keep = max(len(a) for a in answers) + 1
        logits = self.model(**batch, logits_to_keep=keep, use_cache=False).logits.float()
        scores, entropies = [], []
        for row, answer in enumerate(answers):
            n = len(answer)
            window = logits[row, keep - n - 1 : keep - 1]
            logp = sampling_log_softmax(window, self.temperature, self.top_p, self.banned)
            scores.append(logp.gather(-1, answer.to(self.device)[:, None])[:, 0])
            if entropy:  # of the sampling distribution; tokens outside the nucleus add nothing
                entropies.append(-(logp.exp() * logp.clamp(min=torch.finfo(logp.dtype).min)).sum(-1))
        return scores, entropies

    # -- weights ------------------------------------------------------------------------------

    def trainable(self) -> Any:
        return self._trainable if self._trainable is not None else self.model

    def use_trainable(self, module: Any) -> None:
        self._trainable = module

    def lora_targets(self) -> Sequence[str]:
        return ("q_proj", "v_proj")  # the language model's attention (the vision tower's are qkv/proj)

    def state_dict_for_publish(self) -> dict[str, Any]:
        weights = self.model.state_dict()
        adapter = {k: v for k, v in weights.items() if "lora_" in k}
        return adapter or dict(weights)

    def load_published(self, weights: dict[str, Any], version: int) -> None:
        result = self.model.load_state_dict(weights, strict=False)
        if result.unexpected_keys:
            raise CuaError(
                f"published weights do not fit this policy's model (e.g. {result.unexpected_keys[:3]}); publish "
                "into a copy made after the trainer was built (LoRA adds the adapter's layers to the model)"
            )
        if self.served is not None:  # the server samples the next rollouts: it gets the weights too
            self.served.publish(self, version)
            self.served.checked = False  # the new version's first answer is checked again
        self.version = version

    def write_model_folder(self, folder: Path) -> Path:
        """The policy as it is now, as a folder ``--agent hf --model`` and ``from_pretrained`` load, with the
        prompt settings it plays by (``cua_data.model_folder``)."""
        return write_model_folder(folder, self.trainable(), self.path, self.processor, self.settings)

    def save_pretrained(self, folder: Path) -> None:
        trainable = self.trainable()
        if getattr(trainable, "peft_config", None) is not None and hasattr(trainable, "save_pretrained"):
            trainable.save_pretrained(str(folder))  # the adapter alone
            return
        self.model.save_pretrained(str(folder))
        source = Path(self.path)
        if not source.is_dir():  # a hub id: the processor as loaded
            self.processor.save_pretrained(str(folder))
            return
        for item in source.iterdir():  # the checkpoint's own tokenizer and processor files, as they were
            weights = item.suffix in (".safetensors", ".bin", ".pt", ".pth") or item.name.endswith(".index.json")
            if item.is_file() and not weights and not (folder / item.name).exists():
                shutil.copy2(item, folder / item.name)
