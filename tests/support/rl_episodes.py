"""Rollout records for tests: rollouts and groups shaped like the dataloader's, and a deep comparison.

Observations hold what a real env server sends (instruction, step, width, height, errors, an RGB
screenshot or PNG bytes, a11y nodes); each turn's history holds the earlier turns as played.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cua_bench.spec import EpisodeSpec, Observes
from cua_bench_rl.rollouts import Decision, Group, Rollout, Taken, Turn
from cua_core.actions import Click, Done, KeyPress, Point, TypeText
from cua_data.png import encode_png

TASK = EpisodeSpec("sim/click-button", 3, "train")


def screenshot(seed: int, size: tuple[int, int] = (128, 80)) -> np.ndarray[Any, Any]:
    """An HxWx3 uint8 frame: random pixels (nothing compresses them away) over a flat band."""
    rng = np.random.default_rng(seed)
    frame = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    frame[: size[1] // 2] = (30, 60, 90)
    return frame


def episode(
    ident: str,
    *,
    task: EpisodeSpec = TASK,
    turns: int = 2,
    reward: float | None = 1.0,
    version: int = 0,
    size: tuple[int, int] = (128, 80),
    a11y: bool = True,
    png: bool = False,
    status: str = "completed",
    seed: int = 0,
) -> Rollout:
    instruction = f"Click the button labelled {ident}"
    played = Rollout(ident, task, instruction, reward=reward, status=status, started_after=1, seconds=0.25)
    plays = [
        [Click(Point(412.5, 233.25))],
        [KeyPress(("ctrl", "a")), TypeText("hello", press_enter=True)],
        [Done("it is done")],
    ]
    for step in range(turns):
        frame = screenshot(seed * 1000 + step, size)
        observation: dict[str, Any] = {
            "instruction": instruction,
            "step": step + 1,
            "width": size[0],
            "height": size[1],
            "errors": [] if step == 0 else [f"click: nothing at step {step}"],
            "screenshot": encode_png(frame) if png else frame,
        }
        if a11y:
            observation["a11y"] = [
                {"role": "button", "name": ident, "bbox": [10, 20, 30, 40], "children": []},
                {"role": "label", "name": f"step {step}", "focused": step % 2 == 0},
            ]
        turn = Turn(ident, task, instruction, step, observation, history=list(played.turns), max_steps=10)
        tokens = [seed + step, 7, 11 * step]
        decision = Decision(
            plays[step % len(plays)], tokens, [-0.5, -1.25 - step, -0.125], f"raw output {step}", version + step
        )
        last = step == turns - 1
        played.turns.append(
            Taken(turn, decision, float(reward or 0.0) if last else 0.0, [] if step else ["wait: too long"])
        )
    return played


def group(
    size: int = 8, *, task: EpisodeSpec = TASK, turns: int = 1, version: int = 0, seed: int = 0, **options: Any
) -> Group:
    """``size`` episodes of ``task``, half rewarded."""
    return Group(
        task,
        [
            episode(
                f"e{seed}-{i}",
                task=task,
                turns=turns,
                reward=float(i % 2),
                version=version,
                seed=seed * 100 + i,
                **options,
            )
            for i in range(size)
        ],
    )


def plain(value: Any) -> Any:
    """A comparable form of rollout records: arrays as (shape, dtype, bytes), each history as the
    steps it holds (the turns themselves are compared once, where they were played)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, str(value.dtype), value.tobytes())
    if isinstance(value, Turn):
        fields = {k: plain(v) for k, v in vars(value).items() if k != "history"}
        return ("Turn", fields, [t.turn.step for t in value.history])
    if isinstance(value, Taken | Decision | Rollout | Group | EpisodeSpec | Observes):
        return (type(value).__name__, {k: plain(v) for k, v in vars(value).items()})
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return ("bytes", bytes(value))
    return value
