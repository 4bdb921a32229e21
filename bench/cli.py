"""Bad input at every command line, counted: tracebacks, silent zero exits, and errors that are clear.

A table of bad invocations a new researcher made (the cases the CLI issue lists and more), plus a
few hundred made by mutating good command lines: each slot of a good line (a number, a name, a
path, a KEY=VALUE, an option name) replaced by values that are wrong for it. Each is run in
process with click's runner, as a user's shell would run it, and judged:

- ``traceback``: the output holds a Python traceback (only ``--debug`` may show one);
- ``silent_zero_exit``: exit status 0 for an invocation that cannot have done what was asked;
- ``clear``: a non-zero exit whose error is one line (click's usage lines aside) that names the
  wrong argument or value.

A case may also name what its output must show beyond the error line (a failing task's file and
line, say); a hint in an error line that names a flag the command does not take (``--allow-errors
to exit 0`` where there is none) is not clear either.

Baseline in the same run: the same invocations against bare click groups that only parse (no
command runs), which shows how many mistakes parsing alone catches.

``fail_fast_s_p95``: a bad option, a bad backend and a model server that is not there given to a
fresh process, as a user types them, timed to the error (imports included: an RL command must not
load torch to refuse a typo; a dead ``--base-url`` is found before any computer starts).

The model-server cases (issue 33, build 5) talk to loopback servers this script starts: one that
refuses every key, one that serves a model but writes no format an adapter reads, one whose engine
answers 503 to every chat request.

Last line: ``bad_inputs=… tracebacks=… silent_zero_exits=… clear_errors_ratio=… fail_fast_s_p95=…``
(targets 0, 0, 1.0, <= 3 s).
Run: .venv/bin/python bench/cli.py [--quick] [--show N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import click
from click.testing import CliRunner

from cua_bench.cli import main as bench_cli
from cua_bench_cua.cb import main as cb_cli
from cua_bench_rl.cli import main as rl_cli
from cua_core.cli import main as bus_cli
from cua_data.cli import main as data_cli
from cua_tui.app import main as tui_main

SIM_TASK = "sim/click-button"


@dataclass
class Case:
    cli: str
    args: list[str]
    names: list[str]  # what a clear error mentions (any one of them)
    shown: list[str] = field(default_factory=list)  # what the output must also hold (all of them)


def hand_written(tmp: Path) -> list[Case]:
    """The tester's own mistakes (the CLI issue) and their siblings."""
    run = tmp / "run"
    one = ["run", "sim", "--tasks", "click-button", "--variants", "1"]  # bounded, should a refusal come too late
    model = ["--agent", "openai", "--model", "m", "--adapter", "qwen2.5-vl"]
    return [
        Case("cua-bench", ["run", "sim", "--agent", "noop", "--resume"], ["--resume", "--output"]),
        Case("cua-bench", ["run", "sim", "--variants", "0", "--output", str(run)], ["--variants"]),
        Case("cua-bench", ["run", "sim", "--variants", "-3", "--output", str(run)], ["--variants"]),
        Case("cua-bench", ["run", "sim", "--max-parallel", "0", "--output", str(run)], ["--max-parallel"]),
        Case("cua-bench", ["run", "sim", "--agent", "random", "--agent-option", "sed=3"], ["sed"]),
        Case("cua-bench", ["check", SIM_TASK, "--backend", "nope"], ["nope"]),
        Case("cua-bench", ["interact", SIM_TASK, "--backend", "nope"], ["nope"]),
        Case("cua-bench", ["conformance", "nope"], ["nope"]),
        Case("cua-bench", ["run", "sim", "--tasks", "clik-button", "--output", str(run)], ["clik-button"]),
        Case("cua-bench", ["check", "sim/clik-button"], ["clik-button"]),
        Case("cua-bench", ["run", "sim", "--obs", "screenshot,colour"], ["colour"]),
        Case("cua-bench", ["run", "sim", "--agent", "openai", "--model", "m"], ["adapter"]),
        Case("cua-bench", ["run", "sim", "--agent", "nosuch.py:Agent"], ["nosuch.py"]),
        Case("cua-bench", ["report", str(tmp)], [str(tmp)]),
        Case("cua-data", ["inspect", str(tmp)], [str(tmp)]),
        Case("cua-data", ["stats", str(tmp)], [str(tmp)]),
        Case("cua-data", ["validate", str(tmp)], [str(tmp)]),
        Case("cua-data", ["import-hub", str(tmp), str(tmp / "out")], [str(tmp)]),
        Case("cua-data", ["convert", "--from", "nope", str(tmp), str(tmp / "out")], ["nope"]),
        Case("cua-bus", ["call", "notanaddress", "rpc.ping"], ["notanaddress"]),
        Case("cua-bus", ["tail", "--subscribe", f"ipc://{tmp}/no.sock"], ["no.sock"]),
        # issue 33, user code and options: a task's own error shows its file and line ...
        Case("cua-bench", ["run", str(tmp / "faulty"), "--agent", "noop", "--output", str(tmp / "f1")],
             ["errored"], [f'{tmp / "faulty" / "boom" / "main.py"}", line', "KeyError: 'expected'"]),
        Case("cb", ["run", "dataset", str(tmp / "faulty"), "--output-dir", str(tmp / "f2")],
             ["errored"], ['main.py", line']),
        # ... option values are typed by what takes them, unknown keys get the closest spelling ...
        Case("cua-bench", [*one, "--agent", "random", "--agent-option", "seed=abc"], ["seed"]),
        Case("cua-bench", [*one, *model, "--agent-option", "temperature=hot"], ["temperature"]),
        Case("cua-bench", [*one, *model, "--adapter-option", "max_pixels=lots"], ["max_pixels"]),
        Case("cua-bench-rl", ["train", "--trainer-option", "lr=abc", "--output", str(run)], ["lr"]),
        Case("cua-bench-rl", ["train", "--trainer-option", "lrr=3", "--output", str(run)], ["lrr"]),
        Case("cua-bench-rl", ["train", "--policy-option", "hiden=3", "--output", str(run)], ["hiden"]),
        Case("cua-bench-rl", ["pipeline", "--model", str(tmp / "model"), "--grpo-option", "steps=many",
                              "--output", str(run)], ["steps"]),
        # ... an agent that breaks its contract is named ...
        Case("cua-bench", [*one, "--agent", f"{tmp / 'agents.py'}:TextAgent", "--output", str(tmp / "f3")],
             ["errored"], ["agent TextAgent: act() must return a list"]),
        # ... a folder that is no dataset is one error wherever a dataset is read ...
        Case("cua-bench", [*one, "--agent", "replay", "--agent-option", f"dataset={tmp / 'native'}"],
             [str(tmp / "native")]),
        Case("cua-bench-rl", ["sft", "--data", str(tmp / "native"), "--model", str(tmp / "model")],
             [str(tmp / "native")]),
        # ... an unknown backend is named as one, and a bus address is checked before the TUI starts.
        Case("cua-bench-rl", ["train", "--env", "nosuchbackend:click-button", "--output", str(run)],
             ["nosuchbackend"]),
        Case("cua-tui", ["--runs", str(tmp), "--bus", "garbage://x"], ["garbage://x"]),
    ]  # fmt: skip


