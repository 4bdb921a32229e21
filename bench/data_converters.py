"""``bench/data.py --converters``: each new converter on an input built from its fixture, against the raw
parse of the same input, with its peak memory at two input sizes.

Each converter on an input built from its fixture
(shared/fixtures/datasets/<name>/), at two sizes: N copies of its unit and LARGE (10) x N.
  aitz             the real episode JSON (4 steps), a copy per episode folder in AITZ's published
                   layout with its own episode_id; the fixture's 2 screenshots (hard links) and
                   stand-ins for the 2 it lacks;
  android_control  no real record: the tests' 9-action episode built from the README's features
                   (10 screenshots of 108x240), in gzip TFRecord shards of 100 episodes;
  os_atlas         the 18 real lines (6 files), each file's lines repeated (ids come from line
                   numbers); each copy's image paths get a folder of their own, with stand-ins where
                   the tests mirror them (1080x2400, web 1920x1080);
  mind2web         no real record: the tests' 5-step episode built from the format doc's fields,
                   one parquet row a step (a 1280x2000 screenshot inline), shards of 200 episodes;
  weblinx          the 10 real candidate rows (one turn) and the real splits.json; each copy is the
                   turn under another demonstration named in splits.json (its splits in turn) with
                   a replay.json built from the documented fields as the tests build it (the
                   replay's click turn converts too: 3 rows a copy) and a stand-in of 1920x932.
A stand-in screenshot is one plain PNG per size made distinct by a tEXt chunk, so no two steps
share an image; at 0.5-12 KB they are far lighter than real screenshots. Each input is converted
by run_conversion into a new dataset in a child process (registry loaded before the clock), which
reports its own peak RSS (VmHWM) read straight after, then times the raw parse of the same input
with no conversion (median of 3): json.loads of each line (os_atlas; weblinx's candidates) or file
(aitz's episodes; weblinx's replays and splits.json), pq.ParquetFile.iter_batches + to_pylist
(mind2web), the TFRecord framing read by the converter's own _tfrecord.read_records
(android_control). Over the large input: convert_<name>_rows_per_s (rows written per second) and
convert_<name>_vs_parse = parse seconds / convert seconds (the conversion's speed as a fraction of
the raw parse's); peak_growth = large / small peak RSS. The writer holds up to 1,024 rows per
partition before writing a row group, so peak RSS rises until each partition's first row group is
written and stays flat after: "rows/part." says whether the large input got there.

Run: .venv/bin/python bench/data.py --converters [--quick]
"""

from __future__ import annotations

import gc
import gzip
import io
import json
import math
import os
import shutil
import statistics
import struct
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from data import _du, _run_child  # bench/data.py
from PIL import Image

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "datasets"
CONVERTERS = ("aitz", "android_control", "os_atlas", "mind2web", "weblinx")
# Copies of each converter's input unit (episode, fixture file line, turn) in the small input; the
# large input holds LARGE times as many.
CONVERT_COPIES = {"aitz": 200, "android_control": 200, "os_atlas": 20, "mind2web": 200, "weblinx": 200}
CONVERT_COPIES_QUICK = {"aitz": 20, "android_control": 20, "os_atlas": 2, "mind2web": 20, "weblinx": 20}
LARGE = 10
_PNG_HEADER = 33  # the signature and the IHDR chunk: a tEXt chunk may follow them
_PLAIN: dict[tuple[int, int], bytes] = {}  # one plain PNG per size


def _png(size: tuple[int, int], n: int) -> bytes:
    """A plain ``size`` PNG made distinct by a tEXt chunk naming ``n`` (encoded once per size, so
    building thousands of stand-in screenshots of real screen sizes costs no image encoding)."""
    if size not in _PLAIN:
        out = io.BytesIO()
        Image.new("RGB", size, (40, 80, 120)).save(out, "PNG")
        _PLAIN[size] = out.getvalue()
    base, text = _PLAIN[size], b"copy\x00" + str(n).encode()
    chunk = struct.pack(">I", len(text)) + b"tEXt" + text + struct.pack(">I", zlib.crc32(b"tEXt" + text))
    return base[:_PNG_HEADER] + chunk + base[_PNG_HEADER:]


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise RuntimeError(f"expected {old!r} once in a fixture record")
    return text.replace(old, new)


