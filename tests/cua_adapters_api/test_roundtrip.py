"""parse(format_output(actions)) gives the actions back, for every kind each adapter ``expresses``.

Points are compared after snapping to the model frame (pixel -> unified -> pixel is exact), the
one loss the format has by design. The strategies generate exactly what each API can write; the
forms it cannot (a right double click, a scroll without a point for OpenAI...) are tested to
raise in test_anthropic / test_openai_computer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cua_adapters_api import AnthropicAdapter, OpenAIComputerAdapter
from cua_core.actions import (
    KEY_NAMES,
    Action,
    Click,
    CursorPosition,
    Done,
    Drag,
    HoldKey,
    KeyDown,
    KeyPress,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Point,
    Screenshot,
    Scroll,
    TypeText,
    Wait,
    from_pixels,
    to_pixels,
)
from cua_data.adapters import Adapter

SCREENS = st.sampled_from([(1920, 1080), (1280, 800), (1024, 768), (3000, 2000), (800, 1280), (37, 23)])
points = st.builds(Point, st.floats(0, 1000), st.floats(0, 1000))
maybe_points = st.none() | points
key_lists = st.lists(st.sampled_from(sorted(KEY_NAMES)), min_size=1, max_size=3, unique=True).map(tuple)
durations = st.floats(0.001, 60).map(lambda d: round(d, 3))
directions = st.sampled_from(["up", "down", "left", "right"])
texts = st.text(max_size=30)
thoughts = st.none() | st.text(min_size=1, max_size=40).filter(str.strip)


def snap(action: Action, frame: tuple[int, int]) -> Action:
    """The action as the model frame can say it: each point at the centre of its pixel."""
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(action):
        value = getattr(action, field.name)
        if isinstance(value, Point):
            changes[field.name] = from_pixels(*to_pixels(value, *frame), *frame)
    if isinstance(action, TypeText) and not action.press_enter and action.text.endswith("\n"):
        # A typed final newline is Enter (common.typed_text): the same keystrokes either way.
        changes.update(text=action.text[:-1], press_enter=True)
    return dataclasses.replace(action, **changes)


def modified(inner: st.SearchStrategy[Action]) -> st.SearchStrategy[list[Action]]:
    """An action with modifier keys held around it, or on its own."""
    mods = st.lists(st.sampled_from(["ctrl", "shift", "alt", "super"]), max_size=2, unique=True)
    return st.tuples(mods, inner).map(
        lambda pair: [*(KeyDown(k) for k in pair[0]), pair[1], *(KeyUp(k) for k in reversed(pair[0]))]
    )


anthropic_clicks = st.sampled_from([("left", 1), ("left", 2), ("left", 3), ("right", 1), ("middle", 1)])
anthropic_pointer = st.one_of(
    st.builds(lambda p, bc: Click(p, bc[0], bc[1]), maybe_points, anthropic_clicks),
    st.builds(Scroll, directions, st.integers(1, 100), maybe_points),
    st.builds(Drag, maybe_points, points),
)
anthropic_single = st.one_of(
    st.builds(MouseMove, points),
    st.builds(MouseDown, st.just("left")),
    st.builds(MouseUp, st.just("left")),
    st.builds(TypeText, texts, st.booleans()),
    st.builds(KeyPress, key_lists),
    st.builds(HoldKey, key_lists, durations),
    st.builds(Wait, st.floats(0, 60)),
    st.just(Screenshot()),
    st.just(CursorPosition()),
)
anthropic_turns = st.lists(modified(anthropic_pointer) | anthropic_single.map(lambda a: [a]), min_size=1, max_size=4)

openai_clicks = st.sampled_from([("left", 1), ("left", 2), ("right", 1), ("middle", 1)])
openai_pointer = st.one_of(
    st.builds(lambda p, bc: Click(p, bc[0], bc[1]), points, openai_clicks),
    st.builds(Scroll, directions, st.integers(1, 100), points),
    st.builds(Drag, points, points),
    st.builds(MouseMove, points),
)
openai_single = st.one_of(
    st.builds(TypeText, texts, st.booleans()),
    st.builds(KeyPress, key_lists),
    st.just(Wait(2.0)),  # the API's wait has no duration: a parsed wait is 2 s
    st.just(Screenshot()),
)
openai_turns = st.lists(modified(openai_pointer) | openai_single.map(lambda a: [a]), min_size=1, max_size=4)
answers = st.none() | st.text(min_size=1, max_size=40).filter(str.strip)


def flat(turn: list[list[Action]]) -> list[Action]:
    return [action for group in turn for action in group]


def check_roundtrip(adapter: Adapter, actions: list[Action], screen: tuple[int, int], thought: str | None) -> None:
    frame = adapter.model_size(*screen)
    text = adapter.format_output(actions, screen, thought)
    parsed = adapter.parse(text, screen)
    assert parsed.actions == [snap(a, frame) for a in actions], text
    if not any(isinstance(a, Done) for a in actions):
        assert parsed.thought == thought


@settings(max_examples=300, deadline=None)
@given(anthropic_turns, SCREENS, thoughts, st.sampled_from(["computer", "toolset"]))
def test_anthropic_roundtrip(
    turn: list[list[Action]], screen: tuple[int, int], thought: str | None, shape: str
) -> None:
    check_roundtrip(AnthropicAdapter(tool_shape=shape), flat(turn), screen, thought)


@settings(max_examples=300, deadline=None)
@given(openai_turns, SCREENS, thoughts)
def test_openai_ga_roundtrip(turn: list[list[Action]], screen: tuple[int, int], thought: str | None) -> None:
    check_roundtrip(OpenAIComputerAdapter(), flat(turn), screen, thought)


@settings(max_examples=200, deadline=None)
@given(st.lists(openai_pointer | openai_single, min_size=1, max_size=4), SCREENS, thoughts)
def test_openai_preview_roundtrip(actions: list[Action], screen: tuple[int, int], thought: str | None) -> None:
    check_roundtrip(OpenAIComputerAdapter(form="preview", display_size=(1024, 768)), actions, screen, thought)


@pytest.mark.parametrize("adapter", [AnthropicAdapter(), OpenAIComputerAdapter()], ids=lambda a: a.name)
@given(answer=answers)
def test_done_roundtrip(adapter: Adapter, answer: str | None) -> None:
    assert adapter.parse(adapter.format_output([Done(answer)], (1280, 800)), (1280, 800)).actions == [Done(answer)]


@pytest.mark.parametrize(
    ("adapter", "strategy"),
    [(AnthropicAdapter(), anthropic_turns), (OpenAIComputerAdapter(), openai_turns)],
    ids=["anthropic", "openai-computer"],
)
def test_the_strategies_cover_every_kind_expressed(adapter: Adapter, strategy: st.SearchStrategy[Any]) -> None:
    seen: set[str] = {"done"}  # test_done_roundtrip

    @settings(max_examples=400, deadline=None)
    @given(strategy)
    def collect(turn: list[list[Action]]) -> None:
        seen.update(action.kind for action in flat(turn) if not isinstance(action, KeyDown | KeyUp))

    collect()
    assert seen == set(adapter.expresses)


def test_a_mouse_down_with_a_point_becomes_move_then_down() -> None:
    adapter, frame = AnthropicAdapter(), (1280, 800)
    point = from_pixels(100, 200, *frame)
    parsed = adapter.parse(adapter.format_output([MouseDown("left", point), MouseUp("left", point)], frame), frame)
    assert parsed.actions == [MouseMove(point), MouseDown(), MouseMove(point), MouseUp()]
