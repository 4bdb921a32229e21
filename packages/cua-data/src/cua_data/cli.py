"""`cua-data`: convert native datasets, inspect, count, validate, and move between layouts."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from cua_core.actions import format_action
from cua_core.command import CONTEXT, CuaGroup
from cua_core.errors import ActionError, CuaError
from cua_data.convert import converters, run_conversion
from cua_data.errors import SampleError
from cua_data.hub import export_hub, import_hub
from cua_data.images import ImageStore
from cua_data.layout import find_partitions
from cua_data.lite_actions import from_lite_tool_call
from cua_data.reader import DatasetReader, open_parquet
from cua_data.schema import LiteSample

__all__ = ["main"]

_DATASET = click.Path(exists=True, file_okay=False, path_type=Path)


def _emit(data: Any, as_json: bool, text: Callable[[], None]) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        text()


def _fail(exc: Exception) -> click.ClickException:
    return click.ClickException(str(exc))


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-data")
def main() -> None:
    """LiteSample datasets: Parquet partitions plus a content-addressed image store."""


@main.command()
@click.option("--from", "fmt", required=True, help="Native format (see `cua-data formats`).")
@click.argument("src", type=click.Path(exists=True, path_type=Path))
@click.argument("dst", type=click.Path(file_okay=False, path_type=Path))
@click.option("--dataset", help="Dataset name in image paths (default: DST's folder name).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def convert(fmt: str, src: Path, dst: Path, dataset: str | None, as_json: bool) -> None:
    """Convert native records SRC into the dataset folder DST (appending to what is there)."""
    try:
        with _progress("converting") as tick:
            report = run_conversion(fmt, src, dst, dataset=dataset, progress=tick)
    except CuaError as exc:
        raise _fail(exc) from exc

    def text() -> None:
        written = report["written"]
        click.echo(f"{fmt}: {report['records']} records -> {written['rows_total']} rows in {dst}")
        for partition, rows in sorted(written["rows"].items()):
            click.echo(f"  {partition}: {rows}")
        click.echo(f"  images: {written['images_written']} new, {written['images_deduplicated']} deduplicated")
        for title, counts in (
            ("skipped records", report["skipped"]),
            ("unmapped actions", report["unmapped_actions"]),
            ("dropped rows", written["dropped"]),
        ):
            for reason, n in sorted(counts.items(), key=lambda kv: -kv[1]):
                example = report["examples"].get(reason, "")
                click.echo(f"  {title}: {n} x {reason}" + (f"  e.g. {example}" if example else ""))

    _emit(report, as_json, text)


@main.command()
def formats() -> None:
    """List the installed converters."""
    registry = converters()
    for name in registry.names():
        meta = registry.meta(name)
        click.echo(f"{name:12} {meta.get('description', '')}  [{registry.plugin_of(name)}]")


@main.command()
@click.argument("path", type=_DATASET)
@click.option("--row", type=int, default=0, show_default=True, help="Which row of the first partition to show.")
@click.option("--json", "as_json", is_flag=True)
def inspect(path: Path, row: int, as_json: bool) -> None:
    """Counts by partition, one row rendered readably, and a check of that row's images."""
    try:
        reader = DatasetReader(path)
        counts = {str(p): open_parquet(reader.path(p)).metadata.num_rows for p in reader.partitions()}
        sample = next((s for i, s in enumerate(reader) if i == row), None)
    except CuaError as exc:
        raise _fail(exc) from exc
    store = ImageStore(path)
    refs = [ref for ref in (sample.images if sample else []) if isinstance(ref, str)]
    images = [{"path": ref, "problem": store.check(ref)} for ref in refs]
    data = {
        "partitions": counts,
        "rows": sum(counts.values()),
        "row": sample.to_row() if sample else None,
        "images": images,
    }

    def text() -> None:
        click.echo(f"{path}: {data['rows']} rows")
        for name, n in counts.items():
            click.echo(f"  {name}: {n}")
        if sample is None:
            click.echo(f"no row {row}")
            return
        meta = sample.metadata
        click.echo(f"\nrow {row}: {meta.platform}/{meta.task_type} id={meta.id} source={meta.source}")
        for line in _render(sample):
            click.echo(f"  {line}")
        for image in images:
            click.echo(f"  image {image['path']}: {image['problem'] or 'ok'}")

    _emit(data, as_json, text)


def _render(sample: LiteSample) -> Iterator[str]:
    """One line per message part: what a person reads to check a row."""
    for message in sample.messages:
        role = message.get("role")
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            kind = part.get("type")
            if kind == "image":
                yield f"{role}: [image {part.get('index')}]"
            elif kind == "metadata":
                yield f"{role}: metadata {json.dumps(part.get('data'))[:120]}"
            else:
                label = "" if kind == "text" else f"({kind}) "
                yield f"{role}: {label}{str(part.get('text'))[:200]}"
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            try:
                shown = "; ".join(format_action(a) for a in from_lite_tool_call(function))
            except ActionError:
                shown = json.dumps(function.get("arguments"))
            yield f"{role} -> {function.get('name')}: {shown}"


