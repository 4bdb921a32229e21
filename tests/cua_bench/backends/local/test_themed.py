"""Cua's "simulated" provider on ``local``: a themed desktop in one full-screen Chromium page, its HTML
task windows inside it. A task's flow as Cua writes it (setup opens windows, the oracle clicks by
selector or by a raw ``ClickAction`` at the element's screen rect, evaluate asks the page), the look
read back from the screen's pixels, the windows' chrome driven by real XTest input (raise, drag,
close, minimise), and nothing of an episode left in the next. Needs Xvfb, openbox and Chromium;
without them the tests skip, unless CI is set. One session serves the module (Chromium starts once).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.folder_server import serve_folder
from support.local_envs import marked

from cua_bench.backends.local import unavailable
from cua_bench.html_windows import JavaScriptError
from cua_core.actions import Click, Drag, TypeText, from_pixels

PROBLEM = unavailable() or (None if shutil.which("chromium") else "chromium is not installed")
pytestmark = pytest.mark.skipif(
    PROBLEM is not None and not os.environ.get("CI"), reason=f"the themed desktop on local unavailable: {PROBLEM}"
)

WIDTH, HEIGHT = 1024, 768
# A form whose page colour tells the windows apart on the screen.
FORM = """
<body style="margin: 0; background: {colour}">
  <button id="go" style="position: absolute; left: 40px; top: 50px; width: 120px; height: 40px"
          onclick="window.__clicks = (window.__clicks || 0) + 1">Go</button>
  <input id="text" style="position: absolute; left: 40px; top: 200px; width: 200px">
</body>
"""
RED, GREEN = (255, 208, 208), (208, 255, 208)


@dataclass
class ClickAction:
    """Cua's action, as its tasks build one (pixels)."""

    x: int
    y: int


@pytest.fixture(scope="module")
def session(root: Path) -> Iterator[Any]:
    from cua_bench.backends.local.session import LocalSession

    session = LocalSession.start(WIDTH, HEIGHT)
    try:
        yield session
    finally:
        session.close()


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def form(colour: tuple[int, int, int]) -> str:
    return FORM.format(colour="rgb({}, {}, {})".format(*colour))


def pixel(session: Any, x: float, y: float) -> tuple[int, ...]:
    return tuple(int(v) for v in session.frame()[int(y), int(x)])


async def drawn(session: Any, x: float, y: float, colour: tuple[int, ...], timeout: float = 15.0) -> tuple[int, ...]:
    """The pixel once it shows ``colour``, or as it is after ``timeout``: a busy Chromium repaints after
    the settle's grace has passed (the next observation shows it, not this one)."""
    deadline = time.monotonic() + timeout
    while (now := pixel(session, x, y)) != colour and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return now


async def centre(session: Any, handle: int, selector: str) -> tuple[int, int]:
    rect = await session.get_element_rect(handle, selector, space="screen")
    assert rect is not None, selector
    return int(rect["x"] + rect["width"] / 2), int(rect["y"] + rect["height"] / 2)


async def chrome_centre(session: Any, handle: int, part: str) -> tuple[int, int]:
    """The screen centre of a part of a window's chrome (``.bar``, ``.b-close``...) in the desktop page."""
    found = await session.themed.call(
        f"(() => {{ const r = document.querySelector('.win[data-handle=\"{handle}\"] {part}').getBoundingClientRect(); "
        "return [r.left + r.width / 2, r.top + r.height / 2]; })()"
    )
    return int(found[0]), int(found[1])


def at(session: Any, x: float, y: float) -> Any:
    return from_pixels(x, y, session.width, session.height)


def theme_of(session: Any) -> Any:
    """The session's themed desktop, read afresh (a type checker keeps what an earlier assert said)."""
    return session.themed


def left_of(root: Path, needle: str) -> list[int]:
    """Live processes of the environments under ``root`` whose marker names ``needle``."""
    found = []
    for pid in marked(root):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if needle.encode() in environ:
            found.append(pid)
    return found


