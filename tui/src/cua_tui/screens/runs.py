"""Runs: evaluation runs (progress, success rate, the per-task table, errors) and RL runs (reward,
loss and KL curves, steps/s, buffer size, policy version), live from the bus and backfilled from
their folders."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Header, Input, Label, Sparkline, Static

from cua_tui.model import Model, Run
from cua_tui.screens.common import FilteredTable, ViewScreen, fmt_float, fmt_pct

__all__ = ["RunsScreen"]

COLUMNS = [
    ("id", "Run"), ("kind", "Kind"), ("status", "Status"), ("progress", "Progress"), ("success", "Success"),
    ("figure", "Reward / loss"), ("title", "What"),
]  # fmt: skip
TASK_COLUMNS = [
    ("task", "Task"), ("episodes", "Episodes"), ("success", "Success"), ("reward", "Mean reward"),
    ("errors", "Errors"), ("skipped", "Skipped"),
]  # fmt: skip
CURVES = (("reward_mean", "reward"), ("loss", "loss"), ("kl", "KL"), ("success", "success"))


def _row(run: Run) -> tuple[str, ...]:
    if run.kind == "bench":
        progress = f"{run.done}/{run.total if run.total is not None else '?'}"
        if run.error_count:
            progress += f" ({run.error_count} errors)"
        figure = fmt_float(run.mean_reward)
    else:
        last = run.curve[-1] if run.curve else None
        progress = f"step {last['step']}" if last else "step 0"
        figure = f"{fmt_float(last['reward_mean'])} / {fmt_float(last['loss'])}" if last else "n/a"
    return (run.id, run.kind, run.status, progress, fmt_pct(run.success_rate), figure, run.title or run.folder)


class RunsScreen(ViewScreen):
    VIEW = "runs"
    TITLE = "Runs"
    DEFAULT_CSS = """
    #runs { height: 1fr; }
    #detail { height: 2fr; }
    #bench, #rl { height: 1fr; }
    #rl Sparkline { height: 3; margin-bottom: 1; }
    #errors { height: auto; max-height: 8; color: $error; }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="filter runs", id="filter")
        yield DataTable(id="runs", cursor_type="row", zebra_stripes=True)
        with Vertical(id="detail"):
            yield Label("", id="detail-title")
            with Vertical(id="bench"):
                yield DataTable(id="tasks", cursor_type="row")
                yield Static(id="errors")
            with Vertical(id="rl"):
                yield Static(id="figures")
                for key, label in CURVES:
                    yield Label(label, id=f"label-{key}")
                    yield Sparkline([], id=f"curve-{key}")
        yield Footer()

    def on_mount(self) -> None:
        self.table = FilteredTable(self.query_one("#runs", DataTable), COLUMNS)
        self.tasks = FilteredTable(self.query_one("#tasks", DataTable), TASK_COLUMNS)
        self.query_one("#rl").display = False

    def filtered(self) -> FilteredTable:
        return self.table

    def show(self, model: Model) -> None:
        order = sorted(model.runs.values(), key=lambda r: (r.status != "running", -r.started, r.id))
        self.table.sync({run.id: _row(run) for run in order})
        self._detail(model)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "runs":
            self._detail(self.model)

    def _detail(self, model: Model) -> None:
        selected = self.table.selected
        run = model.runs.get(selected) if selected else None
        title = self.query_one("#detail-title", Label)
        bench, rl = self.query_one("#bench"), self.query_one("#rl")
        if run is None:
            title.update("no run: start one with `cua-bench run` or `cua-bench-rl train`")
            bench.display = rl.display = False
            return
        title.update(f"{run.id} · {run.status} · {run.folder or 'folder unknown'}")
        bench.display, rl.display = run.kind == "bench", run.kind == "rl"
        if run.kind == "bench":
            self._bench(run)
        else:
            self._rl(run)

    def _bench(self, run: Run) -> None:
        rows = {}
        for task, row in sorted(run.tasks.items()):
            rows[task] = (
                task, str(row.episodes), fmt_pct(row.success_rate), fmt_float(row.mean_reward), str(row.errors),
                str(row.skipped),
            )  # fmt: skip
        self.tasks.sync(rows)
        errors = list(run.errors)[-5:]
        self.query_one("#errors", Static).update("\n".join(errors) if errors else "")

    def _rl(self, run: Run) -> None:
        last = run.curve[-1] if run.curve else {}
        figures = [
            f"step {last.get('step', 0)}",
            f"policy v{last.get('policy_version', 0)}",
            f"{fmt_float(last.get('steps_per_s'), 1)} env steps/s",
            f"buffer {last.get('buffer_size', 0)} groups",
            f"dropped {last.get('groups_dropped', 0)} zero-spread, {last.get('stale_dropped', 0)} stale",
            f"workers replaced {run.replaced}",
            f"held-out success {fmt_pct(run.eval_success)}",
        ]
        self.query_one("#figures", Static).update(" · ".join(figures))
        for key, label in CURVES:
            values = [float(p[key]) for p in run.curve if p.get(key) is not None]
            self.query_one(f"#curve-{key}", Sparkline).data = values
            now = f"{values[-1]:.4g}" if values else "n/a"
            span = f" (min {min(values):.4g}, max {max(values):.4g})" if values else ""
            self.query_one(f"#label-{key}", Label).update(f"{label}: {now}{span}")
