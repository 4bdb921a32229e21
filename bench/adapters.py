"""Model adapters and the ``openai`` agent, measured in one run.

- ``parse_ok_ratio``: of the real model outputs in ``../shared/fixtures/model_outputs``, the share
  each family's adapter reads as expected (every block parses, except the ones the fixtures mark as
  invalid, which must raise ``AdapterParseError``). Target 1.0.
- ``render_per_s``: prompts rendered per second for a 10-step history with a screenshot per step
  (1280x800 frames of the sim desktop), per adapter, the way a model agent renders them (each turn's
  screenshot resized once, when it was current); the slowest adapter is ``render_per_s_min``.
  Baseline in the same run: one PNG encode of a frame (``png_encode_ms``), the least any agent
  that sends a screenshot must spend.
- ``agent_overhead_ms_p50``: the ``openai`` agent's own time per step against a loopback server
  that answers at once: rendering, encoding the new screenshot, the request's JSON, and parsing —
  everything but the wait for the server. Target <= 15 ms for a 1280x800 screenshot.

Last line: ``parse_ok_ratio=… render_per_s_min=… agent_overhead_ms_p50=…`` (plus extras).
Run: .venv/bin/python bench/adapters.py [--quick]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

import cua_bench
from cua_bench.agents.openai import OpenAIAgent
from cua_bench.tasks import Task
from cua_core.actions import Click, Point, TypeText
from cua_data.adapters import AdapterParseError, Turn
from cua_data.registry import adapters

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "model_outputs"
# Who reads each block of each fixture file, on what screen (the provenance in each file's header says
# which model wrote it; the adapters' tests check the exact actions). None: not a valid action.
PHONE, SMALL_PHONE, DESKTOP = (1080, 2400), (720, 1280), (1920, 1080)
Case = tuple[str, dict[str, Any], tuple[int, int]] | None


def on(family: str, screen: tuple[int, int], **options: Any) -> Case:
    return family, options, screen


TARS15, TARS, CLAUDE = on("ui-tars-1.5", DESKTOP), on("ui-tars", DESKTOP), on("anthropic", (1280, 800))
CASES: dict[str, list[Case]] = {
    "qwen_vl.txt": [
        on("qwen2.5-vl", PHONE, platform="mobile"),
        on("qwen2.5-vl", SMALL_PHONE, platform="mobile"),
        on("qwen3-vl", PHONE, platform="mobile"),
    ],
    "ui_tars.txt": [TARS15, TARS15, TARS15, TARS, TARS15, TARS, TARS, TARS15],
    "opencua.txt": [on("opencua", DESKTOP)] * 5,
    "aguvis.txt": [on("aguvis", SMALL_PHONE, platform="mobile"), on("aguvis", DESKTOP)],
    "claude_tool_use.txt": [CLAUDE, CLAUDE, CLAUDE, CLAUDE, None, CLAUDE],
    "openai_computer_call.txt": [on("openai-computer", (1280, 800))],
}
SCREEN = (1280, 800)


def blocks(path: Path) -> list[str]:
    """The examples of a fixture file: blocks between ``----`` lines, after the ``#`` header block."""
    return [b.strip() for b in path.read_text(encoding="utf-8").split("\n----\n")[1:] if b.strip()]


def parse_ok() -> tuple[float, int, list[str]]:
    registry = adapters()
    good, total, misses = 0, 0, []
    for name, cases in CASES.items():
        examples = blocks(FIXTURES / name)
        if len(examples) != len(cases):
            raise SystemExit(f"{name} has {len(examples)} blocks, the bench knows {len(cases)}: update CASES")
        for number, (block, case) in enumerate(zip(examples, cases, strict=True), 1):
            total += 1
            family, options, screen = case or ("anthropic", {}, SCREEN)
            try:
                registry[family](**options).parse(block, screen)
                parsed = True
            except AdapterParseError:
                parsed = False
            if parsed == (case is not None):
                good += 1
            else:
                misses.append(f"{name}#{number}")
    return good / total, total, misses


