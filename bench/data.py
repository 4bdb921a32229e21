"""cua-data's store against raw pyarrow and 🤗 datasets, and its converters against a raw parse (only ratios count).

The store (the default; with --converters, only if --store is given too):

Write: DatasetWriter adds 100,000 rows (one screenshot each, drawn from 10,000 distinct noise PNGs
of ~3 KB, so 90% of image puts are deduplicated) to four partitions, in a child process that
reports its own peak RSS; a second child writes 20,000 rows the same way, to show that the
writer's memory does not grow with the number of rows. The PNGs are generated once into a pool
file that the children read with pread, so the pool does not count in their RSS.

Read, interleaved over rounds (medians): rows/s of
  ours      DatasetReader(root).rows(): every row as a raw dict (JSON strings left as strings);
  pyarrow   pq.ParquetFile(path).iter_batches() + batch.to_pylist() over the same files: same work,
            same dicts; the baseline of read_ratio_pyarrow = ours / pyarrow;
  datasets  🤗 datasets.load_dataset("parquet", data_files=<the same files>, split="train"), then
            iterating its rows (the one-time load into its Arrow cache is timed apart); the baseline
            of read_ratio_datasets = ours / datasets (nan when datasets is not installed:
            pip install -e ".[bench]");
  parse     iterating DatasetReader itself: rows parsed into LiteSamples (json.loads + Metadata).

The converters (--converters): bench/data_converters.py, whose docstring says how.

The last line is ``key=value`` pairs: with the store figures, the first four always
``read_ratio_pyarrow read_ratio_datasets write_rows_per_s write_peak_rss_mib``; with the
converters, five a converter after them: ``convert_<name>_rows_per_s convert_<name>_vs_parse
convert_<name>_peak_mib_small convert_<name>_peak_mib_large convert_<name>_peak_growth``
(--converters alone: only those).

Run: .venv/bin/python bench/data.py [--quick] [--converters [--store]]
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from cua_data import DatasetReader, DatasetWriter, LiteSample, Metadata

PARTITIONS = (  # (platform, task type, split): rows go round-robin
    ("desktop", "use", "train"),
    ("browser", "use", "train"),
    ("mobile", "use", "train"),
    ("desktop", "use", "validation"),
)
IMAGE_SIZE = (32, 32)  # RGB noise: ~3.2 KB as PNG
BATCH = 1024  # DatasetReader's default batch size, used for the raw baseline too


# -- the image pool -------------------------------------------------------------------------------


def make_pool(folder: Path, count: int) -> tuple[Path, list[int]]:
    """``count`` distinct noise PNGs concatenated into one file; returns it and the offsets (count + 1)."""
    rng = np.random.default_rng(20261129)
    path = folder / "pool.bin"
    offsets = [0]
    with path.open("wb") as out:
        for _ in range(count):
            pixels = rng.integers(0, 256, (IMAGE_SIZE[1], IMAGE_SIZE[0], 3), dtype=np.uint8)
            buffer = io.BytesIO()
            Image.fromarray(pixels, "RGB").save(buffer, "PNG", compress_level=1)
            out.write(buffer.getvalue())
            offsets.append(offsets[-1] + buffer.tell())
    (folder / "pool.json").write_text(json.dumps(offsets))
    return path, offsets


def _sample(n: int, image: bytes) -> tuple[LiteSample, str]:
    platform, task_type, split = PARTITIONS[n % len(PARTITIONS)]
    tool = "mobile" if platform == "mobile" else "computer"
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You operate a computer. Answer with one tool call."},
        {
            "role": "user",
            "content": [{"type": "text", "text": f"Open item {n} in the list."}, {"type": "image", "index": 0}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": f"I click on item {n}."}],
            "tool_calls": [
                {
                    "id": f"call-{n}",
                    "type": "function",
                    "function": {
                        "name": tool,
                        "arguments": {"actions": [{"action": "click", "coordinate": [n % 1000, (7 * n) % 1000]}]},
                    },
                }
            ],
        },
    ]
    others = {"id": f"row-{n}", "source": f"bench-{n % 3}", "resolution": [1280, 800]}
    return LiteSample(Metadata(platform, task_type, others=others), messages, [image]), split


# -- writing, in a child process ------------------------------------------------------------------------


def write_child(root: Path, rows: int, pool: Path) -> dict[str, Any]:
    """Runs in the child: write ``rows`` rows, report time, counts and this process's peak RSS."""
    offsets: list[int] = json.loads(pool.with_suffix(".json").read_text())
    images = len(offsets) - 1
    fd = os.open(pool, os.O_RDONLY)
    start = time.perf_counter()
    writer = DatasetWriter(root)
    for n in range(rows):
        k = n % images
        image = os.pread(fd, offsets[k + 1] - offsets[k], offsets[k])
        sample, split = _sample(n, image)
        writer.add(sample, split=split)
    report = writer.close()
    seconds = time.perf_counter() - start
    os.close(fd)
    return {
        "rows": report.to_dict()["rows_total"],
        "seconds": seconds,
        "images_written": report.images_written,
        "images_deduplicated": report.images_deduplicated,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
    }


