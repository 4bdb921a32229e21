"""OSWorld's 324 published tasks on our desktops: what loads, what runs offline, what a mirror adds.

The tasks are ``../shared/fixtures/osworld`` and ``osworld_more`` (OSWorld's own folder layout,
324 of its 369 Linux tasks). For each domain the table counts:

- **loaded**: task files that load as tasks;
- **offline**: tasks that need no download, no proxy and no live web page to score them (nothing
  from the network; the issue's definition leaves out the last: ``osworld_offline_no_live_page``
  counts the one task it adds, whose grader loads recreation.gov), and of those
  **ran ok**: setup and evaluation ran on the chosen backend with a do-nothing agent (``noop``,
  through ``cua-bench run``, as a user runs them) without a platform error, and **score 0** (a
  do-nothing agent must not score);
- **mirror**: tasks supported given a complete mirror of the remote files (an empty file at each
  URL's mirror path: support is judged on the task file, nothing is read), with apps not judged
  (the issue's 0.71), and judged against the backend's desktop;
- **skipped, by reason**: each skipped task's primary reason, over all 324 with the mirror and the
  backend's apps judged.

Then the positive controls (``tests/support/osworld_controls.py``) run on the backend: every
control marked for it must score 1.0 with the work done and 0 without it.

Backends: ``docker-osworld`` (the docker backend's ``osworld`` image, ``CUA_DOCKER_VARIANT=osworld``;
the default), ``docker`` (its default image) or ``local``. The docker engine is the one
``DOCKER_HOST`` names, or a dockerd started here; the osworld image is built only with ``--build``
(LibreOffice, GIMP, VLC, Thunderbird, Chromium: many minutes). Every figure is labelled with the
backend it was measured on. The baseline measured in the same run is the same support check without
a mirror (``osworld_supported_ratio_no_mirror``).

Last line: ``osworld_offline_ok_ratio=… osworld_mirror_supported_ratio=… osworld_platform_errors=…
osworld_positive_controls_ok=… osworld_image_mib=… backend=…``. Targets: offline ok 1.0 apart from
VS Code tasks, mirror supported ≥ 0.85, platform errors 0, controls 1.0.

Run: nice -n 10 .venv/bin/python bench/osworld.py [--backend docker-osworld|docker|local] [--build]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cua_bench_osworld import OSWorldTask, check_support, load_task
from cua_bench_osworld.loader import OSWorldFormatError, find_task_files
from cua_bench_osworld.sources import classify
from cua_bench_osworld.support import LIVE_WEB_GETTERS, _urls

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support.osworld_controls import CONTROLS, build_variant, complete_mirror  # type: ignore[import-not-found]  # noqa: E402

FIXTURES = ROOT.parent / "shared" / "fixtures"
JUDGED = {"docker-osworld": "docker-osworld", "docker": "docker", "local": "local"}  # apps.BACKEND_PACKAGES keys


@dataclass
class Row:
    loaded: int = 0
    offline: int = 0
    ran_ok: int = 0
    scored_zero: int = 0
    mirror: int = 0
    mirror_backend: int = 0


def short(reason: str) -> str:
    """A skip reason without its particulars (the paths a command needs, how to get an app)."""
    return reason.split(" (", maxsplit=1)[0].split(": its commands", maxsplit=1)[0].split("; ", maxsplit=1)[0]


def load_all(folders: list[Path]) -> tuple[list[OSWorldTask], dict[str, str]]:
    tasks, invalid = [], {}
    for folder in folders:
        for path in find_task_files(folder):
            try:
                tasks.append(load_task(path))
            except OSWorldFormatError as exc:
                invalid[str(path)] = str(exc)
    return tasks, invalid


def loads_live_page(task: OSWorldTask) -> bool:
    return any(g["type"] in LIVE_WEB_GETTERS for g in task.evaluator.getters())


def downloads_nothing(task: OSWorldTask) -> bool:
    """No download, no proxy: the issue's rule for offline."""
    return not task.proxy and all(classify(u, base=task.path.parent).kind != "network" for u in _urls(task))


def is_offline(task: OSWorldTask) -> bool:
    """No download, no proxy, no live web page loaded to score it: nothing from the network."""
    return downloads_nothing(task) and not loads_live_page(task)