# Good lines with typed slots: {n} a number, {name:what} a name, {path} an input path, {kv} KEY=VALUE,
# {out} a fresh output folder. Each case makes exactly one slot wrong, so none of them can succeed.
TEMPLATES: list[tuple[str, str]] = [
    ("cua-bench", "run {name:taskset} --agent {name:agent} --variants {n} --max-parallel {n} --output {out}"),
    ("cua-bench", "run sim --backend {name:backend} --max-steps {n} --output {out}"),
    ("cua-bench", "run sim --agent random --agent-option {kv} --output {out}"),
    ("cua-bench", "run sim --agent openai --model m --adapter {name:adapter} --history {name:history} --output {out}"),
    ("cua-bench", "check {path:task} --variants {n}"),
    ("cua-bench", "check sim --tasks {name:task} --backend {name:backend}"),
    ("cua-bench", "interact {path:task} --variant {n}"),
    ("cua-bench", "report {path:run}"),
    ("cua-bench", "conformance {name:backend}"),
    ("cua-data", "convert --from {name:format} {path:native} {out}"),
    ("cua-data", "inspect {path:dataset} --row {n}"),
    ("cua-data", "stats {path:dataset}"),
    ("cua-data", "validate {path:dataset}"),
    ("cua-data", "export-hub {path:dataset} {out}"),
    ("cua-data", "import-hub {path:hub} {out}"),
    ("cua-bus", "call {name:address} rpc.ping"),
    ("cua-bench-rl", "train --env {name:env} --trainer-option {kv} --output {out}"),
    ("cua-bench-rl", "train --policy-option {kv} --output {out}"),
]
BAD: dict[str, list[str]] = {
    "n": ["-1", "abc", "1.5"],
    "name": ["nope", "Oracle", "sim/../x"],
    "path": ["/nonexistent/x", "{tmp}/empty"],
    "kv": ["novalue", "=3", "sed=3"],
}
GOOD = {
    "n": "1", "kv": "seed=3", "out": "{tmp}/out-{i}",
    "taskset": "sim", "agent": "noop", "backend": "sim", "adapter": "qwen3-vl", "history": "last=2",
    "task": "click-button", "format": "aguvis", "address": "tcp://127.0.0.1:9",
    "run": "{tmp}/run", "dataset": "{tmp}/dataset", "hub": "{tmp}/hub", "native": "{tmp}/native",
    "env": "sim:click-button",
}  # fmt: skip


