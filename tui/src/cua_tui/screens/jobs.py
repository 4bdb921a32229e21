"""Jobs: state, nodes, attempts and age; the highlighted job's members; cancel and logs from here."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, Input, Label, Static

from cua_core import CuaError
from cua_tui.model import JOB_DONE, Model
from cua_tui.screens.common import FilteredTable, ViewScreen, age
from cua_tui.screens.dialogs import Confirm

__all__ = ["JobsScreen"]

COLUMNS = [
    ("id", "Job"), ("fn", "Function"), ("state", "State"), ("nodes", "Nodes"), ("attempt", "Attempt"),
    ("age", "Age"), ("reason", "Reason"),
]  # fmt: skip
MEMBER_COLUMNS = [
    ("rank", "Rank"), ("host", "Computer"), ("state", "State"), ("attempt", "Attempt"), ("exit", "Exit"),
    ("reason", "Reason"),
]  # fmt: skip


class JobsScreen(ViewScreen):
    VIEW = "jobs"
    TITLE = "Jobs"
    BINDINGS: ClassVar[list[BindingType]] = [
        *ViewScreen.BINDINGS,
        Binding("l", "logs", "Logs"),
        Binding("x", "cancel_job", "Cancel job"),
    ]
    DEFAULT_CSS = """
    #jobs { height: 2fr; }
    #members { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status")
        yield Input(placeholder="filter jobs", id="filter")
        yield DataTable(id="jobs", cursor_type="row", zebra_stripes=True)
        yield Label("Members of the highlighted job", id="members-title")
        yield DataTable(id="members", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.table = FilteredTable(self.query_one("#jobs", DataTable), COLUMNS)
        self.members = FilteredTable(self.query_one("#members", DataTable), MEMBER_COLUMNS)
        self.members_of: str | None = None

    def filtered(self) -> FilteredTable:
        return self.table

    def show(self, model: Model) -> None:
        now = self.cua.clock()
        self.query_one("#status", Static).update(self.cua.controller_status)
        rows = {}
        for job in sorted(model.jobs.values(), key=lambda j: -j.submitted):
            nodes = str(job.nodes_min) if job.nodes_min == job.nodes_max else f"{job.nodes_min}:{job.nodes_max}"
            lived = (job.ended or now) - job.submitted
            rows[job.id] = (job.id, job.fn, job.state, nodes, str(job.attempt), age(lived), job.reason or "-")
        self.table.sync(rows)
        selected = self.table.selected
        if selected is not None and selected != self.members_of and self.cua.feeds:
            self.load_members(selected)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "jobs" and event.row_key.value is not None and self.cua.feeds:
            self.load_members(event.row_key.value)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "jobs":  # enter on a job (the table takes the key itself)
            self.action_logs()

    @work(thread=True, exclusive=True, group="members", exit_on_error=False)
    def load_members(self, job: str) -> None:
        self.members_of = job
        try:
            detail = self.cua.link.call("job.show", {"job": job})
        except (CuaError, ValueError, OSError) as exc:
            self.app.call_from_thread(self.app.notify, f"job {job}: {exc}", severity="warning")
            return
        self.app.call_from_thread(self._show_members, job, detail)

    def _show_members(self, job: str, detail: dict[str, Any]) -> None:
        if job != self.members_of or not self.is_mounted:
            return
        rows = {}
        for m in sorted(detail["members"], key=lambda m: (m["attempt"], m["rank"])):
            rows[m["id"]] = (
                str(m["rank"]), m.get("host_name") or m["host"], m["state"], str(m["attempt"]),
                "-" if m.get("exit_code") is None else str(m["exit_code"]), m.get("reason") or "-",
            )  # fmt: skip
        self.members.sync(rows)
        self.query_one("#members-title", Label).update(f"Members of {job} ({detail['job']['state']})")

    def action_logs(self) -> None:
        job = self.table.selected
        if job is None:
            self.app.notify("no job highlighted")
            return
        from cua_tui.screens.logs import LogsScreen

        self.app.push_screen(LogsScreen(job, self.model.jobs[job].nodes_max))

    def action_cancel_job(self) -> None:
        job_id = self.table.selected
        if job_id is None:
            self.app.notify("no job highlighted")
            return
        job = self.model.jobs[job_id]
        if job.state in JOB_DONE:
            self.app.notify(f"job {job_id} has ended ({job.state}); nothing to cancel", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.cancel(job_id)

        self.app.push_screen(Confirm(f"Cancel job {job_id} ({job.fn}), stopping all its members?"), answered)

    @work(thread=True, group="cancel", exit_on_error=False)
    def cancel(self, job: str) -> None:
        try:
            reply = self.cua.link.call("job.cancel", {"job": job})
        except (CuaError, ValueError, OSError) as exc:
            self.app.call_from_thread(self.app.notify, f"cancel {job}: {exc}", severity="error")
            return
        self.app.call_from_thread(self.app.notify, f"job {job}: {reply['was']} -> {reply['state']}")
        self.cua.link.wake.set()
