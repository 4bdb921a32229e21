from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from support.lite_rows import ids, png, sample, write

from cua_data.cli import main


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_inspect_shows_counts_a_readable_row_and_image_checks(tmp_path: Path) -> None:
    write(tmp_path / "D", range(12))
    code, out = run("inspect", tmp_path / "D", "--row", "3")
    assert code == 0, out
    assert "12 rows" in out
    assert "desktop/use/train/default.parquet: 12" in out
    assert "row 3: desktop/use id=row-3 source=test" in out
    assert "user: [image 0]" in out
    assert "user: task 3" in out
    assert "assistant: (action_description) step of 3" in out
    assert "assistant -> computer: click(coordinate=[3, 300])" in out
    assert "tool: [image 1]" in out
    assert "assistant: Done." in out
    assert out.count(": ok") == 2
    code, out = run("inspect", tmp_path / "D", "--json")
    data = json.loads(out)
    assert data["rows"] == 12
    assert json.loads(data["row"]["metadata"])["others"]["id"] == "row-0"


def test_stats(tmp_path: Path) -> None:
    write(tmp_path / "D", range(10))
    code, out = run("stats", tmp_path / "D", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["rows"] == 10
    assert data["by_platform_task"] == {"desktop/use": 10}
    assert data["actions"] == {"click": 10}
    assert data["steps_mean"] == 1
    assert data["images"] == 13  # 10 first screenshots + 3 shared results
    code, out = run("stats", tmp_path / "D")
    assert "10 rows, 13 images" in out


def test_validate_lists_every_kind_of_problem(tmp_path: Path) -> None:
    root = tmp_path / "D"
    write(root, range(30))
    assert run("validate", root) == (0, f"{root}: valid\n")
    # a row with an unknown metadata key and a bad image index, written behind the writer's back
    path = root / "desktop/use/train/default.parquet"
    table = pq.read_table(path)
    rows = table.to_pylist()
    meta = json.loads(rows[4]["metadata"])
    meta["colour"] = "blue"
    rows[4]["metadata"] = json.dumps(meta)
    messages = json.loads(rows[5]["messages"])
    messages[0]["content"][0]["index"] = 9
    rows[5]["messages"] = json.dumps(messages)
    messages = json.loads(rows[6]["messages"])
    messages[1]["tool_calls"][0]["function"]["arguments"]["actions"][0]["coordinate"] = [5, 1001]
    rows[6]["messages"] = json.dumps(messages)
    rows[7]["messages"] = "{not json"
    pq.write_table(table.from_pylist(rows, schema=table.schema), path)
    # a missing image and a corrupt one
    store = root / "images"
    victims = sorted(store.rglob("*.png"))
    victims[0].unlink()
    victims[1].write_bytes(png(4242))
    # a truncated partition
    write(root, range(100, 140), split="validation")
    other = root / "desktop/use/validation/default.parquet"
    other.write_bytes(other.read_bytes()[:200])
    code, out = run("validate", root, "--limit", "50")
    assert code == 1
    assert "row 4: metadata: unknown key(s) 'colour'" in out
    assert "row 5: messages[0].content[0].index: 9 references no image" in out
    assert "row 6: messages[1].tool_calls[0]: coordinate [5, 1001] is outside [0, 1000]" in out
    assert "row 7: messages: not valid JSON" in out
    assert "is missing: expected" in out
    assert "is corrupt: its bytes hash to" in out
    assert "validation/default.parquet: not a readable Parquet file" in out
    code, out = run("validate", root, "--json", "--limit", "3")
    data = json.loads(out)
    assert code == 1
    assert data["ok"] is False
    assert len(data["first"]) == 3
    assert data["problems"] > 7


def test_hub_commands(tmp_path: Path) -> None:
    write(tmp_path / "D", range(20))
    assert run("export-hub", tmp_path / "D", tmp_path / "hub") == (0, f"exported 20 rows to {tmp_path / 'hub'}\n")
    assert run("import-hub", tmp_path / "hub", tmp_path / "back" / "D")[0] == 0
    assert ids(tmp_path / "back" / "D") == [f"row-{n}" for n in range(20)]
    code, out = run("import-hub", tmp_path / "nope", tmp_path / "x")
    assert code == 2
    assert "does not exist" in out


def test_convert_reports_an_unknown_format(tmp_path: Path) -> None:
    code, out = run("convert", "--from", "aguvs", tmp_path, tmp_path / "out")
    assert code == 1
    assert "unknown converter 'aguvs'" in out


def test_bad_rows_are_not_written(tmp_path: Path) -> None:
    bad = sample(1)
    bad.messages.append({"role": "tool", "tool_call_id": "ghost", "content": []})
    from cua_data import DatasetWriter, SampleError

    writer = DatasetWriter(tmp_path)
    with pytest.raises(SampleError, match="'ghost' answers no earlier tool call"):
        writer.add(bad)
    writer.abort()
    assert not (tmp_path / "desktop").exists()


def test_a_run_folder_reads_as_the_dataset_it_holds_and_anything_else_is_one_error(tmp_path: Path) -> None:
    """Where a dataset is expected, a `cua-bench run` folder (its trajectories/) works; else one clear error."""
    from cua_data import DatasetReader, StoreError, resolve_dataset

    run_folder = tmp_path / "run"
    write(run_folder / "trajectories", range(4))
    (run_folder / "episodes.jsonl").write_text("")
    assert resolve_dataset(run_folder) == run_folder / "trajectories"
    assert len(list(DatasetReader(run_folder))) == 4
    for command in ("inspect", "stats", "validate"):
        code, out = run(command, run_folder)
        assert code == 0, (command, out)
    code, out = run("export-hub", run_folder, tmp_path / "hub")
    assert code == 0, out
    (tmp_path / "unrecorded").mkdir()
    (tmp_path / "unrecorded/episodes.jsonl").write_text("")
    (tmp_path / "other").mkdir()
    (tmp_path / "other/notes.txt").write_text("")
    for folder, says in (("unrecorded", "recorded no trajectories"), ("other", "nor a run folder holding one")):
        code, out = run("stats", tmp_path / folder)
        assert code == 1 and says in out and out.count("Error:") == 1, out
        with pytest.raises(StoreError, match=says):
            DatasetReader(tmp_path / folder)
