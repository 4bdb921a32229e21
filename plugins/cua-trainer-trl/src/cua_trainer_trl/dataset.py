"""The prompt dataset a TRL ``GRPOTrainer`` draws from: one row per task variant, its first prompt.

TRL's training forward takes its images from the dataset (``images`` column), never from a custom
rollout, so the first screenshot must be in the dataset for the model to be trained on what it saw.
Each row is therefore the adapter's own prompt for the variant's first turn (system, instruction,
the reset screenshot resized to what the model sees), with the episode's key (``EpisodeSpec.key``) on the
user message, where
TRL passes it to :func:`cua_trainer_trl.rollout_func` untouched. The rollout generates the first turn
from exactly this prompt, so the sampled and the trained sequences are the same.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from cua_bench import EpisodeSpec, Observes
from cua_core import CuaError

__all__ = ["make_adapter_for", "parse_env", "task_dataset"]


def parse_env(env: str) -> tuple[str, str | None]:
    """``"sim:click-button"`` -> ``("sim", "sim/click-button")``: a backend, and optionally one task.

    The task is named as ``cua-bench-rl train --env`` names it (``cua_bench_rl.config.full_task_name``):
    a bare name is the installed taskset's task of that name (``sim:login`` is ``sim/login``,
    ``docker:xterm-create-file`` is ``desktop/xterm-create-file``), or name it in full.
    """
    from cua_bench_rl import full_task_name

    if not isinstance(env, str) or not env.partition(":")[0].strip():
        raise CuaError(f"env={env!r}: expected BACKEND or BACKEND:TASK, like 'sim:click-button'")
    backend, _, task = (part.strip() for part in env.partition(":"))
    if "," in task:
        raise CuaError(f"env={env!r}: one task here; give several as task_dataset(tasks=[...])")
    return backend, full_task_name(task, flag=f"env={env!r}") if task else None


def pixel_budget(processor: Any) -> dict[str, int]:
    """The image processor's pixel budget, so the adapter's coordinate frame is the image the model sees."""
    image = getattr(processor, "image_processor", None)
    size = getattr(image, "size", None)
    low = getattr(size, "shortest_edge", None) or getattr(image, "min_pixels", None)
    high = getattr(size, "longest_edge", None) or getattr(image, "max_pixels", None)
    return {"min_pixels": int(low), "max_pixels": int(high)} if low and high else {}


def make_adapter_for(processor: Any, adapter: str, options: dict[str, Any] | None = None) -> Any:
    """The cua adapter ``adapter``, its pixel budget defaulting to ``processor``'s (as the ``hf`` agent does)."""
    from cua_bench import make_adapter
    from cua_data.registry import adapters

    chosen = dict(options or {})
    accepted = inspect.signature(adapters()[adapter]).parameters
    for key, value in pixel_budget(processor).items():
        if key in accepted:
            chosen.setdefault(key, value)
    return make_adapter(adapter, "full", chosen)


def task_dataset(
    env: str = "sim:click-button",
    variants: int | Sequence[int] = 8,
    split: str = "train",
    *,
    processor: Any,
    adapter: str = "qwen2.5-vl",
    adapter_options: dict[str, Any] | None = None,
    tasks: Sequence[str] | None = None,
    width: int = 640,
    height: int = 400,
) -> Any:
    """A ``datasets.Dataset`` with ``prompt`` (the first turn's messages, the episode's key in ``task`` on
    the user message), ``images`` (the reset screenshot as the model sees it) and ``task`` columns.

    ``variants``: a count (0..n-1) or the variant numbers. ``tasks`` overrides ``env``'s task with
    several (named as ``env``'s is). ``processor`` is the model's
    (``cua_data.adapters.sft.load_processor(path)``); give the same ``adapter``/``adapter_options`` to
    :func:`cua_trainer_trl.rollout_func`. One env server of
    ``env``'s backend is started for the resets and torn down.
    """
    import datasets

    from cua_bench_rl import EnvWorkers, client_for, episode_spec, full_task_name
    from cua_data import as_image

    backend, task = parse_env(env)
    if tasks is not None:
        names = [full_task_name(t, flag="task_dataset(tasks=...)") for t in tasks]
    else:
        names = [task] if task else []
    if not names:
        raise CuaError(f"task_dataset: env={env!r} names no task; give BACKEND:TASK (sim:click-button) or tasks=[...]")
    numbers = list(range(variants)) if isinstance(variants, int) else [int(v) for v in variants]
    if not numbers:
        raise CuaError("task_dataset: variants is empty; give a count (8) or variant numbers ([0, 3])")
    family = make_adapter_for(processor, adapter, adapter_options)
    rows: list[dict[str, Any]] = []
    with EnvWorkers(backend, 1, width=width, height=height) as workers, client_for(workers[0].computer) as client:
        for name in names:
            for variant in numbers:
                ref = EpisodeSpec(name, variant, split)
                obs, info = client.reset(options=episode_spec(ref, Observes("rgb"), None))
                screen = family.resize(as_image(obs["screenshot"]))
                prompt = family.render(str(info["task"]["description"]), [], screen)
                messages = prompt.processor_messages()
                user = next(i for i, m in enumerate(messages) if m["role"] == "user")
                messages[user] = {**messages[user], "task": ref.key}
                rows.append({"prompt": messages, "images": list(prompt.images), "task": ref.key})
    features = datasets.Features(
        {
            "prompt": [
                {
                    "role": datasets.Value("string"),
                    "content": [{"type": datasets.Value("string"), "text": datasets.Value("string")}],
                    "task": datasets.Value("string"),
                }
            ],
            "images": datasets.Sequence(datasets.Image()),
            "task": datasets.Value("string"),
        }
    )
    for row in rows:  # every message and part carries every field, as Arrow stores them
        row["prompt"] = [
            {
                "role": m["role"],
                "content": [{"type": p["type"], "text": p.get("text")} for p in m["content"]],
                "task": m.get("task"),
            }
            for m in row["prompt"]
        ]
    return datasets.Dataset.from_list(rows, features=features)