SLOT = re.compile(r"\{(\w+)(?::(\w+))?\}")


REFUSED_URL = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there


def model_servers(stack: contextlib.ExitStack) -> dict[str, str]:
    """Loopback model servers for the model-server cases, by what is wrong with them: their base URLs."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.model_server import completion, model_server  # type: ignore[import-not-found]

    models = {"/v1/models": {"object": "list", "data": [{"id": "served-model"}]}}
    servers = {
        "locked": model_server(lambda _: (401, {"error": {"message": "invalid api key"}})),
        "prose": model_server(lambda _: (200, completion("I would click the OK button now.")), gets=models),
        "dead": model_server(lambda _: (503, {"error": {"message": "engine dead"}}), gets=models),
    }
    return {name: stack.enter_context(server).base_url for name, server in servers.items()}


def model_cases(tmp: Path, urls: dict[str, str]) -> list[Case]:
    """Model servers that are not there, refuse, serve another model or write another family's format."""
    one = ["run", "sim", "--tasks", "click-button", "--variants", "1"]
    model = ["--agent", "openai", "--adapter", "qwen3-vl", "--agent-option", "max_retries=0"]
    root = urls["prose"].removesuffix("/v1")
    return [
        Case("cua-bench", [*one, *model, "--model", "m", "--base-url", REFUSED_URL, "--output", str(tmp / "m1")],
             [REFUSED_URL]),
        Case("cua-bench", [*one, *model, "--model", "m", "--base-url", "http://no-such-host.invalid/v1",
                           "--output", str(tmp / "m2")], ["no-such-host.invalid"]),
        Case("cua-bench", [*one, *model, "--model", "m", "--base-url", urls["locked"], "--output", str(tmp / "m3")],
             ["HTTP 401"]),
        Case("cua-bench", [*one, *model, "--model", "nosuch", "--base-url", urls["prose"],
                           "--output", str(tmp / "m4")], ["nosuch"], ["served-model"]),
        Case("cua-bench", [*one, *model, "--model", "served-model", "--base-url", root, "--output", str(tmp / "m5")],
             ["/v1"]),
        Case("cua-bench", ["run", "sim", "--tasks", "click-button", "--variants", "2", *model, "--model",
                           "served-model", "--base-url", urls["prose"], "--output", str(tmp / "m6")],
             ["qwen3-vl"], ["does not match the model"]),
        Case("cua-bench", [*one, *model, "--model", "served-model", "--base-url", urls["dead"],
                           "--output", str(tmp / "m7")], ["went down"], ["--resume --output"]),
    ]  # fmt: skip


def mutated(tmp: Path, rng: random.Random, per_template: int) -> list[Case]:
    from cua_bench_tasks_sim import FOLDER as SIM

    good = {**GOOD, "task": "click-button"}
    cases: list[Case] = []
    for cli, template in TEMPLATES:
        slots = SLOT.findall(template)
        for _ in range(per_template):
            wrong = rng.choice([i for i, (kind, _) in enumerate(slots) if kind in BAD])
            bad = rng.choice(BAD[slots[wrong][0]]).replace("{tmp}", str(tmp))
            args: list[str] = []
            for index, (kind, sub) in enumerate(slots):
                value = good.get(sub or kind, good.get(kind, "x"))
                if kind == "path" and sub == "task":
                    value = str(SIM / "click-button")
                args.append(bad if index == wrong else value.replace("{tmp}", str(tmp)).replace("{i}", str(len(cases))))
            words = iter(args)

            def fill(_: re.Match[str], words: Iterator[str] = words) -> str:
                return next(words)

            line = [SLOT.sub(fill, word) for word in template.split(" ")]
            flag = next((w for w in reversed(line[: line.index(bad)]) if w.startswith("--")), None)
            key = bad.split("=", 1)[0] if "=" in bad else None  # a KEY=VALUE's error names the key
            cases.append(Case(cli, line, [n for n in (bad, flag, key) if n]))
        cases.append(Case(cli, [template.split(" ")[0], "--frobnicate"], ["--frobnicate"]))
    return cases


