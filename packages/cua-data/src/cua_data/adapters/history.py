"""History policies: which past turns a prompt shows in full, which keep their screenshot.

Long episodes outgrow a model's context, and screenshots are most of it (a 1280x800 screen is
~1,300 Qwen2.5-VL tokens). Agents in this field keep the last few turns whole and the rest as
one line each; a cap on images in view keeps the token budget flat however long the episode.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HistoryPolicy", "TurnView"]


@dataclass(frozen=True)
class TurnView:
    """How one past turn appears: in full (its output, and its image when ``image``), or summarised."""

    index: int
    full: bool
    image: bool


@dataclass(frozen=True)
class HistoryPolicy:
    """``last_n``: turns shown in full (None = all); older ones become "Step k: action" lines.

    ``max_images``: screenshots in view, the current one included (None = no cap); the oldest
    full turns lose their image first and keep their text.
    """

    last_n: int | None = None
    max_images: int | None = None

    def __post_init__(self) -> None:
        if self.last_n is not None and self.last_n < 0:
            raise ValueError(f"history last_n must be 0 or more, got {self.last_n}")
        if self.max_images is not None and self.max_images < 1:
            raise ValueError(f"history max_images must be 1 or more (the current screen), got {self.max_images}")

    def plan(self, turns: int, *, current_image: bool = True) -> list[TurnView]:
        """A view of each of ``turns`` past turns, oldest first."""
        full_from = 0 if self.last_n is None else max(0, turns - self.last_n)
        images_left = None if self.max_images is None else self.max_images - (1 if current_image else 0)
        views: list[TurnView] = []
        for index in reversed(range(turns)):  # newest first, so the cap keeps the newest images
            full = index >= full_from
            image = full and (images_left is None or images_left > 0)
            if image and images_left is not None:
                images_left -= 1
            views.append(TurnView(index, full, image))
        return views[::-1]

    def spec(self) -> str:
        """The command line's spelling, which ``parse`` reads back: ``full``, ``last=3,images=2``, ..."""
        parts = [
            f"{key}={value}" for key, value in (("last", self.last_n), ("images", self.max_images)) if value is not None
        ]
        return ",".join(parts) or "full"

    @classmethod
    def parse(cls, text: str) -> HistoryPolicy:
        """From the command line: ``full``, ``last=3``, ``last=3,images=2`` or ``images=4``."""
        if text.strip() in ("", "full"):
            return cls()
        values: dict[str, int] = {}
        for part in text.split(","):
            key, sep, value = part.strip().partition("=")
            if not sep or key not in ("last", "images") or not value.strip().isdigit():
                raise ValueError(f"history policy {text!r}: expected 'full', 'last=N', 'images=N' or 'last=N,images=M'")
            values[key] = int(value)
        return cls(last_n=values.get("last"), max_images=values.get("images"))