# --- the backend ----------------------------------------------------------------------------------


@contextmanager
def docker_engine(folder: Path) -> Iterator[Any]:
    """A docker client on DOCKER_HOST's engine, or on a dockerd started here (removed after)."""
    from cua_bench.backends.base import BackendError
    from cua_bench_docker import connect
    from cua_bench_docker.daemon import PrivateEngine

    engine = None
    try:
        connect(timeout=3)
    except BackendError:
        if not shutil.which("dockerd"):
            raise SystemExit("no docker engine: set DOCKER_HOST or install docker.io (dockerd)") from None
        engine = PrivateEngine(folder / "dockerd")
        os.environ["DOCKER_HOST"] = engine.start()
    try:
        yield connect()
    finally:
        if engine is not None:
            engine.remove()


def image_mib(client: Any, variant: str, build: bool) -> float | None:
    """The variant's image size, building it first with ``build`` (None: not there, not built)."""
    from cua_bench_docker import build_image
    from cua_bench_docker.image import VARIANTS, image_exists

    tag = VARIANTS[variant].tag
    if not image_exists(client, tag):
        if not build:
            return None
        result = build_image(client, variant=variant, log=lambda line: None)
        print(f"image {tag} built in {result.seconds:.0f} s")
    return float(client.images.get(tag).attrs["Size"]) / 2**20


def backend_env(backend: str, folder: Path) -> tuple[str, dict[str, str]]:
    """The registered backend name and the environment that selects the image; a container sees the
    task copies under ``folder`` at the same path (``CUA_DOCKER_MOUNTS``), never the host's other files."""
    env = dict(os.environ)
    env.pop("CUA_DOCKER_VARIANT", None)
    if backend.startswith("docker"):
        env["CUA_DOCKER_MOUNTS"] = ":".join(filter(None, [env.get("CUA_DOCKER_MOUNTS", ""), str(folder)]))
    if backend == "docker-osworld":
        return "docker", {**env, "CUA_DOCKER_VARIANT": "osworld"}
    return backend, env


# --- runs -----------------------------------------------------------------------------------------


