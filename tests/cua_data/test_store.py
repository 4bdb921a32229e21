from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from support.lite_rows import ids, png, sample, write

from cua_data import DatasetReader, DatasetWriter, export_hub, import_hub
from cua_data.errors import SampleError, StoreError
from cua_data.layout import find_partitions


def test_write_read_with_layout_and_dedup(tmp_path: Path) -> None:
    root = tmp_path / "Demo"
    with DatasetWriter(root) as writer:
        for n in range(30):
            writer.add(sample(n, source="a" if n % 2 else "b"), split="train" if n < 20 else "validation")
        writer.add(sample(99, platform="mobile"), variant="phones")
    report = writer.report
    assert report.rows == {
        "desktop/use/train/default.parquet": 20,
        "desktop/use/validation/default.parquet": 10,
        "mobile/use/train/phones.parquet": 1,
    }
    assert report.images_written == 31 + 3  # one first screenshot per row, three shared results
    assert report.images_deduplicated == 62 - 34
    assert sorted(str(p) for p in find_partitions(root)) == sorted(report.rows)
    first = next(iter(DatasetReader(root, split="train", platform="desktop")))
    assert first.metadata.id == "row-0"
    assert first.images[0].startswith("cua-lite/Demo/images/")  # CUA-Lite's path form
    assert (root / "images" / first.images[0].split("/images/")[1]).read_bytes() == png(0)
    assert ids(root, source="a") == [f"row-{n}" for n in range(1, 30, 2)]
    assert ids(root, platform="mobile") == ["row-99"]
    assert DatasetReader(root, split="validation").count() == 10
    assert DatasetReader(root, source="b").count() == 15


def test_appends_keep_earlier_rows(tmp_path: Path) -> None:
    write(tmp_path, range(100))
    write(tmp_path, range(100, 150))
    assert ids(tmp_path) == [f"row-{n}" for n in range(150)]


def test_an_exception_aborts_and_keeps_the_previous_state(tmp_path: Path) -> None:
    write(tmp_path, range(10))
    before = (tmp_path / "desktop/use/train/default.parquet").read_bytes()

    def crash_mid_write() -> None:
        with DatasetWriter(tmp_path, row_group_size=4) as writer:
            for n in range(10, 30):
                writer.add(sample(n))
            raise RuntimeError("crash")

    with pytest.raises(RuntimeError):
        crash_mid_write()
    assert (tmp_path / "desktop/use/train/default.parquet").read_bytes() == before
    assert not list((tmp_path / "desktop/use/train").glob(".*"))  # no partial file left