def idle_child() -> dict[str, Any]:
    """Runs in the child: the peak RSS of the same imports with nothing written (the floor)."""
    return {"peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _run_child(*args: str, script: str = __file__) -> dict[str, Any]:
    """``script`` (this file by default) run with ``args`` in a child; the JSON its last line prints."""
    done = subprocess.run([sys.executable, script, *args], check=False, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"child {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# -- reading -------------------------------------------------------------------------------------------


def read_ours(root: Path) -> int:
    count = 0
    for _ in DatasetReader(root).rows():
        count += 1
    return count


def read_pyarrow(files: list[Path]) -> int:
    count = 0
    for path in files:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH):
            for _ in batch.to_pylist():
                count += 1
    return count


def parse_ours(root: Path) -> int:
    count = 0
    for _ in DatasetReader(root):
        count += 1
    return count


def load_datasets(files: list[Path], cache: Path) -> tuple[Any, float] | str:
    """The files as a 🤗 Dataset and the seconds the one-time load took, or why it is unavailable."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    try:
        import datasets
    except ImportError as exc:
        return f"🤗 datasets is not installed ({exc}); pip install -e '.[bench]' to compare against it"
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    start = time.perf_counter()
    loaded = datasets.load_dataset("parquet", data_files=[str(f) for f in files], split="train", cache_dir=str(cache))
    return loaded, time.perf_counter() - start


def read_datasets(loaded: Any) -> int:
    count = 0
    for _ in loaded:
        count += 1
    return count


def _rate(read: Callable[[], int], want: int, passes: int = 1) -> tuple[float, float]:
    """Rows/s of ``passes`` back-to-back calls of ``read``, by the wall clock and by this process's
    CPU time (steadier when other processes share the cores), from a collected heap: both sides
    of a ratio allocate the same dicts, and without the collect whichever runs after the
    LiteSample parse pays for its garbage."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(passes):
        count = read()
        if count != want:
            raise RuntimeError(f"{read}: read {count} rows, expected {want}")
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return want * passes / wall, want * passes / cpu


def measure_reads(root: Path, rows: int, rounds: int, loaded: Any) -> dict[str, float]:
    """Median rows/s of each reader (after one warm-up pass); ``<name>_cpu`` by CPU time.

    Each of ``3 * rounds`` rounds times ours and pyarrow back to back (their order alternating),
    each over two passes; every third round then times the slower extras (LiteSample parse,
    🤗 datasets), so nothing else runs between the two sides of the headline ratio.
    """
    files = [root / p.relpath() for p in DatasetReader(root).partitions()]
    pair: dict[str, Callable[[], int]] = {"ours": lambda: read_ours(root), "pyarrow": lambda: read_pyarrow(files)}
    extras: dict[str, Callable[[], int]] = {"parse": lambda: parse_ours(root)}
    if loaded is not None:
        extras["datasets"] = lambda: read_datasets(loaded)
    read_pyarrow(files)  # warm the page cache
    samples: dict[str, list[float]] = {}

    def record(name: str, rates: tuple[float, float]) -> None:
        samples.setdefault(name, []).append(rates[0])
        samples.setdefault(f"{name}_cpu", []).append(rates[1])

    for r in range(3 * rounds):  # the pair is cheap: three times the rounds, for a steadier ratio
        for name in list(pair) if r % 2 == 0 else list(reversed(pair)):
            record(name, _rate(pair[name], rows, passes=2))
        if r % 3 == 0:
            for name, read in extras.items():
                record(name, _rate(read, rows))
    return {name: statistics.median(values) for name, values in samples.items()}


def time_find_partitions(root: Path, repeat: int = 5) -> float:
    """Seconds DatasetReader takes to list the partition files (each iteration starts with it)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        DatasetReader(root).partitions()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# -- converters: inputs built from the fixtures, each converted in a child process ------------------


def _du(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def run_store(folder: Path, quick: bool) -> dict[str, str]:
    """The store's figures (write, then read against pyarrow and 🤗 datasets), printed as they come."""
    rows, images, small, rounds = (10_000, 1_000, 2_000, 2) if quick else (100_000, 10_000, 20_000, 5)
    started = time.perf_counter()
    pool, offsets = make_pool(folder, images)
    print(f"image pool: {images:,} distinct noise PNGs, {offsets[-1] / images / 1024:.1f} KiB each on average")

    root = folder / "Bench"
    big = _run_child("--write-child", str(root), str(rows), str(pool))
    little = _run_child("--write-child", str(folder / "Small"), str(small), str(pool))
    idle = _run_child("--idle-child")
    write_rows = big["rows"] / big["seconds"]
    puts = big["images_written"] + big["images_deduplicated"]
    print(
        f"write {big['rows']:,} rows in {big['seconds']:.1f} s: {write_rows:,.0f} rows/s, "
        f"{puts / big['seconds']:,.0f} image puts/s ({big['images_written']:,} new files, "
        f"{big['images_deduplicated']:,} deduplicated); {_du(root) / 2**20:.0f} MiB on disk"
    )
    rss_ratio = big["peak_rss_mib"] / little["peak_rss_mib"]
    print(
        f"peak RSS while writing: {rows:,} rows {big['peak_rss_mib']:.0f} MiB, {small:,} rows "
        f"{little['peak_rss_mib']:.0f} MiB (ratio {rss_ratio:.2f}); "
        f"the same imports writing nothing: {idle['peak_rss_mib']:.0f} MiB"
    )

    files = [root / p.relpath() for p in DatasetReader(root).partitions()]
    got = load_datasets(files, folder / "hf-cache")
    loaded = None
    if isinstance(got, str):
        print(f"datasets: skipped: {got}")
    else:
        loaded, load_seconds = got
        print(f"datasets: one-time load_dataset('parquet') into its Arrow cache: {load_seconds:.2f} s")
    rates = measure_reads(root, rows, rounds, loaded)
    pyarrow_ratio = rates["ours"] / rates["pyarrow"]
    pyarrow_ratio_cpu = rates["ours_cpu"] / rates["pyarrow_cpu"]
    datasets_ratio = rates["ours"] / rates["datasets"] if "datasets" in rates else math.nan
    print(f"read rows/s (medians: ours and pyarrow over {3 * rounds} interleaved rounds, the others {rounds}):")
    print(f"  ours      DatasetReader.rows()        {rates['ours']:>10,.0f}")
    print(
        f"  pyarrow   iter_batches + to_pylist    {rates['pyarrow']:>10,.0f}   ours/pyarrow {pyarrow_ratio:.2f}"
        f" (by CPU time {pyarrow_ratio_cpu:.2f})"
    )
    if "datasets" in rates:
        datasets_rate = rates["datasets"]
        print(f"  datasets  iterating a 🤗 Dataset       {datasets_rate:>10,.0f}   ours/datasets {datasets_ratio:.2f}")
    parse_share = rates["parse"] / rates["ours"]
    print(f"  parse     DatasetReader -> LiteSample {rates['parse']:>10,.0f}   parse/ours {parse_share:.2f}")
    find = time_find_partitions(root)
    print(f"DatasetReader.partitions() (finding the partition files): {find * 1000:.1f} ms a call")
    print(f"pyarrow {pa.__version__}, total {time.perf_counter() - started:.0f} s")
    return {
        "read_ratio_pyarrow": f"{pyarrow_ratio:.2f}",
        "read_ratio_datasets": f"{datasets_ratio:.2f}",
        "write_rows_per_s": f"{write_rows:.0f}",
        "write_peak_rss_mib": f"{big['peak_rss_mib']:.0f}",
        "read_ratio_pyarrow_cpu": f"{pyarrow_ratio_cpu:.2f}",
        "write_peak_rss_small_mib": f"{little['peak_rss_mib']:.0f}",
        "write_rss_ratio": f"{rss_ratio:.2f}",
        "write_image_puts_per_s": f"{puts / big['seconds']:.0f}",
        "read_rows_per_s": f"{rates['ours']:.0f}",
        "parse_rows_per_s": f"{rates['parse']:.0f}",
        "datasets_rows_per_s": f"{rates.get('datasets', math.nan):.0f}",
        "find_partitions_ms": f"{find * 1000:.1f}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer rounds, for a smoke run")
    parser.add_argument("--converters", action="store_true", help="the converter figures (alone: only those)")
    parser.add_argument("--store", action="store_true", help="the store figures (the default without --converters)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print where it is")
    parser.add_argument("--write-child", nargs=3, metavar=("ROOT", "ROWS", "POOL"), help=argparse.SUPPRESS)
    parser.add_argument("--idle-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_child:
        root, rows, pool = args.write_child
        print(json.dumps(write_child(Path(root), int(rows), Path(pool))))
        return 0
    if args.idle_child:
        print(json.dumps(idle_child()))
        return 0

    folder = Path(tempfile.mkdtemp(prefix="cua-bench-data-"))
    try:
        figures: dict[str, str] = {}
        if args.store or not args.converters:
            figures |= run_store(folder, args.quick)
        if args.converters:
            from data_converters import run_converters  # bench/data_converters.py

            figures |= run_converters(folder / "converters", args.quick, args.keep)
        if args.keep:
            print(f"kept {folder}")
        print(" ".join(f"{k}={v}" for k, v in figures.items()))
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
