"""The one description of an episode: which task and variant, of which split, what the agent observes,
how many steps, which seed.

Everything that starts an episode builds an ``EpisodeSpec`` (the runner, cua-bench-rl's loader, the
Cua workers, ``cua-bench interact``) through ``resolve_episodes``, and the env server's ``reset``
takes its wire form whole, so a choice made on the command line reaches the server as it was made:
nothing takes it apart into loose options on the way or writes it onto the agent (Gymnasium's
``EnvSpec`` lesson). ``key`` names the episode (a GRPO group, a run's resume record) and does not
include how it is observed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["A11Y_FORMATS", "SCREENSHOT_FORMATS", "SPEC_VERSION", "EpisodeSpec", "Observes"]

SCREENSHOT_FORMATS = ("rgb", "png", "none")
A11Y_FORMATS = ("nodes", "osworld")
SPEC_VERSION = 2
"""The env server protocol's version: ``reset`` takes ``{"spec": EpisodeSpec.to_wire()}`` since 2 (1 took
loose ``task``/``obs``/``a11y`` options). A peer of another version is refused by name (``EnvServer.hello``)."""


@dataclass(frozen=True)
class Observes:
    """What an agent is shown each step.

    ``screenshot``: an HxWx3 uint8 array (``rgb``), PNG bytes (``png``) or nothing (``none``).
    ``max_size``: ``(width, height)`` a larger screen is scaled down to fit (aspect kept; action
    coordinates are normalised, so they mean the same at any size); the env server scales it where
    it takes it, so only what the agent sees crosses the wire. ``a11y``: the accessibility tree as
    nodes (``nodes``) or OSWorld's XML (``osworld``), under ``observation["a11y"]``.
    """

    screenshot: str = "rgb"
    max_size: tuple[int, int] | None = None
    a11y: str | None = None

    def __post_init__(self) -> None:
        if self.screenshot not in SCREENSHOT_FORMATS:
            known = ", ".join(SCREENSHOT_FORMATS)
            raise ValueError(f"observes.screenshot must be one of {known}, got {self.screenshot!r}")
        if self.a11y is not None and self.a11y not in A11Y_FORMATS:
            raise ValueError(f"observes.a11y must be None or one of {', '.join(A11Y_FORMATS)}, got {self.a11y!r}")
        if self.max_size is not None:
            size = tuple(self.max_size)
            if len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
                raise ValueError(f"observes.max_size must be (width, height) in pixels, got {self.max_size!r}")
            object.__setattr__(self, "max_size", size)  # a list off the wire is the same size

    @classmethod
    def parse(cls, text: str) -> Observes:
        """From the command line: ``screenshot``, ``png``, ``a11y``, ``screenshot,a11y=osworld``, ``none``,
        ``screenshot,max=1024x640``.

        Raises:
            ValueError: a part it does not know, naming the parts it does.
        """
        screenshot, a11y, max_size = "none", None, None
        for part in (p.strip() for p in text.split(",") if p.strip()):
            key, _, value = part.partition("=")
            if key in ("screenshot", "rgb"):
                screenshot = "rgb"
            elif key == "png":
                screenshot = "png"
            elif key == "none":
                screenshot = "none"
            elif key == "a11y":
                a11y = value or "nodes"
            elif key == "max":
                width, x, height = value.partition("x")
                if not (x and width.isdigit() and height.isdigit()):
                    raise ValueError(f"--obs max={value!r}: expected WIDTHxHEIGHT, like max=1280x800")
                max_size = (int(width), int(height))
            else:
                raise ValueError(
                    f"--obs: unknown part {part!r}; use screenshot|png|none, a11y[=nodes|osworld], max=WxH "
                    "(comma-separated, e.g. screenshot,a11y)"
                )
        return cls(screenshot, max_size, a11y)

    @classmethod
    def of(cls, value: Observes | str | dict[str, Any]) -> Observes:
        """An ``Observes`` from itself, its command-line text or its wire form."""
        if isinstance(value, Observes):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, dict):
            unknown = sorted(set(value) - {"screenshot", "max_size", "a11y"})
            if unknown:
                raise ValueError(f"observes: unknown field(s) {', '.join(unknown)}; known: screenshot, max_size, a11y")
            size = value.get("max_size")
            return cls(
                str(value.get("screenshot", "rgb")), tuple(size) if size is not None else None, value.get("a11y")
            )
        raise ValueError(f"observes must be an Observes, its text (like 'png,a11y') or a dict, got {value!r}")

    def to_wire(self) -> dict[str, Any]:
        return {
            "screenshot": self.screenshot,
            "max_size": list(self.max_size) if self.max_size else None,
            "a11y": self.a11y,
        }


@dataclass(frozen=True, order=True)
class EpisodeSpec:
    """One episode: ``task`` (a name like ``sim/click-button``, resolved by the env server, or a path
    on the computer that starts it, sent by content), ``variant`` of ``split`` (None: the task's
    default split), what the agent ``observes``, ``max_steps`` (None: the task's own limit) and the
    ``seed`` (None: the variant index)."""

    task: str
    variant: int = 0
    split: str | None = None
    observes: Observes = field(default_factory=Observes, compare=False)
    max_steps: int | None = field(default=None, compare=False)
    seed: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.task, str) or not self.task:
            raise ValueError(f"an episode needs a task (a name like sim/click-button, or a path), got {self.task!r}")
        if not self.name:  # "/", "a/.json": nothing to name the episode by (its key would not parse)
            raise ValueError(f"task {self.task!r} names no task: give a name like sim/click-button, or a folder's path")
        if isinstance(self.variant, bool) or not isinstance(self.variant, int) or self.variant < 0:
            raise ValueError(f"variant must be an index >= 0, got {self.variant!r}")
        if self.split is not None and (not isinstance(self.split, str) or not self.split or "/" in self.split):
            raise ValueError(
                f"split must be a name like train or test (or None for the task's own), got {self.split!r}"
            )
        if self.max_steps is not None and (
            isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int) or self.max_steps < 1
        ):
            raise ValueError(
                f"max_steps must be a whole number >= 1 (or None for the task's own), got {self.max_steps!r}"
            )
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise ValueError(f"seed must be an int or None, got {self.seed!r}")
        object.__setattr__(self, "observes", Observes.of(self.observes))

    @property
    def key(self) -> str:
        """``task/split/variant``: the episode's name in a run's records and a GRPO group's label. A task
        given by its absolute path is named by its folder (``press-a/test/0``), so a run's keys do not
        change when its folder moves; two tasks are the same only when their specs are equal."""
        task = self.name if self.task.startswith("/") else self.task
        return f"{task}/{self.split or 'default'}/{self.variant}"

    @property
    def name(self) -> str:
        """The task's short name (``click-button``): a run's per-task table, a replayed episode's match.
        A task file (OSWorld's JSON) is named by its stem."""
        last = self.task.rstrip("/").rsplit("/", 1)[-1]
        return last.rsplit(".", 1)[0] if last.endswith((".json", ".py")) else last

    @classmethod
    def parse_key(cls, key: str) -> EpisodeSpec:
        """The inverse of ``key``: ``sim/click-button/train/3``."""
        task, _, rest = key.rpartition("/")
        task, _, split = task.rpartition("/")
        if not (task and split and rest.isdigit()):
            raise ValueError(f"{key!r} is not an episode key like 'sim/click-button/train/3'")
        return cls(task, int(rest), None if split == "default" else split)

    def with_(self, **changes: Any) -> EpisodeSpec:
        """A copy with ``changes`` (``observes=``, ``max_steps=``, ...), checked as a new spec is."""
        return replace(self, **changes)

    def to_wire(self) -> dict[str, Any]:
        """The form ``reset`` takes: plain msgpack data."""
        return {
            "task": self.task,
            "variant": self.variant,
            "split": self.split,
            "observes": self.observes.to_wire(),
            "max_steps": self.max_steps,
            "seed": self.seed,
        }

    @classmethod
    def from_wire(cls, data: Any) -> EpisodeSpec:
        """A spec from ``to_wire``'s form.

        Raises:
            ValueError: not a dict, an unknown field (naming the known ones) or a bad value.
        """
        if not isinstance(data, dict):
            raise ValueError(
                f"an episode spec is a dict like {{'task': 'sim/click-button', 'variant': 0}}, got {data!r}"
            )
        known = {"task", "variant", "split", "observes", "max_steps", "seed"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"episode spec: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(
            data.get("task"),  # type: ignore[arg-type]
            data.get("variant", 0),
            data.get("split"),
            Observes.of(data.get("observes") or {}),
            data.get("max_steps"),
            data.get("seed"),
        )
