"""Nothing lost, nothing mislabelled: every command knows a dataset from a hub export, refuses to
overwrite its source or append duplicates, and never exits 0 when nothing happened."""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image
from support.lite_rows import ids, write

from cua_data import DatasetReader, StoreError
from cua_data.cli import main
from cua_data.markers import DATASET_MARKER, HUB_MARKER, parse_marker


def run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def screenspot(root: Path, n: int = 2) -> Path:
    """A ScreenSpot-Pro source of ``n`` entries (2 rows each): annotations/word.json and images/."""
    (root / "annotations").mkdir(parents=True)
    (root / "images/word").mkdir(parents=True)
    entries = []
    for i in range(n):
        out = io.BytesIO()
        Image.new("RGB", (200, 100), (i * 40 % 256, 9, 9)).save(out, "PNG")
        (root / f"images/word/s{i}.png").write_bytes(out.getvalue())
        entries.append(
            {
                "id": f"w{i}",
                "img_filename": f"word/s{i}.png",
                "img_size": [200, 100],
                "bbox": [10, 10, 50, 40],
                "instruction": f"click {i}",
                "platform": "macos",
            }
        )
    (root / "annotations/word.json").write_text(json.dumps(entries))
    return root


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def chdir(tmp_path: Path) -> Iterator[Path]:
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


# -- export-hub / import-hub: the source is never overwritten, the wrong layout is named ----------


def test_export_hub_onto_its_own_source_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    data = tmp_path / "data" / "ss"
    write(data, range(4))
    before = files(data)
    for dst in (data, data / "hub", tmp_path / "data"):
        code, out = run("export-hub", data, dst)
        assert code == 1, out
        assert out.count("\n") == 1 and out.startswith("Error: ") and "Traceback" not in out
        assert "source" in out
        assert files(data) == before
    assert not (data / "hub").exists()
    assert run("validate", data) == (0, f"{data}: valid\n")


def test_import_hub_onto_its_own_source_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "D", range(3))
    hub = tmp_path / "hub"
    assert run("export-hub", tmp_path / "D", hub)[0] == 0
    before = files(hub)
    for dst in (hub, hub / "local", tmp_path):
        code, out = run("import-hub", hub, dst)
        assert code == 1, out
        assert "source" in out
    assert files(hub) == before


def test_commands_pointed_at_a_hub_export_name_both_layouts_and_the_fix(tmp_path: Path) -> None:
    write(tmp_path / "D", range(4))
    hub = tmp_path / "hub"
    assert run("export-hub", tmp_path / "D", hub)[0] == 0
    for command in ("validate", "stats", "inspect"):
        code, out = run(command, hub)
        assert code == 1, (command, out)
        assert f"{hub} is a hub export, not a dataset: run `cua-data import-hub {hub} DST` first" in out, out
        assert out.count("\n") == 1
    code, out = run("export-hub", hub, tmp_path / "hub2")
    assert code == 1 and "is a hub export, not a dataset" in out and "Traceback" not in out
    assert not (tmp_path / "hub2").exists()
    code, out = run("convert", "--from", "screenspot", screenspot(tmp_path / "src"), hub, "--append")
    assert code == 1 and "is a hub export, not a dataset" in out


def test_a_hub_export_without_its_marker_is_still_recognised(tmp_path: Path) -> None:
    write(tmp_path / "D", range(4))
    hub = tmp_path / "hub"
    assert run("export-hub", tmp_path / "D", hub)[0] == 0
    (hub / HUB_MARKER).unlink()  # as hub shards fetched without it, or exported by an older cua-data
    code, out = run("validate", hub)
    assert code == 1 and "is a hub export, not a dataset" in out
    assert run("import-hub", hub, tmp_path / "back")[0] == 0
    assert ids(tmp_path / "back") == ids(tmp_path / "D")


def test_import_hub_on_a_dataset_names_the_layouts(tmp_path: Path) -> None:
    write(tmp_path / "D", range(4))
    code, out = run("import-hub", tmp_path / "D", tmp_path / "out")
    assert code == 1, out
    assert f"{tmp_path / 'D'} is a dataset, not a hub export" in out and "export-hub" in out
    assert "Traceback" not in out and not (tmp_path / "out").exists()