@pytest.mark.parametrize("theme", ["macos", "windows"])
def test_a_cua_task_on_the_simulated_desktop(session: Any, theme: str) -> None:
    async def scenario() -> None:
        await session.use_theme(theme)
        await session.reset()
        assert await session.windows() == []
        frame = session.frame()
        assert frame.shape == (HEIGHT, WIDTH, 3)
        if theme == "macos":  # a light menu bar across the top, the wallpaper under it
            bar, below = frame[3:20, 200:800], frame[40:60, 200:800]
        else:  # a light taskbar across the bottom
            bar, below = frame[HEIGHT - 40 : HEIGHT - 6, 20:300], frame[HEIGHT - 90 : HEIGHT - 60, 20:300]
        assert np.median(bar) > 200 and np.median(below) < 170, (np.median(bar), np.median(below))
        assert np.ptp(np.median(bar, axis=(0, 1))) < 40  # grey, not a colour

        first = await session.launch_window(html=form(RED), title="First", x=100, y=100, width=420, height=300)
        second = await session.launch_window(html=form(GREEN), title="Second", width=420, height=300)
        assert isinstance(first, int) and isinstance(second, int) and first != second
        listed = await session.windows()
        assert [(w["title"], w["focused"]) for w in listed] == [("Second", True), ("First", False)]
        assert listed[0]["id"] == str(second) and set(listed[0]) == {"id", "title", "app", "bounds", "focused"}
        left, top, right, bottom = listed[1]["bounds"]  # the outer frame, as the plain windows' bounds
        assert (round(left * WIDTH / 1000), round(top * HEIGHT / 1000)) == (100, 100)
        assert (round((right - left) * WIDTH / 1000), round((bottom - top) * HEIGHT / 1000)) == (420, 300)
        # Centred in the work area; the page sits under the title bar.
        origin = await session._viewport_origin(second)
        assert abs(origin[0] - (WIDTH - 420) / 2) <= 2 and 0 < origin[1] - (HEIGHT - 300) / 2 < 60, origin

        # The oracle's two ways to click, on the window in front.
        await session.click_element(second, "#go")
        assert await session.execute_javascript(second, "window.__clicks") == 1
        x, y = await centre(session, second, "#go")
        await session.execute_action(ClickAction(x, y))
        assert await session.execute_javascript(second, "window.__clicks") == 2
        assert await session.execute_javascript(first, "window.__clicks || 0") == 0

        # Overlap: the front window covers the back one; a click on the back one's page raises it.
        overlap = (origin[0] + 20, origin[1] + 20)  # inside both windows' pages
        assert await drawn(session, *overlap, GREEN) == GREEN
        await session.click_element(first, "#go")
        assert await drawn(session, *overlap, RED) == RED
        assert [(w["title"], w["focused"]) for w in await session.windows()] == [("First", True), ("Second", False)]
        assert await session.execute_javascript(first, "window.__clicks") == 1

        # The keyboard goes to the page in front.
        await session.click_element(first, "#text")
        await session.execute_action(TypeText("hello"))
        assert await session.execute_javascript(first, "document.getElementById('text').value") == "hello"

        await session.reset()  # no window, no handle, the desktop still drawn
        assert await session.windows() == []
        with pytest.raises(JavaScriptError, match=r"no HTML window .*end at reset"):
            await session.execute_javascript(second, "1")
        assert np.median(session.frame()[3:20, 200:800] if theme == "macos" else session.frame()[-40:-6, 20:300]) > 200

    run(scenario())


