"""What a model run keeps: every output as the model wrote it, nothing it did not write, and notes that say
what the numbers cannot (no key, no /v1, no usage); and a run whose adapter cannot read the model stops.

Each run goes through the Runner against a loopback server, and each check reads the run folder back
from disk, so what is asserted is what a user (or a training job) would find there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.model_server import completion, model_server

from cua_bench.runner import RunConfig, RunHalted, Runner
from cua_bench.summary import format_summary
from cua_bench_tasks_sim import FOLDER as SIM
from cua_core.actions import Click, Done, Point, action_to_dict
from cua_data import DatasetReader
from cua_data.registry import adapters

TASK = SIM / "click-button"
MODELS = {"/v1/models": {"object": "list", "data": [{"id": "m"}]}}
GARBAGE = "I would click the OK button now.\n  (with <b>care</b>)"
CLICK = adapters()["qwen3-vl"]().format_output([Click(Point(500, 500))], (1280, 800))
DONE = adapters()["qwen3-vl"]().format_output([Done()], (1280, 800))


def no_usage(content: str) -> dict[str, Any]:
    return {k: v for k, v in completion(content).items() if k != "usage"}


def scripted(*replies: dict[str, Any]) -> Any:
    """The reply for each step of an episode (the last one repeats)."""

    def answer(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        step = sum(m["role"] == "assistant" for m in request["messages"])
        return 200, replies[min(step, len(replies) - 1)]

    return answer


def _run(tmp_path: Path, base_url: str, *, variants: int = 1, max_steps: int = 3, **options: Any) -> dict[str, Any]:
    config = RunConfig(
        str(TASK),
        tmp_path / "run",
        agent="openai",
        agent_options={"model": "m", "adapter": "qwen3-vl", "base_url": base_url, **options},
        max_parallel=1,
        variants=variants,
        max_steps=max_steps,
    )
    return Runner(config).run()


def _rows(tmp_path: Path) -> list[Any]:
    return sorted(DatasetReader(tmp_path / "run" / "trajectories"), key=lambda r: r.metadata.others["episode"])


def _texts(row: Any) -> list[str]:
    return [
        part.get("text", "")
        for message in row.messages
        if message["role"] == "assistant"
        for part in message.get("content") or []
        if part.get("type") == "text"
    ]


def test_every_output_is_recorded_as_written_with_its_parse_tokens_and_latency(tmp_path: Path) -> None:
    replies = (no_usage(GARBAGE), completion(CLICK, 120, 30), completion(GARBAGE))
    with model_server(scripted(*replies), gets=MODELS) as srv:
        _run(tmp_path, srv.base_url, max_steps=3)
    (row,) = _rows(tmp_path)
    steps = row.metadata.others["agent_steps"]
    assert [s["step"] for s in steps] == [1, 2, 3]
    assert [s["raw"] for s in steps] == [GARBAGE, CLICK, GARBAGE]  # exactly as returned, garbage included
    assert "parse_error" in steps[0] and "actions" not in steps[0]
    assert steps[1]["actions"] == [action_to_dict(Click(Point(500, 500)))] and "parse_error" not in steps[1]
    assert steps[0]["usage"] is None  # not reported: never 0 tokens
    assert steps[1]["usage"] == {"prompt_tokens": 120, "completion_tokens": 30}
    assert all(s["latency_s"] > 0 for s in steps)
    # Truncated: the trajectory ends with what was done, never with a 'Done.' the model did not write.
    assert row.metadata.others["status"] == "truncated"
    assert _texts(row) == []
    assert row.messages[-1]["role"] == "tool"


def test_an_episode_of_garbage_records_the_garbage_and_no_answer(tmp_path: Path) -> None:
    with model_server(scripted(completion(GARBAGE)), gets=MODELS) as srv:
        _run(tmp_path, srv.base_url, max_steps=2)
    (row,) = _rows(tmp_path)
    assert [m["role"] for m in row.messages] == ["user"]  # nothing was done, nothing answered
    assert [s["raw"] for s in row.metadata.others["agent_steps"]] == [GARBAGE, GARBAGE]
    assert row.metadata.others["status"] == "truncated"


def test_a_done_the_model_wrote_is_recorded(tmp_path: Path) -> None:
    with model_server(scripted(completion(CLICK), completion(DONE)), gets=MODELS) as srv:
        _run(tmp_path, srv.base_url, max_steps=5)
    (row,) = _rows(tmp_path)
    assert _texts(row) == ["Done."]
    assert "status" not in row.metadata.others
    assert row.metadata.others["agent_steps"][-1]["raw"] == DONE


def test_a_wrong_adapter_stops_the_run_after_its_first_outputs(tmp_path: Path) -> None:
    with model_server(scripted(completion(GARBAGE)), gets=MODELS) as srv:
        with pytest.raises(RunHalted) as caught:
            _run(tmp_path, srv.base_url, variants=4, max_steps=3)
        assert len(srv.requests) == 8  # the first eight outputs, then nothing more
    message = str(caught.value)
    assert "the first 8 outputs of the model all failed to parse with adapter 'qwen3-vl'" in message
    assert "the adapter probably does not match the model" in message and "I would click the OK button" in message
    assert all(name in message for name in adapters().names())
    assert "2 of 4 episodes finished" in message and "start a new run" in message and "--resume" not in message
    kept = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert len(kept) == 2 and all(r["status"] == "ok" for r in kept)


def test_a_model_that_parses_sometimes_is_left_to_its_score(tmp_path: Path) -> None:
    with model_server(scripted(completion(CLICK), completion(GARBAGE)), gets=MODELS) as srv:
        summary = _run(tmp_path, srv.base_url, variants=2, max_steps=5)
    assert summary["episodes"] == 2 and summary["agent_usage"]["parse_errors"] == 8


def test_the_command_line_exits_non_zero_on_a_wrong_adapter(tmp_path: Path) -> None:
    from cua_bench.cli import main

    with model_server(scripted(completion(GARBAGE)), gets=MODELS) as srv:
        args = ["run", str(TASK), "--variants", "4", "--max-steps", "2", "--output", str(tmp_path / "cli")]
        args += ["--agent", "openai", "--model", "m", "--adapter", "qwen3-vl", "--base-url", srv.base_url]
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "Traceback" not in result.output
    (error,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert "adapter 'qwen3-vl'" in error and "does not match the model" in error


def test_the_summary_says_no_key_no_v1_and_no_usage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    answer = scripted(no_usage(DONE))
    # A server that serves at its root, not under /v1: accepted, with a note.
    with model_server(answer, routes={"/chat/completions": answer}, gets={"/models": MODELS["/v1/models"]}) as srv:
        root = srv.base_url.removesuffix("/v1")
        summary = _run(tmp_path, root, max_steps=2)
    assert all("Authorization" not in headers for headers in srv.headers)
    notes = json.loads((tmp_path / "run" / "summary.json").read_text())["notes"]
    assert notes == summary["notes"]
    assert any("no API key: $OPENAI_API_KEY is not set" in note for note in notes)
    assert any(f"--base-url {root} has no /v1 path" in note for note in notes)
    assert any(note.startswith("usage not reported") for note in notes)
    assert "prompt_tokens" not in summary["agent_usage"]
    text = format_summary(summary)
    assert "tokens: usage not reported" in text and "tokens 0 in" not in text
    assert "note: no API key" in text


def test_some_answers_without_usage_are_counted_apart() -> None:
    from cua_bench.summary import summarize

    summary = summarize([])
    summary["agent_usage"] = {"model_calls": 4, "model_s": 1.0, "prompt_tokens": 300, "completion_tokens": 30,
                              "calls_without_usage": 1}  # fmt: skip
    assert "tokens 300 in / 30 out (usage not reported for 1 calls)" in format_summary(summary)
