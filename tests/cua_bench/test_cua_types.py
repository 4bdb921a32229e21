"""Cua's action and snapshot types (``cua_bench.types``), ``repr_to_action``, and the session's Cua calls
built on them: each of Cua's actions applied on the sim through ``session.execute_action``, checked by
its effect on the desktop; ``get_snapshot`` and ``close_all_windows``."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import typing
from collections.abc import Coroutine
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cua_bench as cb
from cua_bench import types as cua_types
from cua_bench.html_windows import cua_actions
from cua_bench.sim import Button, ListView, SimSession, TextField, Window
from cua_bench.types import ACTION_TYPES, ActionReprError, Snapshot, WindowSnapshot, repr_to_action
from cua_core.actions import Scroll
from cua_core.errors import CuaError

CUA_TOP_LEVEL = [
    "Action",
    "ClickAction",
    "DragAction",
    "KeyAction",
    "HotkeyAction",
    "TypeAction",
    "WaitAction",
    "DoneAction",
    "ScrollAction",
    "RightClickAction",
    "DoubleClickAction",
    "repr_to_action",
    "MobileSession",
    "DesktopSession",
]


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coro)


# -- the types -------------------------------------------------------------------------------------


def test_cua_names_are_at_the_top_level_and_in_all() -> None:
    for name in CUA_TOP_LEVEL:
        assert hasattr(cb, name), name
        assert name in cb.__all__, name
    assert cb.ClickAction is cua_types.ClickAction
    assert set(typing.get_args(cb.Action)) == set(ACTION_TYPES.values())


def test_fields_and_defaults_are_cuas() -> None:
    def fields(cls: type) -> list[tuple[str, Any]]:
        return [(f.name, f.default) for f in dataclasses.fields(cls)]

    missing = dataclasses.MISSING
    assert fields(cb.ClickAction) == [("x", missing), ("y", missing)]
    assert fields(cb.DragAction) == [
        ("from_x", missing), ("from_y", missing), ("to_x", missing), ("to_y", missing), ("duration", 1.0),
    ]  # fmt: skip
    assert fields(cua_types.MoveToAction) == [("x", missing), ("y", missing), ("duration", 0.0)]
    assert fields(cb.ScrollAction) == [("direction", "up"), ("amount", 100)]
    assert fields(cb.WaitAction) == [("seconds", 1.0)]
    assert fields(cb.DoneAction) == []
    assert fields(cb.HotkeyAction) == [("keys", missing)]
    shot = WindowSnapshot("webview")
    assert (shot.pid, shot.url, shot.html, shot.title, shot.x, shot.width, shot.active, shot.minimized) == (
        None, None, None, "", 0, 0, False, False,
    )  # fmt: skip
    assert Snapshot().windows == [] and Snapshot([shot]).windows == [shot]


def test_the_import_stays_light() -> None:
    """``import cua_bench`` loads it in every env server: the standard library and cua_core's errors only."""
    source = Path(cua_types.__file__).read_text()
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert all(
        line.split()[1].split(".")[0] in {"__future__", "ast", "dataclasses", "math", "typing", "cua_core"}
        for line in imports
    ), imports