_KILLED_WRITER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[2])
    from support.lite_rows import sample
    from cua_data import DatasetWriter
    writer = DatasetWriter(sys.argv[1], row_group_size=16)
    n = 1000
    while True:
        writer.add(sample(n))
        n += 1
        if n == 1200:
            print("writing", flush=True)
    """
)


def test_kill_9_mid_write_leaves_the_previous_state_readable(tmp_path: Path) -> None:
    write(tmp_path, range(40))
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(tmp_path), str(Path(__file__).parents[1])],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "writing"
    time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partials = list((tmp_path / "desktop/use/train").glob(".default.parquet.tmp-*"))
    assert partials, "the killed writer should have been mid-file"
    assert ids(tmp_path) == [f"row-{n}" for n in range(40)]  # the previous state, whole
    write(tmp_path, range(40, 45))  # a later writer works and clears the dead writer's partial file
    assert ids(tmp_path) == [f"row-{n}" for n in range(45)]
    assert not list((tmp_path / "desktop/use/train").glob(".default.parquet.tmp-*"))


def test_out_of_range_rows_are_dropped_and_counted(tmp_path: Path) -> None:
    bad = sample(1)
    bad.messages[1]["tool_calls"][0]["function"]["arguments"]["actions"][0]["coordinate"] = [500, 1200]
    with DatasetWriter(tmp_path) as writer:
        assert writer.add(bad) is False
        assert writer.add(sample(2)) is True
    assert writer.report.dropped == {"coordinate outside [0, 1000]": 1}
    assert ids(tmp_path) == ["row-2"]


def test_invalid_rows_are_refused_naming_the_partition(tmp_path: Path) -> None:
    bad = sample(1)
    bad.messages[0]["content"][0]["index"] = 5
    with (
        pytest.raises(SampleError, match=r"desktop/use/train/default.parquet: row 'row-1': messages\[0\]"),
        DatasetWriter(tmp_path) as writer,
    ):
        writer.add(bad)
    with pytest.raises(StoreError, match="split 'dev' is not one of"), DatasetWriter(tmp_path) as writer:
        writer.add(sample(2), split="dev")
    raw = sample(3)
    raw.images[0] = b"\x00\x01 raw pixels"
    with pytest.raises(StoreError, match="not PNG, JPEG"), DatasetWriter(tmp_path) as writer:
        writer.add(raw)


def test_corrupt_and_truncated_files_name_the_file(tmp_path: Path) -> None:
    write(tmp_path, range(200))
    path = tmp_path / "desktop/use/train/default.parquet"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StoreError, match=r"default.parquet: not a readable Parquet file .*truncated or corrupt"):
        list(DatasetReader(tmp_path))
    path.write_bytes(b"not parquet at all")
    with pytest.raises(StoreError, match=r"default\.parquet"), DatasetWriter(tmp_path) as writer:
        writer.add(sample(1))
    assert path.read_bytes() == b"not parquet at all"  # nothing already there is destroyed


def test_missing_folder_and_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such dataset folder"):
        DatasetReader(tmp_path / "nope").partitions()
    (tmp_path / "desktop/use/weird").mkdir(parents=True)
    (tmp_path / "desktop/use/weird/x.parquet").write_bytes(b"")
    with pytest.raises(StoreError, match="split 'weird'"):
        find_partitions(tmp_path)


def test_rl_rows_need_their_own_partition(tmp_path: Path) -> None:
    from cua_data import RLStep, RLTrace

    rl_row = sample(1)
    rl_row.rl = RLTrace("completed", 1.0, [RLStep([5, 6], [-0.5, -0.25], 1.0)])
    with DatasetWriter(tmp_path) as writer:
        writer.add(rl_row, variant="rollouts")
        writer.add(sample(2), variant="rollouts")  # a row without rl in an rl partition: null
    got = list(DatasetReader(tmp_path))
    assert got[0].rl == rl_row.rl
    assert got[1].rl is None
    write(tmp_path, range(3, 4))
    with pytest.raises(SampleError, match="no rl column"), DatasetWriter(tmp_path) as writer:
        writer.add(rl_row)


def test_hub_round_trip_is_byte_for_byte(tmp_path: Path) -> None:
    local = tmp_path / "Demo"
    with DatasetWriter(local, row_group_size=50) as writer:
        for n in range(130):
            writer.add(sample(n), split="train" if n % 4 else "validation")
        writer.add(sample(500, platform="mobile"))
    hub, back, hub2 = tmp_path / "hub", tmp_path / "back" / "Demo", tmp_path / "hub2"
    assert export_hub(local, hub) == 131
    assert not (hub / "images").exists()
    shard = pq.read_table(hub / "desktop/use/train/default.parquet")
    first = shard.column("images")[0].as_py()[0]
    assert first["bytes"] == png(1)
    assert first["path"].startswith("cua-lite/Demo/images/")
    assert import_hub(hub, back) == 131
    assert export_hub(back, hub2) == 131
    for partition in find_partitions(local):
        rel = partition.relpath()
        assert (back / rel).read_bytes() == (local / rel).read_bytes(), rel
        assert (hub2 / rel).read_bytes() == (hub / rel).read_bytes(), rel
    images = sorted(p.relative_to(local) for p in (local / "images").rglob("*.png"))
    assert images == sorted(p.relative_to(back) for p in (back / "images").rglob("*.png"))


def test_hub_import_checks_image_bytes_and_truncation(tmp_path: Path) -> None:
    write(tmp_path / "Demo", range(20))
    export_hub(tmp_path / "Demo", tmp_path / "hub")
    shard = tmp_path / "hub/desktop/use/train/default.parquet"
    table = pq.read_table(shard)
    rows = table.to_pylist()
    rows[3]["images"][0]["bytes"] = png(777)
    pq.write_table(table.from_pylist(rows, schema=table.schema), shard)
    with pytest.raises(StoreError, match=r"default.parquet row 3: image .* does not match its bytes"):
        import_hub(tmp_path / "hub", tmp_path / "out")
    shard.write_bytes(shard.read_bytes()[:-100])
    with pytest.raises(StoreError, match=r"default\.parquet"):
        import_hub(tmp_path / "hub", tmp_path / "out2")
    (tmp_path / "Demo/images").rename(tmp_path / "gone")
    with pytest.raises(StoreError, match=r"default.parquet row 0: image .* is missing"):
        export_hub(tmp_path / "Demo", tmp_path / "hub3")


def test_a_partition_appended_to_keeps_the_schema_of_a_fresh_one(tmp_path: Path) -> None:
    """Parquet reads a list's item field back as "element": an append used to write that name, so the
    hub round trip of an appended dataset gave equal rows but different bytes."""
    write(tmp_path / "Demo", range(5))
    write(tmp_path / "Demo", range(5, 9))
    write(tmp_path / "Fresh", range(9))
    path = tmp_path / "Demo/desktop/use/train/default.parquet"
    stored = [pq.read_metadata(p).metadata for p in (path, tmp_path / "Fresh/desktop/use/train/default.parquet")]
    assert stored[0] == stored[1]  # the Arrow schema kept in the footer
    export_hub(tmp_path / "Demo", tmp_path / "hub")
    import_hub(tmp_path / "hub", tmp_path / "back" / "Demo")
    assert (tmp_path / "back/Demo/desktop/use/train/default.parquet").read_bytes() == path.read_bytes()
