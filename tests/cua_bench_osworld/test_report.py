"""`cua-bench osworld report`: supported means "this backend can score it", and every skip says why
in a way a person can act on (the app, the package, the command)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cua_bench.cli import main
from cua_bench_osworld import build_report, check_support, format_report, getters, load_task, official, support
from cua_bench_osworld.apps import APPS, BACKEND_PACKAGES, needed_apps, programs_in
from cua_bench_osworld.cli import osworld_report

REPO = Path(__file__).resolve().parents[2]
VLC_TASK = "7882ed6e-bece-4bf0-bada-c32dc1ddae72"  # vlc: infeasible after a shell launch of vlc
VS_CODE_TASK = "276cc624-87ea-4f08-ab93-f770e3790175"  # vs_code: vm_file + check_json_settings


@pytest.fixture(scope="module")
def osworld(shared_fixtures: Path) -> Path:
    return shared_fixtures / "osworld"


def _task(
    tmp_path: Path, evaluator: dict[str, Any], config: list[dict[str, Any]] | None = None, domain: str = "os"
) -> Any:
    data = {"id": "t", "instruction": "i", "config": config or [], "evaluator": evaluator}
    return load_task(tmp_path / domain / "t.json", data)


def test_the_support_check_knows_every_getter_we_have(tmp_path: Path) -> None:
    assert frozenset(getters.GETTERS) == support.GETTERS  # accessibility_tree was left out once
    task = _task(
        tmp_path,
        {"func": "check_accessibility_tree", "result": {"type": "accessibility_tree"}, "options": {"rules": []}},
    )
    assert check_support(task, official={"check_accessibility_tree"}, mirror=None).supported


def test_json_lists_supported_tasks_as_well_as_skipped(osworld: Path) -> None:
    result = CliRunner().invoke(main, ["osworld", "report", str(osworld), "--builtin-metrics", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    # 6 with built-in metrics alone: chrome/030eeff7 joined when its getter (enable_do_not_track) came in.
    assert len(data["supported_tasks"]) == data["supported"] == 6
    assert data["supported_tasks"]["030eeff7-b492-4218-b312-701ec99ee0cc"]["domain"] == "chrome"
    assert data["supported_tasks"][VS_CODE_TASK]["domain"] == "vs_code"
    assert set(data["supported_tasks"]).isdisjoint(data["skipped_tasks"])
    assert len(data["supported_tasks"]) + len(data["skipped_tasks"]) == data["tasks"] == 22
    assert data["backend"] is None


def test_an_invalid_file_is_named_once(tmp_path: Path) -> None:
    bad = tmp_path / "os" / "bad.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"id": "bad", "instruction": "i", "evaluator": {"func": "exact_match", "conj": "xor"}}))
    report = build_report(tmp_path, official=(), mirror=None)
    text = format_report(report)
    line = next(line for line in text.splitlines() if line.startswith("invalid:"))
    assert line == f"invalid: {bad}: evaluator.conj must be 'and' or 'or', got 'xor'"
    assert text.count(str(bad)) == 1


def test_a_metric_whose_module_does_not_load_names_the_package_and_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = official.OfficialMetrics(
        version="1.0.2",
        names={"compare_pdfs": "chrome", "exact_match": "general"},
        failed={"chrome": "ModuleNotFoundError: No module named 'fitz'"},
        functions={"exact_match": lambda *a: 1.0},
    )
    monkeypatch.setitem(official._loaded, "metrics", fake)
    monkeypatch.delenv(support.METRICS_ENV, raising=False)
    pdfs = {
        "func": "compare_pdfs",
        "result": {"type": "vm_file", "path": "/home/user/a.pdf", "dest": "a.pdf"},
        "expected": {"type": "vm_file", "path": "/home/user/b.pdf", "dest": "b.pdf"},
    }
    assert check_support(_task(tmp_path, pdfs), mirror=None).reasons == (
        'unsupported metric: compare_pdfs needs pymupdf: pip install "./packages/cua-bench[osworld]" '
        "(from a clone of cua)",
    )
    # A caller that names the metrics itself gets the bare name, as before.
    assert check_support(_task(tmp_path, pdfs), official=(), mirror=None).reasons == (
        "unsupported metric: compare_pdfs",
    )


def test_judged_against_a_backend_tasks_that_need_an_app_it_lacks_are_skipped_naming_it(osworld: Path) -> None:
    anywhere = build_report(osworld, official=(), mirror=None)
    local = build_report(osworld, official=(), mirror=None, backend="local")
    by_id = {e.id: e for e in local.entries}
    # VLC is on the local desktop (the desktop taskset's VLC tasks), and not on the embedded one.
    assert by_id[VLC_TASK].reasons == ()
    on_sim = {e.id: e for e in build_report(osworld, official=(), mirror=None, backend="sim").entries}
    assert on_sim[VLC_TASK].reasons == ("unsupported app: VLC (not on the sim backend's desktop; Debian: vlc)",)
    assert by_id[VS_CODE_TASK].reasons == (
        "unsupported app: VS Code (not on the local backend's desktop; Microsoft's build, not in Debian)",
    )
    assert {e.id for e in anywhere.supported} > {e.id for e in local.supported}
    text = format_report(local)
    assert "apps: judged against the local backend's desktop" in text
    assert "apps: not judged" in format_report(anywhere)
    result = CliRunner().invoke(main, ["osworld", "report", str(osworld), "--builtin-metrics", "--backend", "sim"])
    assert result.exit_code == 0 and "(not on the sim backend's desktop;" in result.output
    result = CliRunner().invoke(main, ["osworld", "report", str(osworld), "--backend", "vm"])
    assert result.exit_code == 2 and "'vm' is not one of 'local', 'docker', 'docker-osworld', 'sim'" in result.output
    choices = next(p for p in osworld_report.params if p.name == "backend").type.choices  # type: ignore[attr-defined]
    assert set(choices) == set(BACKEND_PACKAGES)  # every desktop with a table of apps, and only those
    result = CliRunner().invoke(main, ["osworld", "report", str(osworld), "--backend", "docker-osworld", "--json"])
    judged = json.loads(result.output)
    assert result.exit_code == 0 and judged["backend"] == "docker-osworld" and judged["supported_tasks"]
    with pytest.raises(ValueError, match="no table of apps for backend 'vm'"):
        check_support(load_task(local.entries[0].path), backend="vm")


def test_what_a_task_needs_is_read_off_its_steps_getters_files_and_domain(tmp_path: Path) -> None:
    config = [
        {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
        {
            "type": "execute",
            "parameters": {"command": "echo {CLIENT_PASSWORD} | sudo -S mkdir /home/user/x", "shell": True},
        },
        {
            "type": "execute",
            "parameters": {"command": ["python", "-c", "import time, pyautogui; pyautogui.press('f11')"]},
        },
        {"type": "open", "parameters": {"path": "/home/user/Budget.XLSX"}},
    ]
    evaluator = {"func": "exact_match", "result": {"type": "vm_command_line", "command": "gsettings get a b"},
                 "expected": {"type": "rule", "rules": {"expected": "x"}}}  # fmt: skip
    names = [app.name for app in needed_apps(_task(tmp_path, evaluator, config, domain="gimp"))]
    assert names == [
        "Google Chrome", "LibreOffice Calc", "GIMP", "sudo", "gsettings", "python (the command OSWorld calls)", "pyautogui",
    ]  # fmt: skip
    assert programs_in("VLC_VERBOSE=-1 vlc --x && sudo -S -k apt-get install y; $(which code)") == [
        "vlc", "sudo", "apt-get", "which",
    ]  # fmt: skip
    assert needed_apps(_task(tmp_path, evaluator, [])) == [next(a for a in APPS if a.name == "gsettings")]


def test_a_task_that_asks_systemd_for_the_time_runs_on_docker_osworld_only_naming_timedatectl_elsewhere(
    shared_fixtures: Path,
) -> None:
    """os/b6781586 runs ``timedatectl status``, which answers only under systemd: on docker-osworld it was
    a platform error ("System has not been booted with systemd"), not a skip. The osworld image now has a
    stand-in; the other desktops skip it, naming timedatectl."""
    task = load_task(shared_fixtures / "osworld_more" / "os" / "b6781586-6346-41cd-935a-a6b1487918fc.json")
    assert "timedatectl" in [app.name for app in needed_apps(task)]
    for backend in ("local", "docker"):
        reasons = check_support(task, official=(), mirror=None, backend=backend).reasons
        assert any(r.startswith("unsupported app: timedatectl (not on the") and "systemd" in r for r in reasons), (
            reasons
        )
    assert check_support(task, official=("is_utc_0",), mirror=None, backend="docker-osworld").supported


def test_a_task_whose_grader_loads_a_live_web_page_is_skipped_for_the_network_not_a_missing_getter(
    shared_fixtures: Path,
) -> None:
    """chrome/b4f95342 is not marked proxy and downloads nothing, but its getter opens recreation.gov live to
    score it: it needs the network, which is what the skip must say (it said "unsupported getter")."""
    task = load_task(shared_fixtures / "osworld_more" / "chrome" / "b4f95342-463e-4179-8c3f-193cd7241fb2.json")
    assert not task.proxy
    support = check_support(task, mirror=None, backend="docker-osworld")
    assert support.reason == (
        "unsupported: live web page (the gotoRecreationPage_and_get_html_content getter loads one to score the task)"
    )
    assert not any(r.startswith("unsupported getter") for r in support.reasons)


def test_the_local_table_is_what_system_deps_installs() -> None:
    script = (REPO / "scripts" / "system-deps.sh").read_text()
    listed = re.search(r"^packages=\((.*?)\)", script, re.S | re.M)
    assert listed is not None, "scripts/system-deps.sh lost its packages=(...) list"
    assert BACKEND_PACKAGES["local"] == frozenset(listed.group(1).split())


def test_the_docker_table_is_the_images_package_list() -> None:
    try:
        from cua_bench_docker.image import APT_PACKAGES
    except ImportError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the docker plugin is not installed: {exc}")
        pytest.skip(f"the docker plugin is not installed: {exc}")
    assert BACKEND_PACKAGES["docker"] == frozenset(APT_PACKAGES)