@main.command()
@click.argument("path", type=_DATASET)
@click.option("--json", "as_json", is_flag=True)
def stats(path: Path, as_json: bool) -> None:
    """Rows by partition and source, action kinds, steps per trajectory, images and their bytes."""
    rows: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    actions: Counter[str] = Counter()
    steps: list[int] = []
    refs: set[str] = set()
    try:
        for sample in _progress_iter(DatasetReader(path), "counting"):
            meta = sample.metadata
            rows[f"{meta.platform}/{meta.task_type}"] += 1
            sources[meta.source or "(none)"] += 1
            refs.update(r for r in sample.images if isinstance(r, str))
            turns = [m for m in sample.messages if m.get("role") == "assistant" and m.get("tool_calls")]
            steps.append(len(turns))
            for turn in turns:
                for call in turn["tool_calls"]:
                    name = call.get("function", {}).get("name")
                    if name in ("computer", "mobile"):
                        actions.update(a.kind for a in from_lite_tool_call(call["function"]))
                    else:
                        actions[str(name)] += 1
    except CuaError as exc:
        raise _fail(exc) from exc
    store = ImageStore(path)
    image_bytes = sum(p.stat().st_size for p in (store.path(r) for r in refs) if p.exists())
    data: dict[str, Any] = {
        "rows": sum(rows.values()),
        "by_platform_task": dict(rows),
        "by_source": dict(sources),
        "actions": dict(actions.most_common()),
        "steps_mean": sum(steps) / len(steps) if steps else 0,
        "steps_max": max(steps, default=0),
        "images": len(refs),
        "image_bytes": image_bytes,
    }

    def text() -> None:
        click.echo(f"{data['rows']} rows, {len(refs)} images ({image_bytes / 1e6:.1f} MB)")
        for title in ("by_platform_task", "by_source", "actions"):
            click.echo(f"{title.replace('_', ' ')}:")
            for key, n in data[title].items():
                click.echo(f"  {key}: {n}")
        click.echo(f"assistant steps per row: mean {data['steps_mean']:.2f}, max {data['steps_max']}")

    _emit(data, as_json, text)


@main.command()
@click.argument("path", type=_DATASET)
@click.option("--limit", type=int, default=20, show_default=True, help="How many problems to print.")
@click.option("--json", "as_json", is_flag=True)
def validate(path: Path, limit: int, as_json: bool) -> None:
    """Check every file, row and image; exit 1 listing the first problems if any."""
    found = list(_problems(path))
    data = {"ok": not found, "problems": len(found), "first": found[:limit]}

    def text() -> None:
        for problem in found[:limit]:
            click.echo(problem)
        more = f" (showing {limit})" if len(found) > limit else ""
        click.echo(f"{len(found)} problem(s){more}" if found else f"{path}: valid")

    _emit(data, as_json, text)
    if found:
        sys.exit(1)


def _problems(path: Path) -> Iterator[str]:
    store = ImageStore(path)
    checked: dict[str, str | None] = {}
    try:
        partitions = find_partitions(path)
    except CuaError as exc:
        yield str(exc)
        return
    reader = DatasetReader(path)
    for partition in partitions:
        file = reader.path(partition)
        try:
            parquet = open_parquet(file)
            number = 0
            for batch in parquet.iter_batches():
                for row in batch.to_pylist():
                    yield from _row_problems(row, f"{file} row {number}", store, checked)
                    number += 1
        except CuaError as exc:
            yield str(exc)
        except Exception as exc:  # Arrow errors mid-file: truncated or corrupt data
            yield f"{file}: unreadable after row {number}: {exc}"


def _row_problems(row: dict[str, Any], where: str, store: ImageStore, checked: dict[str, str | None]) -> Iterator[str]:
    try:
        sample = LiteSample.from_row(row)
    except SampleError as exc:
        yield f"{where}: {exc}"
        return
    for problem in sample.out_of_range() + sample.problems():
        yield f"{where}: {problem}"
    for ref in sample.images:
        if isinstance(ref, str):
            if ref not in checked:
                try:
                    checked[ref] = store.check(ref)
                except CuaError as exc:
                    checked[ref] = str(exc)
            if checked[ref]:
                yield f"{where}: {checked[ref]}"


@main.command("export-hub")
@click.argument("src", type=_DATASET)
@click.argument("dst", type=click.Path(file_okay=False, path_type=Path))
def export_hub_cmd(src: Path, dst: Path) -> None:
    """Write SRC as hub shards in DST (image bytes embedded in the Parquet)."""
    try:
        rows = export_hub(src, dst)
    except CuaError as exc:
        raise _fail(exc) from exc
    click.echo(f"exported {rows} rows to {dst}")


@main.command("import-hub")
@click.argument("src", type=_DATASET)
@click.argument("dst", type=click.Path(file_okay=False, path_type=Path))
@click.option("--dataset", help="Dataset name for image paths without one (default: DST's folder name).")
def import_hub_cmd(src: Path, dst: Path, dataset: str | None) -> None:
    """Write hub shards SRC as a local dataset DST (images into its store)."""
    try:
        rows = import_hub(src, dst, dataset=dataset)
    except CuaError as exc:
        raise _fail(exc) from exc
    click.echo(f"imported {rows} rows into {dst}")


class _progress:
    """A live count on stderr for long work (the total is unknown while streaming), only on a terminal."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.count = 0
        self.shown = 0.0
        self.live = sys.stderr.isatty()

    def tick(self, n: int) -> None:
        self.count += n
        now = time.monotonic()
        if self.live and now - self.shown > 0.2:
            self.shown = now
            click.echo(f"\r{self.label}: {self.count:,}", nl=False, err=True)

    def __enter__(self) -> Callable[[int], None]:
        return self.tick

    def __exit__(self, *exc: object) -> None:
        if self.live and self.shown:
            click.echo(f"\r{self.label}: {self.count:,} done", err=True)


def _progress_iter(items: Any, label: str) -> Iterator[Any]:
    with _progress(label) as tick:
        for item in items:
            tick(1)
            yield item
