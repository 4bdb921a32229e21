from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner
from support.bench_tasks import make_taskset

from cua_bench import hookimpl
from cua_bench.cli import PluggedGroup, main
from cua_bench.registry import commands, plugin_manager
from cua_bench.settings import load_settings


def run(*args: object, stdin: str | None = None) -> tuple[int, str]:
    """The exit code, and what was printed (only stdout with --json: progress goes to stderr)."""
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    return result.exit_code, result.stdout if "--json" in args else result.output


def test_run_report_and_replay(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    code, out = run("run", tasks, "--agent", "oracle", "--output", tmp_path / "oracle", "--max-parallel", "2")
    assert code == 0, out
    assert "oracle on" in out
    assert "success 100.0%" in out
    assert "press-a" in out
    code, out = run("report", tmp_path / "oracle", "--json")
    assert code == 0
    assert json.loads(out)["success_rate"] == 1.0
    # replaying the recorded trajectories earns the same rewards
    code, out = run(
        "run",
        tasks,
        "--agent",
        "replay",
        "--agent-option",
        f"dataset={tmp_path / 'oracle' / 'trajectories'}",
        "--output",
        tmp_path / "replay",
        "--json",
    )
    assert code == 0, out
    assert json.loads(out)["success_rate"] == 1.0
    code, out = run("run", tasks, "--agent", "noop", "--output", tmp_path / "noop", "--json", "--no-record")
    assert json.loads(out)["mean_reward"] == 0.0


def test_run_refuses_bad_input_clearly(tmp_path: Path) -> None:
    code, out = run("run", "nonexistent-taskset", "--output", tmp_path / "x")
    assert code == 1
    assert "neither a folder nor a registered taskset" in out
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    code, out = run("run", tasks, "--agent", "oracel", "--output", tmp_path / "y")
    assert code == 1
    assert "did you mean 'oracle'" in out
    code, out = run("run", tasks, "--agent-option", "nonsense", "--output", tmp_path / "z")
    assert code == 2
    assert "is not KEY=VALUE" in out
    code, out = run("report", tmp_path)
    assert code == 1
    assert "no episodes.jsonl" in out


def test_run_one_variant_index_records_that_index(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 4), "press-b": ("fast", 2)})
    code, out = run("run", tasks, "--variant", "3", "--output", tmp_path / "v3", "--json")
    assert code == 0, out
    assert json.loads(out)["episodes"] == 1  # press-b has no variant 3
    assert [json.loads(line)["key"] for line in (tmp_path / "v3/episodes.jsonl").read_text().splitlines()] == [
        "press-a/test/3"
    ]
    assert load_settings(tmp_path / "v3")["results"]["variant"] == 3
    code, out = run("run", tasks, "--variant", "1", "--variants", "2", "--output", tmp_path / "both")
    assert code == 2 and "give --variant or --variants, not both" in out
    code, out = run("run", tasks, "--variant", "7", "--output", tmp_path / "v7")
    assert code == 1 and "nothing to run (no task has variant 7 in split 'test')" in out
    code, out = run("run", tasks, "--variants", "1", "--output", tmp_path / "k1", "--json", "--no-record")
    assert code == 0 and "variant" not in load_settings(tmp_path / "k1")["results"]  # older runs still resume


def test_check_and_conformance(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 3)})
    code, out = run("check", tasks / "press-a")
    assert code == 0, out
    assert "oracle 1.0, doing nothing 0" in out
    broken = tasks / "press-a" / "main.py"
    broken.write_text(broken.read_text().replace("== 1 else 0.0", "== 1 else 1.0"))  # an evaluator that passes idle
    code, out = run("check", tasks / "press-a")
    assert code == 1
    assert "doing nothing scores 1.0, not 0" in out
    code, out = run("conformance", "sim")
    assert (code, out.strip()) == (0, "sim: conformant")


