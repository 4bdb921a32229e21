"""What every model-backed agent shares: an adapter, the episode's turns, and parse failures as feedback.

A model agent renders (instruction, turns so far, the screen) through its family's adapter, asks
its model (``generate``), and parses the answer back into unified actions. Output that does not
parse is never a crash: the step carries no action, the model's next prompt says what was wrong
(as it says why the env refused an action), and the step counts toward the limit, so a model
that keeps writing garbage still ends its episode.

Safety checks a model's API raises on an answer (OpenAI's ``pending_safety_checks``, in
``ParsedOutput.safety_checks``) want a person's go-ahead. By default the agent stops the episode
(``StopEpisode``: scored 0) before acting; with ``acknowledge_safety_checks=True`` it acts, and the
turn is replayed with its checks (a Responses request built by cua-adapters-api's ``openai_request``
sends them back as ``acknowledged_safety_checks``). Either way every check is recorded
(``episode_notes``).

Every output is kept as the model wrote it (``step_notes``: the raw output, the actions parsed from
it or the parse error, the tokens the server reported and the call's latency), so a recording shows
what the model said even on steps that did nothing. A run whose first outputs all fail to parse
stops (``AdapterMismatch``): an adapter for another family scores a silent 0 on every episode.
"""

from __future__ import annotations

import json
import threading
import time
from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from cua_bench.agents.base import Agent, StopEpisode, StopRun
from cua_bench.spec import Observes
from cua_core import Action, CuaError, action_to_dict, typed_options

if TYPE_CHECKING:
    from cua_bench.tasks import Task
    from cua_data import Adapter, ParsedOutput, Prompt, RawOutput, Turn

__all__ = ["AdapterMismatch", "ModelAgent", "OutputWatch", "make_adapter"]


def make_adapter(name: str, history: str = "full", options: dict[str, Any] | None = None) -> Adapter:
    """An adapter from its registered name, a history policy spec (``last=3,images=2``) and its options."""
    from cua_data import HistoryPolicy
    from cua_data.registry import adapters

    registry = adapters()
    if not len(registry):
        raise CuaError(
            "no model adapter is installed: install one of the cua-adapters-* plugins "
            "(pip install -e plugins/cua-adapters-qwen, for instance)"
        )
    cls = registry[name]
    # history is set below, from its spec; the others are typed by the adapter's constructor (text from
    # --adapter-option max_pixels=... is the number it declares, or an error naming it)
    typed = typed_options(cls, options or {}, label=f"adapter {name!r}", flag="--adapter-option", complete=False)
    try:
        policy = HistoryPolicy.parse(history)
        adapter: Adapter = cls(history=policy, **typed)
        return adapter
    except (TypeError, ValueError) as exc:
        raise CuaError(f"adapter {name!r}: {exc}") from exc


class AdapterMismatch(StopRun):
    """The run's first outputs all failed to parse: the adapter reads another family's format."""

    resumable = False  # the fix is another --adapter, and --resume refuses changed settings


class OutputWatch:
    """The run's first ``first`` outputs, across its agents: whether every one failed to parse.

    Judged once: after ``first`` outputs of which any parsed, the run goes on however later ones do
    (a model that wanders off its format mid-run is the model's score, not a wrong setting)."""

    def __init__(self, first: int) -> None:
        self.first = first
        self.seen = 0
        self.parsed = 0
        self.sample: str | None = None
        self.lock = threading.Lock()

    def saw(self, parsed: bool, text: str) -> bool:
        """Count one output; True when the first ``first`` all failed (and for any output after that)."""
        with self.lock:
            if self.seen < self.first:
                self.seen += 1
                self.parsed += parsed
                if not parsed and self.sample is None:
                    self.sample = text
            return self.first > 0 and self.seen >= self.first and self.parsed == 0


def _jsonable(raw: RawOutput) -> Any:
    """The raw output as JSON data, unchanged where it already is (text, or an API's JSON)."""
    try:
        json.dumps(raw)
    except (TypeError, ValueError):
        return str(raw)
    return raw


