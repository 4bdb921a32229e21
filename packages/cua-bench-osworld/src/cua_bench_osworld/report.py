"""``cua-bench osworld report DIR``: how many of a folder's OSWorld tasks run here, and why not the rest.

Judged against a backend (``--backend``) the report also counts the apps its desktop lacks, so
"supported" means what the issue asks of it: this backend can score the task.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cua_bench_osworld.loader import OSWorldFormatError, find_task_files, load_task
from cua_bench_osworld.metrics import BUILTIN_METRICS
from cua_bench_osworld.support import check_support, official_names

__all__ = ["Entry", "Report", "build_report", "format_report"]


@dataclass(frozen=True)
class Entry:
    id: str
    domain: str
    path: Path
    reasons: tuple[str, ...]
    needs_shell: bool

    @property
    def supported(self) -> bool:
        return not self.reasons


@dataclass
class Report:
    root: Path
    entries: list[Entry] = field(default_factory=list)
    invalid: dict[str, str] = field(default_factory=dict)  # file -> what is wrong with it
    official: int = 0  # OSWorld metric functions available
    backend: str | None = None  # whose desktop's apps were judged (None: apps not judged)

    @property
    def supported(self) -> list[Entry]:
        return [e for e in self.entries if e.supported]

    @property
    def skipped(self) -> list[Entry]:
        return [e for e in self.entries if not e.supported]

    def by_reason(self) -> dict[str, int]:
        """Skipped tasks per primary reason, most first."""
        counts = Counter(e.reasons[0] for e in self.skipped)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def by_domain(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for entry in self.entries:
            row = out.setdefault(entry.domain, {"tasks": 0, "supported": 0, "skipped": 0})
            row["tasks"] += 1
            row["supported" if entry.supported else "skipped"] += 1
        return dict(sorted(out.items()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": str(self.root),
            "backend": self.backend,
            "tasks": len(self.entries),
            "supported": len(self.supported),
            "skipped": len(self.skipped),
            "supported_needing_shell": sum(e.needs_shell for e in self.supported),
            "by_reason": self.by_reason(),
            "by_domain": self.by_domain(),
            "official_metrics": self.official,
            "builtin_metrics": len(BUILTIN_METRICS),
            "invalid": self.invalid,
            "supported_tasks": {e.id: {"domain": e.domain, "path": str(e.path)} for e in self.supported},
            "skipped_tasks": {e.id: list(e.reasons) for e in self.skipped},
        }


def build_report(
    folder: Path | str,
    *,
    official: Collection[str] | None = None,
    mirror: Path | bool | None = True,
    backend: str | None = None,
) -> Report:
    """Check every task file under ``folder`` (see ``check_support`` for ``official``, ``mirror`` and
    ``backend``)."""
    root = Path(folder)
    names = official_names() if official is None else official
    report = Report(root, official=len(names), backend=backend)
    for path in find_task_files(root):
        try:
            task = load_task(path)
        except OSWorldFormatError as exc:
            # The error names its file first; the report names it once, as the key.
            report.invalid[str(path)] = str(exc).removeprefix(f"{path}: ")
            continue
        support = check_support(task, official=official, mirror=mirror, backend=backend)
        report.entries.append(Entry(task.id, task.domain, path, support.reasons, support.needs_shell))
    return report


def format_report(report: Report) -> str:
    lines = [
        f"OSWorld tasks in {report.root}: {len(report.entries)} "
        f"({len(report.supported)} supported, {len(report.skipped)} skipped)",
        f"metrics: {len(BUILTIN_METRICS)} built-in"
        + (
            f", {report.official} of OSWorld's own (desktop-env)"
            if report.official
            else ", OSWorld's own not installed"
        ),
        f"apps: judged against the {report.backend} backend's desktop"
        if report.backend
        else "apps: not judged (pass --backend local, docker or sim to judge a desktop)",
    ]
    if report.supported:
        shell = sum(e.needs_shell for e in report.supported)
        lines.append(f"supported tasks that need a shell on the backend: {shell} of {len(report.supported)}")
    if report.skipped:
        lines.append("skipped, by reason:")
        lines += [f"  {count:>4}  {reason}" for reason, count in report.by_reason().items()]
    lines.append("by domain:")
    lines.append(f"  {'domain':<20} {'tasks':>5} {'supported':>9} {'skipped':>7}")
    for domain, row in report.by_domain().items():
        lines.append(f"  {domain:<20} {row['tasks']:>5} {row['supported']:>9} {row['skipped']:>7}")
    for path, problem in report.invalid.items():
        lines.append(f"invalid: {path}: {problem}")
    return "\n".join(lines)
