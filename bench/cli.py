"""Bad input at every command line, counted: tracebacks, silent zero exits, and errors that are clear.

A table of bad invocations a new researcher made (the cases the CLI issue lists and more), plus a
few hundred made by mutating good command lines: each slot of a good line (a number, a name, a
path, a KEY=VALUE, an option name) replaced by values that are wrong for it. Each is run in
process with click's runner, as a user's shell would run it, and judged:

- ``traceback``: the output holds a Python traceback (only ``--debug`` may show one);
- ``silent_zero_exit``: exit status 0 for an invocation that cannot have done what was asked;
- ``clear``: a non-zero exit whose error is one line (click's usage lines aside) that names the
  wrong argument or value.

Baseline in the same run: the same invocations against bare click groups that only parse (no
command runs), which shows how many mistakes parsing alone catches.

Last line: ``bad_inputs=… tracebacks=… silent_zero_exits=… clear_errors_ratio=…`` (targets 0, 0, 1.0).
Run: .venv/bin/python bench/cli.py [--quick] [--show N]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import click
from click.testing import CliRunner

from cua_bench.cli import main as bench_cli
from cua_core.cli import main as bus_cli
from cua_data.cli import main as data_cli

SIM_TASK = "sim/click-button"


@dataclass
class Case:
    cli: str
    args: list[str]
    names: list[str]  # what a clear error mentions (any one of them)


def hand_written(tmp: Path) -> list[Case]:
    """The tester's own mistakes (the CLI issue) and their siblings."""
    run = tmp / "run"
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
    ]


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
}  # fmt: skip


SLOT = re.compile(r"\{(\w+)(?::(\w+))?\}")


def mutated(tmp: Path, rng: random.Random, per_template: int) -> list[Case]:
    from cua_bench.tasksets import SIM

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


CLIS: dict[str, click.Group] = {"cua-bench": bench_cli, "cua-data": data_cli, "cua-bus": bus_cli}


@dataclass
class Verdict:
    case: Case
    code: int
    output: str
    traceback: bool
    silent_zero: bool
    clear: bool


def judge(case: Case) -> Verdict:
    result = CliRunner().invoke(CLIS[case.cli], case.args, catch_exceptions=True)
    output = result.output
    traceback = "Traceback (most recent call last)" in output or (
        result.exception is not None and not isinstance(result.exception, SystemExit)
    )
    silent_zero = result.exit_code == 0
    error_lines = [line for line in output.splitlines() if line.startswith("Error:")]
    named = any(name in line for name in case.names for line in error_lines)
    clear = result.exit_code != 0 and not traceback and len(error_lines) == 1 and named
    return Verdict(case, result.exit_code, output, traceback, silent_zero, clear)


def baseline(cases: list[Case]) -> float:
    """The share of cases that click's parsing alone rejects (commands replaced by no-ops)."""

    def parse_only(group: click.Group) -> click.Group:
        copy = click.Group(group.name)
        for name, command in group.commands.items():
            copy.add_command(click.Command(name, params=command.params, callback=lambda **_: None))
        return copy

    groups = {name: parse_only(group) for name, group in CLIS.items()}
    rejected = sum(CliRunner().invoke(groups[c.cli], c.args).exit_code != 0 for c in cases)
    return rejected / len(cases)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--show", type=int, default=10, help="print this many failing cases")
    args = parser.parse_args()
    os.environ.setdefault("CUA_RUNTIME_DIR", tempfile.mkdtemp(prefix="cua-bench-cli-"))
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "empty").mkdir()
        _make_inputs(tmp)
        cases = hand_written(tmp) + mutated(tmp, random.Random(0), 6 if args.quick else 16)
        started = time.monotonic()
        verdicts = [judge(case) for case in cases]
        seconds = time.monotonic() - started
        parsed_only = baseline(cases)
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
    print(f"{len(verdicts)} bad invocations in {seconds:.1f} s; parsing alone rejects {parsed_only:.2f} of them")
    print(
        f"bad_inputs={len(verdicts)} tracebacks={tracebacks} silent_zero_exits={zeros} "
        f"clear_errors_ratio={clear:.3f} parse_only_reject_ratio={parsed_only:.3f}"
    )


if __name__ == "__main__":
    main()
