"""`cua-bench osworld`: OSWorld's task files, what runs here, and OSWorld's own metrics."""

from __future__ import annotations

import json
from pathlib import Path

import click

__all__ = ["osworld"]


@click.group()
def osworld() -> None:
    """OSWorld's task files: what runs here, and OSWorld's own metrics."""


@osworld.command("report")
@click.argument("folder", type=click.Path(exists=True, path_type=Path))
@click.option("--files", type=click.Path(file_okay=False, path_type=Path), help="Local mirror of remote task files.")
@click.option("--builtin-metrics", is_flag=True, help="Count only our built-in metrics, not desktop-env's.")
@click.option(
    "--backend",
    type=click.Choice(["local", "docker", "docker-osworld", "sim"]),  # osworld.apps.BACKEND_PACKAGES (a test holds it)
    help="Judge the apps of this backend's desktop too (a task that needs an app it lacks is skipped); "
    "docker-osworld: the docker backend's osworld image (CUA_DOCKER_VARIANT=osworld).",
)
@click.option("--json", "as_json", is_flag=True, help="Every task: supported_tasks and skipped_tasks with reasons.")
def osworld_report(folder: Path, files: Path | None, builtin_metrics: bool, backend: str | None, as_json: bool) -> None:
    """Supported and skipped tasks under FOLDER (e.g. evaluation_examples/examples), by reason and domain."""
    from cua_bench_osworld.report import build_report, format_report

    report = build_report(
        folder, official=() if builtin_metrics else None, mirror=files if files else True, backend=backend
    )
    if not report.entries and not report.invalid:
        raise click.ClickException(f"{folder}: no OSWorld task files (JSON with id, instruction, evaluator)")
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else format_report(report))


@osworld.command("fetch")
@click.argument("folder", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--mirror",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to fill; point CUA_OSWORLD_FILES (or osworld report --files) at it.",
)
@click.option("--timeout", default=60.0, show_default=True, type=click.FloatRange(min=1), help="Seconds per request.")
def osworld_fetch(folder: Path, mirror: Path, timeout: float) -> None:
    """Download every remote file the tasks under FOLDER use (download steps, cloud_file getters) into
    MIRROR, with manifest.json (URL, size, sha256). Run it again to continue: complete files are
    skipped, partial ones continued. Exits 1 when a file failed."""
    from cua_bench_osworld.fetch import MANIFEST, fetch, remote_urls
    from cua_bench_osworld.loader import find_task_files

    if not find_task_files(folder):
        raise click.ClickException(f"{folder}: no OSWorld task files (JSON with id, instruction, evaluator)")
    urls, invalid = remote_urls(folder)
    for path, problem in invalid.items():
        click.echo(f"invalid (its files are not fetched): {path}: {problem}", err=True)
    if not urls:
        click.echo(f"nothing to fetch: the tasks under {folder} use no remote files")
        return
    click.echo(f"{len(urls)} remote files used by the tasks under {folder}")
    result = fetch(folder, mirror, timeout=timeout, log=click.echo)
    click.echo(
        f"{result.total} files: {len(result.fetched)} fetched, {len(result.resumed)} resumed, "
        f"{len(result.present)} already there, {len(result.failed)} failed; manifest: {mirror / MANIFEST}"
    )
    if result.failed:
        raise click.ClickException(
            f"{len(result.failed)} of {result.total} files failed (each named above); run the same command "
            "again to retry them"
        )


@osworld.command("metrics")
def osworld_metrics() -> None:
    """Which of OSWorld's metric functions are installed (desktop-env), and why the others are not."""
    from cua_bench_osworld.official import INSTALL_HINT, NOT_FUNCTIONS, OUTSIDE_EXTRA, official_metrics

    loaded = official_metrics()
    if not loaded.installed:
        click.echo(f"desktop-env is not installed: built-in metrics only. {INSTALL_HINT}")
        return
    click.echo(f"desktop-env {loaded.version}: {len(loaded.functions)} of {len(loaded.names)} metric functions")
    for sub, why in sorted(loaded.failed.items()):
        click.echo(f"  {sub}: not loaded ({why})")
    for name, why in sorted(loaded.unavailable().items()):
        problem = loaded.needs(name)
        click.echo(f"  {name}: {why if problem is None or name in NOT_FUNCTIONS else problem}")
    for name in sorted(set(OUTSIDE_EXTRA) & set(loaded.functions)):
        problem = loaded.needs(name)
        if problem is not None:
            click.echo(f"  loaded but cannot score: {problem}")