class ModelAgent(Agent):
    """Subclasses implement ``generate`` (one prompt in, the model's raw output out)."""

    observes = Observes("rgb")

    def __init__(
        self,
        *,
        adapter: str,
        history: str = "full",
        adapter_options: dict[str, Any] | None = None,
        acknowledge_safety_checks: bool = False,
        adapter_check: int = 8,
    ) -> None:
        if not isinstance(acknowledge_safety_checks, bool):
            raise CuaError(f"acknowledge_safety_checks must be true or false, got {acknowledge_safety_checks!r}")
        if adapter_check < 0:
            raise CuaError(f"adapter_check must be >= 0 (0: never stop the run), got {adapter_check}")
        self.adapter = make_adapter(adapter, history, adapter_options)
        self.adapter_name = adapter
        self.acknowledge_safety_checks = acknowledge_safety_checks
        self.adapter_check = adapter_check  # stop the run when its first this-many outputs all fail to parse
        self.last_step: dict[str, Any] | None = None  # step_notes of the last act
        self.call: dict[str, Any] = {}  # latency and usage of the call whose output take() parses next
        self.reply_usage: dict[str, Any] | None = None  # set by generate() when the server reports usage
        self.instruction = ""
        self.turns: list[Turn] = []
        self.feedback: list[str] = []
        self.safety_checks: list[dict[str, Any]] = []  # this episode's, with the step and the decision
        self.counters: dict[str, float] = {"model_calls": 0, "model_s": 0.0, "parse_errors": 0}

    @abstractmethod
    def generate(self, prompt: Prompt) -> RawOutput:
        """The model's raw answer to ``prompt`` (text, or the API's JSON for API families)."""

    def reset(self, task: Task) -> None:
        self.instruction = task.description
        self.turns = []
        self.feedback = []
        self.safety_checks = []

    def prompt(self, observation: dict[str, Any]) -> Prompt:
        """The next prompt; the screenshot is resized once and kept in the turn, so history costs nothing new."""
        screenshot = observation.get("screenshot")
        current = self.adapter.resize(screenshot) if screenshot is not None else None
        self._current = current
        prompt = self.adapter.render(self.instruction, self.turns, current)
        feedback = [*self.feedback, *(f"The environment refused: {e}" for e in observation.get("errors") or [])]
        if feedback:
            note = "Your last step had problems:\n" + "\n".join(f"- {line}" for line in feedback)
            last = prompt.messages[-1]
            if last["role"] == "user":
                last["content"] = [*last["content"], {"type": "text", "text": note}]
            else:
                prompt.messages.append({"role": "user", "content": [{"type": "text", "text": note}]})
        return prompt

    def act(self, observation: dict[str, Any]) -> list[Action]:
        self.last_step = None
        prompt = self.prompt(observation)
        self.reply_usage = None
        started = time.monotonic()
        raw = self.generate(prompt)
        latency = time.monotonic() - started
        self.counters["model_calls"] += 1
        self.counters["model_s"] += latency
        self.call = {"latency_s": round(latency, 4), "usage": self.reply_usage}
        return self.take(raw, observation)

    def take(self, raw: RawOutput, observation: dict[str, Any]) -> list[Action]:
        """Parse ``raw`` for the screen of ``observation``; remember the turn for the next prompt."""
        from cua_data import AdapterParseError, Turn

        size = (int(observation["width"]), int(observation["height"]))
        text = raw if isinstance(raw, str) else json.dumps(raw)
        self.last_step, self.call = {"raw": _jsonable(raw), **self.call}, {}
        try:
            parsed: ParsedOutput = self.adapter.parse(raw, size)
        except AdapterParseError as exc:
            self.counters["parse_errors"] += 1
            self.last_step["parse_error"] = str(exc)
            self.feedback = [f"your output could not be parsed: {exc}"]
            self.turns.append(Turn(self._current, (), text))
            self._watch(False, text)
            return []
        self.last_step["actions"] = [action_to_dict(action) for action in parsed.actions]
        if parsed.thought:
            self.last_step["thought"] = parsed.thought
        self._watch(True, text)
        self.feedback = []
        if parsed.safety_checks:
            step, acknowledged = len(self.turns) + 1, self.acknowledge_safety_checks
            self.safety_checks += [
                {**check, "step": step, "acknowledged": acknowledged} for check in parsed.safety_checks
            ]
            if not acknowledged:
                checks = "; ".join(f"{check.get('code')}: {check.get('message')}" for check in parsed.safety_checks)
                raise StopEpisode(
                    f"the model's API raised safety checks on step {step} ({checks}), which need a person's "
                    "go-ahead; stopped without acting (--agent-option acknowledge_safety_checks=true acknowledges them)"
                )
        self.turns.append(Turn(self._current, tuple(parsed.actions), text, parsed.thought))
        return list(parsed.actions)

    def _watch(self, parsed: bool, text: str) -> None:
        watch = self.shared("model_outputs", lambda: OutputWatch(self.adapter_check))
        if not watch.saw(parsed, text):
            return
        from cua_data.registry import adapters

        sample = (watch.sample or "")[:200]
        raise AdapterMismatch(
            f"the first {watch.first} outputs of the model all failed to parse with adapter {self.adapter_name!r}: "
            f"the adapter probably does not match the model (one output: {sample!r}); pick the model family's "
            f"adapter with --adapter, one of: {', '.join(adapters().names())}"
        )

    def step_notes(self) -> dict[str, Any] | None:
        return self.last_step

    def usage(self) -> dict[str, float]:
        return dict(self.counters)

    def episode_notes(self) -> dict[str, Any]:
        return {"safety_checks": list(self.safety_checks)} if self.safety_checks else {}
