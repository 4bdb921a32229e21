"""Fine-tuning on two computers against one: the seed's limit (two Macs over Wi-Fi, ~1.35x), measured.

Two network namespaces joined by a veth pair stand for two computers (10.216.0.1 and .2); each rank
is pinned to its own core (``taskset``) with one compute thread, so two nodes have twice the compute
of one and the ratio measures the link, not the scheduler. For each trainer (``ddp``, ``mlx``) and
each exchange interval k (gradients exchanged once per k micro-batches: ``--grad-accumulation k``):

- **1 node**: one rank in the first namespace, on one core (the baseline, measured in the same run);
- **2 nodes, unshaped**: a rank in each namespace over the bare veth pair;
- **2 nodes, shaped**: the same pair shaped like Wi-Fi. Bandwidth is shaped in the kernel (``tc``
  ``tbf``, both directions). Latency and jitter use ``tc netem`` where the kernel has it; this
  machine's kernel has no netem, so they are then emulated in-process (the trainers'
  ``link_delay_ms``/``link_jitter_ms``: a sleep before each gradient exchange). The output says
  which. An emulated delay is paid once per exchange, while a real link's is paid on each of the
  all-reduce's round trips, so an emulated figure is somewhat optimistic.

Every run trains the same number of micro-batches per rank, so tokens/s compare across k. The
figure is tokens/s of 2 nodes / tokens/s of 1 node (2.0 is perfect). One node computes the same at
every k (it exchanges nothing), so its baseline is the median of its runs at all k, after a discarded
warm-up run per trainer: the first runs of a session measured up to 30% slow (cold caches), which
made single-run ratios swing past 2. ``ddp`` fine-tunes the whole
tiny Qwen2.5-VL (~215k parameters: ~0.86 MB of fp32 gradients per exchange) on the qwen2.5-vl
adapter's prompts with screenshots; ``mlx`` trains LoRA on its language tower (its only mode) on
aguvis's shorter text prompts (mlx's Linux CPU build is slow at long attention), so tokens/s do not
compare across trainers.

Writes the table into examples/training/README.md (between its ``bench/training.py`` markers).
The last line is ``ddp_2node_speedup_shaped=… mlx_2node_speedup_shaped=… best_exchange_every=…
ddp_tokens_per_s_1=… mlx_tokens_per_s_1=…`` (each trainer's speedup at its best k; best_exchange_every
is ddp's). Target: ddp_2node_speedup_shaped >= 1.7.

Run (root: namespaces and tc): .venv/bin/python bench/training.py [--quick] [--trainers ddp,mlx]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "examples" / "training" / "README.md"
BEGIN, END = "<!-- bench/training.py: begin -->", "<!-- bench/training.py: end -->"
NS = ("cuabtA", "cuabtB")
ADDRESS = ("10.216.0.1", "10.216.0.2")
DEVICE = ("vtA", "vtB")
RATE_MBIT = 50
DELAY_MS, JITTER_MS = 10.0, 5.0
ADAPTER = {"ddp": "qwen2.5-vl", "mlx": "aguvis"}


def sh(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=True, capture_output=True, text=True)


@contextlib.contextmanager
def two_computers() -> Iterator[None]:
    for ns in NS:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
    try:
        for ns in NS:
            sh("ip", "netns", "add", ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "link", "add", DEVICE[0], "type", "veth", "peer", "name", DEVICE[1])
        for ns, dev, address in zip(NS, DEVICE, ADDRESS, strict=True):
            sh("ip", "link", "set", dev, "netns", ns)
            sh("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")
        yield
    finally:
        for ns in NS:
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def shape(on: bool) -> str:
    """Shape (or unshape) both ends; returns how latency is applied: 'netem' or 'emulated'."""
    for ns, dev in zip(NS, DEVICE, strict=True):
        subprocess.run(
            ["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"], check=False, capture_output=True
        )
    if not on:
        return "none"
    netem = True
    for ns, dev in zip(NS, DEVICE, strict=True):
        add = ["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "netem", "delay",
               f"{DELAY_MS / 2}ms", f"{JITTER_MS / 2}ms", "rate", f"{RATE_MBIT}mbit"]  # fmt: skip
        netem = netem and subprocess.run(add, check=False, capture_output=True).returncode == 0
    if netem:
        return "netem"  # half the round trip's delay on each end
    for ns, dev in zip(NS, DEVICE, strict=True):
        subprocess.run(
            ["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"], check=False, capture_output=True
        )
        sh("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{RATE_MBIT}mbit",
           "burst", "64kb", "latency", "50ms")  # fmt: skip
    return "emulated"


def run(
    trainer: str, nodes: int, k: int, micro_batches: int, prepared: dict[str, str], folder: Path, latency: str
) -> dict[str, Any]:
    """One training run; rank 0's SFTResult."""
    steps = max(1, micro_batches // k)
    port = 29000 + int(time.time() * 1000) % 9000
    hostfile = folder / f"hostfile-{port}.json"
    hostfile.write_text(json.dumps([[f"{ADDRESS[r]}:{port + 1 + r}"] for r in range(nodes)]))
    procs = []
    for rank in range(nodes):
        out = folder / f"{trainer}-{nodes}-{k}-{micro_batches}-{latency}-{rank}"  # fresh: nothing to resume
        command = [sys.executable, "-m", "cua_bench_rl.cli", "sft", "--data", prepared["data"], "--model",
                   prepared["model"], "--trainer", trainer, "--adapter", ADAPTER[trainer], "--steps", str(steps),
                   "--grad-accumulation", str(k), "--micro-batch", "2", "--threads", "1", "--lr", "1e-4",
                   "--checkpoint-every", str(steps), "--output", str(out), "--json"]  # fmt: skip
        command += ["--full"] if trainer == "ddp" else []
        if latency == "emulated":
            command += [
                "--trainer-option",
                f"link_delay_ms={DELAY_MS}",
                "--trainer-option",
                f"link_jitter_ms={JITTER_MS}",
            ]
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
        env.update({"RANK": str(rank), "WORLD_SIZE": str(nodes), "MASTER_ADDR": ADDRESS[0], "MASTER_PORT": str(port)})
        env.update({"MLX_RANK": str(rank), "MLX_WORLD_SIZE": str(nodes), "GLOO_SOCKET_IFNAME": DEVICE[rank]})
        if nodes > 1:
            env["MLX_HOSTFILE"] = str(hostfile)
        full = ["ip", "netns", "exec", NS[rank], "taskset", "-c", str(rank), *command]
        procs.append(subprocess.Popen(full, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = [p.communicate(timeout=1800) for p in procs]
    for p, (_, err) in zip(procs, outputs, strict=True):
        if p.returncode != 0:
            raise SystemExit(f"{trainer} {nodes} node(s) k={k} failed ({p.returncode}):\n{err[-3000:]}")
    rows = [json.loads(line) for line in outputs[0][0].splitlines() if line.startswith("{")]
    result: dict[str, Any] = rows[-1]
    return result


def prepare(folder: Path) -> dict[str, str]:
    from cua_bench_rl.sft import oracle_dataset
    from cua_data.tiny_models import build_tiny_qwen25_vl

    return {
        "model": str(build_tiny_qwen25_vl(folder / "model")),
        "data": str(oracle_dataset(folder / "oracle", tasks=("click-button", "login"), variants=8)),
    }


def table(rows: list[dict[str, Any]], latency: str) -> str:
    link = f"{RATE_MBIT} Mbit/s (tc tbf) + {DELAY_MS:g} ± {JITTER_MS:g} ms per exchange " + (
        "(tc netem)" if latency == "netem" else "(emulated in-process: this kernel has no netem)"
    )
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} by `bench/training.py` on this project's 2-core Linux VM, one core "
        f"per node; shaped link: {link}.",
        "",
        "Speedup: 2 nodes' tokens/s over the 1-node baseline (the median of that trainer's 1-node runs).",
        "",
        "| trainer | exchange every k | 1 node tokens/s (this k) | 2 nodes unshaped | speedup | 2 nodes shaped | "
        "speedup |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['trainer']} | {r['k']} | {r['one']:.0f} | {r['two']:.0f} | {r['two'] / r['baseline']:.2f}x | "
            f"{r['shaped']:.0f} | {r['shaped'] / r['baseline']:.2f}x |"
        )
    return "\n".join(lines)


def write_readme(text: str) -> None:
    readme = README.read_text()
    if BEGIN in readme and END in readme:
        head, rest = readme.split(BEGIN, 1)
        readme = head + BEGIN + "\n" + text + "\n" + END + rest.split(END, 1)[1]
    else:
        readme = readme.rstrip() + "\n\n" + BEGIN + "\n" + text + "\n" + END + "\n"
    README.write_text(readme)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="k in 1,4 and 4 micro-batches per rank (a smoke run)")
    parser.add_argument("--trainers", default="ddp,mlx")
    parser.add_argument("--micro-batches", type=int, default=32, help="micro-batches per rank per run")
    parser.add_argument("--no-readme", action="store_true", help="do not write the table into the README")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench/training.py needs root: it makes network namespaces and shapes them with tc")
    trainers = [t for t in args.trainers.split(",") if t]
    ks = (1, 4) if args.quick else (1, 4, 16)
    micro = 4 if args.quick else args.micro_batches
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="cua-bench-training-") as tmp, two_computers():
        folder = Path(tmp)
        prepared = prepare(folder)
        latency = "none"
        for trainer in trainers:
            run(trainer, 1, 1, 2, prepared, folder, "none")  # warm-up: caches, first imports; discarded
            for k in ks:
                shape(False)
                one = run(trainer, 1, k, micro, prepared, folder, "none")
                two = run(trainer, 2, k, micro, prepared, folder, "none")
                latency = shape(True)
                shaped = run(trainer, 2, k, micro, prepared, folder, latency)
                shape(False)
                row = {"trainer": trainer, "k": k, "one": one["tokens_per_s"], "two": two["tokens_per_s"]}
                row["shaped"] = shaped["tokens_per_s"]
                row["exchanges"] = shaped["exchanges"]
                rows.append(row)
                print(json.dumps(row), flush=True)
    for trainer in trainers:
        baseline = statistics.median(r["one"] for r in rows if r["trainer"] == trainer)
        for r in rows:
            if r["trainer"] == trainer:
                r["baseline"] = baseline
    text = table(rows, latency)
    print(text)
    if not args.no_readme and not args.quick:
        write_readme(text)
    figures: dict[str, Any] = {}
    for trainer in trainers:
        mine = [r for r in rows if r["trainer"] == trainer]
        best = max(mine, key=lambda r: r["shaped"])
        figures[f"{trainer}_2node_speedup_shaped"] = round(best["shaped"] / best["baseline"], 3)
        if trainer == "ddp":
            figures["best_exchange_every"] = best["k"]
        figures[f"{trainer}_tokens_per_s_1"] = round(best["baseline"], 1)
    order = ["ddp_2node_speedup_shaped", "mlx_2node_speedup_shaped", "best_exchange_every", "ddp_tokens_per_s_1",
             "mlx_tokens_per_s_1"]  # fmt: skip
    figures["latency"] = latency
    print(" ".join(f"{k}={figures[k]}" for k in [*[o for o in order if o in figures], "latency"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
