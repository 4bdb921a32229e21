"""Cua Bench's HTML task windows on ``local``: Chromium app windows driven over the DevTools protocol.

A task written the way Cua writes its click-button example (our own): setup opens an HTML window,
the oracle clicks its button with ``click_element`` (a real click through XTest), evaluate reads
the page with ``execute_javascript`` and returns ``[1.0]`` or ``[0.0]``. Needs Xvfb, openbox and
Chromium; without them the tests skip, unless CI is set (there a missing one is a broken image).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.html_tasks import CLICK_SUBMIT

import cua_bench as cb
from cua_bench.backends.local import unavailable
from cua_bench.checks import check_task
from cua_bench.html_windows import ElementNotFound, JavaScriptError
from cua_core.actions import Click, from_pixels

PROBLEM = unavailable() or (None if shutil.which("chromium") else "chromium is not installed")
pytestmark = pytest.mark.skipif(
    PROBLEM is not None and not os.environ.get("CI"), reason=f"HTML windows on local unavailable: {PROBLEM}"
)

PROBE = """
<div style="margin: 0; padding: 0">
  <button id="a" style="position: absolute; left: 30px; top: 40px; width: 100px; height: 40px"
          onclick="window.__clicks = (window.__clicks || 0) + 1">A</button>
  <button id="b" style="position: absolute; left: 200px; top: 120px; width: 80px; height: 30px"
          oncontextmenu="window.__right = true; return false">B</button>
  <select id="pick" style="position: absolute; left: 30px; top: 200px; width: 120px">
    <option>one</option><option disabled>off</option><option>two</option><option>three</option>
  </select>
</div>
"""


@dataclass
class ClickAction:
    """Cua's action, as its tasks build one (pixels)."""

    x: int
    y: int


def test_a_cua_style_html_task_on_local_oracle_one_nothing_zero(tmp_path: Path, root: Path) -> None:
    task = tmp_path / "click-submit"
    task.mkdir()
    (task / "main.py").write_text(textwrap.dedent(CLICK_SUBMIT))
    with cb.make(str(task), backend="local", width=640, height=480, observes="none") as env:
        obs, _ = env.reset()
        assert (obs["width"], obs["height"]) == (800, 600)
        assert env.evaluate() == 0.0
        windows = env.session("windows")
        assert windows[0]["title"] == "Send form" and windows[0]["focused"]
        solved = env.solve()
        assert solved["reward"] == 1.0
        env.reset()  # the window of the last episode is gone, a new one is not clicked
        assert env.evaluate() == 0.0
        assert [w["title"] for w in env.session("windows")] == ["Send form"]
    # cua_bench.check_task: oracle 1 and doing nothing 0 on every variant, on local
    assert check_task(task, backend="local") == []


def test_the_window_calls_in_process(root: Path) -> None:
    from cua_bench.backends.local.session import LocalSession

    async def scenario(session: LocalSession) -> None:
        pid = await session.launch_window(html=PROBE, title="Probe", x=100, y=80, width=400, height=300)
        assert isinstance(pid, int)
        assert await session.execute_javascript(pid, "document.title") == "Probe"
        assert await session.execute_javascript(pid, "({n: 1 + 1, s: 'x', l: [true, null]})") == {
            "n": 2, "s": "x", "l": [True, None],
        }  # fmt: skip
        assert await session.execute_javascript(pid, "new Promise(r => setTimeout(() => r(7), 10))") == 7
        assert await session.execute_javascript(pid, "undefined") is None
        assert await session.execute_javascript(pid, "let q = 3; q * 2") == 6  # a script's last value
        with pytest.raises(JavaScriptError, match=r"JavaScript threw: Error: boom"):
            await session.execute_javascript(pid, "throw new Error('boom')")
        with pytest.raises(JavaScriptError, match=r"ReferenceError: nope is not defined"):
            await session.execute_javascript(pid, "nope.x")
        with pytest.raises(JavaScriptError, match="JavaScript threw"):
            await session.execute_javascript(pid, "Promise.reject(new Error('later'))")

        inner = await session.get_element_rect(pid, "#a")
        assert inner == {"x": 30, "y": 40, "width": 100, "height": 40}
        screen = await session.get_element_rect(pid, "#a", space="screen")
        assert screen is not None
        origin = await session._viewport_origin(pid)
        assert (screen["x"], screen["y"]) == (30 + origin[0], 40 + origin[1])
        assert 100 <= origin[0] <= 110 and 80 <= origin[1] <= 120  # where it was asked, inside openbox's frame
        assert await session.get_element_rect(pid, "#missing", timeout=0.1) is None

        await session.click_element(pid, "#a")
        assert await session.execute_javascript(pid, "window.__clicks") == 1
        centre = (int(screen["x"] + 50), int(screen["y"] + 20))
        await session.execute_action(ClickAction(*centre))  # Cua's action object, pixels
        await session.execute_action(Click(from_pixels(*centre, session.width, session.height)))  # ours
        assert await session.execute_javascript(pid, "window.__clicks") == 3
        await session.right_click_element(pid, "#b")
        assert await session.execute_javascript(pid, "window.__right") is True

        # A drop-down: clicked open, the click returns once its popup is open; an option is chosen
        # through the popup (Home, Down past the disabled one, Enter) and returns once it has closed.
        is_open = "document.getElementById('pick').matches(':open')"
        await session.click_element(pid, "#pick")
        assert await session.execute_javascript(pid, is_open) is True
        await session.click_element(pid, "#pick option:nth-child(4)")
        assert await session.execute_javascript(pid, is_open) is False
        assert await session.execute_javascript(pid, "document.getElementById('pick').value") == "three"
        await session.click_element(pid, "#pick option:nth-child(3)")  # the popup closed: clicked open first
        assert await session.execute_javascript(pid, "document.getElementById('pick').value") == "two"
        assert await session.execute_javascript(pid, is_open) is False

        site = session.tmp / "site"  # folder=: its index.html, on the machine of the env
        site.mkdir()
        (site / "index.html").write_text("<html><body><p id='p'>folder page</p></body></html>")
        other = await session.launch_window(folder=str(site), title="From a folder", width=300, height=200)
        assert other != pid
        assert await session.execute_javascript(other, "document.getElementById('p').textContent") == "folder page"
        titled = {w["title"]: w for w in await session.windows()}
        assert set(titled) == {"Probe", "From a folder"} and titled["From a folder"]["focused"]
        left, top = await session._viewport_origin(other)
        assert abs(left - 250) <= 2 and abs(top - 200) <= 30  # centred on the 800x600 screen

        with pytest.raises(ElementNotFound, match="no element matches '#missing'"):
            await session.click_element(pid, "#missing")
        with pytest.raises(JavaScriptError, match="no HTML window 12345"):
            await session.execute_javascript(12345, "1")
        await session.reset()
        with pytest.raises(JavaScriptError, match=r"no HTML window .*end at reset"):
            await session.execute_javascript(pid, "1")

    session = LocalSession.start(800, 600)
    try:
        asyncio.run(scenario(session))
    finally:
        session.close()
