"""Rollouts as LiteSample RL rows, and back: how the replay buffer persists what it holds.

A row is a CUA-Lite ``use`` conversation any cua-data tool reads (one user message per turn with
its screenshot and accessibility tree, one assistant message per decision with its actions as a
CUA-Lite tool call and its raw text), plus the RL trace (tokens, log-probabilities, step rewards).
CUA-Lite's tool-call dialect rounds coordinates and cannot write ``done``/``fail``, so each
assistant message also carries the exact actions in a ``metadata`` part; and ``metadata.others``
keeps what a policy needs to recompute log-probabilities exactly: each turn's observation (minus
the image and tree, which are in the messages), versions, errors and the episode's bookkeeping.
``sample_to_episode(episode_to_sample(e), images) == e``, screenshots pixel for pixel.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from cua_bench import EpisodeSpec
from cua_bench_rl.rollouts import Decision, Rollout, Taken, Turn, spec_of_key
from cua_core import Action, ActionError, action_from_dict, action_to_dict
from cua_data import LiteSample, Metadata, RLStep, RLTrace, SampleError, encode_png, to_lite_action, to_lite_tool_call

__all__ = ["SOURCE", "episode_to_sample", "sample_to_episode"]

SOURCE = "cua-bench-rl"  # metadata.others.source of every row the buffer writes
# others.rl_format: raised when the layout of others changes. 2: others.task is EpisodeSpec.key
# (task/split/variant) and others.spec the spec as played (its wire form); 1 wrote task@split:variant
# and no spec, and is still read (rollouts.spec_of_key).
_FORMAT = 2


def episode_to_sample(episode: Rollout, group_id: str, *, platform: str = "desktop") -> LiteSample:
    """One row for ``episode`` of group ``group_id``; images are encoded bytes until a writer stores them."""
    images: list[str | bytes] = []
    messages: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for i, taken in enumerate(episode.turns):
        where = f"episode {episode.id} turn {i}"
        observation = dict(taken.turn.observation)
        shot = observation.pop("screenshot", None)
        tree = observation.pop("a11y", None)
        record: dict[str, Any] = {
            "step": taken.turn.step,
            "max_steps": taken.turn.max_steps,
            "instruction": taken.turn.instruction,
            "observation": _plain(observation, f"{where}: observation"),
            "screenshot": None,
            "a11y": "a11y" in taken.turn.observation,
        }
        content: list[dict[str, Any]] = []
        if shot is not None:
            record["screenshot"], data = _encode(shot, where)
            content.append({"type": "image", "index": len(images)})
            images.append(data)
        if i == 0:
            content.append({"type": "text", "text": episode.instruction})
        if record["a11y"]:
            content.append({"type": "text", "text": json.dumps(_plain(tree, f"{where}: a11y"), ensure_ascii=False)})
        messages.append({"role": "user", "content": content})
        messages.append(_assistant(taken.decision, platform, i))
        turns.append(record)
    if not messages:  # the policy never acted (a curriculum played it all): the instruction alone
        messages.append({"role": "user", "content": [{"type": "text", "text": episode.instruction}]})
    others: dict[str, Any] = {
        "id": episode.id,
        "source": SOURCE,
        "rl_format": _FORMAT,
        "episode": episode.id,
        "task": episode.task.key,
        "spec": episode.task.to_wire(),
        "group": group_id,
        "status": episode.status,
        "started_after": episode.started_after,
        "seconds": episode.seconds,
        "versions": [t.decision.version for t in episode.turns],
        "truncated": [t.decision.truncated for t in episode.turns],
        "errors": [list(t.errors) for t in episode.turns],
        "steps": [t.turn.step for t in episode.turns],
        "turns": turns,
    }
    first = episode.turns[0].turn.observation if episode.turns else {}
    width, height = first.get("width"), first.get("height")
    if _positive(width) and _positive(height):
        others["resolution"] = [width, height]
    trace = RLTrace(
        episode.status,
        episode.reward,
        [RLStep(list(t.decision.tokens), list(t.decision.logprobs), t.reward) for t in episode.turns],
    )
    return LiteSample(Metadata(platform, "use", others=others), messages, images, trace)


def sample_to_episode(sample: LiteSample, images: Sequence[bytes]) -> Rollout:
    """The rollout a row of ``episode_to_sample`` holds; ``images`` are the bytes of ``sample.images``, in order."""
    others = sample.metadata.others
    ident = others.get("episode")
    if others.get("source") != SOURCE or not isinstance(ident, str):
        raise SampleError(f"row {sample.metadata.id!r} is not an episode written by {SOURCE} (metadata.others.source)")
    if sample.rl is None:
        raise SampleError(f"row {ident!r} has no rl trace")
    try:
        task = spec_of_key(str(others["task"]))
        if others.get("spec") is not None:  # the spec as played: how it was observed, its step limit, its seed
            task = EpisodeSpec.from_wire(others["spec"])
            if task.key != others["task"]:
                raise ValueError(f"its spec is {task.key}, its task {others['task']}")
        records: list[dict[str, Any]] = list(others["turns"])
        versions, errors = list(others["versions"]), list(others["errors"])
        truncated = list(others.get("truncated") or [False] * len(versions))  # records before it: none was
    except (KeyError, TypeError, ValueError) as exc:
        raise SampleError(f"row {ident!r}: metadata.others is incomplete ({exc})") from exc
    messages = sample.messages
    if not (max(1, 2 * len(records)) == len(messages) and len(records) == len(sample.rl.steps) == len(versions)):
        raise SampleError(
            f"row {ident!r}: {len(messages)} messages, {len(records)} turn records and {len(sample.rl.steps)} rl "
            "steps do not match (two messages and one record and step per turn)"
        )
    if len(truncated) != len(records):
        raise SampleError(f"row {ident!r}: {len(truncated)} truncation flags for {len(records)} turns")
    if len(errors) != len(records):
        raise SampleError(f"row {ident!r}: {len(errors)} error lists for {len(records)} turns")
    instruction = _instruction(messages[0], ident)
    episode = Rollout(
        ident,
        task,
        instruction,
        reward=sample.rl.reward,
        status=sample.rl.status,
        started_after=int(others.get("started_after", 0)),
        seconds=float(others.get("seconds", 0.0)),
    )
    for i, record in enumerate(records):
        where = f"row {ident!r} turn {i}"
        user, assistant = messages[2 * i], messages[2 * i + 1]
        observation = dict(record["observation"])
        parts = list(user.get("content") or [])
        if record["screenshot"] is not None:
            index = parts[0].get("index") if parts and parts[0].get("type") == "image" else None
            if not isinstance(index, int) or not 0 <= index < len(images):
                raise SampleError(f"{where}: its screenshot is not the first part of its user message")
            observation["screenshot"] = _decode(images[index], record["screenshot"], where)
        if record["a11y"]:
            observation["a11y"] = json.loads(parts[-1]["text"])
        step = sample.rl.steps[i]
        decision = Decision(
            _actions(assistant, where),
            list(step.response_tokens),
            list(step.logprobs),
            _text(assistant),
            int(versions[i]),
            bool(truncated[i]),
        )
        turn = Turn(
            ident,
            task,
            str(record["instruction"]),
            int(record["step"]),
            observation,
            history=list(episode.turns),
            max_steps=int(record["max_steps"]),
        )
        reward = 0.0 if step.reward is None else float(step.reward)
        episode.turns.append(Taken(turn, decision, reward, [str(e) for e in errors[i]]))
    return episode


# -- the parts -------------------------------------------------------------------------------------


def _assistant(decision: Decision, platform: str, i: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if decision.text is not None:
        content.append({"type": "text", "text": decision.text})
    content.append({"type": "metadata", "data": {"actions": [action_to_dict(a) for a in decision.actions]}})
    message: dict[str, Any] = {"role": "assistant", "content": content}
    writable = [a for a in decision.actions if _writable(a, platform)]
    if writable:
        message["tool_calls"] = [to_lite_tool_call(writable, platform, f"call_{i:04d}")]
    return message


def _writable(action: Action, platform: str) -> bool:
    """Whether CUA-Lite's dialect can write it (done/fail and a few keys cannot; the metadata part keeps them)."""
    try:
        to_lite_action(action, platform)
    except ActionError:
        return False
    return True


