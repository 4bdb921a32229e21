"""Computers: every host of the pool, its state, platform, load, accelerators and spaces."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import DataTable, Footer, Header, Input, Static

from cua_tui.model import Model
from cua_tui.screens.common import FilteredTable, ViewScreen

__all__ = ["ComputersScreen"]

COLUMNS = [
    ("name", "Computer"), ("state", "State"), ("platform", "OS/arch"), ("cpus", "CPUs"), ("memory", "Memory"),
    ("load", "Load"), ("accelerators", "Accelerators"), ("spaces", "Spaces"), ("jobs", "Jobs"),
]  # fmt: skip


def _row(host: Any) -> tuple[str, ...]:
    accelerators = ", ".join(host.accelerators) or "-"
    if host.gpus:
        accelerators += f" ({len(host.gpus)} GPU)"
    state = host.state if not host.reason else f"{host.state}: {host.reason}"
    return (
        host.name,
        state,
        f"{host.os or '?'}/{host.arch or '?'}",
        str(host.cpus or "?"),
        f"{host.memory / 2**30:.0f} GiB" if host.memory else "?",
        f"{host.load:.2f}",
        accelerators,
        f"{host.spaces}/{host.max_spaces}",
        ", ".join(host.jobs) or "-",
    )


class ComputersScreen(ViewScreen):
    VIEW = "computers"
    TITLE = "Computers"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status")
        yield Input(placeholder="filter computers", id="filter")
        yield DataTable(id="hosts", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.table = FilteredTable(self.query_one("#hosts", DataTable), COLUMNS)

    def filtered(self) -> FilteredTable:
        return self.table

    def show(self, model: Model) -> None:
        self.query_one("#status", Static).update(self.cua.controller_status)
        self.table.sync({host.id: _row(host) for host in sorted(model.hosts.values(), key=lambda h: h.name)})
