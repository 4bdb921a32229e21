"""What both API formats share: JSON in, pixel frames, held modifiers, typed newlines, stable ids."""

from __future__ import annotations

import hashlib
import inspect
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from cua_core import (
    Action,
    ActionError,
    Click,
    Drag,
    KeyDown,
    KeyUp,
    MouseMove,
    Point,
    Scroll,
    TypeText,
    format_action,
    from_pixels,
    to_pixels,
)
from cua_core.actions import describe, is_real
from cua_data import AdapterParseError, RawOutput

__all__ = [
    "Frame",
    "ModelDump",
    "ModifiedAction",
    "check_size",
    "group_modifiers",
    "load_json",
    "pixel_point",
    "pixels",
    "plain",
    "stable_id",
    "typed_text",
    "typed_text_of",
    "unsupported",
    "with_modifiers",
]

Frame = tuple[int, int]
"""``(width, height)`` of the image the model was shown: its pixel coordinates are in this frame."""

# A mouse action together with the keys held down around it (Shift-click, Ctrl-scroll).
ModifiedAction = tuple[tuple[str, ...], Action]


def check_size(value: object, what: str) -> Frame:
    """A ``(width, height)`` of positive whole numbers, or a ValueError naming ``what``."""
    if (
        not isinstance(value, Sequence)
        or isinstance(value, str)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
    ):
        raise ValueError(f"{what} must be (width, height) in whole pixels of at least 1, got {value!r}")
    return int(value[0]), int(value[1])


@runtime_checkable
class ModelDump(Protocol):
    """A vendor SDK's reply object: the pydantic models of the ``anthropic`` and ``openai`` packages
    (``Message``, ``BetaMessage``, ``Response``), whose ``model_dump(mode="json")`` is the API's JSON."""

    def model_dump(self) -> Any: ...


def plain(output: RawOutput | ModelDump) -> RawOutput:
    """An SDK object as the JSON data it stands for (``model_dump``, with ``mode="json"`` where it takes
    one, so enums and dates come out as the API writes them); anything else as it is."""
    if not isinstance(output, ModelDump):
        return output
    dump = output.model_dump
    try:
        takes_mode = "mode" in inspect.signature(dump).parameters
    except (TypeError, ValueError):  # no signature to read (a builtin): call it plainly
        takes_mode = False
    data: RawOutput = dump(mode="json") if takes_mode else dump()  # type: ignore[call-arg]
    return data


def load_json(output: object, family: str) -> Any:
    """The model's output as JSON data: text is decoded, mappings and lists are taken as they are."""
    if isinstance(output, str | bytes | bytearray):
        text = bytes(output).decode("utf-8", "replace") if not isinstance(output, str) else output
        if not text.strip():
            raise AdapterParseError(f"{family}: the output is empty; expected JSON", output)
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as error:
            raise AdapterParseError(f"{family}: the output is not JSON ({error}): {describe(text)}", output) from None
    if isinstance(output, Mapping | Sequence):
        return output
    raise AdapterParseError(f"{family}: expected JSON text, a mapping or a list, got {type(output).__name__}", output)


def pixel_point(value: object, frame: Frame, label: str) -> Point:
    """A model's ``[x, y]`` pixel pair on ``frame`` as a unified point (ActionError if it is not one)."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        raise ActionError(f"{label}: {describe(value)} is not a pixel coordinate [x, y]")
    return xy_point(value[0], value[1], frame, label)


def xy_point(x: object, y: object, frame: Frame, label: str) -> Point:
    position: list[float] = []
    for axis, number in (("x", x), ("y", y)):
        try:
            value = float(number) if is_real(number) else math.nan
        except OverflowError:  # an integer too large for a float is far off any screen
            value = math.inf
        if not math.isfinite(value):
            raise ActionError(f"{label}.{axis}: {describe(number)} is not a finite pixel position")
        position.append(value)
    try:
        return from_pixels(position[0], position[1], *frame)
    except ActionError as error:
        raise ActionError(f"{label}: {error} of the {frame[0]}x{frame[1]} screenshot") from None


def pixels(point: Point, frame: Frame) -> list[int]:
    """A unified point as ``[x, y]`` pixels of ``frame`` (the pixel it falls in)."""
    return list(to_pixels(point, *frame))


def typed_text(text: object, label: str) -> TypeText:
    """A ``type`` action's text; a final newline is the Enter that ``press_enter`` means.

    xdotool ``type`` and Playwright's ``keyboard.type`` both press Return for "\\n", so "hi\\n"
    and ``type("hi", press_enter=True)`` do the same thing; reading it this way lets a model's
    "type and submit" round-trip through the unified record.
    """
    if not isinstance(text, str):
        raise ActionError(f"{label}: {describe(text)} is not a string")
    if text.endswith("\n"):
        return TypeText(text[:-1], press_enter=True)
    return TypeText(text)


def typed_text_of(action: TypeText) -> str:
    return action.text + ("\n" if action.press_enter else "")


def with_modifiers(keys: Sequence[str], *actions: Action) -> list[Action]:
    """Mouse actions with ``keys`` held: key_down each, the actions, key_up in reverse order."""
    return [*(KeyDown(key) for key in keys), *actions, *(KeyUp(key) for key in reversed(keys))]


def group_modifiers(
    actions: Sequence[Action], family: str, modifiable: tuple[type[Action], ...]
) -> list[ModifiedAction]:
    """Undo :func:`with_modifiers`: each action with the keys held around it.

    A key_down that is not part of "key_down..., one ``modifiable`` action, key_up... in reverse"
    has no equivalent in these APIs (they hold keys only for the length of one mouse action).
    """
    grouped: list[ModifiedAction] = []
    index = 0
    while index < len(actions):
        held: list[str] = []
        while index < len(actions) and isinstance(down := actions[index], KeyDown):
            held.append(down.key)
            index += 1
        if not held:
            action = actions[index]
            if isinstance(action, KeyUp):
                raise unsupported(action, family, "a key_up must close a key_down held around one mouse action")
            grouped.append(((), action))
            index += 1
            continue
        releases = [KeyUp(key) for key in reversed(held)]
        target = actions[index] if index < len(actions) else None
        after = list(actions[index + 1 : index + 1 + len(releases)])
        if not isinstance(target, modifiable) or after != releases:
            kinds = ", ".join(kind.kind for kind in modifiable)
            why = (
                f"keys can only be held around one {kinds} action (key_down..., the action, key_up... in reverse)"
                if kinds
                else "this tool cannot hold keys down"
            )
            raise unsupported(KeyDown(held[0]), family, why)
        grouped.append((tuple(held), target))
        index += 1 + len(releases)
    return grouped


def unsupported(action: Action, family: str, why: str) -> ActionError:
    """The error ``format_output`` raises for an action the family cannot write."""
    return ActionError(f"{family}: cannot express {format_action(action)}: {why}")


def stable_id(prefix: str, *parts: object) -> str:
    """An id that depends only on the content, so formatting the same actions twice gives the same text."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return f"{prefix}{digest[:24]}"


# Mouse actions the APIs can hold modifier keys around (Anthropic: clicks and scroll; OpenAI GA: all).
POINTER_ACTIONS: tuple[type[Action], ...] = (Click, Scroll, Drag, MouseMove)
