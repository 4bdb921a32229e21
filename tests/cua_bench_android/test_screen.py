"""The screen: its size from ``wm size`` (physical, or the override), and ``screencap -p``'s PNG as frames.

``wm size``'s lines follow its documented output; fixtures/screen.png is a PNG made here with pillow at a
phone's size (1080x2400), standing for what ``screencap -p`` writes: no device produced either.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from PIL import Image

from cua_bench import BackendError
from cua_bench_android import AndroidSession, ScreenError, parse_wm_size

if TYPE_CHECKING:  # the fixture's class, for annotations only: pytest imports conftest files by itself
    from conftest import FakeAdb

FIXTURES = Path(__file__).parent / "fixtures"
SCREENCAP = ["-s", "emulator-5554", "exec-out", "screencap -p"]


def png(path: Path, size: tuple[int, int]) -> Path:
    image = Image.new("RGB", size, (250, 250, 250))
    image.paste((26, 115, 232), (0, 0, size[0], size[1] // 40))
    image.save(path)
    return path


@pytest.mark.parametrize(
    ("said", "size"),
    [
        ("Physical size: 1080x2400\n", (1080, 2400)),
        ("Physical size: 1440x3120\nOverride size: 1080x2340\n", (1080, 2340)),  # the forced size is what input uses
        ("Physical size: 720x1280\r\n", (720, 1280)),  # an old adb's shell, with a terminal's line ends
    ],
)
def test_wm_size(said: str, size: tuple[int, int]) -> None:
    assert parse_wm_size(said) == size


@pytest.mark.parametrize("said", ["", "Physical size: 0x0\n", "cmd: Can't find service: window\n"])
def test_wm_size_without_a_size_is_an_error_quoting_it(said: str) -> None:
    with pytest.raises(ScreenError, match="`wm size` named no screen size"):
        parse_wm_size(said)


def test_a_session_has_the_devices_size_whatever_was_asked(adb: FakeAdb) -> None:
    adb.load(adb.connect("wm_size_override.txt"))
    session = AndroidSession.connect(str(adb.path))
    assert (session.width, session.height) == (1080, 2340)
    assert adb.calls() == [["devices", "-l"], ["-s", "emulator-5554", "shell", "wm size"]]
    assert session.os_type == "android" and session.platform == "mobile"


def test_a_device_with_no_window_manager_answer_is_a_backend_error(adb: FakeAdb) -> None:
    adb.load(adb.devices(), adb.shell("wm size", stderr="cmd: Can't find service: window\n", exit=20))
    with pytest.raises(BackendError, match=r"Android device 'emulator-5554': `wm size` named no screen size: ''"):
        AndroidSession.connect(str(adb.path))


def test_the_screenshot_is_screencaps_png_as_it_came(adb: FakeAdb) -> None:
    adb.load(adb.connect(), adb.entry(SCREENCAP, file="screen.png"))
    session = AndroidSession.connect(str(adb.path))
    assert asyncio.run(session.screenshot()) == (FIXTURES / "screen.png").read_bytes()  # not decoded, not re-encoded
    adb.check()


def test_the_frame_is_the_screens_rgb_pixels(adb: FakeAdb) -> None:
    adb.load(adb.connect(), adb.entry(SCREENCAP, file="screen.png"))
    frame = AndroidSession.connect(str(adb.path)).frame()
    assert frame.shape == (2400, 1080, 3) and frame.dtype == np.uint8
    assert tuple(frame[30, 500]) == (26, 115, 232)  # the status bar
    assert tuple(frame[250, 500]) == (232, 240, 254)  # the search bar
    assert tuple(frame[1500, 500]) == (250, 250, 250)


def test_a_capture_at_the_panels_resolution_is_scaled_to_the_forced_size(adb: FakeAdb, tmp_path: Path) -> None:
    adb.load(adb.connect("wm_size_override.txt"), adb.entry(SCREENCAP, file=png(tmp_path / "s.png", (1440, 3120)),
                                                            repeat=True))  # fmt: skip
    session = AndroidSession.connect(str(adb.path))
    assert session.frame().shape == (2340, 1080, 3)
    with Image.open(io.BytesIO(asyncio.run(session.screenshot()))) as shown:
        assert (shown.format, shown.size) == ("PNG", (1080, 2340))


def test_a_turned_screen_is_an_error_that_says_so(adb: FakeAdb, tmp_path: Path) -> None:
    adb.load(adb.connect(), adb.entry(SCREENCAP, file=png(tmp_path / "s.png", (2400, 1080)), repeat=True))
    session = AndroidSession.connect(str(adb.path))
    with pytest.raises(ScreenError, match=r"the device's screen is 2400x1080 now, and the session started at "
                                          r"1080x2400: it turned \(lock its rotation"):  # fmt: skip
        session.frame()
    with pytest.raises(ScreenError, match="it turned"):
        asyncio.run(session.screenshot())


def test_a_capture_that_is_not_an_image_quotes_what_came(adb: FakeAdb) -> None:
    adb.load(adb.connect(), adb.entry(SCREENCAP, "Error: failed to capture screen\n"))
    session = AndroidSession.connect(str(adb.path))
    with pytest.raises(ScreenError, match=r"`screencap -p` gave no PNG \(it said 'Error: failed to capture screen'\)"):
        session.frame()
