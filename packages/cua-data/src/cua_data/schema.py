"""LiteSample: ``metadata``, ``images``, ``messages`` — CUA-Lite's row schema, validated.

A row as CUA-Lite publishes it: ``images`` is a list of paths into a content-addressed store,
``messages`` are OpenAI-style chat messages (stored as a JSON string) whose image parts reference
``images`` by index, and ``metadata`` is a JSON string. Validation names the field and the row, so a
bad row in a million can be found; ``problems()`` lists every fault instead of stopping at the first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from cua_core import ActionError
from cua_data.errors import SampleError
from cua_data.lite_actions import from_lite_tool_call

__all__ = [
    "METADATA_KINDS",
    "PLATFORMS",
    "RL_STATUSES",
    "ROLES",
    "SPLITS",
    "TASK_TYPES",
    "LiteSample",
    "Metadata",
    "RLStep",
    "RLTrace",
]

PLATFORMS = ("desktop", "browser", "mobile")
TASK_TYPES = ("understanding", "grounding.action", "grounding.point", "grounding.bbox", "use")
# CUA-Lite publishes train/validation; our benchmarks also split off test.
SPLITS = ("train", "validation", "test")
METADATA_KINDS = ("cua", "generic")
ROLES = ("system", "user", "assistant", "tool")
RL_STATUSES = ("completed", "truncated", "aborted", "failed")

_METADATA_KEYS = {
    "cua": {"metadata_kind", "dims", "extra_tool_schemas", "valid_actions", "others"},
    "generic": {"metadata_kind", "others"},
}
# Content part types allowed per role (CUA-Lite "Content Part Types").
_PARTS = {
    "system": {"text"},
    "user": {"text", "image", "metadata"},
    "assistant": {"text", "action_description", "inline_reasoning", "history_summary", "metadata"},
    "tool": {"text", "image", "metadata"},
}
_GROUNDING_TOOLS = {"point": 2, "bbox": 4}  # tool name -> number of coordinate values


@dataclass
class Metadata:
    """The ``metadata`` column. ``others`` is CUA-Lite's catch-all (id, resolution, os, source, ...)."""

    platform: str | None = None
    task_type: str | None = None
    kind: Literal["cua", "generic"] = "cua"
    extra_tool_schemas: list[dict[str, Any]] = field(default_factory=list)
    valid_actions: list[str] | None = None
    others: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str | None:
        value = self.others.get("id")
        return None if value is None else str(value)

    @property
    def resolution(self) -> tuple[int, int] | None:
        value = self.others.get("resolution")
        return None if value is None else (int(value[0]), int(value[1]))

    @property
    def source(self) -> str | None:
        value = self.others.get("source")
        return None if value is None else str(value)

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "generic":
            return {"metadata_kind": "generic", "others": self.others}
        return {
            "metadata_kind": "cua",
            "dims": [self.platform, self.task_type],
            "extra_tool_schemas": self.extra_tool_schemas,
            "valid_actions": self.valid_actions,
            "others": self.others,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Metadata:
        problems = list(_metadata_problems(data))
        if problems:
            raise SampleError("; ".join(problems))
        if data["metadata_kind"] == "generic":
            return cls(kind="generic", others=dict(data.get("others") or {}))
        platform, task_type = data["dims"]
        return cls(
            platform=platform,
            task_type=task_type,
            extra_tool_schemas=list(data.get("extra_tool_schemas") or []),
            valid_actions=data.get("valid_actions"),
            others=dict(data.get("others") or {}),
        )


@dataclass
class RLStep:
    """What the policy produced at one step: its tokens, their log-probabilities, the step reward."""

    response_tokens: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    reward: float | None = None


@dataclass
class RLTrace:
    """The RL extension of a ``use`` row: one RLStep per assistant turn, the episode's outcome."""

    status: str = "completed"
    reward: float | None = None
    steps: list[RLStep] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reward": self.reward,
            "steps": [
                {"response_tokens": s.response_tokens, "logprobs": s.logprobs, "reward": s.reward} for s in self.steps
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RLTrace:
        status = data.get("status")
        if status not in RL_STATUSES:
            raise SampleError(f"rl.status: {status!r} is not one of {', '.join(RL_STATUSES)}")
        steps = []
        for i, raw in enumerate(data.get("steps") or []):
            step = RLStep(list(raw.get("response_tokens") or []), list(raw.get("logprobs") or []), raw.get("reward"))
            if step.logprobs and len(step.logprobs) != len(step.response_tokens):
                raise SampleError(
                    f"rl.steps[{i}]: {len(step.logprobs)} logprobs for {len(step.response_tokens)} tokens"
                )
            steps.append(step)
        return cls(str(status), data.get("reward"), steps)


@dataclass
class LiteSample:
    """One row. ``images`` hold store paths once written; before that they may hold image bytes."""

    metadata: Metadata
    messages: list[dict[str, Any]]
    images: list[str | bytes] = field(default_factory=list)
    rl: RLTrace | None = None

    # -- validation -----------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """Every fault of this row, each naming its field ('' when the row is valid)."""
        return list(_metadata_problems(self.metadata.to_dict())) + list(self._message_problems())

    def out_of_range(self) -> list[str]:
        """Tool-call coordinates outside [0, 1000]: such a row is dropped, not stored (as CUA-Lite does)."""
        found = []
        for m, message in enumerate(self.messages if isinstance(self.messages, list) else []):
            calls = message.get("tool_calls") if isinstance(message, dict) else None
            for c, call in enumerate(calls or []):
                function = call.get("function") if isinstance(call, dict) else None
                arguments = function.get("arguments") if isinstance(function, dict) else None
                if not isinstance(arguments, dict):
                    continue
                values = [arguments.get("coordinate")]
                for item in arguments.get("actions") or []:
                    if isinstance(item, dict):
                        values += [item.get("coordinate"), item.get("start_coordinate")]
                for value in values:
                    if isinstance(value, list) and any(
                        isinstance(v, int | float) and not isinstance(v, bool) and not 0 <= v <= 1000 for v in value
                    ):
                        found.append(f"messages[{m}].tool_calls[{c}]: coordinate {value} is outside [0, 1000]")
        return found

    def validate(self, where: str = "") -> LiteSample:
        problems = self.problems()
        if problems:
            prefix = f"{where}: " if where else ""
            ident = self.metadata.id
            row = f"row {ident!r}: " if ident else ""
            raise SampleError(prefix + row + "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else ""))
        return self

    def _message_problems(self) -> Iterator[str]:
        messages: Any = self.messages  # parsed from a file: may be anything until checked
        if not isinstance(messages, list) or not messages:
            yield "messages: must be a non-empty list of chat messages"
            return
        call_ids: set[str] = set()
        for m, message in enumerate(messages):
            here = f"messages[{m}]"
            if not isinstance(message, dict):
                yield f"{here}: must be a dict, got {type(message).__name__}"
                continue
            role = message.get("role")
            if role not in ROLES:
                yield f"{here}.role: {role!r} is not one of {', '.join(ROLES)}"
                continue
            yield from self._content_problems(here, role, message.get("content"))
            if role == "tool" and message.get("tool_call_id") not in call_ids:
                yield f"{here}.tool_call_id: {message.get('tool_call_id')!r} answers no earlier tool call"
            for c, call in enumerate(message.get("tool_calls") or []):
                if role != "assistant":
                    yield f"{here}.tool_calls: only assistant messages make tool calls"
                    break
                yield from self._call_problems(f"{here}.tool_calls[{c}]", call)
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    call_ids.add(call["id"])

    def _content_problems(self, here: str, role: str, content: Any) -> Iterator[str]:
        if content is None:
            return
        if isinstance(content, str):
            if role == "assistant":
                yield f"{here}.content: assistant content must be a list of parts"
            return
        if not isinstance(content, list):
            yield f"{here}.content: must be a str or a list of parts, got {type(content).__name__}"
            return
        for p, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind not in _PARTS[role]:
                allowed = ", ".join(sorted(_PARTS[role]))
                yield f"{here}.content[{p}].type: {kind!r} is not allowed for {role} (allowed: {allowed})"
            elif kind == "image":
                index = part.get("index")
                if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.images):
                    yield f"{here}.content[{p}].index: {index!r} references no image (the row has {len(self.images)})"
            elif kind == "metadata":
                if not isinstance(part.get("data"), dict):
                    yield f"{here}.content[{p}].data: must be a dict"
            elif not isinstance(part.get("text"), str):
                yield f"{here}.content[{p}].text: must be a str"

    def _call_problems(self, here: str, call: Any) -> Iterator[str]:
        if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
            yield f"{here}: must be {{'id', 'type': 'function', 'function': {{'name', 'arguments'}}}}"
            return
        if not isinstance(call.get("id"), str):
            yield f"{here}.id: must be a str"
        function = call["function"]
        name = function.get("name")
        arguments = function.get("arguments")
        if not isinstance(arguments, dict):
            yield f"{here}.function.arguments: must be a dict, got {type(arguments).__name__}"
            return
        if name in _GROUNDING_TOOLS:
            coordinate = arguments.get("coordinate")
            want = _GROUNDING_TOOLS[name]
            if not _in_range(coordinate, want):
                yield f"{here}.function.arguments.coordinate: {coordinate!r} is not {want} numbers in [0, 1000]"
            return
        if name in ("computer", "mobile"):
            try:
                from_lite_tool_call(function)
            except ActionError as exc:
                yield f"{here}.function: {exc}"
            return
        tools = {t.get("function", {}).get("name") for t in self.metadata.extra_tool_schemas}
        if name not in tools:
            yield f"{here}.function.name: {name!r} is not computer, mobile, point, bbox or an extra_tool_schemas tool"

    # -- the parquet row ------------------------------------------------------------------------

    def to_row(self) -> dict[str, Any]:
        """The row as stored: JSON strings for messages and metadata, as CUA-Lite stores them."""
        if any(not isinstance(image, str) for image in self.images):
            raise SampleError("images must be store paths before a row is stored; write it through a DatasetWriter")
        row: dict[str, Any] = {
            "images": list(self.images),
            "messages": json.dumps(self.messages, ensure_ascii=False),
            "metadata": json.dumps(self.metadata.to_dict(), ensure_ascii=False),
        }
        if self.rl is not None:
            row["rl"] = json.dumps(self.rl.to_dict())
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any], where: str = "") -> LiteSample:
        """Parse a stored row; errors name ``where`` (file and row number)."""
        prefix = f"{where}: " if where else ""
        try:
            messages = _json_field(row, "messages")
            metadata = Metadata.from_dict(_json_field(row, "metadata"))
            rl_raw = row.get("rl")
            rl = RLTrace.from_dict(json.loads(rl_raw)) if rl_raw else None
        except (SampleError, ValueError, TypeError) as exc:
            raise SampleError(f"{prefix}{exc}") from exc
        images = row.get("images")
        if images is None:
            images = []
        for i, image in enumerate(images):
            if isinstance(image, Mapping) and "bytes" in image:
                raise SampleError(
                    f"{prefix}images[{i}]: image bytes embedded in the row: this is a hub export row, not a dataset "
                    "row; run `cua-data import-hub HUB DST` and read DST"
                )
            if not isinstance(image, str | bytes):
                raise SampleError(f"{prefix}images[{i}]: must be a store path, got {type(image).__name__}")
        return cls(metadata, messages, list(images), rl)


