"""SimSession: the task Session over the sim desktop."""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image

from cua_bench.nodes import center, find
from cua_bench.session import NotSupported, Session
from cua_bench.sim import SimDesktop, SimSession
from cua_core.actions import Click, Pinch, Point, TypeText


def test_session_implements_the_session_contract() -> None:
    assert issubclass(SimSession, Session)
    SimSession()  # instantiable: every abstract method is implemented


def test_session_round_trip_through_launch_apply_tree_and_files() -> None:
    async def run() -> None:
        session = SimSession(width=800, height=600)
        assert (session.width, session.height) == (800, 600)
        await session.write_file("/home/user/todo.txt", "milk")
        assert await session.read_file("/home/user/todo.txt") == "milk"
        assert await session.read_bytes("~/todo.txt") == b"milk"
        window_id = await session.launch("editor", path="/home/user/todo.txt")
        windows = await session.windows()
        assert windows[0]["id"] == window_id and windows[0]["app"] == "editor" and windows[0]["focused"]
        assert all(0 <= v <= 1000 for v in windows[0]["bounds"])
        editor = await session.find(role="textbox", name="Editor")
        results = await session.apply([Click(center(editor)), TypeText(" and eggs"), Pinch(Point(5, 5), 2.0)])
        assert results[:2] == [None, None] and isinstance(results[2], str)
        tree = await session.accessibility_tree()
        assert "eggs" in find(tree, role="textbox", name="Editor")["value"]
        png = await session.screenshot()
        assert Image.open(io.BytesIO(png)).size == (800, 600)
        with pytest.raises(NotSupported, match="no shell"):
            await session.run_command("ls")
        with pytest.raises(FileNotFoundError):
            await session.read_file("/nope")

    asyncio.run(run())


def test_session_wraps_a_given_desktop() -> None:
    desktop = SimDesktop(1024, 768, seed=3)
    session = SimSession(desktop)
    assert session.sim is desktop and (session.width, session.height) == (1024, 768)
