"""The app's pieces that need no feeds: the palette, the help, screenshots in cells, run folders, the CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from cua_tui.app import CuaTui, main
from cua_tui.backfill import find_run_folders, read_run
from cua_tui.pixels import render_png
from cua_tui.screens.jobs import JobsScreen
from cua_tui.screens.logs import LogsScreen

pytestmark = pytest.mark.anyio


async def test_the_palette_has_an_entry_for_each_common_action() -> None:
    app = CuaTui(runs=[], feeds=False)
    async with app.run_test() as pilot:
        await pilot.press("2")
        assert isinstance(app.screen, JobsScreen)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {
            "Show computers",
            "Show jobs",
            "Show runs",
            "Show envs",
            "Help",
            "Open logs",
            "Cancel job",
            "Filter",
        } <= titles
        app.push_screen(LogsScreen("0123456789", 2))
        await pilot.pause()
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Follow logs", "Pause logs", "Search logs", "Next rank"} <= titles
        # The help lists the keys of the screen it is opened on.
        help_text = app.help_text(app.screen)
        assert "| p | Pause |" in help_text and "| / | Search |" in help_text


def test_an_update_from_a_worker_before_the_first_screen_or_after_the_last_is_dropped() -> None:
    # Feed workers post from threads: in CI a controller update landed while the app was exiting
    # and raised ScreenStackError out of the handler, failing the run.
    app = CuaTui(runs=[], feeds=False)
    assert not app.screen_stack
    app._redraw({"computers", "jobs", "runs"})


def test_a_screenshot_is_drawn_two_pixels_a_cell() -> None:
    image = Image.new("RGB", (40, 20), (255, 0, 0))
    image.paste((0, 0, 255), (0, 10, 40, 20))  # the bottom half blue
    png = io.BytesIO()
    image.save(png, format="PNG")
    text = render_png(png.getvalue(), columns=20, rows=5)
    lines = text.plain.split("\n")
    assert len(lines) == 5 and {len(line) for line in lines} == {20}
    first, last = text.spans[0].style, text.spans[-1].style
    assert first.color.triplet.hex == "#ff0000" and last.bgcolor.triplet.hex == "#0000ff"  # type: ignore[union-attr]


def test_run_folders_without_a_marker_are_read_by_their_name(tmp_path: Path) -> None:
    """Folders from before run.json existed still show, under their folder's name."""
    old = tmp_path / "runs" / "2026-old"
    old.mkdir(parents=True)
    result = {"key": "sim/a/test/0", "task": "sim/a", "variant": 0, "split": "test", "status": "ok", "reward": 1.0}
    (old / "episodes.jsonl").write_text(json.dumps(result) + "\n" + '{"key": "torn')  # a line cut by a kill
    (old / "summary.json").write_text(json.dumps({"complete": True, "episodes": 1}))
    (tmp_path / "runs" / "not-a-run").mkdir()
    assert find_run_folders([tmp_path / "runs"]) == [old]
    run = read_run(old)
    assert run is not None and (run.id, run.kind, run.status, run.done, run.success_rate) == (
        "2026-old",
        "bench",
        "finished",
        1,
        1.0,
    )


def test_a_missing_runs_folder_is_refused_by_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["--runs", str(tmp_path / "nope")]) == 2
    assert f"--runs {tmp_path / 'nope'}: no such folder" in capsys.readouterr().err


def test_a_bad_bus_address_is_refused_in_one_line_not_a_worker_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["--runs", str(tmp_path), "--bus", "garbage://x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cua-tui: --bus 'garbage://x' is not a bus address: write ipc://PATH or tcp://HOST:PORT")
    assert "Traceback" not in err and err.count("\n") == 1


def test_the_exit_status_says_when_the_app_stopped_on_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cua_tui.app import CuaTui

    def stopped_on_an_error(self: CuaTui) -> None:
        self._return_code = 1  # what Textual sets when a worker's exception ends the app

    monkeypatch.setattr(CuaTui, "run", stopped_on_an_error)
    assert main(["--runs", str(tmp_path), "--bus", "tcp://127.0.0.1:9"]) == 1
