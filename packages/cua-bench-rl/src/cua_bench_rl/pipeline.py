"""``cua-bench-rl pipeline``: a taskset to a trained model and its held-out re-evaluation, as one durable job.

Stages, each in its own folder under the pipeline's, in this order:

1. ``baseline``: the base model evaluated by ``cua-bench run --agent hf`` (the Runner);
2. ``sft-data`` and ``sft`` (when ``sft_steps`` > 0): the oracle's trajectories on the train split (or
   the ``sft_data`` given), and an SFT run on them (``run_sft``); ``sft-eval`` evaluates its model;
3. ``grpo``: ``cua_bench_rl.train`` with the ``qwen-vl`` policy on the SFT model (or the base);
4. ``final``: the GRPO model evaluated as the baseline was;
5. ``report.json`` and ``report.md``: per task, before and after each stage, held-out variants (the
   trained tasks' eval split) apart from held-out tasks (``held_out_tasks``, never trained on), the
   GRPO curve, the settings and the package versions.

Every evaluation is the Runner with the ``hf`` agent on the folder a trainer wrote, so the report's
figures are exactly what ``cua-bench run --agent hf --model FOLDER`` gives for the same variants:
there is no second evaluator to disagree with. Prompts are rendered with one adapter and history
throughout (recorded in each model folder; a mismatch is refused).

Durable: a finished stage is recorded in ``stages.json`` (written whole, renamed into place) and
skipped by ``--resume``; an interrupted stage resumes where it stopped (the Runner's and the
trainers' own resume), so a kill -9 at any point loses at most the work since the last checkpoint.
``--resume`` with other settings than the stored ones is refused. Each stage's start and end is an
``rl.pipeline.stage`` event, and its runs publish their own (``bench.run.*``, ``rl.step.*``), which
``cua tui`` shows live.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cua_bench_rl import events
from cua_core import BestEffortPublisher, CuaError, typed_options
from cua_data import StoreError, resolve_dataset

__all__ = ["PipelineConfig", "run_pipeline"]

log = logging.getLogger(__name__)

CONFIG_FILE = "pipeline.json"
STAGES_FILE = "stages.json"
# Settings the pipeline sets itself (one model, one task list, one prompt and one episode limit for every
# stage): given in grpo, sft or policy_options they are refused, not silently overridden.
_OWNED = {
    "grpo": {"env", "policy", "max_steps", "seed", "eval_split", "eval_episodes"},
    "sft": {"data", "model", "adapter", "history", "steps", "output"},
    "policy_options": {"model", "adapter", "history"},
}


@dataclass
class PipelineConfig:
    """Every setting of a pipeline; ``grpo`` holds TrainConfig fields and ``sft`` SFTConfig fields."""

    model: str  # the base checkpoint folder (transformers layout)
    env: str = "sim:click-button"  # BACKEND:TASK[,TASK...]: the tasks trained on
    held_out_tasks: list[str] = field(default_factory=list)  # never trained on; evaluated before and after
    adapter: str = "qwen2.5-vl"
    history: int = 2  # past turns each prompt keeps, in every stage
    eval_split: str = "test"
    eval_variants: int = 10  # the first K variants of the eval split, per task
    max_steps: int | None = None  # per episode, in every stage
    sft_steps: int = 0  # 0: no SFT
    sft_data: str | None = None  # a LiteSample folder; None: the oracle on the train split
    sft_variants: int = 16  # train variants per task the oracle plays for SFT data
    sft: dict[str, Any] = field(default_factory=dict)
    grpo: dict[str, Any] = field(default_factory=dict)
    policy_options: dict[str, Any] = field(default_factory=dict)  # qwen-vl's (max_size, temperature, ...)
    max_parallel: int = 2  # environments per evaluation
    seed: int = 0

    def __post_init__(self) -> None:
        if not Path(self.model).is_dir():
            raise CuaError(f"pipeline: model {self.model!r} is not a folder; give a checkpoint folder")
        for name in ("history", "eval_variants", "sft_variants", "max_parallel"):
            if getattr(self, name) < 1:
                raise CuaError(f"pipeline: {name} must be at least 1, got {getattr(self, name)!r}")
        if self.sft_steps < 0:
            raise CuaError(f"pipeline: sft_steps must be 0 (no SFT) or more, got {self.sft_steps}")
        for part, names in _OWNED.items():
            owned = sorted(names & set(getattr(self, part)))
            if owned:
                raise CuaError(
                    f"pipeline: {part} sets {', '.join(owned)}, which the pipeline sets for every stage itself "
                    "(use its own setting: model, env, adapter, history, max_steps, sft_steps, ...)"
                )
        if self.sft_data is not None:
            try:
                resolve_dataset(self.sft_data)  # a dataset or a run folder, as the SFT stage reads it
            except StoreError as exc:
                raise CuaError(f"pipeline: sft_data {self.sft_data!r}: {exc}") from exc

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PipelineConfig:
        data = typed_options(cls, data, label="pipeline", what="setting", complete=False)  # missing ones: below
        if "model" not in data:
            raise CuaError("pipeline: model must be given (a checkpoint folder)")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _write_json(path: Path, data: Any) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=2, sort_keys=True))
    os.replace(partial, path)  # a kill leaves the old file or the new one


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


class _Pipeline:
    def __init__(self, config: PipelineConfig, folder: Path, resume: bool) -> None:
        from cua_bench_rl.build import check_settings
        from cua_bench_rl.config import TrainConfig, full_task_name, parse_env
        from cua_bench_rl.sft import SFTConfig

        self.config, self.folder = config, folder
        self.backend, self.tasks = parse_env(config.env)
        self.held_out = [full_task_name(t, flag="--held-out") for t in config.held_out_tasks]
        sets = sorted({t.partition("/")[0] for t in self.tasks + self.held_out})
        if len(sets) > 1:  # each evaluation is one Runner over one taskset
            raise CuaError(f"pipeline: the trained and held-out tasks must be of one taskset, got {', '.join(sets)}")
        stored = _read_json(folder / CONFIG_FILE)
        if stored is not None and not resume:
            raise CuaError(f"{folder} holds a pipeline already: pass --resume to continue it, or pick a new --output")
        if stored is not None and stored != config.to_dict():
            changed = [k for k in stored if stored[k] != config.to_dict().get(k)]
            raise CuaError(f"{folder}: --resume with other settings than the stored ones ({', '.join(changed)})")
        # The GRPO and SFT settings are checked and typed now, before any stage runs, so a typo does not
        # cost a baseline: the GRPO stage's as ``train`` checks them (its policy and trainer options too).
        check_settings(TrainConfig.from_dict(self._grpo_settings("<sft model>")))
        sft = typed_options(SFTConfig, config.sft, label="pipeline: sft", what="setting", complete=False)
        if config.sft_steps and sft.get("options"):  # the SFT trainer's own, by its Options
            from cua_bench_rl.registry import sft_trainers
            from cua_bench_rl.sft import typed_trainer_options

            typed_trainer_options(sft_trainers()[sft.get("trainer", SFTConfig.trainer)], sft["options"])
        folder.mkdir(parents=True, exist_ok=True)
        _write_json(folder / CONFIG_FILE, config.to_dict())
        self.done: dict[str, Any] = _read_json(folder / STAGES_FILE) or {}
        self.bus = BestEffortPublisher(f"pipeline-{uuid.uuid4().hex[:8]}", check=events.check)

    def _grpo_settings(self, model: str) -> dict[str, Any]:
        config = self.config
        return {
            **config.grpo,
            "env": config.env,
            "policy": "qwen-vl",
            "policy_options": {
                **config.policy_options, "model": model, "adapter": config.adapter, "history": f"last={config.history}",
            },
            "max_steps": config.max_steps,
            "seed": config.seed,
            "eval_split": config.eval_split,
            "eval_episodes": config.eval_variants,
        }  # fmt: skip

    def publish(self, stage: str, status: str, seconds: float = 0.0) -> None:
        body = {"folder": str(self.folder.resolve()), "stage": stage, "status": status, "seconds": seconds}
        self.bus.publish(events.PIPELINE_STAGE, body)

    def stage(self, name: str, work: Callable[[], Any]) -> Any:
        if name in self.done:
            log.info("pipeline: %s done already, skipped", name)
            self.publish(name, "skipped")
            return self.done[name]
        log.info("pipeline: %s", name)
        self.publish(name, "started")
        began = time.monotonic()
        try:
            result = work()
        except BaseException:
            self.publish(name, "failed", time.monotonic() - began)
            raise
        self.done[name] = result
        _write_json(self.folder / STAGES_FILE, self.done)
        self.publish(name, "done", time.monotonic() - began)
        return result

    def evaluate(self, name: str, model: str) -> dict[str, Any]:
        """The Runner with the hf agent on ``model``: trained tasks and held-out tasks, the eval split, and the
        policy's own view (screenshot kind and size) and answer length, so evaluation sees what training saw."""
        from cua_bench import Observes, RunConfig, Runner

        config, output = self.config, self.folder / name
        taskset = self.tasks[0].split("/")[0]
        names = ",".join(t.split("/", 1)[1] for t in self.tasks + self.held_out)
        size = config.policy_options.get("max_size")
        size = "x".join(str(v) for v in size) if isinstance(size, list) else size
        obs = str(config.policy_options.get("screenshot", "rgb")) + (f",max={size}" if size else "")
        tokens = int(config.policy_options.get("max_new_tokens", 128))  # the qwen-vl policy's default
        history = f"last={config.history}"
        run = RunConfig(
            taskset=taskset, output=output, backend=self.backend, agent="hf",
            # A model before training may write nothing its adapter reads: that is its score, not a wrong adapter.
            agent_options={
                "model": model, "adapter": config.adapter, "history": history, "max_new_tokens": tokens,
                "adapter_check": 0,
            },
            max_parallel=config.max_parallel, max_steps=config.max_steps, variants=config.eval_variants,
            split=config.eval_split, resume=(output / "episodes.jsonl").exists(), tasks=names,
            observes=Observes.parse(obs),
        )  # fmt: skip
        summary = Runner(run).run()
        if summary.get("errors"):
            raise CuaError(f"pipeline: {name}: {summary['errors']} episode(s) errored; see {output / 'episodes.jsonl'}")
        steps = f" --max-steps {config.max_steps}" if config.max_steps else ""
        command = (
            f"cua-bench run {taskset} --backend {self.backend} --agent hf --model {model} --adapter {config.adapter} "
            f"--history {history} --agent-option max_new_tokens={tokens} --agent-option adapter_check=0 "
            f"--obs {obs} --tasks {names} "
            f"--split {config.eval_split} --variants {config.eval_variants}{steps}"
        )
        return {"model": model, "tasks": summary["tasks"], "success_rate": summary["success_rate"], "command": command}

    def sft(self) -> str:
        from cua_bench_rl.sft import SFTConfig, oracle_dataset, run_sft

        config = self.config
        data = config.sft_data
        if data is None:
            names = [t.split("/", 1)[1] for t in self.tasks]
            data = str(
                self.stage(
                    "sft-data",
                    lambda: str(oracle_dataset(self.folder / "sft-data", tasks=names, variants=config.sft_variants)),
                )
            )
        output = self.folder / "sft"

        def fit() -> str:
            if (output / "model").is_dir():  # written whole at the end: the run finished before a kill
                return str(output / "model")
            settings = {**config.sft, "data": str(Path(data).resolve()), "model": str(Path(config.model).resolve())}
            settings.update(adapter=config.adapter, history=config.history, steps=config.sft_steps, output=str(output))
            result = run_sft(SFTConfig.from_dict({"seed": config.seed, **settings}))
            if result.adapter is None:
                raise CuaError(f"pipeline: the SFT run wrote no model; see {output}")
            return str(output / "model")

        return str(self.stage("sft", fit))

    def grpo(self, start: str) -> str:
        from cua_bench_rl.config import TrainConfig
        from cua_bench_rl.train import train

        folder = self.folder / "grpo"

        def fit() -> dict[str, Any]:
            config = TrainConfig.from_dict(self._grpo_settings(start))
            result = train(config, folder, resume=(folder / "config.json").exists())
            if result.status != "finished":
                raise CuaError(
                    f"pipeline: GRPO ended {result.status!r} after {result.steps} step(s) (no_signal: every group "
                    f"scored alike; SFT first, or easier tasks); see {folder}"
                )
            return {"model": str(folder / "model"), "steps": result.steps, "start_eval": result.start_eval,
                    "final_eval": result.final_eval}  # fmt: skip

        return str(self.stage("grpo", fit)["model"])

    def run(self) -> dict[str, Any]:
        baseline = self.stage("baseline", lambda: self.evaluate("baseline", self.config.model))
        start, sft_eval = self.config.model, None
        if self.config.sft_steps:
            start = self.sft()
            sft_eval = self.stage("sft-eval", lambda: self.evaluate("sft-eval", start))
        trained = self.grpo(start)
        final = self.stage("final", lambda: self.evaluate("final", trained))
        began = time.monotonic()
        report = self.report(baseline, sft_eval, final)
        _write_json(self.folder / "report.json", report)
        (self.folder / "report.md").write_text(format_report(report))
        self.publish("report", "done", time.monotonic() - began)
        return report

    def report(self, baseline: dict[str, Any], sft: dict[str, Any] | None, final: dict[str, Any]) -> dict[str, Any]:
        from importlib.metadata import version

        stages = {"baseline": baseline, **({"sft": sft} if sft else {}), "grpo": final}

        def part(names: list[str]) -> dict[str, Any]:
            keys = [n.split("/", 1)[1] for n in names]
            rows = {
                key: {stage: result["tasks"].get(key, {}).get("success_rate") for stage, result in stages.items()}
                for key in keys
            }
            means = {
                stage: (sum(r[stage] or 0.0 for r in rows.values()) / len(rows) if rows else None) for stage in stages
            }
            return {"tasks": rows, "success_rate": means}

        curve = self.folder / "grpo" / "curve.csv"
        return {
            "held_out_variants": part(self.tasks),
            "held_out_tasks": part(self.held_out),
            "models": {stage: result["model"] for stage, result in stages.items()},
            "commands": {stage: result["command"] for stage, result in stages.items()},  # each evaluation, again
            "grpo": {k: v for k, v in self.done.get("grpo", {}).items() if k != "model"},
            "curve": str(curve) if curve.is_file() else None,
            "settings": self.config.to_dict(),
            "versions": {p: version(p) for p in ("cua-bench", "cua-bench-rl", "cua-data", "torch", "transformers")},
        }


def format_report(report: dict[str, Any]) -> str:
    """The report as a Markdown table per part: success rate per task and stage."""
    lines = ["# Pipeline report", ""]
    for title, key in (("Held-out variants of the trained tasks", "held_out_variants"),
                       ("Held-out tasks (never trained on)", "held_out_tasks")):  # fmt: skip
        part = report[key]
        stages = list(part["success_rate"])
        lines += [f"## {title}", "", "| task | " + " | ".join(stages) + " |", "|---|" + "---:|" * len(stages)]
        for task, row in part["tasks"].items():
            lines.append(f"| {task} | " + " | ".join(_pct(row[s]) for s in stages) + " |")
        lines += ["| **mean** | " + " | ".join(_pct(part["success_rate"][s]) for s in stages) + " |", ""]
    lines += [f"Models: {json.dumps(report['models'])}", f"GRPO curve: {report['curve']}", ""]
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def run_pipeline(config: PipelineConfig, folder: Path, *, resume: bool = False) -> dict[str, Any]:
    """Run (or, with ``resume``, continue) the pipeline in ``folder``; returns the report."""
    pipeline = _Pipeline(config, folder, resume)
    try:
        return pipeline.run()
    finally:
        pipeline.bus.close()