# -- repr_to_action --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ClickAction(x=100, y=200)", cb.ClickAction(100, 200)),
        ("RightClickAction(x=1, y=2)", cb.RightClickAction(1, 2)),
        ("DoubleClickAction(x=3, y=4)", cb.DoubleClickAction(3, 4)),
        ("MiddleClickAction(x=5, y=6)", cua_types.MiddleClickAction(5, 6)),
        ("DragAction(from_x=1, from_y=2, to_x=3, to_y=4)", cb.DragAction(1, 2, 3, 4, 1.0)),
        ("DragAction(from_x=1, from_y=2, to_x=3, to_y=4, duration=0.5)", cb.DragAction(1, 2, 3, 4, 0.5)),
        ("MoveToAction(x=7, y=8, duration=0.25)", cua_types.MoveToAction(7, 8, 0.25)),
        ("ScrollAction()", cb.ScrollAction("up", 100)),
        ("ScrollAction(direction='down', amount=300)", cb.ScrollAction("down", 300)),
        ("TypeAction(text='hi')", cb.TypeAction("hi")),
        ('TypeAction(text="it\'s \\n two lines")', cb.TypeAction("it's \n two lines")),
        ("KeyAction(key='Return')", cb.KeyAction("Return")),
        ("HotkeyAction(keys=['ctrl', 'c'])", cb.HotkeyAction(["ctrl", "c"])),
        ("HotkeyAction(keys=('ctrl', 'c'))", cb.HotkeyAction(["ctrl", "c"])),
        ("DoneAction()", cb.DoneAction()),
        ("WaitAction()", cb.WaitAction(1.0)),
        ("  WaitAction(seconds=2)  ", cb.WaitAction(2)),
        ("ClickAction(10.5, 20)", cb.ClickAction(10.5, 20)),  # type: ignore[arg-type]  # an oracle's centre
    ],
)
def test_repr_to_action_reads_cuas_reprs(text: str, expected: Any) -> None:
    got = repr_to_action(text)
    assert got == expected and type(got) is type(expected)
    assert repr_to_action(repr(got)) == got  # and reads its own repr back


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "is not an action's repr"),
        ("click(1, 2)", "is not an action's repr; expected one of ClickAction"),
        ("__import__('os').system('true')", "is not an action's repr"),
        ("ClickAction(x=1, y=2).__class__", "is not an action's repr"),
        ("os.ClickAction(x=1, y=2)", "is not an action's repr"),
        ("ClickAction(x=1)", "ClickAction needs y"),
        ("ClickAction(x=1, y=2, z=3)", "ClickAction has no field 'z'"),
        ("ClickAction(x=1, y=2, x=3)", "x given twice"),
        ("ClickAction(1, 2, 3)", "takes 2 value"),
        ("ClickAction(**{'x': 1, 'y': 2})", "has no field '**'"),
        ("ClickAction(x=open('/etc/passwd'), y=2)", "x is not a literal value"),
        ("ClickAction(x='1', y=2)", "x must be a number"),
        ("ClickAction(x=True, y=2)", "x must be a number"),
        ("ClickAction(x=1e999, y=2)", "x must be a number"),
        ("ScrollAction(direction='left')", "must be 'up' or 'down'"),
        ("TypeAction(text=5)", "text must be a string"),
        ("HotkeyAction(keys='ctrl+c')", "keys must be a list of key names"),
        ("HotkeyAction(keys=['ctrl', 1])", "keys must be a list of key names"),
        ("ClickAction(x=1, y=2", "is not an action's repr (SyntaxError)"),
    ],
)
def test_anything_else_is_one_clear_error_naming_the_text(text: str, says: str) -> None:
    with pytest.raises(ActionReprError, match=r"^repr_to_action: ") as caught:
        repr_to_action(text)
    assert says in str(caught.value)
    assert text.strip()[:50] in str(caught.value) or len(text) > 200
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, CuaError)


def test_deep_or_huge_text_is_our_error_too() -> None:
    for text, says in [
        ("ClickAction(x=" + "[" * 50 + "]" * 50 + ", y=2)", "x must be a number"),
        ("ClickAction(x=" + "(" * 5000 + "1" + ")" * 5000 + ", y=1)", "is not an action's repr"),
        ("ClickAction(x=" + "9" * 5000 + ", y=1)", "is not an action's repr"),
        ("TypeAction(text=[" + "'a', " * 5000 + "])", "text must be a string"),
        ("TypeAction(text=" + repr("a" * 100_000) + ")", None),
    ]:
        if says is None:
            assert repr_to_action(text) == cb.TypeAction("a" * 100_000)
            continue
        with pytest.raises(ActionReprError) as caught:
            repr_to_action(text)
        assert says in str(caught.value) and len(str(caught.value)) < 600  # the text cut short
        assert len(text) < 200 or "..." in str(caught.value)


def test_repr_to_action_never_evaluates() -> None:
    marker = Path(os.environ.get("TMPDIR", "/tmp")) / f"cua-repr-{os.getpid()}"
    with pytest.raises(ActionReprError):
        repr_to_action(f"TypeAction(text=open({str(marker)!r}, 'w').write('x'))")
    assert not marker.exists()
    with pytest.raises(ActionReprError):
        repr_to_action(123)  # type: ignore[arg-type]


