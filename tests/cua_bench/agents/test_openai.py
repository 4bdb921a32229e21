"""The ``openai`` agent against a real HTTP server on loopback that replays recorded answers.

The answers are the oracle's own actions on the sim's click-button task, written the way a
Qwen3-VL model writes them (its adapter's ``format_output``), so a run that scores 1.0 proves the
whole path: prompt rendering, the request, parsing, stepping, evaluation.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from support.model_server import ModelServer, completion, model_server, request_text

import cua_bench
from cua_bench.runner import RunConfig, Runner
from cua_bench_tasks_sim import FOLDER as SIM
from cua_core.actions import Done, action_from_dict
from cua_data.registry import adapters

TASK = SIM / "click-button"
VARIANTS = 4
# What GET /v1/models answers, as vLLM does: the preflight finds the model there.
MODELS = {"/v1/models": {"object": "list", "data": [{"id": "qwen3-vl-test"}, {"id": "m"}]}}


@pytest.fixture(scope="module")
def recorded() -> dict[str, list[str]]:
    """Per task description, the answers a Qwen3-VL model would give step by step."""
    adapter = adapters()["qwen3-vl"]()
    answers: dict[str, list[str]] = {}
    with cua_bench.make("sim/click-button", observes="none") as env:
        for variant in range(VARIANTS):
            _, info = env.reset(options={"variant": variant})
            steps = env.solve()["steps"]
            size = (1280, 800)
            outputs = [adapter.format_output([action_from_dict(a) for a in s["actions"]], size) for s in steps]
            answers[info["task"]["description"]] = [*outputs, adapter.format_output([Done()], size)]
    return answers


def replay(recorded: dict[str, list[str]]) -> Any:
    def answer(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        text = request_text(request)
        for description, outputs in recorded.items():
            if description in text:
                step = sum(m["role"] == "assistant" for m in request["messages"])
                return 200, completion(outputs[min(step, len(outputs) - 1)])
        return 400, {"error": {"message": "no recording for this prompt"}}

    return answer


@pytest.fixture
def server(recorded: dict[str, list[str]]) -> Iterator[ModelServer]:
    with model_server(replay(recorded), gets=MODELS) as srv:
        yield srv


def _run(tmp_path: Path, base_url: str, **options: Any) -> dict[str, Any]:
    config = RunConfig(
        str(TASK),
        tmp_path / "run",
        agent="openai",
        agent_options={"model": "qwen3-vl-test", "adapter": "qwen3-vl", "base_url": base_url, **options},
        max_parallel=2,
        variants=VARIANTS,
    )
    return Runner(config).run()


def test_a_replayed_model_solves_the_task_through_the_runner(
    server: ModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    summary = _run(tmp_path, server.base_url)
    assert summary["episodes"] == VARIANTS and summary["errors"] == 0
    assert summary["success_rate"] == 1.0
    usage = summary["agent_usage"]
    assert usage["model_calls"] == len(server.requests) >= 2 * VARIANTS
    assert usage["prompt_tokens"] == 100 * len(server.requests) and usage["parse_errors"] == 0
    assert usage["model_s"] > 0
    assert all(h["Authorization"] == "Bearer sk-test" for h in server.headers)
    first = server.requests[0]
    assert first["model"] == "qwen3-vl-test" and first["temperature"] == 0.0
    assert first["messages"][0]["role"] == "system" and "computer_use" in request_text(first)
    images = [
        p for m in first["messages"] if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"
    ]
    assert len(images) == 1  # the current screen: nothing before it yet
    url = images[0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert image.size == adapters()["qwen3-vl"]().model_size(1280, 800)
    # The second step's prompt replays the first answer verbatim and shows both screens.
    later = max(server.requests, key=lambda r: len(r["messages"]))
    assert any(m["role"] == "assistant" for m in later["messages"])
    summary_file = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary_file["agent"] == "openai" and summary_file["agent_usage"]["model_calls"] == usage["model_calls"]


def test_transient_failures_are_retried_with_backoff(recorded: dict[str, list[str]], tmp_path: Path) -> None:
    replies = iter([(503, {"error": "warming up"}), (429, {"error": "slow down"})])
    good = replay(recorded)

    def answer(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return next(replies, None) or good(request)

    with model_server(answer, gets=MODELS) as srv:
        summary = _run(tmp_path, srv.base_url, backoff=0.01)
    assert summary["success_rate"] == 1.0
    assert summary["agent_usage"]["retries"] == 2


def test_a_refusing_server_fails_the_run_before_it_starts_never_a_silent_zero(tmp_path: Path) -> None:
    from cua_core.errors import CuaError

    with (
        model_server(lambda _: (401, {"error": {"message": "invalid api key"}})) as srv,
        pytest.raises(CuaError, match=r"HTTP 401 .*invalid api key.*OPENAI_API_KEY"),
    ):
        _run(tmp_path, srv.base_url)
    assert not (tmp_path / "run" / "episodes.jsonl").exists()


def test_unparseable_output_is_shown_to_the_model_and_the_episode_still_ends(tmp_path: Path) -> None:
    with model_server(lambda _: (200, completion("I would click the button now.")), gets=MODELS) as srv:
        config = RunConfig(
            str(TASK),
            tmp_path / "run",
            agent="openai",
            agent_options={"model": "m", "adapter": "qwen3-vl", "base_url": srv.base_url},
            max_parallel=1,
            variants=1,
            max_steps=3,
        )
        summary = Runner(config).run()
        assert summary["errors"] == 0 and summary["mean_reward"] == 0.0
        assert summary["tasks"]["click-button"]["mean_steps"] == 3  # truncated at the limit, not crashed
        assert summary["agent_usage"]["parse_errors"] == 3
        assert "could not be parsed" not in request_text(srv.requests[0])
        assert "could not be parsed" in request_text(srv.requests[1])


def test_a_server_that_is_not_there_fails_the_run_before_it_starts(tmp_path: Path) -> None:
    from cua_core.errors import CuaError

    with pytest.raises(CuaError, match=r"cannot reach the model server at http://127.0.0.1:9/v1: connection refused"):
        _run(tmp_path, "http://127.0.0.1:9/v1", max_retries=1, backoff=0.01)
    assert not (tmp_path / "run").exists()


def test_bad_agent_options_fail_before_anything_starts(tmp_path: Path) -> None:
    from cua_core.errors import CuaError

    with pytest.raises(CuaError, match=r"unknown option 'modle'; did you mean 'model'"):
        _run(tmp_path, "http://127.0.0.1:9/v1", modle="x")
    with pytest.raises(CuaError, match="expected http"):
        Runner(RunConfig(str(TASK), tmp_path / "r2", agent="openai",
                         agent_options={"model": "m", "adapter": "qwen3-vl", "base_url": "127.0.0.1:8000"})).run()  # fmt: skip
    with pytest.raises(CuaError, match=r"unknown adapter 'qwen9'"):
        _run(tmp_path, "http://127.0.0.1:9/v1", adapter="qwen9")
    assert not (tmp_path / "run" / "episodes.jsonl").exists()


def test_one_command_line_runs_a_model(server: ModelServer, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cua_bench.cli import main

    args = ["run", str(TASK), "--variants", "2", "--output", str(tmp_path / "cli"), "--agent", "openai"]
    args += ["--model", "qwen3-vl-test", "--adapter", "qwen3-vl", "--base-url", server.base_url, "--history", "last=2"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "success 100.0%" in result.output
    assert re.search(
        r"model: \d+ calls, mean latency \d+ ms, tokens \d+ in / \d+ out, unparseable outputs 0", result.output
    )
    bad = CliRunner().invoke(
        main, [*args[:6], "--agent", "openai", "--model", "m", "--adapter", "qwen3-vl", "--agent-option", "sed=3"]
    )
    assert bad.exit_code == 1 and "unknown option 'sed'" in bad.output and "Traceback" not in bad.output
    bad = CliRunner().invoke(main, [*args[:6], "--obs", "screenshot,colour"])
    assert bad.exit_code == 2 and "--obs: unknown part 'colour'" in bad.output
