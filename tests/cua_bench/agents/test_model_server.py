"""The ``openai`` agent's server checks: one probe before any computer starts, and a breaker during the run.

Every server here is a real HTTP server on loopback (``support.model_server``) or a port nothing
listens on, so what the agent meets is what a dead, locked or misaddressed vLLM would give it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.model_server import ModelServer, completion, model_server

from cua_bench.agents.model_server import ServerDown
from cua_bench.agents.openai import OpenAIAgent
from cua_bench.backends.base import Computer
from cua_bench.backends.sim import SimBackend
from cua_bench.runner import RunConfig, RunHalted, Runner
from cua_bench_tasks_sim import FOLDER as SIM
from cua_core.actions import Click, Done, Point
from cua_core.errors import CuaError
from cua_data.registry import adapters

TASK = SIM / "click-button"
MODELS = {"/v1/models": {"object": "list", "data": [{"id": "served-a"}, {"id": "served-b"}]}}
REFUSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there on a test machine


def _answers() -> list[str]:
    """A click, then done: two steps of a Qwen3-VL model on any task (the reward does not matter here)."""
    adapter = adapters()["qwen3-vl"]()
    return [adapter.format_output([Click(Point(500, 500))], (1280, 800)), adapter.format_output([Done()], (1280, 800))]


def by_step(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    step = sum(m["role"] == "assistant" for m in request["messages"])
    answers = _answers()
    return 200, completion(answers[min(step, len(answers) - 1)])


class CountingSim(SimBackend):
    """The sim backend, counting the computers it starts."""

    def __init__(self) -> None:
        self.started = 0

    def provision(self, **kwargs: Any) -> Computer:
        self.started += 1
        return super().provision(**kwargs)


def _runner(tmp_path: Path, base_url: str, *, model: str = "served-a", variants: int = 4, **options: Any) -> Runner:
    config = RunConfig(
        str(TASK),
        tmp_path / "run",
        agent="openai",
        agent_options={"model": model, "adapter": "qwen3-vl", "base_url": base_url, **options},
        max_parallel=1,
        variants=variants,
        record=False,
    )
    runner = Runner(config)
    runner.backend = CountingSim()
    return runner


def _fails_before_anything_starts(runner: Runner, match: str) -> CuaError:
    with pytest.raises(CuaError, match=match) as caught:
        runner.run()
    assert isinstance(runner.backend, CountingSim) and runner.backend.started == 0
    assert not runner.config.output.exists()  # nothing written either
    assert "\n" not in str(caught.value)  # one line
    return caught.value


# -- the preflight ------------------------------------------------------------------------------


def _asked(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The probe's requests, counted: asked once means no retry and no backoff. How fast that is, is a
    timing claim, measured by bench/cli.py (``fail_fast_s_p95``), not here: a loaded CI took 3.04 s."""
    from cua_bench.agents import model_server

    calls: list[object] = []
    request = model_server._request

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return request(*args, **kwargs)

    monkeypatch.setattr(model_server, "_request", counted)
    return calls


def test_a_refused_connection_is_one_line_after_one_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _asked(monkeypatch)
    _fails_before_anything_starts(
        _runner(tmp_path, REFUSED),
        r"cannot reach the model server at http://127.0.0.1:9/v1: connection refused.*fix --base-url",
    )
    assert len(asked) == 1


def test_the_command_line_says_it_once_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cua_bench.cli import main

    asked = _asked(monkeypatch)
    args = ["run", "sim", "--tasks", "click-button", "--agent", "openai", "--model", "m", "--adapter", "qwen3-vl"]
    result = CliRunner().invoke(main, [*args, "--base-url", REFUSED, "--output", str(tmp_path / "run")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "http://127.0.0.1:9/v1" in errors[0] and "connection refused" in errors[0]
    assert len(asked) == 1


def test_an_unknown_host_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unresolvable(host: str, *args: object, **kwargs: object) -> list[object]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unresolvable)  # tests ask no DNS server (loopback only)
    _fails_before_anything_starts(
        _runner(tmp_path, "http://no-such-host.invalid:8000/v1"),
        r"'no-such-host.invalid' does not resolve \(DNS\): fix --base-url",
    )


def test_a_server_that_never_answers_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cua_bench.agents.model_server.PROBE_TIMEOUT", 0.5)
    with socket.socket() as listener:  # accepts connections (the kernel's backlog) and never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        _fails_before_anything_starts(
            _runner(tmp_path, f"http://127.0.0.1:{port}/v1"), r"no answer within 0.5 s: check the host and port"
        )