def build_aitz(src: Path, copies: int) -> str:
    """The real episode (4 steps), ``copies`` times in AITZ's published layout, each with its own
    ``episode_id``; the fixture's two screenshots (hard links: the same bytes in every episode, so
    the image store keeps them once) and distinct stand-ins for the two it lacks."""
    name = "GOOGLE_APPS-523638528775825151"
    raw = (FIXTURES / "aitz" / f"{name}.json").read_text()
    shots = src.parent / f"{src.name}-shots"  # outside SRC: one copy of each real screenshot, linked
    shots.mkdir(parents=True)
    for n in (0, 2):
        shutil.copy(FIXTURES / "aitz" / f"{name}_{n}.png", shots / f"{name}_{n}.png")
    for k in range(copies):
        folder = src / "train" / "google_apps" / f"{name}-{k}"
        folder.mkdir(parents=True)
        episode = raw.replace('"episode_id": "523638528775825151"', f'"episode_id": "523638528775825151-{k}"')
        (folder / f"{name}.json").write_text(episode)
        for n in (0, 2):
            os.link(shots / f"{name}_{n}.png", folder / f"{name}_{n}.png")
        for n in (1, 3):
            (folder / f"{name}_{n}.png").write_bytes(_png((270, 600), 4 * k + n))
    return f"{copies:,} episodes of 4 steps"


# AndroidControl (no real record; built from the README's features, as its tests do): a minimal
# tf.train.Example encoder and TensorFlow's record framing.
_AC_ACTIONS: list[dict[str, Any]] = [  # the test's episode: every documented action once
    {"action_type": "open_app", "app_name": "Clock"},
    {"action_type": "click", "x": 54, "y": 120},
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "type", "text": "7 am", "x": 10, "y": 239},
    {"action_type": "input_text", "text": "wake up"},
    {"action_type": "long_press", "x": 0, "y": 0},
    {"action_type": "navigate_back"},
    {"action_type": "navigate_home"},
    {"action_type": "wait"},
]
_AC_SIZE = (108, 240)
_AC_PER_SHARD = 100


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _example(features: dict[str, list[bytes] | list[int]]) -> bytes:
    def feature(values: list[bytes] | list[int]) -> bytes:
        if all(isinstance(v, bytes) for v in values):
            return _field(1, b"".join(_field(1, v) for v in values if isinstance(v, bytes)))
        return _field(3, _field(1, b"".join(_varint(v) for v in values if isinstance(v, int))))

    return _field(1, b"".join(_field(1, _field(1, k.encode()) + _field(2, feature(v))) for k, v in features.items()))


def build_android_control(src: Path, copies: int) -> str:
    """``copies`` episodes of 9 actions (10 screenshots) in gzip TFRecord shards of 100 episodes."""
    from cua_data.converters._tfrecord import masked_crc32c

    shots = len(_AC_ACTIONS) + 1
    shards = math.ceil(copies / _AC_PER_SHARD)
    src.mkdir(parents=True)
    for shard in range(shards):
        with gzip.open(src / f"android_control-{shard:05d}-of-{shards:05d}", "wb", compresslevel=6) as out:
            for k in range(shard * _AC_PER_SHARD, min(copies, (shard + 1) * _AC_PER_SHARD)):
                data = _example(
                    {
                        "episode_id": [k],
                        "goal": [f"Set an alarm for 7 am in Clock ({k})".encode()],
                        "screenshots": [_png(_AC_SIZE, shots * k + n) for n in range(shots)],
                        "accessibility_trees": [b"\x0a\x00"] * shots,
                        "screenshot_widths": [_AC_SIZE[0]] * shots,
                        "screenshot_heights": [_AC_SIZE[1]] * shots,
                        "actions": [json.dumps(a).encode() for a in _AC_ACTIONS],
                        "step_instructions": [f"instruction {n}".encode() for n in range(len(_AC_ACTIONS))],
                    }
                )
                length = struct.pack("<Q", len(data))
                out.write(length + struct.pack("<I", masked_crc32c(length)) + data)
                out.write(struct.pack("<I", masked_crc32c(data)))
    return f"{copies:,} episodes of 9 actions, {shards} gzip TFRecord shards"