def run_offline(
    tasks: list[OSWorldTask], backend: str, folder: Path, parallel: int, fresh: bool
) -> list[dict[str, Any]]:
    """Each offline task once with the do-nothing agent, as a user runs them (``cua-bench run``).
    ``fresh``: one run, so one new computer, per task (a reset that breaks a computer then breaks
    one task, not every task after it on that computer)."""
    tasks_dir = folder / "offline"
    for task in tasks:
        target = tasks_dir / task.domain / task.path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(task.path, target)
    name, env = backend_env(backend, folder)
    base = [str(ROOT / ".venv" / "bin" / "cua-bench"), "run", str(tasks_dir), "--backend", name, "--agent", "noop"]
    base += ["--no-record", "--allow-errors"]

    def one(out: Path, *extra: str) -> list[dict[str, Any]]:
        command = [*base, "--output", str(out), *extra]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600, check=False)
        episodes = out / "episodes.jsonl"
        if not episodes.is_file():
            raise SystemExit(f"cua-bench run wrote no episodes (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
        return [json.loads(line) for line in episodes.read_text().splitlines() if line.strip()]

    if not fresh:
        return one(folder / "run", "--max-parallel", str(parallel))
    with ThreadPoolExecutor(parallel) as pool:
        runs = pool.map(lambda t: one(folder / "runs" / t.id, "--max-parallel", "1", "--tasks", t.id), tasks)
        return [episode for episodes in runs for episode in episodes]


def run_controls(backend: str, folder: Path) -> tuple[int, int, list[str]]:
    """The positive controls marked for this backend: (passed, run, failures)."""
    from cua_bench.client import EnvClient
    from cua_bench.registry import backends
    from cua_core.actions import Done, Fail

    folder.mkdir(parents=True, exist_ok=True)
    name, env = backend_env(backend, folder)
    saved = {key: os.environ.get(key) for key in ("CUA_DOCKER_VARIANT", "CUA_DOCKER_MOUNTS")}
    _set_env({key: env.get(key) for key in saved})
    chosen = [c for c in CONTROLS if c.backend in ("local", backend)]
    impl = backends()[name]()
    computer = impl.provision(width=1280, height=800)
    passed, failures = 0, []
    try:
        with EnvClient(computer.address, step_timeout=180) as client:

            def score(path: Path, fail: bool) -> float:
                _, info = client.reset(options={"task": str(path), "observes": "none"})
                problems = info.get("task", {}).get("metadata", {}).get("setup_failures", [])
                if problems:
                    raise RuntimeError(f"setup failed: {problems}")
                return float(client.step([Fail() if fail else Done()])[1])

            for control in chosen:
                try:
                    worked = build_variant(control, FIXTURES, folder / control.family, worked=True)
                    before = build_variant(control, FIXTURES, folder / control.family, worked=False)
                    good = score(worked, control.finish == "fail")
                    bad = score(worked, False) if control.finish == "fail" else score(before, False)
                    ok = good == 1.0 and bad <= control.before_at_most
                    failures += [] if ok else [f"{control.family} ({control.task}): worked {good}, before {bad}"]
                except Exception as exc:  # an error is a failed control, with its reason
                    ok = False
                    failures.append(f"{control.family} ({control.task}): {type(exc).__name__}: {exc}")
                passed += ok
    finally:
        impl.teardown(computer)
        _set_env(saved)
    return passed, len(chosen), failures


def _set_env(values: dict[str, str | None]) -> None:
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


# --- the report -----------------------------------------------------------------------------------


def table(rows: dict[str, Row], backend: str) -> list[str]:
    head = _line("domain", Row(), ("loaded", "offline", "ran ok", "score 0", "mirror", "mirror+apps"))
    lines = [f"by domain (runs on {backend}; mirror+apps: apps judged against {backend}'s desktop):", head]
    total = Row()
    for domain, row in sorted(rows.items()):
        for key in total.__dict__:
            setattr(total, key, getattr(total, key) + getattr(row, key))
        lines.append(_line(domain, row))
    lines.append(_line("all", total))
    return lines


def _line(name: str, row: Row, cells: tuple[str, ...] = ()) -> str:
    values = cells or tuple(str(v) for v in row.__dict__.values())
    widths = (6, 7, 6, 7, 6, 11)
    return f"  {name:<20} " + " ".join(f"{v:>{w}}" for v, w in zip(values, widths, strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=sorted(JUDGED), default="docker-osworld")
    parser.add_argument("--build", action="store_true", help="build the docker image when it is missing")
    parser.add_argument("--no-run", action="store_true", help="only the support table: no episodes, no controls")
    parser.add_argument("--max-parallel", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="a new computer for each offline task")
    args = parser.parse_args()
    if not FIXTURES.is_dir():
        raise SystemExit(f"the published tasks are missing: expected {FIXTURES}/osworld and osworld_more")
    folder = Path(tempfile.mkdtemp(prefix="cua-bench-osworld-"))
    folder.chmod(0o755)  # the osworld container's user reads the task copies mounted from here
    try:
        return measure(args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure(args: argparse.Namespace, folder: Path) -> int:
    backend = args.backend
    tasks, invalid = load_all([FIXTURES / "osworld", FIXTURES / "osworld_more"])
    mirror = complete_mirror(tasks, folder / "mirror")
    rows: dict[str, Row] = {}
    reasons: Counter[str] = Counter()
    offline, no_mirror, live_page = [], 0, 0
    predicted: set[str] = set()  # offline tasks the report calls supported on this backend
    ran: set[str] = set()  # ... and those the runner scored
    decided: set[str] = set()  # those the runner scored or skipped (an error decides nothing)
    for task in tasks:
        row = rows.setdefault(task.domain, Row())
        row.loaded += 1
        row.mirror += check_support(task, mirror=mirror).supported
        judged = check_support(task, mirror=mirror, backend=JUDGED[backend])
        row.mirror_backend += judged.supported
        if judged.reason is not None:
            reasons[short(judged.reason)] += 1
        no_mirror += check_support(task, mirror=None).supported
        live_page += downloads_nothing(task) and loads_live_page(task)
        if is_offline(task):
            row.offline += 1
            offline.append(task)
            if check_support(task, mirror=None, backend=JUDGED[backend]).supported:
                predicted.add(task.id)
    errors, statuses, skipped_offline = 0, Counter[str](), Counter[str]()
    controls = (0, 0, ["not run (--no-run)"])
    mib: float | None = None
    with docker_engine(folder) if backend.startswith("docker") and not args.no_run else _nothing() as client:
        if client is not None:
            mib = image_mib(client, "osworld" if backend == "docker-osworld" else "default", args.build)
            if mib is None:
                raise SystemExit(f"the {backend} image is not built: pass --build (or cua-bench image build docker)")
        if not args.no_run:
            by_id = {t.id: t for t in offline}
            for episode in run_offline(offline, backend, folder, args.max_parallel, args.fresh):
                task = by_id[episode["task"]]
                statuses[episode["status"]] += 1
                if episode["status"] in ("ok", "skipped"):
                    decided.add(task.id)
                if episode["status"] == "ok":
                    ran.add(task.id)
                if episode["status"] == "ok":
                    rows[task.domain].ran_ok += 1
                    rows[task.domain].scored_zero += episode["reward"] == 0.0
                    if episode["reward"] != 0.0:  # a do-nothing agent scored: the task or its metric is wrong
                        print(f"  scored without work: {task.domain}/{task.id}: {episode['reward']}")
                elif episode["status"] == "error":
                    errors += 1
                    print(f"  platform error: {task.domain}/{task.id}: {str(episode.get('error'))[:200]}")
                else:
                    skipped_offline[short(str(episode.get("error")).removeprefix("skipped: "))] += 1
            controls = run_controls(backend, folder / "controls")
    how = ", a new computer per offline task" if args.fresh else ""
    print(f"OSWorld published tasks: {len(tasks)} loaded, {len(invalid)} invalid; backend {backend}{how}")
    print("\n".join(table(rows, backend)))
    print(f"skipped over all {len(tasks)} (complete mirror, apps judged against {backend}), by primary reason:")
    for reason, count in reasons.most_common():
        print(f"  {count:>4}  {reason}")
    if skipped_offline:
        print("offline tasks skipped when run, by reason:")
        for reason, count in skipped_offline.most_common():
            print(f"  {count:>4}  {reason}")
    # Support means "this backend can score it": the report's judgement must be the runner's.
    disagree = (predicted ^ ran) & decided
    for task_id in sorted(disagree):
        said = "supported" if task_id in predicted else "skipped"
        print(f"  report/runner disagree: {task_id}: the report says {said}, the runner did the opposite")
    passed, tried, failures = controls
    print(f"positive controls on {backend}: {passed} of {tried}" + "".join(f"\n  failed: {f}" for f in failures))
    total_offline = len(offline)
    ok = sum(r.ran_ok for r in rows.values())
    judged_ok = sum(r.mirror_backend for r in rows.values())
    no_code = total_offline - rows.get("vs_code", Row()).offline
    ok_no_code = ok - rows.get("vs_code", Row()).ran_ok
    figures = {
        "osworld_offline_ok_ratio": f"{ok / total_offline:.3f}" if statuses else "n/a",
        "osworld_mirror_supported_ratio": f"{sum(r.mirror for r in rows.values()) / len(tasks):.3f}",
        "osworld_platform_errors": str(errors) if statuses else "n/a",
        "osworld_positive_controls_ok": f"{passed / tried:.3f}" if tried else "n/a",
        "osworld_image_mib": f"{mib:.0f}" if mib is not None else "n/a",
        "backend": backend + ("(fresh)" if args.fresh else ""),
        "osworld_mirror_supported_ratio_apps_judged": f"{judged_ok / len(tasks):.3f}",
        "osworld_supported_ratio_no_mirror": f"{no_mirror / len(tasks):.3f}",
        "osworld_offline_tasks": str(total_offline),
        "osworld_offline_no_live_page": str(live_page),  # offline by the rule, but loads a live page
        # The target is 1.0 apart from VS Code's tasks (Microsoft's build, not in Debian).
        "osworld_offline_ok_ratio_without_vs_code": f"{ok_no_code / no_code:.3f}" if statuses and no_code else "n/a",
        "osworld_report_runner_disagree": str(len(disagree)) if statuses else "n/a",
    }
    print(" ".join(f"{key}={value}" for key, value in figures.items()))
    return 0


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    sys.exit(main())