def test_import_hub_of_a_folder_that_is_no_export_is_an_error_not_zero_rows(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("hello")
    code, out = run("import-hub", tmp_path / "notes", tmp_path / "out")
    assert code == 1, out
    assert "imported 0 rows" not in out and "export-hub" in out
    assert not (tmp_path / "out").exists()


def test_import_hub_of_an_empty_export_fails_unless_allowed(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / HUB_MARKER).write_text(json.dumps({"kind": "cua-hub", "format": 1, "rows": 0, "partitions": {}}))
    code, out = run("import-hub", hub, tmp_path / "a")
    assert code == 1 and "no row" in out and "--allow-empty" in out
    assert run("import-hub", hub, tmp_path / "b", "--allow-empty")[0] == 0


def test_hub_round_trip_markers_and_partitions_are_byte_identical_even_after_an_append(tmp_path: Path) -> None:
    src = screenspot(tmp_path / "src")
    data = tmp_path / "data" / "ss"
    assert run("convert", "--from", "screenspot", src, data)[0] == 0
    more = screenspot(tmp_path / "more", 3)
    code, out = run("convert", "--from", "screenspot", more, data, "--append")
    assert code == 0, out
    assert run("export-hub", data, tmp_path / "hub")[0] == 0
    assert run("import-hub", tmp_path / "hub", tmp_path / "back" / "ss")[0] == 0
    assert run("export-hub", tmp_path / "back" / "ss", tmp_path / "hub2")[0] == 0
    assert files(tmp_path / "back" / "ss") == files(data)  # partitions, images and the marker
    assert files(tmp_path / "hub2") == files(tmp_path / "hub")
    marker = json.loads((data / DATASET_MARKER).read_text())
    assert marker["kind"] == "cua-dataset" and marker["rows"] == 6 and marker["dataset"] == "ss"
    hub_marker = json.loads((tmp_path / "hub" / HUB_MARKER).read_text())
    assert hub_marker["kind"] == "cua-hub" and hub_marker["partitions"] == marker["partitions"]


def test_import_hub_refuses_an_incomplete_copy(tmp_path: Path) -> None:
    write(tmp_path / "D", range(4))
    write(tmp_path / "D", range(4, 6), split="validation")
    hub = tmp_path / "hub"
    assert run("export-hub", tmp_path / "D", hub)[0] == 0
    (hub / "desktop/use/validation/default.parquet").unlink()
    code, out = run("import-hub", hub, tmp_path / "back")
    assert code == 1 and "missing" in out and "incomplete" in out


def test_export_and_import_refuse_a_destination_that_holds_anything(tmp_path: Path) -> None:
    write(tmp_path / "D", range(3))
    write(tmp_path / "E", range(3, 5))
    before = files(tmp_path / "E")
    code, out = run("export-hub", tmp_path / "D", tmp_path / "E")
    assert code == 1 and "already holds a dataset" in out
    assert files(tmp_path / "E") == before


# -- convert: no silent duplicates, no exit 0 for nothing ---------------------------------------


def test_convert_twice_into_one_dataset_needs_append_and_skips_known_ids(tmp_path: Path) -> None:
    src = screenspot(tmp_path / "src")
    data = tmp_path / "data" / "ss"
    assert run("convert", "--from", "screenspot", src, data)[0] == 0
    code, out = run("convert", "--from", "screenspot", src, data)
    assert code == 1, out
    assert "already a dataset" in out and "--append" in out
    assert len(ids(data)) == 4
    code, out = run("convert", "--from", "screenspot", src, data, "--append", "--json")
    assert code == 1  # nothing new: no row written
    report = json.loads(out[: out.rindex("}") + 1])
    assert report["skipped"] == {"id already in the dataset": 4}
    assert "all 4 were already in" in out
    code, out = run("convert", "--from", "screenspot", screenspot(tmp_path / "more", 3), data, "--append")
    assert code == 0, out
    assert "skipped records: 4 x id already in the dataset" in out
    assert sorted(ids(data)) == sorted(f"screenspot_pro_word_{i}_{t}" for i in range(3) for t in ("bbox", "point"))


def test_validate_reports_duplicate_ids(tmp_path: Path) -> None:
    root = tmp_path / "D"
    write(root, range(4))
    write(root, range(2, 4), split="validation")  # rows 2 and 3 again, behind convert's back
    code, out = run("validate", root)
    assert code == 1, out
    assert "duplicate id 'row-2', first at" in out and "duplicate id 'row-3'" in out
    assert "2 problem(s)" in out


def test_convert_with_the_wrong_format_fails_and_leaves_nothing(tmp_path: Path) -> None:
    src = screenspot(tmp_path / "src")
    code, out = run("convert", "--from", "gui360", src, tmp_path / "out")
    assert code == 1, out
    assert "no row written" in out and "--allow-empty" in out
    assert not (tmp_path / "out").exists()
    code, out = run("convert", "--from", "gui360", src, tmp_path / "out", "--allow-empty")
    assert code == 0, out


def test_convert_refuses_a_destination_inside_its_source_or_holding_other_files(tmp_path: Path) -> None:
    src = screenspot(tmp_path / "src")
    code, out = run("convert", "--from", "screenspot", src, src / "out")
    assert code == 1 and "inside the source" in out
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("keep me")
    code, out = run("convert", "--from", "screenspot", src, tmp_path / "other")
    assert code == 1 and "not a dataset" in out


# -- stats / validate / inspect on what is not a dataset -------------------------------------------


@pytest.mark.parametrize("command", ["stats", "validate", "inspect"])
def test_reading_commands_on_a_folder_that_is_no_dataset_fail(tmp_path: Path, command: str) -> None:
    (tmp_path / "empty").mkdir()
    code, out = run(command, tmp_path / "empty")
    assert code == 1 and "is an empty folder, not a dataset" in out, out
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("x")
    code, out = run(command, tmp_path / "notes")
    assert code == 1 and "is neither a dataset" in out and "hub export" in out, out
    native = screenspot(tmp_path / "native")  # a source with its own images/ folder is no dataset either
    code, out = run(command, native)
    assert code == 1 and "is neither a dataset" in out, out


def test_inspect_row_out_of_range_names_the_row_count(tmp_path: Path) -> None:
    write(tmp_path / "D", range(4))
    code, out = run("inspect", tmp_path / "D", "--row", "99")
    assert code == 1, out
    assert "has 4 rows, so there is no row 99: choose --row 0 to 3" in out
    code, out = run("inspect", tmp_path / "D", "--row", "-1")
    assert code == 2 and "-1" in out


def test_inspect_prints_image_paths_that_exist(tmp_path: Path, chdir: Path) -> None:
    write(Path("data/ss"), range(4))
    for root in (Path("data/ss"), tmp_path / "data/ss"):
        code, out = run("inspect", root, "--row", "2")
        assert code == 0, out
        shown = [line.split("image ", 1)[1].rsplit(": ", 1)[0] for line in out.splitlines() if "  image " in line]
        assert len(shown) == 2
        assert all(Path(p).is_file() for p in shown), shown
        data = json.loads(run("inspect", root, "--row", "2", "--json")[1])
        assert all(Path(image["path"]).is_file() for image in data["images"])
        assert all(image["ref"].startswith("cua-lite/ss/images/") for image in data["images"])


def test_inspect_reads_rows_past_the_first_partition(tmp_path: Path) -> None:
    write(tmp_path / "D", range(3))
    write(tmp_path / "D", range(10, 12), split="validation")
    code, out = run("inspect", tmp_path / "D", "--row", "4")
    assert code == 0, out
    assert "row 4: desktop/use id=row-11" in out  # train (rows 0-2), then validation (rows 3-4)


def test_validate_limit_is_checked(tmp_path: Path) -> None:
    write(tmp_path / "D", range(2))
    code, out = run("validate", tmp_path / "D", "--limit", "-3")
    assert code == 2 and "--limit" in out


# -- markers, legacy folders, the marker's record of rows -----------------------------------------


def test_a_dataset_without_a_marker_still_reads(tmp_path: Path) -> None:
    """CUA-Lite's published layout has no marker: images/ plus partition files."""
    root = tmp_path / "Lite"
    write(root, range(5))
    (root / DATASET_MARKER).unlink()
    assert run("validate", root) == (0, f"{root}: valid\n")
    assert json.loads(run("stats", root, "--json")[1])["rows"] == 5
    assert run("inspect", root, "--row", "4")[0] == 0
    write(root, range(5, 7))  # the next write adds the marker, counting what was there
    assert json.loads((root / DATASET_MARKER).read_text())["rows"] == 7


def test_validate_reports_rows_lost_behind_the_writers_back(tmp_path: Path) -> None:
    root = tmp_path / "D"
    write(root, range(6))
    write(root, range(6, 8), split="validation")
    path = root / "desktop/use/train/default.parquet"
    table = pq.read_table(path)
    pq.write_table(table.slice(0, 4), path)
    shutil.rmtree(root / "desktop/use/validation")
    code, out = run("validate", root)
    assert code == 1
    assert "holds 4 rows" in out and "records 6" in out
    assert "validation/default.parquet: missing" in out


def test_a_malformed_marker_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "D"
    write(root, range(2))
    (root / DATASET_MARKER).write_text("{oops")
    code, out = run("stats", root)
    assert code == 1 and "cua-dataset.json: not valid JSON" in out and "delete" in out
    (root / DATASET_MARKER).write_text(json.dumps({"kind": "cua-dataset", "format": 9, "rows": 0, "partitions": {}}))
    code, out = run("validate", root)
    assert code == 1 and "newer cua-data" in out


def test_reading_a_hub_export_as_a_dataset_is_a_store_error(tmp_path: Path) -> None:
    write(tmp_path / "D", range(3))
    assert run("export-hub", tmp_path / "D", tmp_path / "hub")[0] == 0
    with pytest.raises(StoreError, match="is a hub export, not a dataset"):
        DatasetReader(tmp_path / "hub")


@given(st.one_of(st.binary(max_size=200), st.text(max_size=200)))
def test_parse_marker_fails_only_with_store_errors(text: str | bytes) -> None:
    try:
        data = parse_marker(text, "m.json", "cua-dataset")
    except StoreError:
        return
    assert data["kind"] == "cua-dataset"


@given(
    st.dictionaries(
        st.sampled_from(["kind", "format", "rows", "partitions", "dataset", "other"]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-3, 3),
            st.sampled_from(["cua-dataset", "cua-hub", "x"]),
            st.dictionaries(st.text(max_size=5), st.one_of(st.integers(-2, 5), st.text(max_size=3)), max_size=3),
        ),
    )
)
def test_parse_marker_accepts_only_well_formed_markers(data: dict[str, object]) -> None:
    try:
        parsed = parse_marker(json.dumps(data), "m.json", "cua-dataset")
    except StoreError:
        return
    assert parsed["kind"] == "cua-dataset" and parsed["format"] == 1
    assert isinstance(parsed["rows"], int) and parsed["rows"] >= 0
    assert all(isinstance(v, int) and v >= 0 for v in parsed["partitions"].values())


def test_torch_dataset_on_a_hub_export_is_a_clear_error(tmp_path: Path) -> None:
    from cua_data.torch_dataset import ImageLoader, LiteDataset

    write(tmp_path / "D", range(3))
    assert run("export-hub", tmp_path / "D", tmp_path / "hub")[0] == 0
    with pytest.raises(StoreError, match="is a hub export, not a dataset"):
        LiteDataset(tmp_path / "hub")
    (tmp_path / "hub" / HUB_MARKER).unlink()
    with pytest.raises(StoreError, match="is a hub export, not a dataset"):
        LiteDataset(tmp_path / "hub")
    row = pq.read_table(tmp_path / "hub/desktop/use/train/default.parquet").to_pylist()[0]
    with pytest.raises(StoreError, match="not a store path"):
        ImageLoader(tmp_path / "hub")(row["images"][0])
