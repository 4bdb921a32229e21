"""A small pixel policy: one click on a grid over the screenshot, conditioned on the instruction.

The instruction's quoted words are drawn with the sim's own font, at the scale the screen is seen
at, and slid over the grey screen as a normalised cross-correlation (template matching): a fixed,
unlearned map of where on the screen something looks like those words. A small conv tower reads the
grey screen and that map together down to one score per grid cell (8x8 view pixels), and a learned
gain adds the map's best value in each cell. The head and the gain start at zero, so the untrained
policy clicks uniformly over the screen, the random agent; that the matched words are what to click,
how sharply to prefer the best match, and where in a match to click are learned from the reward alone.

Why a fixed match and not a learned one: reading a label from pixels with a net trained from a 0/1
reward is the slow part (a 69k-parameter conv net learning it from scratch reached 0.43 in 17 minutes
on this CPU, and its supervised twin 0.60), and the point of this policy is to show that the RL loop
learns, within minutes, on what a screen shows. Nothing reads the accessibility tree or the task.

One decision is ``[Click(cell centre), Done()]`` and its one token is the cell's index.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from PIL import Image, ImageDraw
from torch import nn

from cua_bench.agents.base import Observes
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Taken, Turn
from cua_core.actions import Click, Done, Point
from cua_trainer_grpo.policies.scoring import choose, entropy_of, log_softmax_masked, picked

__all__ = ["PixelClickPolicy", "instruction_words", "match_map", "render_words"]

QUOTED = re.compile(r'"([^"]+)"')
STRIDE = 8  # view pixels per grid cell: 16 screen pixels at 1280x800 seen at 640x400
MARGIN = 3  # screen pixels of button colour around a drawn word: the match sees the word's edges
# A window of the screen flatter than this (grey levels of standard deviation) matches nothing: without
# a floor, the near-constant desktop gradient divides noise by noise and matches anything.
FLOOR = 8.0
# The gain on the match map is this times a parameter that starts at 0: Adam moves every parameter by
# about lr a step, and the gain must reach tens within tens of steps to concentrate a distribution over
# thousands of cells.
GAIN_SCALE = 1000.0
_GREY = (0.299, 0.587, 0.114)


def instruction_words(instruction: str) -> str:
    """What the policy looks for: the quoted part of the instruction, else all of it."""
    found = QUOTED.findall(instruction)
    return " ".join(found) if found else instruction.strip()


@lru_cache(maxsize=4096)
def _rendered(text: str, scale: float) -> np.ndarray[Any, Any]:
    from cua_bench.sim.render import FONT_SIZE, Theme, font

    face = font(FONT_SIZE)
    left, top, right, bottom = face.getbbox(text)
    size = (int(right - left) + 2 * MARGIN, int(bottom - top) + 2 * MARGIN)
    canvas = Image.new("RGB", size, Theme.button)
    ImageDraw.Draw(canvas).text((MARGIN - left, MARGIN - top), text, fill=Theme.text, font=face)
    if scale != 1:
        canvas = canvas.resize(
            (max(3, round(size[0] * scale)), max(3, round(size[1] * scale))), Image.Resampling.BILINEAR
        )
    drawn = np.asarray(canvas.convert("L"), dtype=np.float32)
    drawn.flags.writeable = False
    return drawn


def render_words(text: str, scale: float) -> np.ndarray[Any, Any]:
    """``text`` drawn as the sim draws a label (its font, size and colours), scaled as the screen is:
    ``[height, width]`` grey levels, read-only (it is cached)."""
    return _rendered(text, round(scale, 4))


def match_map(grey: torch.Tensor, template: np.ndarray[Any, Any]) -> torch.Tensor:
    """Normalised cross-correlation of ``template`` ([h, w]) over ``grey`` ([H, W]), -1..1, each value
    centred where the template's centre would sit: ``[H, W]``."""
    kernel = torch.from_numpy(np.array(template)).to(grey)[None, None]
    h, w = kernel.shape[2:]
    count = h * w
    kernel = kernel - kernel.mean()
    kernel = kernel / kernel.pow(2).sum().sqrt().clamp_min(1e-6)
    padded = nn.functional.pad(grey[None, None], (w // 2, w - 1 - w // 2, h // 2, h - 1 - h // 2), mode="replicate")
    ones = torch.ones_like(kernel)
    total = nn.functional.conv2d(padded, ones)
    squares = nn.functional.conv2d(padded * padded, ones)
    spread = (squares - total * total / count).clamp_min(0) + count * FLOOR**2
    return (nn.functional.conv2d(padded, kernel) / spread.sqrt())[0, 0]


def _rgb(shot: Any) -> np.ndarray[Any, Any]:
    if isinstance(shot, bytes | memoryview):
        return np.asarray(Image.open(io.BytesIO(bytes(shot))).convert("RGB"))
    array = np.asarray(shot)
    if array.ndim != 3 or array.shape[2] < 3:
        raise ValueError(f"PixelClickPolicy: a screenshot must be HxWx3 RGB, got shape {array.shape}")
    return array[:, :, :3]


class PixelClickPolicy(nn.Module, Policy):
    """``PixelClickPolicy(width=640, height=400, channels=(8, 16, 16), seed=0)``.

    ``width`` x ``height`` is the view the screen is scaled down to (``Observes.max_size``);
    ``channels`` the tower's three stride-2 convolutions (8 view pixels, one grid cell, at the end).
    """

    grey: torch.Tensor  # the RGB -> grey weights, a buffer (it follows the module to a device)

    def __init__(
        self, width: int = 640, height: int = 400, channels: Sequence[int] = (8, 16, 16), seed: int = 0
    ) -> None:
        nn.Module.__init__(self)
        if width < STRIDE or height < STRIDE:
            raise ValueError(f"PixelClickPolicy: the view must be at least {STRIDE}x{STRIDE}, got {width}x{height}")
        if len(channels) != 3 or min(channels) < 1:
            raise ValueError(f"PixelClickPolicy: channels must be three positive sizes, got {tuple(channels)}")
        self.version = 0
        self.observes = Observes(screenshot="rgb", max_size=(int(width), int(height)))
        layers: list[nn.Module] = []
        before = 2  # the grey screen and the match map
        for after in channels:
            layers += [nn.Conv2d(before, after, 3, stride=2, padding=1), nn.ReLU()]
            before = after
        self.tower = nn.Sequential(*layers)
        self.head = nn.Conv2d(before, 1, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)  # type: ignore[arg-type]
        self.gain = nn.Parameter(torch.zeros(()))
        self.register_buffer("grey", torch.tensor(_GREY).view(1, 3, 1, 1), persistent=False)
        self.generator = torch.Generator().manual_seed(seed)

    # -- the network ---------------------------------------------------------------------------

    def scores(self, screens: torch.Tensor, templates: Sequence[np.ndarray[Any, Any]]) -> torch.Tensor:
        """[B, H, W, 3] uint8 screens and one drawn template each -> [B, cells] click scores."""
        grey = (screens.permute(0, 3, 1, 2).float() * self.grey).sum(dim=1, keepdim=True)
        with torch.no_grad():  # fixed: nothing of the match is learned
            match = torch.stack([match_map(g[0], t) for g, t in zip(grey, templates, strict=True)]).unsqueeze(1)
        x = torch.cat([(grey - 160.0) / 64.0, match], dim=1)
        cells = nn.functional.max_pool2d(match, STRIDE, ceil_mode=True)
        logits: torch.Tensor = self.head(self.tower(x)) + GAIN_SCALE * self.gain * cells
        return logits.flatten(1)

    def _inputs(
        self, turns: Sequence[Turn]
    ) -> tuple[torch.Tensor, list[np.ndarray[Any, Any]], torch.Tensor, tuple[int, int]]:
        """The distinct (screen, words) pairs, and which of them each turn is.

        The G episodes of a GRPO group start from the same screen, so a batch holds few distinct
        inputs; each is scored once (its gradient then sums over the turns that share it)."""
        shots = [_rgb(t.observation.get("screenshot")) for t in turns]
        shapes = {s.shape for s in shots}
        if len(shapes) != 1:
            raise ValueError(
                f"PixelClickPolicy: one batch of turns needs screenshots of one size, got {sorted(shapes)}"
            )
        height, width = shots[0].shape[:2]
        seen: dict[tuple[bytes, str, float], int] = {}
        which: list[int] = []
        screens: list[np.ndarray[Any, Any]] = []
        templates: list[np.ndarray[Any, Any]] = []
        for turn, shot in zip(turns, shots, strict=True):
            text = instruction_words(turn.instruction)
            scale = width / float(turn.observation.get("width") or width)
            key = (hashlib.blake2b(np.ascontiguousarray(shot).data, digest_size=16).digest(), text, scale)
            if key not in seen:
                seen[key] = len(screens)
                screens.append(shot)
                templates.append(render_words(text, scale))
            which.append(seen[key])
        device = self.grey.device
        return (
            torch.from_numpy(np.stack(screens)).to(device),
            templates,
            torch.tensor(which, dtype=torch.long, device=device),
            (math.ceil(height / STRIDE), math.ceil(width / STRIDE)),
        )

    def _log_probs(self, turns: Sequence[Turn]) -> tuple[torch.Tensor, tuple[int, int]]:
        screens, templates, which, grid = self._inputs(turns)
        scores = self.scores(screens, templates)
        if scores.shape[1] != grid[0] * grid[1]:
            raise ValueError(f"PixelClickPolicy: {scores.shape[1]} scores for a {grid[0]}x{grid[1]} grid")
        return log_softmax_masked(scores)[which], grid

    # -- the Policy contract ------------------------------------------------------------------

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        if not turns:
            return []
        decisions: list[Decision | None] = [None] * len(turns)
        for positions in _by_size(turns):
            with torch.no_grad():
                logp, (rows, cols) = self._log_probs([turns[i] for i in positions])
                index = choose(logp, greedy, self.generator)
                chosen = picked(logp, index)
            for at, cell, lp in zip(positions, index.tolist(), chosen.tolist(), strict=True):
                x, y = (cell % cols + 0.5) / cols * 1000, (cell // cols + 0.5) / rows * 1000
                decisions[at] = Decision([Click(Point(x, y)), Done()], [cell], [lp], text=f"click cell {cell}")
        return [d for d in decisions if d is not None]

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        return self.logprobs_and_entropy(taken)[0]

    def logprobs_and_entropy(self, taken: Sequence[Taken]) -> tuple[list[Any], list[Any]]:
        if not taken:
            return [], []
        logp, _ = self._log_probs([t.turn for t in taken])
        cells = logp.shape[1]
        for t in taken:
            if len(t.decision.tokens) != 1 or not 0 <= t.decision.tokens[0] < cells:
                raise ValueError(
                    f"PixelClickPolicy: turn {t.turn.step} of episode {t.turn.episode} has tokens "
                    f"{t.decision.tokens}, but this view has {cells} cells: was it played by another policy or size?"
                )
        index = torch.tensor([t.decision.tokens[0] for t in taken], device=logp.device)
        chosen, entropy = picked(logp, index), entropy_of(logp)
        return [chosen[i : i + 1] for i in range(len(taken))], [entropy[i : i + 1] for i in range(len(taken))]


def _by_size(turns: Sequence[Turn]) -> list[list[int]]:
    """The turns' positions grouped by screenshot size (one forward pass each), in first-seen order."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for at, turn in enumerate(turns):
        shot = turn.observation.get("screenshot")
        key = tuple(np.asarray(shot).shape) if not isinstance(shot, bytes | memoryview) else (-1,)
        groups.setdefault(key, []).append(at)
    return list(groups.values())