def build_os_atlas(src: Path, copies: int) -> str:
    """The 18 real lines (6 files), each file's lines ``copies`` times (ids come from line numbers);
    each copy's image paths get a folder of their own, so every copy has its own stand-in screenshots."""
    lines = shots = 0
    for path in sorted((FIXTURES / "os_atlas" / "eval_data").glob("*.jsonl")):
        records = [line for line in path.read_text().splitlines() if line.strip()]
        target = src / path.name
        src.mkdir(parents=True, exist_ok=True)
        with target.open("w") as out:
            for k in range(copies):
                for raw in records:
                    image = json.loads(raw)["image"]
                    folder, file = image.rsplit("/", 1)
                    moved = f"{folder}/c{k}/{file}"
                    out.write(_replace_once(raw, f'"image": "{image}"', f'"image": "{moved}"') + "\n")
                    mirror = src.joinpath("images", *moved.split("/")[-3:])  # as the tests mirror them
                    if not mirror.exists():
                        mirror.parent.mkdir(parents=True, exist_ok=True)
                        size = (1920, 1080) if "web" in image else (1080, 2400)
                        mirror.write_bytes(_png(size, shots))
                        shots += 1
                    lines += 1
    return f"{lines:,} lines (18 real lines x {copies:,}), {shots:,} screenshots"


