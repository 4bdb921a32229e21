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

from cua_core import CONTEXT, ActionError, CuaError, CuaGroup, format_action
from cua_data.convert import DUPLICATE, converters, run_conversion
from cua_data.errors import SampleError
from cua_data.hub import export_hub, import_hub
from cua_data.images import ImageStore
from cua_data.layout import find_partitions
from cua_data.lite_actions import from_lite_tool_call
from cua_data.markers import DATASET_MARKER, Layout, require_dataset, resolve_dataset
from cua_data.reader import DatasetReader, open_parquet, row_id
from cua_data.schema import LiteSample

__all__ = ["main"]

_DATASET = click.Path(exists=True, file_okay=False, path_type=Path)


def _emit(data: Any, as_json: bool, text: Callable[[], None]) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        text()


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-data")
def main() -> None:
    """LiteSample datasets: Parquet partitions plus a content-addressed image store."""


@main.command()
@click.option("--from", "fmt", required=True, help="Native format (see `cua-data formats`).")
@click.argument("src", type=click.Path(exists=True, path_type=Path))
@click.argument("dst", type=click.Path(file_okay=False, path_type=Path))
@click.option("--dataset", help="Dataset name in image paths (default: DST's folder name).")
@click.option("--append", is_flag=True, help="Add to the existing dataset DST, skipping rows whose id it holds.")
@click.option("--allow-empty", is_flag=True, help="Exit 0 even when no row was written.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def convert(
    fmt: str, src: Path, dst: Path, dataset: str | None, append: bool, allow_empty: bool, as_json: bool
) -> None:
    """Convert native records SRC into the dataset folder DST (new or empty; --append to add to one)."""
    with _progress("converting") as tick:
        report = run_conversion(fmt, src, dst, dataset=dataset, append=append, progress=tick)

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
    if not report["written"]["rows_total"] and not allow_empty:
        skipped = sum(report["skipped"].values())
        why = (
            f"all {skipped} were already in {dst}"
            if report["skipped"] and set(report["skipped"]) == {DUPLICATE}
            else f"is SRC in the {fmt} layout? (see the cua-data README for each format's files)"
        )
        raise CuaError(
            f"{fmt}: no row written from {report['records']} record(s) of {src}: {why}; "
            "pass --allow-empty to accept an empty conversion"
        )


@main.command()
def formats() -> None:
    """List the installed converters."""
    registry = converters()
    for name in registry.names():
        meta = registry.meta(name)
        click.echo(f"{name:12} {meta.get('description', '')}  [{registry.plugin_of(name)}]")


@main.command()
@click.argument("path", type=_DATASET)
@click.option(
    "--row",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Which row to show, counting across partitions.",
)
@click.option("--json", "as_json", is_flag=True)
def inspect(path: Path, row: int, as_json: bool) -> None:
    """Counts by partition, one row rendered readably, and a check of that row's images."""
    path = resolve_dataset(path, "inspect")
    reader = DatasetReader(path)
    counts = {str(p): open_parquet(reader.path(p)).metadata.num_rows for p in reader.partitions()}
    total = sum(counts.values())
    if row >= total:
        raise CuaError(
            f"{path} has {total} rows, so there is no row {row}: "
            + (f"choose --row 0 to {total - 1}" if total else "the dataset is empty")
        )
    sample = _nth(reader, row)
    store = ImageStore(path)
    images = [_image(store, ref) for ref in sample.images if isinstance(ref, str)]
    data = {"partitions": counts, "rows": total, "row": sample.to_row(), "images": images}

    def text() -> None:
        click.echo(f"{path}: {total} rows")
        for name, n in counts.items():
            click.echo(f"  {name}: {n}")
        meta = sample.metadata
        click.echo(f"\nrow {row}: {meta.platform}/{meta.task_type} id={meta.id} source={meta.source}")
        for line in _render(sample):
            click.echo(f"  {line}")
        for image in images:
            click.echo(f"  image {image['path']}: {image['problem'] or 'ok'}")

    _emit(data, as_json, text)


def _nth(reader: DatasetReader, index: int) -> LiteSample:
    """Row ``index`` across the partitions, reading only the row group that holds it."""
    for partition in reader.partitions():
        file = reader.path(partition)
        parquet = open_parquet(file)
        if index >= parquet.metadata.num_rows:
            index -= parquet.metadata.num_rows
            continue
        number = index
        for group in range(parquet.num_row_groups):
            rows = parquet.metadata.row_group(group).num_rows
            if index < rows:
                row = parquet.read_row_group(group).slice(index, 1).to_pylist()[0]
                return LiteSample.from_row(row, f"{file} row {number}")
            index -= rows
    raise CuaError(f"{reader.root}: row {index} vanished while it was read; is another process writing?")