def test_a_missing_key_and_a_wrong_key_say_which(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # No /v1/models on this server: the one-token request is the one that meets the 401.
    with model_server(lambda _: (401, {"error": {"message": "invalid api key"}})) as srv:
        _fails_before_anything_starts(
            _runner(tmp_path, srv.base_url), r"HTTP 401 .*no API key was sent: export OPENAI_API_KEY=KEY"
        )
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
        _fails_before_anything_starts(_runner(tmp_path, srv.base_url), r"the key in \$OPENAI_API_KEY is wrong")


def test_a_base_url_without_v1_on_a_server_that_serves_v1_says_so(tmp_path: Path) -> None:
    with model_server(by_step, gets=MODELS) as srv:
        root = srv.base_url.removesuffix("/v1")
        _fails_before_anything_starts(
            _runner(tmp_path, root),
            rf"no OpenAI-compatible API at {root}: .* both 404; most servers serve under /v1: --base-url {root}/v1",
        )


def test_a_model_the_server_does_not_serve_lists_the_ones_it_does(tmp_path: Path) -> None:
    with model_server(by_step, gets=MODELS) as srv:
        _fails_before_anything_starts(
            _runner(tmp_path, srv.base_url, model="served-c"),
            r"--model 'served-c' is not served at .*/v1; it serves: served-a, served-b",
        )


def test_a_server_without_models_is_probed_with_one_token(tmp_path: Path) -> None:
    def chat(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if request.get("max_tokens") == 1:
            if request["model"] != "served-a":  # vLLM's words for a model it does not serve
                return 404, {"error": {"message": f"The model `{request['model']}` does not exist."}}
            return 200, completion("OK")
        return by_step(request)

    with model_server(chat) as srv:
        _fails_before_anything_starts(_runner(tmp_path, srv.base_url, model="nope"), r"--model 'nope' is not served")
        runner = _runner(tmp_path, srv.base_url, variants=1)
        assert runner.run()["episodes"] == 1
        assert srv.requests[1]["max_tokens"] == 1  # the probe, then the episode
        assert srv.requests[2]["max_tokens"] != 1


# -- the breaker --------------------------------------------------------------------------------


class Flaky:
    """Answers like a model until ``dies_after`` requests, then 503 until revived."""

    def __init__(self, dies_after: int) -> None:
        self.dies_after = dies_after
        self.count = 0
        self.alive = True

    def __call__(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.count += 1
        if self.alive and self.count > self.dies_after:
            self.alive = False
        return by_step(request) if self.alive else (503, {"error": {"message": "engine dead"}})


@pytest.fixture
def flaky() -> Iterator[tuple[Flaky, ModelServer]]:
    answer = Flaky(dies_after=4)  # two episodes of two steps each
    with model_server(answer, gets=MODELS) as srv:
        yield answer, srv


def test_a_server_that_dies_mid_run_stops_it_and_resume_finishes_it(
    tmp_path: Path, flaky: tuple[Flaky, ModelServer]
) -> None:
    answer, srv = flaky
    runner = _runner(tmp_path, srv.base_url, max_retries=1, backoff=0.01)
    with pytest.raises(RunHalted) as caught:
        runner.run()
    message = str(caught.value)
    assert f"the model server {srv.base_url} went down" in message and "HTTP 503" in message
    assert f"2 of 4 episodes finished and are kept in {tmp_path / 'run'}" in message
    assert f"continue with --resume --output {tmp_path / 'run'}" in message
    assert len(srv.requests) == 4 + 2  # the third episode's call and its one retry; no episode after it
    assert runner.backend.started == 1  # type: ignore[attr-defined]
    kept = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert [r["status"] for r in kept] == ["ok", "ok"]  # none errored: the undone ones are left for --resume
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["complete"] is False and "went down" in summary["stopped"]
    assert caught.value.summary["episodes"] == 2

    answer.alive, answer.count = True, -100  # the server is back
    config = runner.config
    config.resume = True
    resumed = Runner(config).run()
    assert (resumed["episodes"], resumed["errors"], resumed["complete"]) == (4, 0, True)


def test_a_key_refused_mid_run_stops_it_at_once(tmp_path: Path) -> None:
    with model_server(lambda _: (403, {"error": {"message": "key revoked"}}), gets=MODELS) as srv:
        runner = _runner(tmp_path, srv.base_url, backoff=5.0)
        started = time.monotonic()
        with pytest.raises(RunHalted, match=r"refused the request: HTTP 403 .*key revoked.*--resume --output"):
            runner.run()
    assert time.monotonic() - started < 5  # no retry, no backoff
    assert len(srv.requests) == 1
    assert (tmp_path / "run" / "episodes.jsonl").read_text() == ""


def test_the_command_line_prints_what_finished_then_why_it_stopped(
    tmp_path: Path, flaky: tuple[Flaky, ModelServer]
) -> None:
    from cua_bench.cli import main

    _, srv = flaky
    args = ["run", str(TASK), "--variants", "4", "--max-parallel", "1", "--output", str(tmp_path / "cli")]
    args += ["--agent", "openai", "--model", "served-a", "--adapter", "qwen3-vl", "--base-url", srv.base_url]
    result = CliRunner().invoke(main, [*args, "--agent-option", "max_retries=0", "--no-record"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "2 episodes, 2 scored" in result.output  # the summary of what finished
    (error,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert "went down" in error and "--resume --output" in error


def test_agents_waiting_out_a_backoff_stop_when_another_finds_the_server_down() -> None:
    with model_server(lambda _: (503, {"error": {"message": "down"}})) as srv:
        shared: dict[str, Any] = {}
        patient = OpenAIAgent(model="m", adapter="qwen3-vl", base_url=srv.base_url, max_retries=5, backoff=10.0)
        hasty = OpenAIAgent(model="m", adapter="qwen3-vl", base_url=srv.base_url, max_retries=0)
        patient.run_state = hasty.run_state = shared
        outcome: list[BaseException] = []

        def call() -> None:
            try:
                patient.complete({"model": "m", "messages": []})
            except CuaError as exc:
                outcome.append(exc)

        waiting = threading.Thread(target=call)
        waiting.start()
        while not srv.requests:
            time.sleep(0.01)
        started = time.monotonic()
        with pytest.raises(ServerDown, match="went down"):
            hasty.complete({"model": "m", "messages": []})
        waiting.join(5)
        assert not waiting.is_alive() and time.monotonic() - started < 3  # not its 10 s backoff
        assert isinstance(outcome[0], ServerDown)