def test_interact_takes_typed_actions(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    shots = tmp_path / "shots"
    script = "help\na11y\na11y print\nclick(500, 500)\nnot an action\nevaluate\ndone\n"
    proc = subprocess.run(
        [sys.executable, "-m", "cua_bench.cli", "interact", str(tasks / "press-a"), "--screenshots", str(shots)],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "task: Press Alpha" in proc.stdout
    assert "a11y print" in proc.stdout and "quit" in proc.stdout  # the help text
    assert '"role": "window"' in proc.stdout  # the whole tree, printed
    assert json.loads((shots / "a11y_000.json").read_text())[0]["role"] == "window"  # and written whole
    assert "step 1: click(coordinate=[500, 500])" in proc.stdout
    assert "not an action" in proc.stdout
    assert "reward 0.0" in proc.stdout
    assert "episode over: reward 0.0" in proc.stdout
    assert sorted(p.name for p in shots.glob("*.png")) == ["step_000.png", "step_001.png", "step_002.png"]


def test_list_shows_the_sim_taskset() -> None:
    code, out = run("list", "--json")
    assert code == 0
    data = json.loads(out)
    assert "sim" in data["tasksets"]
    assert "sim" in data["backends"]
    assert {"oracle", "random", "noop", "replay"} <= set(data["agents"])


def test_a_failing_task_shows_its_own_traceback_in_the_terminal_and_the_report(tmp_path: Path) -> None:
    from support.user_errors import failing_line, faulty_task

    folder = faulty_task(tmp_path / "ts", "setup")
    where = f'File "{folder.resolve()}/main.py", line {failing_line(folder)}, in expected'
    code, out = run("run", tmp_path / "ts", "--agent", "noop", "--output", tmp_path / "run")
    assert code == 1 and "errored: faulty/test/0: " in out
    assert f"    {where}" in out and 'return task.metadata["expected"]' in out  # indented under its episode
    assert "Traceback (most recent call last)" not in out and "cua_core" not in out  # not ours: theirs
    code, out = run("report", tmp_path / "run")
    assert code == 0 and where in out
    code, out = run("--debug", "run", tmp_path / "ts", "--agent", "noop", "--output", tmp_path / "debug")
    assert code == 1 and where in out and "cua_core/rpc/server.py" in out  # --debug: every frame


def test_agent_and_adapter_options_are_typed_before_anything_starts(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 1)})
    code, out = run("run", tasks, "--agent", "random", "--agent-option", "seed=abc", "--output", tmp_path / "a")
    assert code == 1 and "Error: agent 'random': --agent-option seed=abc: seed must be an integer (int)" in out
    code, out = run("run", tasks, "--agent", "random", "--agent-option", "seed=7", "--output", tmp_path / "b")
    assert code == 0 and load_settings(tmp_path / "b")["results"]["agent_options"] == {"seed": 7}  # type: ignore[index]
    args = ["run", tasks, "--agent", "openai", "--model", "m", "--adapter", "qwen2.5-vl", "--output", tmp_path / "c"]
    code, out = run(*args, "--agent-option", "temperature=hot")
    assert code == 1 and "--agent-option temperature=hot: temperature must be a number (float)" in out
    code, out = run(*args, "--adapter-option", "max_pixels=lots")
    assert code == 1 and "--adapter-option max_pixels=lots: max_pixels must be an integer or none" in out
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()


def test_replay_takes_a_run_folder_and_refuses_what_holds_no_dataset(tmp_path: Path) -> None:
    tasks = make_taskset(tmp_path / "ts", {"press-a": ("fast", 2)})
    code, out = run("run", tasks, "--output", tmp_path / "oracle")
    assert code == 0, out
    code, out = run("run", tasks, "--agent", "replay", "--agent-option", f"dataset={tmp_path / 'oracle'}",
                    "--output", tmp_path / "replay", "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["success_rate"] == 1.0, out
    code, out = run("run", tasks, "--agent", "replay", "--agent-option", f"dataset={tmp_path / 'ts'}",
                    "--output", tmp_path / "nothing")  # fmt: skip
    assert code == 1 and "nor a run folder holding one" in out and not (tmp_path / "nothing").exists(), out


class _CommandPlugin:
    """A plugin that adds ``hello``, and one named as cua-bench's own ``run``."""

    def __init__(self, name: str) -> None:
        self.name = name

    @hookimpl
    def cua_bench_register_commands(self, register: Any) -> None:
        @click.command(self.name)
        def command() -> None:
            click.echo("hello from a plugin")

        register(self.name, command)


def _group_with(plugin: _CommandPlugin) -> Iterator[PluggedGroup]:
    pm = plugin_manager()
    pm.register(plugin, name=f"test-{plugin.name}")
    try:
        group = PluggedGroup("cua-bench", commands={"run": click.Command("run", callback=lambda: None)})
        yield group
    finally:
        pm.unregister(name=f"test-{plugin.name}")


def test_a_plugin_adds_a_command_and_the_listing_shows_it() -> None:
    for group in _group_with(_CommandPlugin("hello")):
        assert not group.plugged  # nothing loaded while a built-in is asked for
        assert CliRunner().invoke(group, ["run"]).exit_code == 0 and not group.plugged
        shown = CliRunner().invoke(group, ["hello"])
        assert shown.exit_code == 0 and "hello from a plugin" in shown.output
        assert "hello" in CliRunner().invoke(group, ["--help"]).output


def test_a_plugin_command_named_as_one_of_ours_is_refused_naming_the_plugin() -> None:
    for group in _group_with(_CommandPlugin("run")):
        refused = CliRunner().invoke(group, ["--help"])
        assert refused.exit_code != 0
        assert "plugin 'test-run' registers the command 'run', which cua-bench has" in refused.output


def test_osworld_is_a_plugin_command() -> None:
    assert commands().plugin_of("osworld") == "osworld"
    assert "osworld" in run("--help")[1]