# Multimodal-Mind2Web (no real record; built from the format doc's fields, as its tests do).
_M2W_SCHEMA = pa.schema(
    [
        ("annotation_id", pa.string()),
        ("target_action_index", pa.string()),
        ("target_action_reprs", pa.string()),
        ("confirmed_task", pa.string()),
        ("operation", pa.string()),
        ("pos_candidates", pa.list_(pa.string())),
        ("website", pa.string()),
        ("domain", pa.string()),
        ("subdomain", pa.string()),
        ("cleaned_html", pa.string()),  # a column the converter does not read
        ("screenshot", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
    ]
)
_M2W_STEPS: list[tuple[int, str, str, tuple[int, int, int, int] | None]] = [  # the test's episode, out of order
    (2, "SELECT", "2 adults", (10, 1500, 100, 20)),
    (0, "CLICK", "", (100, 50, 200, 40)),
    (4, "ENTER", "", None),
    (1, "TYPE", "New York", (600, 901, 300, 50)),
    (3, "HOVER", "", (1200, 0, 60, 30)),
]
_M2W_PER_SHARD = 200  # episodes per shard (1,000 rows)
_M2W_ROW_GROUP = 100


def _m2w_step(
    ident: str, k: int, index: int, op: str, value: str, box: tuple[int, int, int, int] | None
) -> dict[str, Any]:
    candidates = []
    if box is not None:
        attributes = {"backend_node_id": "136", "bounding_box_rect": ",".join(map(str, box)), "class": "nav-link"}
        candidate = {"tag": "a", "attributes": json.dumps(attributes), "is_original_target": True}
        candidates.append(json.dumps(candidate | {"backend_node_id": "136"}))
    return {
        "annotation_id": ident,
        "target_action_index": str(index),
        "target_action_reprs": f"[link]  Step {index} -> {op}",
        "confirmed_task": f"Find one-way flights from New York to Toronto ({k}).",
        "operation": json.dumps({"op": op, "original_op": op, "value": value}),
        "pos_candidates": candidates,
        "website": "kayak",
        "domain": "Travel",
        "subdomain": "Airlines",
        "cleaned_html": "<html>...</html>",
        "screenshot": {"bytes": _png((1280, 2000), 5 * k + index), "path": None},
    }


def build_mind2web(src: Path, copies: int) -> str:
    """``copies`` episodes of 5 steps (one row a step) in ``train-*.parquet`` shards of 200 episodes."""
    shards = math.ceil(copies / _M2W_PER_SHARD)
    src.mkdir(parents=True)
    for shard in range(shards):
        with pq.ParquetWriter(src / f"train-{shard:05d}-of-{shards:05d}.parquet", _M2W_SCHEMA) as out:
            episodes = range(shard * _M2W_PER_SHARD, min(copies, (shard + 1) * _M2W_PER_SHARD))
            rows = [_m2w_step(f"ep-{k:07d}", k, *step) for k in episodes for step in _M2W_STEPS]
            out.write_table(pa.Table.from_pylist(rows, schema=_M2W_SCHEMA), row_group_size=_M2W_ROW_GROUP)
    return f"{copies:,} episodes of 5 steps ({5 * copies:,} rows), {shards} parquet shards"


# WebLINX: the 10 real candidate rows (one turn of demonstration aaabtsd) and the real splits.json;
# each copy is that turn under another demonstration name from splits.json, with a replay built
# from the weblinx library's documented fields (as the tests build aaabtsd's) holding its screenshot.
_WL_VIEWPORT = {"viewportWidth": 1536, "viewportHeight": 746}
_WL_LIFE = {"x": 745.8, "y": 42.6, "width": 41.2, "height": 20.8, "top": 42.6, "left": 745.8}


def _wl_browser(intent: str, shot: str | None, metadata: dict[str, Any] | None = None, **arguments: Any) -> Any:
    meta = {"url": "https://www.independent.ie/", "tabId": 1, **_WL_VIEWPORT, **(metadata or {})}
    element = {"tagName": "DIV", "textContent": "Life", "bbox": _WL_LIFE, "attributes": {"data-webtasks-id": "x"}}
    state = {"screenshot": shot, "screenshot_status": "good", "page": "page-1-0.html"} if shot else {}
    action = {"intent": intent, "arguments": {"metadata": meta, "element": element, **arguments}}
    return {"type": "browser", "timestamp": 2.0, "action": action, "state": state}


def _wl_replay() -> str:
    def chat(speaker: str, utterance: str) -> dict[str, Any]:
        return {"type": "chat", "timestamp": 1.0, "speaker": speaker, "utterance": utterance}

    turns = [  # the tests' aaabtsd: consistent with the previous turns the candidate query quotes
        chat("instructor", "Hello"),
        chat("instructor", "Open independent ie Website."),
        _wl_browser("load", None, url="https://www.independent.ie/"),
        chat("navigator", "Yes, sure"),
        chat("instructor", "Go to life and send me some life related news"),
        _wl_browser("hover", None, metadata={"mouseX": 964, "mouseY": 309}),
        _wl_browser("scroll", "screenshot-7-0.png", scrollX=0, scrollY=120),
        _wl_browser("click", "screenshot-7-0.png", metadata={"mouseX": 770, "mouseY": 55}),
    ]
    return json.dumps({"data": turns, "version": "1.0.0"})


def build_weblinx(src: Path, copies: int) -> str:
    """``copies`` turns (10 real candidate rows each) of as many demonstrations named in the real
    splits.json (drawn from its splits in turn), written to ``candidates/<split>.jsonl``."""
    splits: dict[str, list[str]] = json.loads((FIXTURES / "weblinx" / "splits.json").read_text())
    lines = (FIXTURES / "weblinx" / "candidates_unittest.head10.jsonl").read_text().splitlines()
    queues = {name: demos for name, demos in splits.items() if name != "dev"}  # dev = valid + test_iid
    order, seen = [], set()
    for i in range(max(map(len, queues.values()))):  # one demonstration of each split in turn
        for split, demos in queues.items():
            if i < len(demos) and demos[i] not in seen:
                seen.add(demos[i])
                order.append((split, demos[i]))
    if copies > len(order):
        raise ValueError(f"weblinx: at most {len(order):,} copies (the distinct demonstrations of splits.json)")
    src.mkdir(parents=True)
    shutil.copy(FIXTURES / "weblinx" / "splits.json", src / "splits.json")
    replay = _wl_replay()
    files: dict[str, Any] = {}
    try:
        for k, (split, demo) in enumerate(order[:copies]):
            if split not in files:
                (src / "candidates").mkdir(exist_ok=True)
                files[split] = (src / "candidates" / f"{split}.jsonl").open("w")
            for line in lines:
                files[split].write(_replace_once(line, '"demo_name": "aaabtsd"', f'"demo_name": "{demo}"') + "\n")
            folder = src / "demonstrations" / demo / "screenshots"
            folder.mkdir(parents=True)
            (folder.parent / "replay.json").write_text(replay)
            (folder / "screenshot-7-0.png").write_bytes(_png((1920, 932), k))
    finally:
        for file in files.values():
            file.close()
    return f"{copies:,} turns ({10 * copies:,} candidate rows) + {copies:,} replays, {len(files)} splits"


BUILDERS: dict[str, Callable[[Path, int], str]] = {
    "aitz": build_aitz,
    "android_control": build_android_control,
    "os_atlas": build_os_atlas,
    "mind2web": build_mind2web,
    "weblinx": build_weblinx,
}


# The baselines: the same input read and parsed raw, nothing converted; each returns what it parsed.


def _parse_json_files(src: Path, pattern: str) -> int:
    count = 0
    for path in sorted(src.rglob(pattern)):
        json.loads(path.read_bytes())
        count += 1
    return count


def _parse_jsonl(src: Path) -> int:
    count = 0
    for path in sorted(src.rglob("*.jsonl")):
        with path.open("rb") as lines:
            for line in lines:
                json.loads(line)
                count += 1
    return count


def parse_aitz(src: Path) -> int:
    return _parse_json_files(src, "*.json")


def parse_android_control(src: Path) -> int:
    from cua_data.converters._tfrecord import read_records

    count = 0
    for path in sorted(src.iterdir()):
        for _ in read_records(path):
            count += 1
    return count


def parse_os_atlas(src: Path) -> int:
    return _parse_jsonl(src)


def parse_mind2web(src: Path) -> int:
    count = 0
    for path in sorted(src.rglob("*.parquet")):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=16):  # the converter's batch size
            count += len(batch.to_pylist())
    return count