CLIS: dict[str, click.Group] = {
    "cua-bench": bench_cli, "cb": cb_cli, "cua-bench-rl": rl_cli, "cua-data": data_cli, "cua-bus": bus_cli,
}  # fmt: skip
ERROR_PREFIX = {"cua-tui": "cua-tui: "}  # argparse, not click: its own one-line prefix


@dataclass
class Verdict:
    case: Case
    code: int
    output: str
    traceback: bool
    silent_zero: bool
    clear: bool


def _invoke(case: Case) -> tuple[int, str, BaseException | None]:
    if case.cli == "cua-tui":
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                return tui_main(case.args), err.getvalue(), None
        except Exception as exc:
            return 1, err.getvalue(), exc
    result = CliRunner().invoke(CLIS[case.cli], case.args, catch_exceptions=True)
    return result.exit_code, result.output, result.exception


def _unknown_flags(case: Case, lines: list[str]) -> list[str]:
    """Flags an error line tells the user to pass that the command they ran does not take."""
    group = CLIS.get(case.cli)
    if group is None:
        return []
    command: click.Command = group
    for word in case.args:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        command = command.commands[word]
    taken = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--debug", "--help"}
    # A whole command in backticks names its own flags; a flag the user typed is the one refused.
    hints = [re.sub(r"`[^`]*`", "", line) for line in lines]
    named = {f for line in hints for f in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", line)}
    return sorted(named - taken - set(case.args))


def judge(case: Case) -> Verdict:
    code, output, exception = _invoke(case)
    traceback = "Traceback (most recent call last)" in output or (
        exception is not None and not isinstance(exception, SystemExit)
    )
    silent_zero = code == 0
    prefix = ERROR_PREFIX.get(case.cli, "Error:")
    error_lines = [line for line in output.splitlines() if line.startswith(prefix)]
    named = any(name in line for name in case.names for line in error_lines)
    shown = all(text in output for text in case.shown)
    clear = code != 0 and not traceback and len(error_lines) == 1 and named and shown
    clear = clear and not _unknown_flags(case, error_lines)
    return Verdict(case, code, output, traceback, silent_zero, clear)


def baseline(cases: list[Case]) -> float:
    """The share of cases that click's parsing alone rejects (commands replaced by no-ops)."""

    def parse_only(group: click.Group) -> click.Group:
        copy = click.Group(group.name)
        for name, command in group.commands.items():
            copy.add_command(click.Command(name, params=command.params, callback=lambda **_: None))
        return copy

    groups = {name: parse_only(group) for name, group in CLIS.items()}
    parsed = [c for c in cases if c.cli in groups]
    rejected = sum(CliRunner().invoke(groups[c.cli], c.args).exit_code != 0 for c in parsed)
    return rejected / len(parsed)


# Bad input as a user types it, each in a fresh process: the time to the error includes the imports.
FAIL_FAST: list[list[str]] = [
    ["cua_bench_rl.cli", "train", "--trainer-option", "lr=abc"],
    ["cua_bench_rl.cli", "train", "--policy-option", "hiden=3"],
    ["cua_bench_rl.cli", "train", "--env", "nosuchbackend:click-button"],
    ["cua_bench.cli", "run", "sim", "--tasks", "click-button", "--agent", "random", "--agent-option", "seed=abc"],
    ["cua_bench.cli", "run", "sim", "--tasks", "click-button", "--backend", "nosuchbackend"],
    ["cua_bench.cli", "run", "sim", "--tasks", "click-button", "--agent", "openai", "--model", "m",
     "--adapter", "qwen3-vl", "--base-url", REFUSED_URL],
]  # fmt: skip


def fail_fast(tmp: Path, repeats: int) -> list[float]:
    """Seconds from start to the error of each bad invocation, ``repeats`` times each."""
    seconds = []
    for _ in range(repeats):
        for module, *args in FAIL_FAST:
            started = time.monotonic()
            done = subprocess.run(
                [sys.executable, "-m", module, *args, "--output", str(tmp / "never")],
                capture_output=True, text=True, cwd=tmp, check=False,
            )  # fmt: skip
            seconds.append(time.monotonic() - started)
            assert done.returncode != 0 and "Error:" in done.stderr, (args, done.stderr)
    return seconds


def _make_inputs(tmp: Path) -> None:
    """What the good slots point at: a run folder, a dataset, its hub export, native records."""
    from cua_data import DatasetWriter, LiteSample, Metadata, export_hub

    assert CliRunner().invoke(bench_cli, ["run", "sim", "--tasks", "click-button", "--variants", "1",
                                          "--output", str(tmp / "run")]).exit_code == 0  # fmt: skip
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}]  # fmt: skip
    with DatasetWriter(tmp / "dataset", dataset="bench") as writer:
        writer.add(LiteSample(Metadata("desktop", "use", others={"id": "a"}), messages, []), split="train")
    export_hub(tmp / "dataset", tmp / "hub")
    (tmp / "native").mkdir()
    (tmp / "model").mkdir()  # a checkpoint folder as far as the checks that come first can tell
    (tmp / "model" / "config.json").write_text("{}")
    (tmp / "faulty" / "boom").mkdir(parents=True)
    (tmp / "faulty" / "boom" / "main.py").write_text(FAULTY_TASK)
    (tmp / "agents.py").write_text(TEXT_AGENT)


