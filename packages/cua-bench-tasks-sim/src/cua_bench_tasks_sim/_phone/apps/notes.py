"""The notes app's seeded data (the app is the phone surface's own: ``cua_bench.sim.phone.NotesApp``)."""

from __future__ import annotations

import random
from typing import Any

from cua_bench_tasks_sim._phone.words import TOPICS, sentence

__all__ = ["sample"]


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """``count`` notes with distinct titles, a line or three of text each."""
    titles = rng.sample(TOPICS, count)
    return {"notes": [{"title": t, "body": "\n".join(sentence(rng) for _ in range(rng.randint(1, 3)))}
                      for t in titles]}  # fmt: skip