def parse_weblinx(src: Path) -> int:
    return _parse_jsonl(src) + _parse_json_files(src, "replay.json") + _parse_json_files(src, "splits.json")


PARSERS: dict[str, Callable[[Path], int]] = {
    "aitz": parse_aitz,
    "android_control": parse_android_control,
    "os_atlas": parse_os_atlas,
    "mind2web": parse_mind2web,
    "weblinx": parse_weblinx,
}


def _own_peak_mib() -> float:
    """This process's peak RSS (MiB): VmHWM, the high-water mark of its own address space. Not
    ru_maxrss: Linux carries the spawning process's high-water mark into a child's ru_maxrss
    across vfork + exec, so a parent grown by building inputs would read as the child's peak."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def convert_child(name: str, src: Path, dst: Path, parses: int) -> dict[str, Any]:
    """Runs in the child: ``run_conversion`` once (its peak RSS read straight after), then the raw
    parse of the same input ``parses`` times (the median counts): wall and CPU seconds of each."""
    from cua_data import run_conversion
    from cua_data.convert import converters

    converters()[name]  # load the registry and the converter's module before the clock starts
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    report = run_conversion(name, src, dst)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    peak = _own_peak_mib()
    walls, cpus, parsed = [], [], 0
    for _ in range(parses):
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        parsed = PARSERS[name](src)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return {
        "records": report["records"],
        "samples": report["samples"],
        "skipped": sum(report["skipped"].values()),
        "images_written": report["written"]["images_written"],
        "partitions": len(report["written"]["rows"]),
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "peak_rss_mib": peak,
        "parsed": parsed,
        "parse_seconds": statistics.median(walls) if walls else math.nan,
        "parse_cpu_seconds": statistics.median(cpus) if cpus else math.nan,
    }


# -- the run -------------------------------------------------------------------------------------------------


def run_converters(folder: Path, quick: bool, keep: bool = False) -> dict[str, str]:
    """Each converter on its input at two sizes, each converted in a child; prints them, returns the figures."""
    copies = CONVERT_COPIES_QUICK if quick else CONVERT_COPIES
    started = time.perf_counter()
    (folder / "empty").mkdir(parents=True)  # the floor: the same child converting an empty folder
    idle = _run_child("--convert-child", "aitz", str(folder / "empty"), str(folder / "empty-out"), "0", script=__file__)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for name in CONVERTERS:
        for size, count in (("small", copies[name]), ("large", LARGE * copies[name])):
            src = folder / f"{name}-{size}" / "src"
            begun = time.perf_counter()
            described = BUILDERS[name](src, count)
            built, mib = time.perf_counter() - begun, _du(src.parent) / 2**20
            parses = 3 if size == "large" else 1
            got = _run_child("--convert-child", name, str(src), str(src.parent / "out"), str(parses), script=__file__)
            if not got["samples"]:
                raise RuntimeError(f"{name}: the {size} input gave no rows: {got}")
            print(
                f"{name:<15} {size}: {described}; {mib:.2f} MiB, built in {built:.1f} s; "
                f"{got['records']:,} records -> {got['samples']:,} rows ({got['skipped']:,} skipped, "
                f"{got['images_written']:,} images) in {got['seconds']:.2f} s, peak RSS {got['peak_rss_mib']:.0f} MiB"
            )
            results.setdefault(name, {})[size] = got
            if not keep:
                shutil.rmtree(src.parent)
    print(
        f"converters: run_conversion into a new dataset, each input in its own child process; figures over the\n"
        f"large input ({LARGE}x the small) but peak RSS (VmHWM of the child), whose floor (the same child converting\n"
        f"an empty folder) is {idle['peak_rss_mib']:.0f} MiB; vs parse = parse s / convert s, also by CPU time"
    )
    print(
        f"  {'converter':<15} {'rows':>6} {'rows/part.':>10} {'rows/s':>7} {'convert s':>9} {'parse s':>7} "
        f"{'vs parse':>8} {'(CPU)':>7} {'peak MiB small':>14} {'large':>5} {'growth':>6}"
    )
    figures: dict[str, str] = {}
    for name, by_size in results.items():
        small, large = by_size["small"], by_size["large"]
        rate = large["samples"] / large["seconds"]
        versus = large["parse_seconds"] / large["seconds"]
        versus_cpu = large["parse_cpu_seconds"] / large["cpu_seconds"]
        growth = large["peak_rss_mib"] / small["peak_rss_mib"]
        print(
            f"  {name:<15} {large['samples']:>6,} {large['samples'] / large['partitions']:>10,.0f} {rate:>7,.0f} "
            f"{large['seconds']:>9.2f} {large['parse_seconds']:>7.3f} {versus:>8.4f} {versus_cpu:>7.4f} "
            f"{small['peak_rss_mib']:>14.0f} {large['peak_rss_mib']:>5.0f} {growth:>6.2f}"
        )
        figures |= {
            f"convert_{name}_rows_per_s": f"{rate:.0f}",
            f"convert_{name}_vs_parse": f"{versus:.4f}",
            f"convert_{name}_peak_mib_small": f"{small['peak_rss_mib']:.0f}",
            f"convert_{name}_peak_mib_large": f"{large['peak_rss_mib']:.0f}",
            f"convert_{name}_peak_growth": f"{growth:.2f}",
        }
    print(f"converters: total {time.perf_counter() - started:.0f} s")
    return figures


if __name__ == "__main__":  # a child of run_converters: --convert-child NAME SRC DST PARSES
    _name, _src, _dst, _parses = sys.argv[sys.argv.index("--convert-child") + 1 :][:4]
    print(json.dumps(convert_child(_name, Path(_src), Path(_dst), int(_parses))))