NAMES = [*ACTION_TYPES, "Click", "ClickActionX", "print"]
FIELDS = ["x", "y", "from_x", "to_y", "duration", "direction", "amount", "text", "key", "keys", "seconds", "z"]
LITERALS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner),
    max_leaves=6,
)


@st.composite
def action_like(draw: st.DrawFn) -> str:
    """Text shaped like an action's repr: a name, then values that may or may not fit it."""
    name = draw(st.sampled_from(NAMES))
    positional = [repr(v) for v in draw(st.lists(LITERALS, max_size=2))]
    keywords = [f"{k}={v!r}" for k, v in draw(st.dictionaries(st.sampled_from(FIELDS), LITERALS, max_size=5)).items()]
    noise = draw(st.sampled_from(["", "", " ", ")", "(", ",", "**d", "*a", "=", "x=y"]))
    return f"{name}({', '.join([*positional, *keywords])}{noise})"


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=60), action_like(), st.sampled_from(NAMES).map(lambda n: n + "(")))
def test_fuzz_repr_to_action_returns_an_action_or_our_error(text: str) -> None:
    try:
        action = repr_to_action(text)
    except ActionReprError as exc:
        message = str(exc)
    else:
        assert type(action) in ACTION_TYPES.values()
        assert repr_to_action(repr(action)) == action
        return
    assert message.startswith("repr_to_action: ")


ACTIONS = st.one_of(
    st.builds(cb.ClickAction, st.integers(0, 5000), st.integers(0, 5000)),
    st.builds(cb.DragAction, st.integers(), st.integers(), st.integers(), st.integers(), st.floats(0, 10)),
    st.builds(cb.ScrollAction, st.sampled_from(["up", "down"]), st.integers(0, 10_000)),
    st.builds(cb.TypeAction, st.text()),
    st.builds(cb.KeyAction, st.text()),
    st.builds(cb.HotkeyAction, st.lists(st.text(), max_size=4)),
    st.builds(cb.WaitAction, st.floats(0, 100)),
    st.just(cb.DoneAction()),
)


@settings(max_examples=200, deadline=None)
@given(ACTIONS)
def test_fuzz_every_action_reads_back_from_its_repr(action: Any) -> None:
    assert repr_to_action(repr(action)) == action


# -- every Cua action on the sim, through session.execute_action -------------------------------------


class Desk:
    """A sim session with a window holding a button, a text field and a long list."""

    def __init__(self) -> None:
        self.session = SimSession(width=800, height=600)
        self.sim = self.session.sim
        self.clicks: list[str] = []
        window = Window("Probe", 100, 80, 420, 420)
        self.button = Button("Press", on_click=lambda b: self.clicks.append("press"))
        self.field = TextField("Name")
        self.list = ListView("Rows", [f"row {i}" for i in range(60)])
        window.add(self.button)
        window.add(self.field)
        window.add(self.list, fill=True)
        self.window = self.sim.add_window(window)

    def centre(self, widget: Any) -> tuple[int, int]:
        rect = widget.screen_rect()
        return rect.x + rect.width // 2, rect.y + rect.height // 2

    def act(self, action: Any) -> None:
        run(self.session.execute_action(action))


def test_click_action_presses_the_button() -> None:
    desk = Desk()
    desk.act(cb.ClickAction(*desk.centre(desk.button)))
    assert desk.clicks == ["press"]
    assert desk.sim.provenance.clicks[-1].button == "left"


def test_right_and_middle_click_actions_press_those_buttons() -> None:
    desk = Desk()
    desk.act(cb.RightClickAction(*desk.centre(desk.button)))
    desk.act(cua_types.MiddleClickAction(*desk.centre(desk.button)))
    assert [(c.button, c.count, c.target) for c in desk.sim.provenance.clicks] == [
        ("right", 1, desk.button.ref),
        ("middle", 1, desk.button.ref),
    ]
    assert desk.clicks == []  # neither is a left click