def _actions(message: dict[str, Any], where: str) -> list[Action]:
    for part in message.get("content") or []:
        if part.get("type") == "metadata" and "actions" in (part.get("data") or {}):
            try:
                return [action_from_dict(a) for a in part["data"]["actions"]]
            except ActionError as exc:
                raise SampleError(f"{where}: {exc}") from exc
    raise SampleError(f"{where}: its assistant message has no metadata part with the exact actions")


def _text(message: dict[str, Any]) -> str | None:
    texts = [p["text"] for p in message.get("content") or [] if p.get("type") == "text"]
    return texts[0] if texts else None


def _instruction(first: dict[str, Any], ident: str) -> str:
    parts = [p for p in first.get("content") or [] if p.get("type") == "text"]
    if not parts:
        raise SampleError(f"row {ident!r}: the first user message holds no instruction")
    return str(parts[0]["text"])


def _encode(shot: Any, where: str) -> tuple[str, bytes]:
    """(format, bytes): PNG bytes are stored as they came, RGB arrays as a lossless PNG."""
    if isinstance(shot, bytes | bytearray | memoryview):
        return "png", bytes(shot)
    array = np.asarray(shot)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise SampleError(
            f"{where}: the screenshot must be PNG bytes or an HxWx3 uint8 array, got {array.dtype} of shape "
            f"{array.shape}"
        )
    return "rgb", encode_png(array)


def _decode(data: bytes, kind: str, where: str) -> Any:
    if kind == "png":
        return bytes(data)
    if kind != "rgb":
        raise SampleError(f"{where}: unknown screenshot format {kind!r} (rgb or png)")
    with Image.open(io.BytesIO(data)) as image:
        return np.array(image.convert("RGB"), dtype=np.uint8)


def _plain(value: Any, where: str) -> Any:
    """``value`` if JSON keeps it exactly (dicts with str keys, lists, str, numbers, bools, None)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise SampleError(f"{where} cannot be stored as JSON ({exc}); keep observations to plain values") from exc
    if json.loads(text) != value:
        raise SampleError(f"{where} changes through JSON (tuples or non-str keys?); keep observations to plain values")
    return value


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