def frames(count: int) -> list[np.ndarray[Any, Any]]:
    """Real screens: the sim desktop's click-button task after a few clicks."""
    shots = []
    with cua_bench.make("sim/click-button") as env:
        obs, _ = env.reset()
        shots.append(np.asarray(obs["screenshot"]).copy())
        for i in range(count - 1):
            obs, *_ = env.step([Click(Point(100 + 80 * i, 300))])
            shots.append(np.asarray(obs["screenshot"]).copy())
    return shots


def render_rates(shots: list[np.ndarray[Any, Any]], seconds: float) -> dict[str, float]:
    rates = {}
    for name in adapters().names():
        adapter = adapters()[name]()
        try:
            turns = [
                Turn(adapter.resize(shot), (Click(Point(100 + 50 * i, 300)),)) for i, shot in enumerate(shots[:10])
            ]
            adapter.render("Click the OK button.", turns, shots[10])
        except Exception as exc:  # a family that cannot write a click: report, do not hide
            print(f"{name}: cannot render ({type(exc).__name__}: {exc})", file=sys.stderr)
            continue
        count, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds:
            adapter.render("Click the OK button.", turns, shots[10 + count % 2])
            count += 1
        rates[name] = count / (time.perf_counter() - started)
    return rates


class _TimedAgent(OpenAIAgent):
    """The openai agent with its own work timed apart from the wait for the server."""

    own: list[float]

    def act(self, observation: dict[str, Any]) -> list[Any]:
        started = time.perf_counter()
        prompt = self.prompt(observation)
        body = json.dumps(self.request_body(prompt)).encode()
        mine = time.perf_counter() - started
        reply = self._post(body)
        started = time.perf_counter()
        actions = self.take(str(reply["choices"][0]["message"]["content"]), observation)
        self.own.append(mine + time.perf_counter() - started)
        return actions


def agent_overhead(shots: list[np.ndarray[Any, Any]], steps: int) -> list[float]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.model_server import completion, model_server  # type: ignore[import-not-found]

    answer = adapters()["qwen3-vl"]().format_output([TypeText("hello")], SCREEN)
    with model_server(lambda _: (200, completion(answer))) as server:
        agent = _TimedAgent(model="m", adapter="qwen3-vl", base_url=server.base_url, history="last=4,images=4")
        agent.own = []
        agent.reset(Task("Click the OK button."))
        for step in range(steps):
            agent.act({"screenshot": shots[step % len(shots)], "width": SCREEN[0], "height": SCREEN[1]})
        agent.close()
    return agent.own[1:]  # the first step pays one-time imports


def png_encode_ms(shot: np.ndarray[Any, Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        Image.fromarray(shot).save(io.BytesIO(), "PNG", compress_level=1)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    ratio, total, misses = parse_ok()
    print(
        f"fixture outputs: {total}, read as expected: {ratio:.3f}"
        + (f" (misses: {', '.join(misses)})" if misses else "")
    )
    shots = frames(12)
    baseline = png_encode_ms(shots[0], 10 if args.quick else 30)
    rates = render_rates(shots, 0.5 if args.quick else 2.0)
    for name, rate in sorted(rates.items(), key=lambda kv: kv[1]):
        ms = 1000 / rate
        print(f"render {name:16} {rate:8.1f} prompts/s ({ms:6.2f} ms, {ms / baseline:.2f}x a PNG encode)")
    own = agent_overhead(shots, 15 if args.quick else 40)
    p50 = statistics.median(own) * 1000
    print(
        f"openai agent own time per step: p50 {p50:.2f} ms, max {max(own) * 1000:.2f} ms (PNG encode {baseline:.2f} ms)"
    )
    slowest = min(rates.values())
    print(
        f"parse_ok_ratio={ratio:.3f} render_per_s_min={slowest:.1f} agent_overhead_ms_p50={p50:.2f} "
        f"png_encode_ms={baseline:.2f} agent_overhead_vs_png={p50 / baseline:.2f} fixture_outputs={total} "
        f"adapters={len(rates)}"
    )


if __name__ == "__main__":
    main()