def test_double_click_action_activates_a_row() -> None:
    desk = Desk()
    x, _ = desk.centre(desk.list)
    top = desk.list.screen_rect().y
    desk.act(cb.DoubleClickAction(x, top + 5))
    assert [c.count for c in desk.sim.provenance.clicks] == [1, 2]
    assert desk.list.activations == ["row 0"]


def test_move_to_action_moves_the_pointer_whatever_its_duration() -> None:
    desk = Desk()
    desk.act(cua_types.MoveToAction(x=321, y=123, duration=0.5))
    assert desk.sim.cursor == (321, 123)
    desk.act(cua_types.MoveToAction(x=10, y=20))
    assert desk.sim.cursor == (10, 20)
    assert desk.sim.provenance.clicks == []


def test_drag_action_drags_the_window_by_its_title_bar() -> None:
    desk = Desk()
    before = desk.window.rect
    start = (before.x + 60, before.y + 10)
    desk.act(cb.DragAction(start[0], start[1], start[0] + 150, start[1] + 40))  # Cua's default duration 1.0
    assert (desk.window.rect.x, desk.window.rect.y) == (before.x + 150, before.y + 40)
    desk.act(cb.DragAction(start[0] + 150, start[1] + 40, start[0], start[1], duration=0.0))
    assert (desk.window.rect.x, desk.window.rect.y) == (before.x, before.y)


def test_scroll_action_scrolls_and_goes_up_unless_told() -> None:
    assert cua_actions(cb.ScrollAction(), 800, 600) == [Scroll("up", 1)]
    assert cua_actions(cb.ScrollAction("down", 10**9), 800, 600) == [Scroll("down", 100)]  # at most 100 clicks
    assert cua_actions(cb.ScrollAction("down", 0), 800, 600) == [Scroll("down", 1)]
    desk = Desk()
    desk.act(cb.MoveToAction(*desk.centre(desk.list)))  # Cua's scroll is where the pointer is
    desk.act(cb.ScrollAction(direction="down", amount=300))  # 3 wheel clicks, 3 rows each
    assert desk.list.scroll_top == 9
    desk.act(cb.ScrollAction())  # up, 100 pixels: one click
    assert desk.list.scroll_top == 6


def test_type_key_and_hotkey_actions_edit_the_focused_field() -> None:
    desk = Desk()
    desk.act(cb.ClickAction(*desk.centre(desk.field)))
    desk.act(cb.TypeAction(text="hello"))
    assert desk.field.text == "hello"
    desk.act(cb.KeyAction(key="backspace"))
    assert desk.field.text == "hell"
    desk.act(cb.KeyAction(key="ctrl+a"))  # a chord written as one key, as Cua's agents write it
    desk.act(cb.TypeAction(text="x"))
    assert desk.field.text == "x"
    desk.act(cb.HotkeyAction(keys=["ctrl", "a"]))
    desk.act(cb.TypeAction(text="yz"))
    assert desk.field.text == "yz"
    assert [k.key for k in desk.sim.provenance.keys][-3:] == ["a", "y", "z"]


def test_wait_and_done_actions_change_nothing() -> None:
    desk = Desk()
    frame = desk.sim.frame_key()
    desk.act(cb.WaitAction(seconds=0.01))
    desk.act(cb.WaitAction())
    desk.act(cb.DoneAction())
    assert desk.sim.frame_key() == frame and desk.sim.provenance.clicks == [] and desk.clicks == []


def test_every_cua_action_class_converts() -> None:
    samples = {
        "ClickAction": cb.ClickAction(1, 2),
        "RightClickAction": cb.RightClickAction(1, 2),
        "DoubleClickAction": cb.DoubleClickAction(1, 2),
        "MiddleClickAction": cua_types.MiddleClickAction(1, 2),
        "DragAction": cb.DragAction(1, 2, 3, 4),
        "MoveToAction": cua_types.MoveToAction(1, 2, 0.3),
        "ScrollAction": cb.ScrollAction(),
        "TypeAction": cb.TypeAction("a"),
        "KeyAction": cb.KeyAction("enter"),
        "HotkeyAction": cb.HotkeyAction(["ctrl", "c"]),
        "DoneAction": cb.DoneAction(),
        "WaitAction": cb.WaitAction(0.5),
    }
    assert set(samples) == set(ACTION_TYPES)
    for name, action in samples.items():
        assert cua_actions(action, 800, 600), name


