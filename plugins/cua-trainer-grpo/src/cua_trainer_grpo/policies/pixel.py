"""A small pixel policy: one click on a grid over the screenshot, conditioned on the instruction's words.

Nothing in it knows what the answer looks like. The grey screen goes through two learned
convolutions to a feature map at half the view's size. The instruction is split into lowercase
words, each hashed into one of ``buckets`` learned filters; their sum is a correlation filter over
the feature map (a language-conditioned dynamic filter, as in the language-grounding literature).
The words every instruction shares learn what is worth clicking at all, the others what tells
their target apart. Where the filter responds most in a grid cell (8x8 view pixels) is that cell's
click score. Every filter starts at zero, so the untrained policy clicks uniformly over the screen:
the random agent. What a word looks like on screen, and which part of it to click,
are learned from the 0/1 reward alone; a word it never saw as an instruction is a filter it never
trained. Nothing reads the accessibility tree, the task, or the sim's font.

Correlating a per-screen filter is done by FFT: on this CPU it is 2-3 times faster than a grouped
convolution, whose backward pass is the slow one.

One decision is ``[Click(cell centre), Done()]`` and its one token is the cell's index.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch import nn

from cua_bench import Observes
from cua_bench_rl import Decision, Policy, Taken, Turn
from cua_core import Action, Click, Done, Point, Tap
from cua_trainer_grpo.policies.scoring import choose, entropy_of, log_softmax_masked, picked, seed_or_drawn

__all__ = ["PixelClickPolicy", "instruction_words"]

WORD = re.compile(r"[a-z0-9]+")
STRIDE = 8  # view pixels per grid cell: 16 screen pixels at 1280x800 seen at 640x400
_GREY = (0.299, 0.587, 0.114)


def instruction_words(instruction: str) -> list[str]:
    """The instruction as the policy reads it: its lowercase words, in order."""
    return WORD.findall(instruction.lower())


def _bucket(word: str, buckets: int) -> int:
    # A stable hash (Python's ``hash`` of a str changes per process), so a saved policy reads alike.
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little") % buckets


def _rgb(shot: Any) -> np.ndarray[Any, Any]:
    if isinstance(shot, bytes | memoryview):
        return np.asarray(Image.open(io.BytesIO(bytes(shot))).convert("RGB"))
    array = np.asarray(shot)
    if array.ndim != 3 or array.shape[2] < 3:
        raise ValueError(f"PixelClickPolicy: a screenshot must be HxWx3 RGB, got shape {array.shape}")
    return array[:, :, :3]


def fast_length(n: int) -> int:
    """The smallest length >= ``n`` with no prime factor above 5: an FFT of such a length is fast (a
    prime length such as 103 took three times as long on this CPU)."""
    while True:
        rest = n
        for prime in (2, 3, 5):
            while rest % prime == 0:
                rest //= prime
        if rest == 1:
            return n
        n += 1


def correlate(features: torch.Tensor, filters: torch.Tensor) -> torch.Tensor:
    """Each of B ``[C, H, W]`` feature maps correlated with its own ``[C, h, w]`` filter, summed over
    channels: ``[B, H, W]``, each value where the filter's centre sits (zero beyond the edges)."""
    _, _, height, width = features.shape
    h, w = filters.shape[2:]
    # Room for the filter (no wrap-around from the far edge), rounded up to a fast length.
    size = (fast_length(height + h), fast_length(width + w))
    spectrum = torch.fft.rfft2(features, s=size) * torch.fft.rfft2(filters, s=size).conj()
    full = torch.fft.irfft2(spectrum.sum(dim=1), s=size)  # full[y, x] = sum f[y + i, x + j] k[i, j]
    return torch.roll(full, (h // 2, w // 2), dims=(1, 2))[:, :height, :width]


class PixelClickPolicy(nn.Module, Policy):
    """``PixelClickPolicy(width=640, height=400, channels=(8, 16), filter_size=(3, 14), buckets=4096, seed=None)``.

    ``width`` x ``height`` is the view the screen is scaled down to (``Observes.max_size``);
    ``channels`` the two convolutions (a 3x3, then a 2x2 of stride 2); ``filter_size`` the word
    filter's rows and columns on the half-size feature map; ``buckets`` how many words (hashed) have a
    filter of their own; ``seed`` the initial weights and the sampling (None: drawn from torch's
    generator, which ``cua_bench_rl.train`` seeds with the run's seed).
    """

    grey: torch.Tensor  # the RGB -> grey weights, a buffer (it follows the module to a device)

    def __init__(
        self,
        width: int = 640,
        height: int = 400,
        channels: Sequence[int] = (8, 16),
        filter_size: Sequence[int] = (3, 14),
        buckets: int = 4096,
        seed: int | None = None,
    ) -> None:
        nn.Module.__init__(self)
        if width < STRIDE or height < STRIDE:
            raise ValueError(f"PixelClickPolicy: the view must be at least {STRIDE}x{STRIDE}, got {width}x{height}")
        if len(channels) != 2 or min(channels) < 1:
            raise ValueError(f"PixelClickPolicy: channels must be two positive sizes, got {tuple(channels)}")
        if len(filter_size) != 2 or min(filter_size) < 1:
            raise ValueError(f"PixelClickPolicy: filter_size must be two positive sizes, got {tuple(filter_size)}")
        if buckets < 1:
            raise ValueError(f"PixelClickPolicy: buckets must be positive, got {buckets}")
        self.version = 0
        self.observes = Observes(screenshot="rgb", max_size=(int(width), int(height)))
        seed = seed_or_drawn(seed)
        with torch.random.fork_rng(devices=[]):  # the initial weights: one seed, one policy, no side effect
            torch.manual_seed(seed)
            self.features = nn.Sequential(
                nn.Conv2d(1, channels[0], 3, padding=1),
                nn.ReLU(),
                nn.Conv2d(channels[0], channels[1], 2, stride=2),
                nn.ReLU(),
            )
            self.words = nn.EmbeddingBag(int(buckets), channels[1] * filter_size[0] * filter_size[1], mode="sum")
        nn.init.zeros_(self.words.weight)  # every filter zero: the untrained policy clicks uniformly
        self.filter_shape = (int(channels[1]), int(filter_size[0]), int(filter_size[1]))
        self.register_buffer("grey", torch.tensor(_GREY).view(1, 3, 1, 1), persistent=False)
        self.generator = torch.Generator().manual_seed(seed)

    # -- the network ---------------------------------------------------------------------------

    def scores(self, screens: torch.Tensor, instructions: Sequence[str]) -> torch.Tensor:
        """[B, H, W, 3] uint8 screens and one instruction each -> [B, rows, columns] click scores, one
        per grid cell."""
        grey = (screens.permute(0, 3, 1, 2).float() * self.grey).sum(dim=1, keepdim=True)
        features = self.features((grey - 160.0) / 64.0)
        buckets = self.words.num_embeddings
        ids = [[_bucket(w, buckets) for w in instruction_words(text)] or [0] for text in instructions]
        device = self.grey.device
        flat = torch.tensor([i for row in ids for i in row], dtype=torch.long, device=device)
        offsets = torch.tensor([0, *(len(row) for row in ids[:-1])], device=device).cumsum(0)
        filters = self.words(flat, offsets).view(len(ids), *self.filter_shape)
        response = correlate(features, filters).unsqueeze(1)
        return nn.functional.max_pool2d(response, STRIDE // 2, ceil_mode=True)[:, 0]

    def _inputs(self, turns: Sequence[Turn]) -> tuple[torch.Tensor, list[str], torch.Tensor]:
        """The distinct (screen, instruction) pairs, and which of them each turn is.

        The G episodes of a GRPO group start from the same screen, so a batch holds few distinct
        inputs; each is scored once (its gradient then sums over the turns that share it)."""
        shots = [_rgb(t.observation.get("screenshot")) for t in turns]
        shapes = {s.shape for s in shots}
        if len(shapes) != 1:
            raise ValueError(
                f"PixelClickPolicy: one batch of turns needs screenshots of one size, got {sorted(shapes)}"
            )
        seen: dict[tuple[bytes, str], int] = {}
        which: list[int] = []
        screens: list[np.ndarray[Any, Any]] = []
        instructions: list[str] = []
        for turn, shot in zip(turns, shots, strict=True):
            key = (hashlib.blake2b(np.ascontiguousarray(shot).data, digest_size=16).digest(), turn.instruction)
            if key not in seen:
                seen[key] = len(screens)
                screens.append(shot)
                instructions.append(turn.instruction)
            which.append(seen[key])
        device = self.grey.device
        return (
            torch.from_numpy(np.stack(screens)).to(device),
            instructions,
            torch.tensor(which, dtype=torch.long, device=device),
        )

    def _log_probs(self, turns: Sequence[Turn]) -> tuple[torch.Tensor, tuple[int, int]]:
        screens, instructions, which = self._inputs(turns)
        scores = self.scores(screens, instructions)
        grid = (scores.shape[1], scores.shape[2])
        return log_softmax_masked(scores.flatten(1))[which], grid

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

    def token_for(self, turn: Turn, actions: Sequence[Action]) -> int | None:
        """The token of the first click or tap of ``actions`` on this turn's screen: the grid cell it falls
        in, or None without one. How a demonstration's step becomes this policy's decision (behaviour
        cloning)."""
        points = (a.coordinate for a in actions if isinstance(a, Click | Tap) and a.coordinate is not None)
        point = next(points, None)
        if point is None:
            return None
        height, width = _rgb(turn.observation.get("screenshot")).shape[:2]
        rows, cols = math.ceil(height // 2 / (STRIDE // 2)), math.ceil(width // 2 / (STRIDE // 2))
        row = min(rows - 1, max(0, int(point.y / 1000 * rows)))
        return int(row * cols + min(cols - 1, max(0, int(point.x / 1000 * cols))))

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