# A user's task whose setup fails in a helper of theirs, and a user's agent whose act returns text.
FAULTY_TASK = textwrap.dedent("""
    import cua_bench as cb

    @cb.tasks_config
    def load():
        return [cb.Task(description="Nothing to do.")]

    def expected(task):
        return task.metadata["expected"]

    @cb.setup_task
    async def setup(task, session):
        expected(task)

    @cb.evaluate_task
    async def evaluate(task, session):
        return [1.0]
""")
TEXT_AGENT = textwrap.dedent("""
    from cua_bench import Agent

    class TextAgent(Agent):
        def act(self, observation):
            return "click(500, 300)"
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--show", type=int, default=10, help="print this many failing cases")
    args = parser.parse_args()
    os.environ.setdefault("CUA_RUNTIME_DIR", tempfile.mkdtemp(prefix="cua-bench-cli-"))
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as servers:
        tmp = Path(folder)
        (tmp / "empty").mkdir()
        _make_inputs(tmp)
        cases = hand_written(tmp) + model_cases(tmp, model_servers(servers))
        cases += mutated(tmp, random.Random(0), 6 if args.quick else 16)
        started = time.monotonic()
        verdicts = [judge(case) for case in cases]
        seconds = time.monotonic() - started
        parsed_only = baseline(cases)
        fast = fail_fast(tmp, 1 if args.quick else 3)
    bad: list[Callable[[Verdict], bool]] = [lambda v: v.traceback, lambda v: v.silent_zero, lambda v: not v.clear]
    shown = 0
    for verdict in verdicts:
        if any(test(verdict) for test in bad) and shown < args.show:
            shown += 1
            first = " | ".join(verdict.output.strip().splitlines()[-2:])[:220]
            print(f"{verdict.case.cli} {' '.join(verdict.case.args)} -> {verdict.code}: {first}", file=sys.stderr)
    tracebacks = sum(v.traceback for v in verdicts)
    zeros = sum(v.silent_zero for v in verdicts)
    clear = sum(v.clear for v in verdicts) / len(verdicts)
    p95 = statistics.quantiles(fast, n=20, method="inclusive")[-1] if len(fast) > 1 else fast[0]
    print(f"{len(verdicts)} bad invocations in {seconds:.1f} s; parsing alone rejects {parsed_only:.2f} of them")
    print(f"fail fast: {len(fast)} fresh processes, {min(fast):.2f} to {max(fast):.2f} s to the error")
    print(
        f"bad_inputs={len(verdicts)} tracebacks={tracebacks} silent_zero_exits={zeros} "
        f"clear_errors_ratio={clear:.3f} parse_only_reject_ratio={parsed_only:.3f} fail_fast_s_p95={p95:.2f}"
    )


if __name__ == "__main__":
    main()
