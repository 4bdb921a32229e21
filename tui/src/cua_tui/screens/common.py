"""What the screens share: tables that update only the cells that changed, a filter, the status line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Input

if TYPE_CHECKING:
    from cua_tui.app import CuaTui
    from cua_tui.model import Model

__all__ = ["FilteredTable", "ViewScreen", "age", "app_of", "fmt_float", "fmt_pct"]


def app_of(screen: Screen[Any]) -> CuaTui:
    """The screen's app as what it is: every screen here runs in a CuaTui (its model, link, clock)."""
    return cast("CuaTui", screen.app)


def age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    if seconds < 86400:
        return f"{seconds / 3600:.1f}h"
    return f"{seconds / 86400:.1f}d"


def fmt_pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def fmt_float(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


class FilteredTable:
    """A DataTable kept equal to a mapping of row key -> cells, touching only what differs.

    Rows stay in the order they first appeared; a filter hides the rows that do not contain it.
    """

    def __init__(self, table: DataTable[Any], columns: Sequence[tuple[str, str]]) -> None:
        self.table = table
        self.keys = [key for key, _ in columns]
        for key, label in columns:
            table.add_column(label, key=key)
        self.shown: dict[str, tuple[Any, ...]] = {}
        self.filter = ""

    def sync(self, rows: Mapping[str, Sequence[Any]]) -> None:
        wanted = {k: tuple(v) for k, v in rows.items() if self._matches(v)}
        for key in [k for k in self.shown if k not in wanted]:
            self.table.remove_row(key)
            del self.shown[key]
        for key, cells in wanted.items():
            old = self.shown.get(key)
            if old is None:
                self.table.add_row(*cells, key=key)
            elif old != cells:
                for column, before, after in zip(self.keys, old, cells, strict=True):
                    if before != after:
                        self.table.update_cell(key, column, after)
            self.shown[key] = cells

    def _matches(self, cells: Iterable[Any]) -> bool:
        if not self.filter:
            return True
        needle = self.filter.lower()
        return any(needle in str(cell).lower() for cell in cells)

    @property
    def selected(self) -> str | None:
        if not self.shown or self.table.cursor_row < 0 or self.table.row_count == 0:
            return None
        row_key, _ = self.table.coordinate_to_cell_key(Coordinate(self.table.cursor_row, 0))
        return row_key.value


class ViewScreen(Screen[None]):
    """A screen that shows one view of the model; the app calls ``show`` when that view changed."""

    VIEW = ""
    AUTO_FOCUS = "DataTable"
    # The filter box shows only when asked for (/), so keys go to the table, not into the box.
    DEFAULT_CSS = "ViewScreen #filter { display: none; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def show(self, model: Model) -> None:
        raise NotImplementedError

    @property
    def cua(self) -> CuaTui:
        return app_of(self)

    @property
    def model(self) -> Model:
        return self.cua.model

    def on_screen_resume(self) -> None:
        self.show(self.model)

    # -- filter (screens with a table and an Input#filter) -------------------------------------

    def filtered(self) -> FilteredTable | None:
        return None

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.value = ""
        box.display = False
        self._set_filter("")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self._set_filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            table = self.filtered()
            if table is not None:
                table.table.focus()

    def _set_filter(self, text: str) -> None:
        table = self.filtered()
        if table is not None:
            table.filter = text
            self.show(self.model)