def _json_field(row: Mapping[str, Any], name: str) -> Any:
    value = row.get(name)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise SampleError(f"{name}: not valid JSON ({exc})") from exc
    if value is None:
        raise SampleError(f"{name}: missing")
    return value  # already decoded (rows built in memory)


def _in_range(values: Any, count: int) -> bool:
    return (
        isinstance(values, Sequence)
        and len(values) == count
        and all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1000 for v in values)
    )


def _metadata_problems(data: Any) -> Iterator[str]:
    if not isinstance(data, Mapping):
        yield f"metadata: must be a dict, got {type(data).__name__}"
        return
    kind = data.get("metadata_kind")
    if kind not in METADATA_KINDS:
        yield f"metadata.metadata_kind: {kind!r} is not one of {', '.join(METADATA_KINDS)}"
        return
    unknown = sorted(set(data) - _METADATA_KEYS[kind])
    if unknown:
        yield (
            f"metadata: unknown key(s) {', '.join(map(repr, unknown))} for metadata_kind {kind!r}; "
            f"put per-row extras in metadata.others"
        )
    others = data.get("others", {})
    if not isinstance(others, Mapping):
        yield "metadata.others: must be a dict"
        others = {}
    yield from _others_problems(others)
    if kind == "generic":
        return
    dims = data.get("dims")
    if not isinstance(dims, Sequence) or isinstance(dims, str) or len(dims) != 2:
        yield f"metadata.dims: must be [platform, task_type], got {dims!r}"
    else:
        if dims[0] not in PLATFORMS:
            yield f"metadata.dims[0]: platform {dims[0]!r} is not one of {', '.join(PLATFORMS)}"
        if dims[1] not in TASK_TYPES:
            yield f"metadata.dims[1]: task type {dims[1]!r} is not one of {', '.join(TASK_TYPES)}"
    schemas = data.get("extra_tool_schemas", [])
    if not isinstance(schemas, list) or not all(isinstance(s, dict) for s in schemas):
        yield "metadata.extra_tool_schemas: must be a list of tool schema dicts"
    valid = data.get("valid_actions")
    if valid is not None and (not isinstance(valid, list) or not all(isinstance(v, str) for v in valid)):
        yield "metadata.valid_actions: must be null or a list of action names"


def _others_problems(others: Mapping[str, Any]) -> Iterator[str]:
    resolution = others.get("resolution")
    if resolution is not None and not (
        isinstance(resolution, Sequence)
        and len(resolution) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in resolution)
    ):
        yield f"metadata.others.resolution: must be [width, height] in positive pixels, got {resolution!r}"
    for key in ("id", "os", "source", "source_id"):
        value = others.get(key)
        if value is not None and not isinstance(value, str):
            yield f"metadata.others.{key}: must be a str or null, got {value!r}"