# -- get_snapshot and close_all_windows ----------------------------------------------------------------


def test_get_snapshot_lists_windows_in_pixels_front_first() -> None:
    session = SimSession(width=800, height=600)
    back = session.sim.open_window("Back", 10, 20, 300, 200)
    front = session.sim.open_window("Front", 333, 111, 257, 199)
    snapshot = run(session.get_snapshot())
    assert isinstance(snapshot, Snapshot)
    assert snapshot.windows == [
        WindowSnapshot("process", title="Front", x=333, y=111, width=257, height=199, active=True),
        WindowSnapshot("process", title="Back", x=10, y=20, width=300, height=200, active=False),
    ]
    assert (front.rect.x, back.rect.x) == (333, 10)
    assert run(SimSession(width=640, height=480).get_snapshot()) == Snapshot([])


class Pages(SimSession):
    """A sim whose first window stands for an HTML window, its page answered here."""

    async def execute_javascript(self, handle: int | str, javascript: str) -> Any:
        assert handle == 4242
        return {"url": "file:///tmp/page.html", "html": "<html><body>hi</body></html>"}

    def html_window_handles(self) -> dict[str, int | str]:
        return {self.sim.windows()[-1].id: 4242}


def test_get_snapshot_says_which_windows_are_webviews_with_their_page() -> None:
    session = Pages(width=800, height=600)
    session.sim.open_window("Page", 0, 0, 400, 300)
    session.sim.open_window("Other", 400, 300, 400, 300)
    webview, other = reversed(run(session.get_snapshot()).windows)
    assert (webview.window_type, webview.pid, webview.url, webview.html) == (
        "webview", "4242", "file:///tmp/page.html", "<html><body>hi</body></html>",
    )  # fmt: skip
    assert (other.window_type, other.pid, other.url) == ("process", None, None)


def test_html_window_handles_read_a_backends_html_windows_record() -> None:
    session = SimSession()
    assert session.html_window_handles() == {}
    session.html_windows = {123: SimpleNamespace(wid=0x1C00003), 456: SimpleNamespace(wid=0)}  # type: ignore[attr-defined]
    assert session.html_window_handles() == {"0x1c00003": 123, "0x0": 456}


def test_close_all_windows_on_the_sim_closes_every_window() -> None:
    session = SimSession(width=800, height=600)
    for title in ("A", "B", "C"):
        session.sim.open_window(title)
    run(session.launch("editor"))
    run(session.close_all_windows())
    assert run(session.windows()) == []
    run(session.close_all_windows())  # nothing open: nothing to do


def test_a_window_that_will_not_close_is_named() -> None:
    session = SimSession(width=800, height=600)
    session.sim.open_window("Other")
    session.sim.add_window(Window("Stubborn", 10, 10, 200, 100, closable=False))
    with pytest.raises(CuaError, match="close_all_windows: the window 'Stubborn' did not close"):
        run(session.close_all_windows())