def _image(store: ImageStore, ref: str) -> dict[str, Any]:
    """The file of a row's image (as a path that opens from here) and what is wrong with it."""
    try:
        file, problem = str(store.path(ref)), store.check(ref)
    except CuaError as exc:
        file, problem = ref, str(exc)
    return {"ref": ref, "path": file, "problem": problem}


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
    path = resolve_dataset(path, "stats")
    rows: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    actions: Counter[str] = Counter()
    steps: list[int] = []
    refs: set[str] = set()
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
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True, help="How many problems to print.")
@click.option("--json", "as_json", is_flag=True)
def validate(path: Path, limit: int, as_json: bool) -> None:
    """Check every file, row, id and image; exit 1 listing the first problems if any."""
    path = resolve_dataset(path, "validate")
    layout = require_dataset(path, "validate")
    found = list(_problems(path, layout))
    data = {"ok": not found, "problems": len(found), "first": found[:limit]}

    def text() -> None:
        for problem in found[:limit]:
            click.echo(problem)
        more = f" (showing {limit})" if len(found) > limit else ""
        click.echo(f"{len(found)} problem(s){more}" if found else f"{path}: valid")

    _emit(data, as_json, text)
    if found:
        sys.exit(1)


def _problems(path: Path, layout: Layout) -> Iterator[str]:
    store = ImageStore(path)
    checked: dict[str, str | None] = {}
    try:
        partitions = find_partitions(path)
    except CuaError as exc:
        yield str(exc)
        return
    yield from _marker_problems(path, layout, {str(p) for p in partitions})
    first_seen: dict[str, str] = {}  # id -> where it first occurs
    reader = DatasetReader(path)
    for partition in partitions:
        file = reader.path(partition)
        number = 0
        try:
            parquet = open_parquet(file)
            for batch in parquet.iter_batches():
                for row in batch.to_pylist():
                    where = f"{file} row {number}"
                    yield from _row_problems(row, where, store, checked)
                    ident = row_id(row.get("metadata"))
                    if ident is not None:
                        first = first_seen.setdefault(ident, where)
                        if first != where:
                            yield f"{where}: duplicate id {ident!r}, first at {first}"
                    number += 1
        except CuaError as exc:
            yield str(exc)
        except Exception as exc:  # Arrow errors mid-file: truncated or corrupt data
            yield f"{file}: unreadable after row {number}: {exc}"


def _marker_problems(path: Path, layout: Layout, present: set[str]) -> Iterator[str]:
    """Partitions the marker records that are gone or hold another number of rows: rows lost or added."""
    if layout.marker is None:
        return
    marker = path / DATASET_MARKER
    fix = f"restore the file, or, if the change was intended, delete {marker} (the next write recreates it)"
    for name, rows in sorted(layout.marker["partitions"].items()):
        if name not in present:
            yield f"{path / name}: missing, though {marker} records {rows} rows in it; {fix}"
            continue
        try:
            held = open_parquet(path / name).metadata.num_rows
        except CuaError:
            continue  # reported with the partition's rows
        if held != rows:
            yield f"{path / name}: holds {held} rows, {marker} records {rows}; {fix}"


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
    """Write the dataset SRC as hub shards in the new folder DST (image bytes embedded in the Parquet)."""
    rows = export_hub(src, dst)
    click.echo(f"exported {rows} rows to {dst}")


@main.command("import-hub")
@click.argument("src", type=_DATASET)
@click.argument("dst", type=click.Path(file_okay=False, path_type=Path))
@click.option("--dataset", help="Dataset name for image paths without one (default: the export's, else DST's name).")
@click.option("--allow-empty", is_flag=True, help="Exit 0 even when the export holds no row.")
def import_hub_cmd(src: Path, dst: Path, dataset: str | None, allow_empty: bool) -> None:
    """Write the hub export SRC as a local dataset in the new folder DST (images into its store)."""
    rows = import_hub(src, dst, dataset=dataset)
    click.echo(f"imported {rows} rows into {dst}")
    if not rows and not allow_empty:
        raise CuaError(f"{src} is a hub export with no row: nothing was imported; pass --allow-empty to accept that")


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
