"""``cua-bench check``'s adversary, timed: mutations started from the oracle's end state put back
(``adversary.restore``) against each mutation on a fresh episode with the oracle played again (the
baseline, what ``check`` did before), on the same tasks in the same run.

For each task (test variant 0, the local backend; ``sim`` tasks on the sim backend): the seconds
``check_task`` takes both ways, the mutations played, and the problems each way found, which must be
the same (the restored state is the oracle's; a hole found one way and not the other is a bug).

Last line: ``tasks=… check_s=… baseline_s=… speedup=… mutations=… same_problems=1|0``.
Run: .venv/bin/python bench/check.py [TASK ...] (default: three desktop tasks, light to heavy).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from cua_bench import checks
from cua_bench.checks import MutationTally, check_task
from cua_bench.tasks import TaskError
from cua_bench.taskset import task_folders

DEFAULT = ["desktop/pcmanfm-copy-file", "desktop/calc-edit-cell", "desktop/blender-delete-object"]


def _timed(folder: Path, backend: str, *, restore: bool) -> tuple[float, int, list[str]]:
    tally = MutationTally()
    original = checks._back_at_the_end

    def never(env: Any, *, first: bool) -> bool:
        return False  # the baseline: every mutation on a fresh episode, the oracle played again

    if not restore:
        checks._back_at_the_end = never
    try:
        start = time.perf_counter()
        problems = check_task(folder, backend=backend, split="test", variants=1, tally=tally)
        return time.perf_counter() - start, tally.applied, problems
    finally:
        checks._back_at_the_end = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*", default=DEFAULT, help="TASKSET/NAME (default: %(default)s)")
    args = parser.parse_args()
    os.environ.setdefault("CUA_LOCAL_GLX", "1")  # Blender draws with OpenGL
    rows: list[dict[str, Any]] = []
    chosen = []  # every name resolved before any check starts
    for name in args.tasks:
        taskset, _, task = name.partition("/")
        try:
            folder = next((f for f in task_folders(taskset) if f.name == task), None)
        except TaskError as exc:
            sys.exit(f"{name!r}: {exc}; give TASKSET/NAME, e.g. {DEFAULT[0]}")
        if folder is None:
            sys.exit(f"no task {name!r}: give TASKSET/NAME, e.g. {DEFAULT[0]}")
        chosen.append((name, folder, "local" if taskset == "desktop" else "sim"))
    for name, folder, backend in chosen:
        restored, mutations, problems = _timed(folder, backend, restore=True)
        baseline, _, base_problems = _timed(folder, backend, restore=False)
        rows.append(
            {
                "task": name,
                "check_s": restored,
                "baseline_s": baseline,
                "mutations": mutations,
                "same": problems == base_problems,
            }
        )
        print(
            f"{name:40} check {restored:6.1f} s  baseline {baseline:6.1f} s  x{baseline / restored:4.2f}  "
            f"{mutations} mutations  problems {problems} / {base_problems}",
            flush=True,
        )
    check_s, baseline_s = sum(r["check_s"] for r in rows), sum(r["baseline_s"] for r in rows)
    print(
        f"tasks={len(rows)} check_s={check_s:.1f} baseline_s={baseline_s:.1f} speedup={baseline_s / check_s:.2f} "
        f"mutations={sum(r['mutations'] for r in rows)} same_problems={int(all(r['same'] for r in rows))}"
    )


if __name__ == "__main__":
    main()