class Managed(SimSession):
    """A session that closes windows by id, as the local one does through the window manager."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.asked: list[str] = []

    async def close_window(self, window_id: str) -> None:
        self.asked.append(window_id)
        if window_id != "w2":
            self.sim.get_window(window_id).close()


def test_close_all_windows_uses_close_window_where_there_is_one() -> None:
    session = Managed(width=800, height=600)
    for title in ("A", "B", "C"):
        session.sim.open_window(title)
    with pytest.raises(CuaError, match=r"1 window\(s\) stayed open after 0.2 s: 'B'"):
        run(session.close_all_windows(timeout=0.2))
    assert sorted(session.asked) == ["w1", "w2", "w3"]  # each asked once


# -- a Cua task's annotations ----------------------------------------------------------------------


def test_cua_session_names_work_as_annotations(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(
        "import cua_bench as cb\n\n"
        "@cb.tasks_config(split='train')\n"
        "def load():\n    return [cb.Task(description='d')]\n\n"
        "@cb.setup_task(split='train')\n"
        "async def start(task_cfg: cb.Task, session: cb.MobileSession) -> None:\n    pass\n\n"
        "@cb.evaluate_task(split='train')\n"
        "async def evaluate(task_cfg: cb.Task, session: cb.DesktopSession) -> list[float]:\n    return [1.0]\n"
    )
    module = cb.load_task_module(tmp_path)
    start = module.function("setup_task", "train")
    assert start is not None
    assert typing.get_type_hints(start)["session"] is cb.MobileSession is cb.Session


# -- on local: a real HTML window and a real app ----------------------------------------------------


def _local_problem() -> str | None:
    from cua_bench.backends.local import unavailable

    return unavailable() or (None if shutil.which("chromium") and shutil.which("xterm") else "needs chromium and xterm")


@pytest.mark.skipif(_local_problem() is not None and not os.environ.get("CI"), reason="local backend unavailable")
def test_snapshot_and_close_all_on_local(root: Path) -> None:
    from cua_bench.backends.local.session import LocalSession

    async def scenario(session: LocalSession) -> None:
        pid = await session.launch_window(html="<p id='p'>page</p>", title="Page", x=50, y=40, width=400, height=300)
        await session.launch("xterm")
        shots = (await session.get_snapshot()).windows
        by_type = {shot.window_type: shot for shot in shots}
        assert set(by_type) == {"webview", "process"}
        page = by_type["webview"]
        assert (page.pid, page.title) == (str(pid), "Page")
        assert page.url is not None and page.url.startswith("file://")
        assert page.html is not None and 'id="p"' in page.html
        assert abs(page.x - 50) <= 40 and abs(page.width - 400) <= 40
        assert sum(shot.active for shot in shots) == 1
        await session.close_all_windows(timeout=10)
        assert await session.windows() == []

    session = LocalSession.start(800, 600)
    try:
        run(scenario(session))
    finally:
        session.close()


def test_cua_image_names_answer_as_cuas_and_an_unknown_one_names_those_there_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cua_bench.images import BENCH_WEB, image

    assert image("BENCH_WEB") == BENCH_WEB
    monkeypatch.setenv("CUA_BENCH_IMAGE_BENCH_WEB", "mine:1")
    assert image("BENCH_WEB") == "mine:1"
    with pytest.raises(KeyError, match="BENCH_OSWORLD, BENCH_WEB"):
        image("BENCH_NOPE")


def test_cua_actions_module_reads_dicts_and_the_short_form_as_cuas_does() -> None:
    from cua_bench.actions import action_to_dict, dict_to_action, parse_action_string, snake_case_to_action
    from cua_bench.types import ActionReprError

    drag = cb.DragAction(from_x=1, from_y=2, to_x=3, to_y=4, duration=0.5)
    assert action_to_dict(drag) == {
        "type": "DragAction",
        "from_x": 1,
        "from_y": 2,
        "to_x": 3,
        "to_y": 4,
        "duration": 0.5,
    }
    assert dict_to_action(action_to_dict(drag)) == drag
    assert dict_to_action({"action_type": "right_click", "x": 5, "y": 6}) == cb.RightClickAction(x=5, y=6)
    assert snake_case_to_action("click(100, 200.5)") == cb.ClickAction(x=100, y=200.5)
    assert snake_case_to_action("scroll(down, 3)") == cb.ScrollAction(direction="down", amount=3)
    assert snake_case_to_action("key(enter)") == cb.KeyAction(key="enter")
    assert snake_case_to_action("hotkey(ctrl+shift+t)") == cb.HotkeyAction(keys=["ctrl", "shift", "t"])
    assert snake_case_to_action("type('a, b')") == cb.TypeAction(text="a, b")
    assert snake_case_to_action("done()") == cb.DoneAction()
    assert parse_action_string("WaitAction(seconds=2)") == cb.WaitAction(seconds=2)
    assert parse_action_string(" wait(2) ") == cb.WaitAction(seconds=2)
    for bad in ["click(1)", "click(x, y)", "scroll(sideways)", "rm(-rf)", "__import__('os')", "click(1, 2, 3)"]:
        with pytest.raises(ActionReprError):
            parse_action_string(bad)
    with pytest.raises(ActionReprError, match="needs y"):
        dict_to_action({"type": "click", "x": 1})  # Cua's would click at (1, 0)
