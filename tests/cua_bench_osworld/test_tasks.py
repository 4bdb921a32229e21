"""OSWorld task files as cua-bench tasks: the real samples, the report, and episodes on the sim backend."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cua_bench.cli import main
from cua_bench.client import EnvClient
from cua_bench.server import EnvServer
from cua_bench.sim import SimDesktop, SimSession
from cua_bench.tasks import TaskError, load_task_module
from cua_bench.taskset import resolve_episodes, task_folders
from cua_bench_osworld import build_report, check_support, format_report, load_tasks
from cua_bench_osworld.loader import OSWorldFormatError, find_task_files, load_task, substitute
from cua_bench_osworld.sources import mirror_path
from cua_core.actions import Done, Fail
from cua_core.errors import RemoteError

DOMAINS = {
    "chrome": 3,
    "gimp": 2,
    "libreoffice_calc": 3,
    "libreoffice_writer": 2,
    "multi_apps": 4,
    "os": 4,
    "thunderbird": 1,
    "vlc": 1,
    "vs_code": 2,
}
# Read off the files: these run with our steps, getters and built-in metrics as they are.
SUPPORTED = {
    "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2",  # os: execute + vm_command_line + exact_match
    "3ce045a0-877b-42aa-8d2c-b4a863336ab8",  # os: two check_include_exclude, "or"
    "4783cc41-c03c-4e1b-89b4-50658f642bd5",  # os: infeasible after execute steps
    "7882ed6e-bece-4bf0-bada-c32dc1ddae72",  # vlc: infeasible after a shell launch
    "276cc624-87ea-4f08-ab93-f770e3790175",  # vs_code: vm_file + check_json_settings
    "030eeff7-b492-4218-b312-701ec99ee0cc",  # chrome: enable_do_not_track (Chrome's Preferences) + exact_match
}
SKIPPED_BY_REASON = {
    "unsupported: network download": 14,  # every Hugging Face download / cloud_file
    "unsupported: proxy": 2,  # 47543840 (chrome), df67aebb (multi_apps)
}
# With every remote file in a local mirror, the downloads stop being a reason.
SKIPPED_WITH_MIRROR = {
    "unsupported: proxy": 2,
    "unsupported metric: compare_docx_files": 1,  # e528b65e: OSWorld's docs metrics only
}


@pytest.fixture(scope="module")
def osworld(shared_fixtures: Path) -> Path:
    return shared_fixtures / "osworld"


def test_every_fixture_task_loads(osworld: Path) -> None:
    tasks = load_tasks(osworld)
    assert len(tasks) == 22
    assert {d: sum(t.domain == d for t in tasks) for d in DOMAINS} == DOMAINS
    for task in tasks:
        assert task.path.stem == task.id and task.instruction
        assert task.evaluator.funcs and len(task.evaluator.results) == len(task.evaluator.funcs)
        assert len(task.evaluator.options) == len(task.evaluator.funcs)
    by_id = {t.id: t for t in tasks}
    assert [t.id for t in tasks if t.evaluator.infeasible] == [
        "045bf3ff-9077-4b86-b483-a1040a949cff",
        "2bd59342-0664-4ccb-ba87-79379096cc08",
        "bb8ccc78-479f-4a2f-a71e-d565e439436b",
        "4783cc41-c03c-4e1b-89b4-50658f642bd5",
        "7882ed6e-bece-4bf0-bada-c32dc1ddae72",
    ]
    calc_then_csv = by_id["c867c42d-a52d-4a24-8ae3-f75d256b5618"].evaluator
    assert calc_then_csv.funcs == ["compare_csv", "compare_table"] and calc_then_csv.conj == "and"
    assert calc_then_csv.options[1]["rules"][0]["sheet_idx0"] == "RI0"
    volume = by_id["3ce045a0-877b-42aa-8d2c-b4a863336ab8"].evaluator
    assert (volume.conj, volume.single, len(volume.expected or [])) == ("or", False, 2)
    sqlite = by_id["dd84e895-72fd-4023-a336-97689ded257c"].evaluator
    assert [s.type for s in sqlite.postconfig] == ["close_window", "sleep"]


def test_report_on_the_fixtures(osworld: Path) -> None:
    report = build_report(osworld, official=(), mirror=None)
    assert {e.id for e in report.supported} == SUPPORTED
    assert report.by_reason() == SKIPPED_BY_REASON
    assert len(report.skipped) == 16 and not report.invalid
    assert all(e.needs_shell for e in report.supported)
    domains = report.by_domain()
    assert {d: row["tasks"] for d, row in domains.items()} == DOMAINS
    supported = {d: row["supported"] for d, row in domains.items() if row["supported"]}
    assert supported == {"chrome": 1, "os": 3, "vlc": 1, "vs_code": 1}
    text = format_report(report)
    print(text)  # the report, for the record (pytest -s)
    assert "22 (6 supported, 16 skipped)" in text
    assert "14  unsupported: network download" in text
    # OSWorld's own metrics change nothing here: every metric of a supported task is built in.
    assert build_report(osworld, mirror=None).by_reason() == SKIPPED_BY_REASON


def _mirror_everything(osworld: Path, mirror: Path) -> None:
    for task in load_tasks(osworld):
        for step in task.steps():
            for f in step.parameters.get("files", []) if step.type == "download" else []:
                path = mirror_path(f["url"], mirror)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")
        for getter in task.evaluator.getters():
            if getter["type"] == "cloud_file":
                path = mirror_path(getter["path"], mirror)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")


def test_report_with_a_local_mirror_of_the_remote_files(osworld: Path, tmp_path: Path) -> None:
    _mirror_everything(osworld, tmp_path / "files")
    report = build_report(osworld, official=(), mirror=tmp_path / "files")
    assert report.by_reason() == SKIPPED_WITH_MIRROR
    assert len(report.supported) == 19  # 6766f2b8 and a74b607e too, with find_unpacked_extension_path
    # the Hugging Face layout: <domain>/<task id>/<file name>, unquoted
    url = "https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/multi_apps/a74b607e/Hello%20Extension.zip"
    assert mirror_path(url, tmp_path) == tmp_path / "multi_apps" / "a74b607e" / "Hello Extension.zip"
    assert mirror_path("https://example.com/a/b%20c.txt", tmp_path) == tmp_path / "example.com" / "a" / "b c.txt"


def test_compare_table_rules_we_lack_need_osworld(tmp_path: Path) -> None:
    evaluator = {
        "func": "compare_table",
        "result": {"type": "vm_file", "path": "/r.xlsx", "dest": "r.xlsx"},
        "expected": {"type": "cloud_file", "path": "gold.xlsx", "dest": "g.xlsx"},
        "options": {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}, {"type": "chart"}]},
    }
    task = load_task(tmp_path / "t.json", {"id": "t", "instruction": "i", "evaluator": evaluator})
    assert check_support(task, official=()).reasons == (
        "unsupported metric: compare_table rule chart (needs desktop-env)",
    )
    assert check_support(task, official={"compare_table"}).supported


def test_cli_report(osworld: Path) -> None:
    result = CliRunner().invoke(main, ["osworld", "report", str(osworld), "--builtin-metrics", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["tasks"], data["supported"], data["skipped"]) == (22, 6, 16)
    assert data["by_reason"] == SKIPPED_BY_REASON
    assert data["by_domain"]["os"] == {"tasks": 4, "supported": 3, "skipped": 1}
    result = CliRunner().invoke(main, ["osworld", "report", str(osworld)])
    assert result.exit_code == 0 and "by domain:" in result.output
    result = CliRunner().invoke(main, ["osworld", "metrics"])
    assert result.exit_code == 0 and "desktop-env" in result.output


def test_placeholders_and_bad_files(tmp_path: Path) -> None:
    assert (
        substitute("{SCREEN_WIDTH_HALF}x{SCREEN_HEIGHT_HALF} {SCREEN_WIDTH}", width=1921, height=1080, password="p")
        == "960x540 1921"
    )
    assert substitute(["echo", "{CLIENT_PASSWORD}"], width=1, height=1, password="secret") == ["echo", "secret"]
    (tmp_path / "notes.json").write_text('{"not": "a task"}')
    (tmp_path / "broken.json").write_text("{")
    assert find_task_files(tmp_path) == []
    with pytest.raises(OSWorldFormatError, match="'instruction' must be"):
        load_task(tmp_path / "x.json", {"id": "x", "evaluator": {"func": "infeasible"}})
    with pytest.raises(OSWorldFormatError, match=r"config\[0\]"):
        load_task(
            tmp_path / "x.json",
            {"id": "x", "instruction": "i", "config": [{"parameters": {}}], "evaluator": {"func": "infeasible"}},
        )


# -- as cua-bench tasks ---------------------------------------------------------------------------


def _write_task(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data['id']}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def sim_tasks(tmp_path: Path) -> Path:
    """Three OSWorld-shaped tasks: one the sim can run, one infeasible, one that needs a shell."""
    root = tmp_path / "examples"
    (root / "files").mkdir(parents=True)
    (root / "files" / "gold.txt").write_text("hello\n")
    _write_task(
        root / "files",
        {
            "id": "write-hello",
            "instruction": "Write hello into /home/user/out.txt",
            "config": [
                {
                    "type": "download",
                    "parameters": {"files": [{"url": "gold.txt", "path": "/home/user/gold-copy.txt"}]},
                },
                {"type": "sleep", "parameters": {"seconds": 0}},
            ],
            "evaluator": {
                "func": "compare_text_file",
                "result": {"type": "vm_file", "path": "/home/user/out.txt", "dest": "out.txt"},
                "expected": {"type": "cloud_file", "path": "gold.txt", "dest": "gold.txt"},
            },
        },
    )
    _write_task(
        root / "files",
        {"id": "impossible", "instruction": "Do the impossible", "config": [], "evaluator": {"func": "infeasible"}},
    )
    _write_task(
        root / "os",
        {
            "id": "needs-shell",
            "instruction": "Turn the volume up",
            "config": [{"type": "execute", "parameters": {"command": ["true"]}}],
            "evaluator": {
                "func": "exact_match",
                "result": {"type": "vm_command_line", "command": "echo 100", "shell": True},
                "expected": {"type": "rule", "rules": {"expected": "100\n"}},
            },
        },
    )
    return root


@pytest.fixture
def sim_env() -> Iterator[EnvClient]:
    server = EnvServer(SimSession(SimDesktop(640, 480)), "tcp://127.0.0.1:0").start()
    with EnvClient(server.address) as client:
        yield client
    server.rpc.close()


def test_task_files_load_as_task_modules(sim_tasks: Path) -> None:
    module = load_task_module(sim_tasks / "files" / "write-hello.json")
    (variant,) = module.variants("test")
    assert (module.name, variant.name, variant.description) == (
        "write-hello",
        "write-hello",
        "Write hello into /home/user/out.txt",
    )
    assert variant.metadata["domain"] == "files" and variant.metadata["osworld"]["id"] == "write-hello"
    assert [p.name for p in task_folders(sim_tasks)] == ["impossible.json", "write-hello.json", "needs-shell.json"]
    assert [e.key for e in resolve_episodes(sim_tasks)] == [
        "impossible/test/0",
        "write-hello/test/0",
        "needs-shell/test/0",
    ]
    with pytest.raises(TaskError, match="not a task folder"):
        load_task_module(sim_tasks / "files" / "gold.txt")


def test_an_episode_on_the_sim_backend(sim_env: EnvClient, sim_tasks: Path) -> None:
    task = sim_tasks / "files" / "write-hello.json"
    sim_env.reset(options={"task": str(task), "observes": "none"})
    assert sim_env.session("read_bytes", path="/home/user/gold-copy.txt") == b"hello\n"
    _, reward, terminated, _, _ = sim_env.step([Done()])
    assert (reward, terminated) == (0.0, True)  # no out.txt: vm_file gives None, the metric 0
    sim_env.reset(options={"task": str(task), "observes": "none"})
    sim_env.session("write_file", path="/home/user/out.txt", content="hello\n")
    _, reward, _, _, info = sim_env.step([Done()])
    assert reward == 1.0 and info["ended"]["kind"] == "done"
    sim_env.reset(options={"task": str(task), "observes": "none"})
    sim_env.session("write_file", path="/home/user/out.txt", content="hello\n")
    _, reward, _, _, _ = sim_env.step([Fail("cannot")])
    assert reward == 0.0  # a feasible task the agent gave up on


def test_infeasible_tasks_reward_fail_and_only_fail(sim_env: EnvClient, sim_tasks: Path) -> None:
    task = str(sim_tasks / "files" / "impossible.json")
    sim_env.reset(options={"task": task, "observes": "none"})
    assert sim_env.step([Fail("no such feature")])[1] == 1.0
    sim_env.reset(options={"task": task, "observes": "none"})
    assert sim_env.step([Done()])[1] == 0.0
    sim_env.reset(options={"task": task, "observes": "none", "max_steps": 1})
    _, reward, terminated, truncated, _ = sim_env.step([])
    assert (reward, terminated, truncated) == (0.0, False, True)


def test_tasks_the_sim_cannot_run_are_skipped_with_the_reason(
    sim_env: EnvClient, sim_tasks: Path, osworld: Path
) -> None:
    with pytest.raises(RemoteError, match="skipped: backend has no shell"):
        sim_env.reset(options={"task": str(sim_tasks / "os" / "needs-shell.json")})
    with pytest.raises(RemoteError, match="skipped: backend has no shell"):
        sim_env.reset(options={"task": str(osworld / "os" / "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2.json")})
    with pytest.raises(RemoteError, match="skipped: unsupported: network download"):
        sim_env.reset(options={"task": str(osworld / "gimp" / "045bf3ff-9077-4b86-b483-a1040a949cff.json")})
    with pytest.raises(RemoteError, match="skipped: unsupported: proxy"):
        sim_env.reset(options={"task": str(osworld / "chrome" / "47543840-672a-467d-80df-8f7c3b9788c9.json")})


def test_run_and_list_through_the_cli(sim_tasks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(
        main, ["run", str(sim_tasks), "--agent", "noop", "--output", str(out), "--max-parallel", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    status = {r["task"]: (r["status"], r.get("reward"), r.get("error")) for r in lines}
    assert status["write-hello"][:2] == ("ok", 0.0)
    assert status["impossible"][:2] == ("ok", 0.0)  # done, not fail
    assert status["needs-shell"][0] == "skipped"  # never an error, never a 0
    assert "skipped: backend has no shell" in status["needs-shell"][2]
    monkeypatch.setenv("CUA_OSWORLD_TASKS", str(sim_tasks))
    result = CliRunner().invoke(main, ["list", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["tasksets"]["osworld"] == {
        "impossible": {"test": 1},
        "write-hello": {"test": 1},
        "needs-shell": {"test": 1},
    }


def test_loopback_urls_count_as_local(tmp_path: Path) -> None:
    for url, reachable in (
        ("http://127.0.0.1:8000/x", True),
        ("http://localhost/x", True),
        ("http://[::1]:9/x", True),
        ("https://huggingface.co/x", False),
        ("http://192.168.1.2/x", False),
        (urllib.parse.quote("/abs/path with space"), True),
    ):
        task = load_task(
            tmp_path / "t.json",
            {
                "id": "t",
                "instruction": "i",
                "config": [{"type": "download", "parameters": {"files": [{"url": url, "path": "/p"}]}}],
                "evaluator": {"func": "infeasible"},
            },
        )
        assert check_support(task, official=(), mirror=None).supported is reachable, url