def test_the_window_chrome_answers_real_input(session: Any) -> None:
    async def scenario() -> None:
        await session.use_theme("windows")
        await session.reset()
        outer = await session.launch_window(html=form(RED), title="Outer", x=60, y=80, width=400, height=300)
        inner = await session.launch_window(
            html=form(GREEN), title="Inner", x=520, y=80, width=400, height=300, use_inner_size=True
        )
        # Cua's width/height: the whole window by default, the page's size with use_inner_size.
        assert await session.execute_javascript(inner, "[innerWidth, innerHeight]") == [400, 300]
        page_width, page_height = await session.execute_javascript(outer, "[innerWidth, innerHeight]")
        assert 390 <= page_width < 400 and 240 < page_height < 300

        # The title bar drags the window (press, move, release through XTest).
        before = await session._viewport_origin(outer)
        bar = await chrome_centre(session, outer, ".title")
        await session.apply([Drag(at(session, *bar), at(session, bar[0] + 150, bar[1] + 120))])
        await session.settle()
        after = await session._viewport_origin(outer)
        assert (after[0] - before[0], after[1] - before[1]) == (150, 120)
        await session.click_element(outer, "#go")  # the rect follows the window
        assert await session.execute_javascript(outer, "window.__clicks") == 1

        # Minimise, then restore from the taskbar; close with the title bar's button.
        await session.apply([Click(at(session, *await chrome_centre(session, outer, ".b-minimize")))])
        await session.settle()
        assert [w["title"] for w in await session.windows()] == ["Inner"]
        with pytest.raises(JavaScriptError, match="not on the screen"):
            await session._viewport_origin(outer)
        entry = await session.themed.call(
            f"(() => {{ const r = document.querySelector('.taskbar .window[data-handle=\"{outer}\"]')"
            ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        await session.apply([Click(at(session, *entry))])
        await session.settle()
        assert [w["title"] for w in await session.windows()] == ["Outer", "Inner"]
        await session.apply([Click(at(session, *await chrome_centre(session, inner, ".b-close")))])
        await session.settle()
        assert [w["title"] for w in await session.windows()] == ["Outer"]
        with pytest.raises(JavaScriptError, match=f"HTML window {inner} was closed"):
            await session.execute_javascript(inner, "1")
        await session.close_window(str(outer))  # the session's own calls, by windows()'s id
        assert await session.windows() == []

    run(scenario())


def test_javascript_runs_in_the_window_page(session: Any, tmp_path: Path) -> None:
    async def scenario() -> None:
        await session.use_theme("macos")
        await session.reset()
        handle = await session.launch_window(html="<p id='p'>fragment</p>", title="Probe", width=300, height=200)
        assert await session.execute_javascript(handle, "document.title") == "Probe"
        assert await session.execute_javascript(handle, "typeof window.cua") == "undefined"  # not the desktop's
        assert await session.execute_javascript(handle, "document.getElementById('p').textContent") == "fragment"
        assert await session.execute_javascript(handle, "new Promise(r => setTimeout(() => r(7), 10))") == 7
        assert await session.execute_javascript(handle, "({n: 1 + 1, l: [true, null]})") == {"n": 2, "l": [True, None]}
        assert await session.execute_javascript(handle, "undefined") is None
        with pytest.raises(JavaScriptError, match=r"JavaScript threw: Error: boom"):
            await session.execute_javascript(handle, "throw new Error('boom')")
        with pytest.raises(JavaScriptError, match="JavaScript threw"):
            await session.execute_javascript(handle, "Promise.reject(new Error('later'))")
        font = await session.execute_javascript(handle, "getComputedStyle(document.body).fontFamily")
        assert "Helvetica" in font  # a fragment gets the look's font

        # A page of another site (a process of its own) and a folder's index.html.
        (tmp_path / "index.html").write_text(
            "<html><body><button id='x' onclick='window.hit = 1'>X</button></body></html>"
        )
        with serve_folder(tmp_path) as url:
            web = await session.launch_window(url + "/index.html", title="Web", x=660, y=300, width=340, height=240)
            assert await session.execute_javascript(web, "[document.title, location.origin]") == ["Web", url]
            await session.click_element(handle, "#p")  # the other window in front, then the web page by a click
            await session.click_element(web, "#x")
            assert await session.execute_javascript(web, "window.hit") == 1
            assert (await session.windows())[0]["title"] == "Web"
            await session.execute_javascript(web, "localStorage.setItem('w', '1'); 1")
        folder = await session.launch_window(folder=str(tmp_path), title="Folder", x=50, y=400, width=300, height=200)
        assert await session.execute_javascript(folder, "document.getElementById('x').textContent") == "X"
        await session.execute_javascript(handle, "localStorage.setItem('k', '1'); window.name = 'left over'; 1")

        pid = session.themed.proc.pid
        await session.reset()  # the same Chromium, a fresh page: nothing stored, no script state
        assert session.themed.proc.pid == pid
        again = await session.launch_window(html="<p>again</p>", title="Again")
        assert await session.execute_javascript(again, "[localStorage.length, window.name]") == [0, ""]
        with serve_folder(tmp_path) as url:
            web = await session.launch_window(url + "/index.html", title="Web again")
            assert await session.execute_javascript(web, "localStorage.getItem('w')") is None

    run(scenario())


def test_themes_and_errors(session: Any) -> None:
    async def scenario() -> None:
        with pytest.raises(ValueError, match="unknown theme 'beos'"):
            await session.use_theme("beos")
        for theme, look in [("win98", "classic"), ("linux", "linux"), ("ios", "ios"), ("win10", "win10")]:
            await session.use_theme(theme)
            assert await session.themed.call("document.documentElement.dataset.look") == look
        await session.reset()
        with pytest.raises(JavaScriptError, match="no HTML window 12345"):
            await session.execute_javascript(12345, "1")

    run(scenario())


def test_back_to_plain_windows_a_resize_and_nothing_left(root: Path) -> None:
    from cua_bench.backends.local.session import LocalSession

    async def scenario(session: LocalSession) -> None:
        await session.use_theme("macos")
        kiosk = session.themed
        assert kiosk is not None
        await session.resize(640, 480)  # a task's own screen size: a new display, the desktop started again on it
        await session.reset()
        assert session.themed is not None and session.themed is not kiosk
        assert session.frame().shape == (480, 640, 3) and np.median(session.frame()[3:20, 100:500]) > 200
        handle = await session.launch_window(html=form(RED), title="Small", width=300, height=200)
        await session.click_element(handle, "#go")
        assert await session.execute_javascript(handle, "window.__clicks") == 1
        await session.use_theme(None)  # plain windows again: the desktop page is gone
        assert theme_of(session) is None and await session.windows() == []
        assert left_of(root, f"{session.root}/desktop") == []
        await session.use_theme("linux")

    session = LocalSession.start(800, 600)
    try:
        asyncio.run(scenario(session))
    finally:
        session.close()
    assert left_of(root, f"={session.root}") == []
