"""Envs: live environments with their last action and reward so far, and the highlighted one's last
screenshot, fetched on demand from its env server (``session.screenshot``)."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Input, Static

from cua_core import CuaError, RpcClient
from cua_tui.model import Env, Model
from cua_tui.pixels import placeholder, render_png
from cua_tui.screens.common import FilteredTable, ViewScreen, age

__all__ = ["EnvsScreen"]

COLUMNS = [
    ("env", "Env"), ("run", "Run"), ("task", "Task"), ("variant", "Variant"), ("step", "Step"),
    ("action", "Last action"), ("reward", "Reward"), ("age", "Updated"),
]  # fmt: skip
SCREENSHOT_EVERY_S = 2.0


class EnvsScreen(ViewScreen):
    VIEW = "envs"
    TITLE = "Envs"
    BINDINGS: ClassVar[list[BindingType]] = [*ViewScreen.BINDINGS, Binding("s", "screenshot", "Screenshot")]
    DEFAULT_CSS = """
    #envs-row { height: 1fr; }
    #envs { width: 3fr; }
    #screenshot { width: 2fr; border: round $primary; content-align: center middle; }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="filter environments", id="filter")
        with Horizontal(id="envs-row"):
            yield DataTable(id="envs", cursor_type="row", zebra_stripes=True)
            yield Static("no environment highlighted", id="screenshot")
        yield Footer()

    def on_mount(self) -> None:
        self.table = FilteredTable(self.query_one("#envs", DataTable), COLUMNS)
        self.shot_of: tuple[str, int] | None = None  # (env key, step) the pane shows
        self.set_interval(SCREENSHOT_EVERY_S, self._refresh_screenshot)

    def filtered(self) -> FilteredTable:
        return self.table

    def show(self, model: Model) -> None:
        now = self.cua.clock()
        rows = {}
        for env in sorted(model.envs.values(), key=lambda e: e.key):
            rows[env.key] = (
                env.env, env.run, env.task, str(env.variant), str(env.step), env.action, f"{env.reward:.2f}",
                age(now - env.updated),
            )  # fmt: skip
        self.table.sync(rows)
        if not rows:
            self.query_one("#screenshot", Static).update("no live environment: start a run to see its desktops")

    def _selected(self) -> Env | None:
        key = self.table.selected
        return self.model.envs.get(key) if key else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "envs":
            self.action_screenshot()

    def _refresh_screenshot(self) -> None:
        env = self._selected()
        if env is not None and self.shot_of != (env.key, env.step):
            self.action_screenshot()

    def action_screenshot(self) -> None:
        env = self._selected()
        if env is None:
            return
        self.shot_of = (env.key, env.step)
        pane = self.query_one("#screenshot", Static)
        if not self.cua.feeds:
            pane.update(f"{env.key}: live feeds are off, no screenshot fetched")
            return
        self.fetch(env.key, env.address, pane.content_size.width, pane.content_size.height)

    @work(thread=True, exclusive=True, group="screenshot", exit_on_error=False)
    def fetch(self, key: str, address: str, columns: int, rows: int) -> None:
        try:
            with RpcClient(address, timeout=5.0, heartbeat_timeout=5.0, retries=0) as client:
                png = bytes(client.call("session.screenshot", {}, timeout=5.0))
        except (CuaError, OSError, ValueError) as exc:
            self.app.call_from_thread(self._shot, key, f"no screenshot: {exc}")
            return
        images = self.cua.images
        if images:
            self.app.call_from_thread(self._shot, key, render_png(png, columns, rows))
        else:
            import io

            from PIL import Image

            with Image.open(io.BytesIO(png)) as image:
                size = image.size
            why = "this terminal shows no images (run with --images on to draw them in half blocks)"
            self.app.call_from_thread(self._shot, key, placeholder(*size, why))

    def _shot(self, key: str, content: object) -> None:
        if self.is_mounted and self.table.selected == key:
            self.query_one("#screenshot", Static).update(content)  # type: ignore[arg-type]
