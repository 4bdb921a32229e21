"""RL rollouts, measured in one run (these machines are noisy, so only ratios count).

- ``rollout_efficiency_16``: environment steps/s through cua-bench-rl's RolloutLoader with 16
  ``sim`` env workers and a trivial policy (a click at the centre, never done, so every episode
  runs to its step limit), divided by raw steps/s with the same 16 env servers driven directly
  (one thread per environment stepping its EnvClient, resetting at the same step limit).
  Measured alternately, ``--rounds`` times each, on the same workers, after a warm-up (the
  loader's is longer: its steady state keeps every turn of unfinished groups, ~600 full frames);
  the ratio of the medians. Target: 0.8 or more. The policy observes the full 1280x800 RGB frame
  (through shared memory on both sides); the loader keeps each in its turns' history, as
  training does, while the raw loop drops it at once. Beside it, ``shm_throughput_gain_16``: raw
  steps/s with frames through shared memory over raw steps/s with frames on the socket.
- ``sim_rpc_overhead_ratio``: bench/env.py's figure (a step through the env server, 1280x800 RGB
  frame, against the same step on a SimSession in this process) with frames through shared
  memory, and with frames on the socket beside it, interleaved in blocks so that load from others
  falls on all three alike. Target: 1.3 or less. Beside it, the CPU (client + server process) per
  step over the in-process step's, which load disturbs less than latency.

- ``grpo_pixel_nohandcraft_success`` (``--figures pixel``): ``examples/training/grpo_sim.py --family
  pixel`` run as it ships (20 minutes, everything included), once per seed (``--seeds``, default 3),
  each in its own process: held-out success (greedy, on 100 test-split variants never trained on) at
  the end; the mean, with ``_min`` and ``_max`` beside it. The policy learns from pixels and the 0/1
  reward alone (no feature that draws or knows the answer). Beside it: ``pixel_untrained_best_fixed``
  (the best single click point, chosen on the train split, played held out: what reading nothing
  gets), ``pixel_bc`` (behaviour cloning: the same policy fitted to the oracle's clicks on every
  train variant for as long as GRPO ran), ``grpo_pixel_random`` (the untrained policy, sampling),
  ``grpo_pixel_sampled`` (the trained one, sampling) and ``grpo_pixel_minutes`` (mean wall time;
  ``_max`` too). Target: 0.8 or more within 30 minutes on every seed.
- ``grpo_a11y_success`` / ``grpo_a11y_minutes`` (``--figures a11y``): the example's ``--family a11y``,
  once, with its 15-minute budget; ``grpo_a11y_random`` and ``grpo_a11y_sampled`` beside it. Its
  policy scores hand-built macro options (see the example's README). Target: 0.9 within 15 minutes.

- ``grpo_phone_settings_success`` and ``grpo_phone_notes_success`` (``--figures phone``): the example's
  ``--family phone-settings`` (``phone/settings-toggle``) and ``--family phone-notes``
  (``phone/notes-delete``), each once per seed (``--seeds``) with its 15-minute budget: the mean held-out
  success with ``_min`` and ``_max``, and beside it ``_random`` (the untrained policy, sampling),
  ``_start`` (untrained, greedy), ``_sampled`` (trained, sampling) and ``_minutes_max``. Seed 0 also
  measures ``_best_fixed`` (the best replay of one oracle train episode, which ignores the instruction)
  and ``_bc`` (behaviour cloning on the oracle's decisions for as long as the GRPO run's budget).
  ``grpo_phone_notes_unseen`` (with ``_min``): the trained policies again on the held-out variants with
  each quoted title made up, on the screen and in the instruction alike (names no train variant held). The
  same a11y policy as ``a11y``, on the phone's tree (notes with ``compare_names``: titles read only by
  comparison). Target: 0.9 within 15 minutes (issue 37).

- ``vlm_sft_heldout``, ``vlm_grpo_heldout``, ``vlm_grpo_gain`` (= grpo - sft) and ``pipeline_roundtrip_ok``
  (``--figures vlm``): ``cua-bench-rl pipeline`` run as it ships, once per seed (``--seeds``, default 3),
  on ``--vlm-model`` (default: the tiny random-weight Qwen2.5-VL of ``cua_data.tiny_models``, built
  here; give a real checkpoint folder to measure a real model): baseline, full SFT on the oracle's
  train-split trajectories of ``sim:click-button`` (``choose-radio`` held out), GRPO with LoRA, and
  held-out success (greedy, on test-split variants never trained on) after SFT and after GRPO. Each
  figure is the mean over seeds, with ``_min`` beside it (target: gain > 0 on every seed);
  ``vlm_minutes`` is the mean wall time of one pipeline, ``vlm_baseline_heldout`` the untrained model.
  ``pipeline_roundtrip_ok`` is 1 when, on every seed, the report's recorded command for the final
  evaluation (``cua-bench run --agent hf``), run again, gives the report's per-task success exactly.
  A pipeline whose GRPO finds nothing to learn from stops with an error, and so does this.

Both rollout figures drive bench/env.py's form task (~20 widgets: a realistic screen to render every step).

Last line: ``rollout_efficiency_16=… grpo_pixel_nohandcraft_success=… pixel_untrained_best_fixed=…
grpo_pixel_minutes=… grpo_a11y_success=… grpo_a11y_minutes=… sim_rpc_overhead_ratio=…`` (plus extras).
Run: .venv/bin/python bench/rl.py [--quick] [--workers N] [--figures rpc,rollout,pixel,a11y,vlm]
[--seeds N] [--vlm-model PATH]; .venv/bin/python bench/rl.py --placement ray [--placement-workers 16,64]
(``bench/rl_placement.py``: rollout steps/s with env workers here, on the pool and on Ray; last line
``ray_vs_pool_16=… ray_vs_raw_16=… ray_vs_pool_64=… ray_vs_raw_64=…`` plus extras; target 0.9x of the pool)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from env import TASK, _actions, steady_allocator  # bench/env.py, beside this file

from cua_bench import Observes
from cua_bench.backends.sim import SimBackend
from cua_bench.client import EnvClient
from cua_bench.sim import SimSession
from cua_bench.spec import EpisodeSpec
from cua_bench.tasks import load_task_module
from cua_bench_rl.loader import RolloutLoader
from cua_bench_rl.policy import Policy
from cua_bench_rl.rollouts import Decision, Taken, Turn
from cua_bench_rl.workers import EnvWorkers
from cua_core.actions import Click, Point

EPISODE_STEPS = 20


class CentreClick(Policy):
    """Clicks the centre of the screen, never done: the cheapest policy that still sees every frame."""

    observes = Observes("rgb")

    def act(self, turns: Sequence[Turn], *, greedy: bool = False) -> list[Decision]:
        return [Decision([Click(Point(500, 500))], [0], [0.0]) for _ in turns]

    def logprobs(self, taken: Sequence[Taken]) -> list[Any]:
        raise NotImplementedError("nothing is trained here")


def raw_steps_per_s(workers: EnvWorkers, task: str, warmup: float, seconds: float, frames: str = "auto") -> float:
    """The baseline: one thread per environment, each stepping its own client as fast as it can."""
    counts = [0] * len(workers)
    stop = threading.Event()
    options = {"task": task, "observes": "rgb", "max_steps": EPISODE_STEPS}

    def drive(index: int) -> None:
        with EnvClient(workers[index].address, frames=frames) as env:
            while not stop.is_set():
                env.reset(options=options)
                for _ in range(EPISODE_STEPS):
                    *_, truncated, _ = env.step([Click(Point(500, 500))])
                    counts[index] += 1
                    if truncated or stop.is_set():
                        break

    threads = [threading.Thread(target=drive, args=(i,), daemon=True) for i in range(len(workers))]
    for thread in threads:
        thread.start()
    time.sleep(warmup)
    before, started = sum(counts), time.perf_counter()
    time.sleep(seconds)
    steps, elapsed = sum(counts) - before, time.perf_counter() - started
    stop.set()
    for thread in threads:
        thread.join()
    return steps / elapsed


def loader_steps_per_s(workers: EnvWorkers, task: str, warmup: float, seconds: float) -> float:
    """The same environments through the dataloader, answered by the trivial policy."""
    policy = CentreClick()
    loader = RolloutLoader(
        workers, [EpisodeSpec(task)], group_size=8, observes=policy.observes, max_steps=EPISODE_STEPS
    )
    with loader:
        started = time.perf_counter()
        mark: tuple[float, float] | None = None
        for batch in loader.batches(max_batch=len(workers)):
            batch.respond(policy.act(batch.turns), version=policy.version)
            loader.pop_groups()
            now = time.perf_counter()
            if mark is None and now - started >= warmup:
                mark = (now, loader.stats["env_steps"])
            if mark is not None and now - mark[0] >= seconds:
                return (loader.stats["env_steps"] - mark[1]) / (now - mark[0])
    raise RuntimeError("the loader stopped before the measurement ended")


def rollout_efficiency(count: int, task: str, rounds: int, warmup: float, seconds: float) -> dict[str, float]:
    """The loader warms up 4x longer: until its history (every turn of every unfinished group, ~600
    full frames with 16 envs) has filled the recycled frame arrays, which is its steady state."""
    raw: list[float] = []
    through: list[float] = []
    socket: list[float] = []
    with EnvWorkers("sim", count) as workers:
        for _ in range(rounds):
            raw.append(raw_steps_per_s(workers, task, warmup, seconds))
            through.append(loader_steps_per_s(workers, task, 4 * warmup, seconds))
            socket.append(raw_steps_per_s(workers, task, warmup, seconds, frames="socket"))
            print(
                f"{count} envs: raw {raw[-1]:6.1f} steps/s  through the loader {through[-1]:6.1f} steps/s  "
                f"(raw with frames on the socket {socket[-1]:6.1f} steps/s)"
            )
    return {
        f"rollout_efficiency_{count}": statistics.median(through) / statistics.median(raw),
        f"loader_steps_per_s_{count}": statistics.median(through),
        f"raw_steps_per_s_{count}": statistics.median(raw),
        f"shm_throughput_gain_{count}": statistics.median(raw) / statistics.median(socket),
    }


def rpc_overhead(folder: Path, steps: int, rounds: int = 10) -> dict[str, float]:
    """bench/env.py's step-through-the-server over step-in-process, with shm frames and with the socket.

    The three are interleaved (``rounds`` blocks of ``steps / rounds`` steps each) so that load from
    other work on the machine falls on all of them alike."""
    module = load_task_module(folder)
    chosen = module.variant("test", 0)
    session = SimSession(width=1280, height=800)
    backend = SimBackend()
    computers = [backend.provision(width=1280, height=800) for _ in range(2)]
    times: dict[str, list[float]] = {"inprocess": [], "shm": [], "socket": []}
    cpu = dict.fromkeys(times, 0.0)  # CPU seconds (client and server) over all the steps of each
    try:
        with (
            EnvClient(computers[0].address, frames="shm") as shm,
            EnvClient(computers[1].address, frames="socket") as socket,
        ):
            clients = {"shm": shm, "socket": socket}
            servers = {"shm": computers[0].handle.pid, "socket": computers[1].handle.pid}
            for client in clients.values():
                client.reset(options={"task": str(folder), "observes": "rgb"})

            async def setup() -> None:
                await session.reset(seed=0)
                await module.run("setup_task", chosen, session)

            asyncio.run(setup())
            block = max(1, steps // rounds)
            for r in range(rounds):
                for name, client in clients.items():
                    before = time.process_time() + _cpu_seconds(servers[name])
                    for i in range(r * block, (r + 1) * block):
                        started = time.perf_counter()
                        client.step(_actions(i))
                        times[name].append(time.perf_counter() - started)
                    cpu[name] += time.process_time() + _cpu_seconds(servers[name]) - before

                async def local(r: int = r) -> None:
                    for i in range(r * block, (r + 1) * block):
                        started = time.perf_counter()
                        await session.apply(_actions(i))
                        session.frame()
                        times["inprocess"].append(time.perf_counter() - started)

                before = time.process_time()
                asyncio.run(local())
                cpu["inprocess"] += time.process_time() - before
    finally:
        for computer in computers:
            backend.teardown(computer)
    inprocess, shm_p50, socket_p50 = (statistics.median(times[k]) for k in ("inprocess", "shm", "socket"))
    print(
        f"sim step (1280x800 RGB): in process {inprocess * 1000:.2f} ms, through the server with shared-memory "
        f"frames {shm_p50 * 1000:.2f} ms (ratio {shm_p50 / inprocess:.2f}), frames on the socket "
        f"{socket_p50 * 1000:.2f} ms (ratio {socket_p50 / inprocess:.2f}); CPU per step (client and server) over "
        f"in process: shared memory {cpu['shm'] / cpu['inprocess']:.2f}, socket {cpu['socket'] / cpu['inprocess']:.2f}"
    )
    return {
        "sim_rpc_overhead_ratio": shm_p50 / inprocess,
        "sim_rpc_overhead_ratio_socket": socket_p50 / inprocess,
        "sim_step_shm_p50_ms": shm_p50 * 1000,
        "sim_inprocess_step_p50_ms": inprocess * 1000,
        "sim_rpc_cpu_ratio": cpu["shm"] / cpu["inprocess"],
        "sim_rpc_cpu_ratio_socket": cpu["socket"] / cpu["inprocess"],
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` and its threads (Linux; 10 ms ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def example_run(family: str, seed: int, minutes: float | None, *extra: str) -> dict[str, str]:
    """One run of the shipped GRPO example, in its own process: its last line holds the figures."""
    example = Path(__file__).resolve().parent.parent / "examples" / "training" / "grpo_sim.py"
    folder = Path(tempfile.mkdtemp(prefix=f"cua-grpo-{family}-{seed}-"))
    command = [sys.executable, str(example), "--family", family, "--seed", str(seed), "--output", str(folder), *extra]
    command += ["--minutes", str(minutes)] if minutes is not None else []
    print(f"grpo {family}: {' '.join(command)}", file=sys.stderr, flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"grpo {family}: the example failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    line = done.stdout.strip().splitlines()[-1]
    print(f"grpo {family} seed {seed}: {line}", file=sys.stderr, flush=True)
    return dict(pair.split("=", 1) for pair in line.split())


def pixel_learning(minutes: float | None, seeds: int) -> dict[str, float]:
    """The pixel example once per seed; the first also measures the best fixed click, and behaviour
    cloning on the oracle's clicks with the same budget as the GRPO run."""
    first = ["--best-fixed", "--bc"]  # behaviour cloning for as long as the GRPO run's budget
    runs = [example_run("pixel", seed, minutes, *(first if seed == 0 else [])) for seed in range(seeds)]
    success = [float(r["final_success"]) for r in runs]
    return {
        "grpo_pixel_nohandcraft_success": statistics.fmean(success),
        "grpo_pixel_nohandcraft_success_min": min(success),
        "grpo_pixel_nohandcraft_success_max": max(success),
        "pixel_untrained_best_fixed": float(runs[0]["best_fixed_success"]),
        "pixel_bc": float(runs[0]["bc_success"]),
        "grpo_pixel_random": statistics.fmean(float(r["random_success"]) for r in runs),
        "grpo_pixel_sampled": statistics.fmean(float(r["final_sampled_success"]) for r in runs),
        "grpo_pixel_minutes": statistics.fmean(float(r["minutes"]) for r in runs),
        "grpo_pixel_minutes_max": max(float(r["minutes"]) for r in runs),
        "grpo_pixel_seeds": float(seeds),
    }


def a11y_learning(minutes: float | None) -> dict[str, float]:
    last = example_run("a11y", 0, minutes)
    return {
        "grpo_a11y_success": float(last["final_success"]),
        "grpo_a11y_minutes": float(last["minutes"]),
        "grpo_a11y_random": float(last["random_success"]),
        "grpo_a11y_sampled": float(last["final_sampled_success"]),
    }


PHONE = {"settings": "phone-settings", "notes": "phone-notes"}  # figure name -> the example's family
QUOTED = {"notes"}  # families whose instructions quote their target: scored again with the names made up


def phone_learning(minutes: float | None, seeds: int) -> dict[str, float]:
    """Each phone family of the example once per seed: held-out success with its spread, and its baselines."""
    figures: dict[str, float] = {}
    first = ["--best-fixed", "--bc"]  # behaviour cloning for as long as the GRPO run's budget
    for name, family in PHONE.items():
        unseen = ["--unseen-names"] if name in QUOTED else []
        runs = [example_run(family, seed, minutes, *unseen, *(first if seed == 0 else [])) for seed in range(seeds)]
        success = [float(r["final_success"]) for r in runs]
        key = f"grpo_phone_{name}"
        if unseen:
            figures[f"{key}_unseen"] = statistics.fmean(float(r["unseen_names_success"]) for r in runs)
            figures[f"{key}_unseen_min"] = min(float(r["unseen_names_success"]) for r in runs)
        figures |= {
            f"{key}_success": statistics.fmean(success),
            f"{key}_success_min": min(success),
            f"{key}_success_max": max(success),
            f"{key}_random": statistics.fmean(float(r["random_success"]) for r in runs),
            f"{key}_start": statistics.fmean(float(r["start_success"]) for r in runs),
            f"{key}_sampled": statistics.fmean(float(r["final_sampled_success"]) for r in runs),
            f"{key}_minutes_max": max(float(r["minutes"]) for r in runs),
            f"{key}_best_fixed": float(runs[0]["best_fixed_success"]),
            f"{key}_bc": float(runs[0]["bc_success"]),
        }
    figures["grpo_phone_seeds"] = float(seeds)
    return figures


VLM_PIPELINE = [
    "--env", "sim:click-button", "--held-out", "choose-radio", "--max-steps", "3", "--eval-variants", "20",
    "--sft-steps", "150", "--sft-variants", "32", "--sft-option", "micro_batch=4", "--sft-option", "lr=0.003",
    "--sft-option", "lora=false", "--sft-option", "checkpoint_every=50",
    "--grpo-option", "steps=12", "--grpo-option", "group_size=4", "--grpo-option", "groups_per_step=4",
    "--grpo-option", "workers=4", "--grpo-option", "eval_workers=2", "--grpo-option", "train_variants=32",
    "--grpo-option", 'trainer_options={"lr": 0.001, "lora": true, "lora_rank": 8}',
    "--policy-option", "max_size=320x200", "--policy-option", "max_new_tokens=48",
]  # fmt: skip


def vlm_pipeline(model: str | None, seeds: int) -> dict[str, float]:
    """``cua-bench-rl pipeline`` once per seed; the held-out figures of its reports, and the round trip."""
    import json

    folder = Path(tempfile.mkdtemp(prefix="cua-vlm-pipeline-"))
    if model is None:
        from cua_data.tiny_models import build_tiny_qwen25_vl

        model = str(build_tiny_qwen25_vl(folder / "tiny-model"))
    binary = Path(sys.executable).parent / "cua-bench-rl"
    sft, grpo, base, minutes, roundtrip = [], [], [], [], 1.0
    for seed in range(seeds):
        output = folder / f"seed{seed}"
        command = [str(binary), "pipeline", "--model", model, *VLM_PIPELINE, "--seed", str(seed)]
        command += ["--output", str(output), "--json"]
        print(f"vlm seed {seed}: {' '.join(command)}", file=sys.stderr, flush=True)
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        minutes.append((time.monotonic() - start) / 60)
        if done.returncode != 0:
            raise SystemExit(f"vlm seed {seed}: the pipeline failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        report = json.loads(done.stdout)
        rates = report["held_out_variants"]["success_rate"]
        base.append(rates["baseline"])
        sft.append(rates["sft"])
        grpo.append(rates["grpo"])
        again = subprocess.run(
            [*report["commands"]["grpo"].split(), "--output", str(output / "roundtrip"), "--json"],
            capture_output=True, text=True, check=False,
            env={**os.environ, "PATH": f"{binary.parent}:{os.environ.get('PATH', '')}"},
        )  # fmt: skip
        rerun = json.loads(again.stdout)["tasks"] if again.returncode == 0 else {}
        for part in ("held_out_variants", "held_out_tasks"):
            for task, row in report[part]["tasks"].items():
                if rerun.get(task, {}).get("success_rate") != row["grpo"]:
                    roundtrip = 0.0
        print(f"vlm seed {seed}: baseline {base[-1]:.3f} sft {sft[-1]:.3f} grpo {grpo[-1]:.3f} "
              f"in {minutes[-1]:.1f} min; report {output / 'report.md'}", file=sys.stderr, flush=True)  # fmt: skip
    gains = [g - s for g, s in zip(grpo, sft, strict=True)]
    return {
        "vlm_sft_heldout": statistics.fmean(sft),
        "vlm_grpo_heldout": statistics.fmean(grpo),
        "vlm_grpo_gain": statistics.fmean(gains),
        "vlm_grpo_gain_min": min(gains),
        "vlm_baseline_heldout": statistics.fmean(base),
        "vlm_minutes": statistics.fmean(minutes),
        "pipeline_roundtrip_ok": roundtrip,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter windows, for a smoke run")
    parser.add_argument("--workers", type=int, default=16, help="environments for the efficiency figure")
    parser.add_argument("--rounds", type=int, default=None, help="alternations of raw and loader (default 3)")
    parser.add_argument(
        "--figures",
        default="rpc,rollout,pixel,a11y",
        help="which to measure, comma-separated: rpc, rollout, pixel, a11y, phone, vlm (default: the first four)",
    )
    parser.add_argument("--grpo-minutes", type=float, help="budget of each GRPO example run (default: the example's)")
    parser.add_argument("--vlm-model", help="a checkpoint folder for --figures vlm (default: the tiny model)")
    parser.add_argument("--seeds", type=int, default=3, help="runs (seeds 0..N-1) for --figures pixel, phone and vlm")
    parser.add_argument(
        "--placement",
        choices=["ray"],
        help="only the placement figures: env workers here, on the pool and on Ray (bench/rl_placement.py)",
    )
    parser.add_argument("--placement-workers", default="16,64", help="worker counts for --placement (default 16,64)")
    args = parser.parse_args()
    steady_allocator()
    steps, warmup, seconds, rounds = (200, 1.0, 2.0, 1) if args.quick else (1000, 2.0, 5.0, 3)
    folder = Path(tempfile.mkdtemp(prefix="cua-bench-rl-")) / "fill-form"
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(TASK))

    wanted = {f.strip() for f in args.figures.split(",") if f.strip()}
    unknown = wanted - {"rpc", "rollout", "pixel", "a11y", "phone", "vlm"}
    if unknown:
        parser.error(f"--figures: unknown {', '.join(sorted(unknown))}; known: rpc, rollout, pixel, a11y, phone, vlm")
    figures: dict[str, float] = {}
    if args.placement == "ray":
        from rl_placement import figures as placement_figures  # bench/rl_placement.py

        counts = [int(c) for c in args.placement_workers.split(",")]
        figures = placement_figures(counts, str(folder), warmup, seconds)
        first = [k for c in counts for k in (f"ray_vs_pool_{c}", f"ray_each_vs_pool_{c}", f"ray_vs_raw_{c}")]
        print(" ".join(f"{k}={figures[k]:.2f}" for k in [*first, *(k for k in figures if k not in first)]))
        return 0
    if "rpc" in wanted:
        figures |= rpc_overhead(folder, steps)
    if "rollout" in wanted:
        figures |= rollout_efficiency(args.workers, str(folder), args.rounds or rounds, warmup, seconds)
    if "pixel" in wanted:
        figures |= pixel_learning(args.grpo_minutes, args.seeds)
    if "a11y" in wanted:
        figures |= a11y_learning(args.grpo_minutes)
    if "phone" in wanted:
        figures |= phone_learning(args.grpo_minutes, args.seeds)
    if "vlm" in wanted:
        figures |= vlm_pipeline(args.vlm_model, args.seeds)
    headline = (f"rollout_efficiency_{args.workers}", "grpo_pixel_nohandcraft_success",
                "pixel_untrained_best_fixed", "grpo_pixel_minutes", "grpo_a11y_success",
                "grpo_a11y_minutes", "grpo_phone_settings_success", "grpo_phone_notes_success",
                "sim_rpc_overhead_ratio", "vlm_sft_heldout", "vlm_grpo_heldout", "vlm_grpo_gain",
                "pipeline_roundtrip_ok")  # fmt: skip
    first = [k for k in headline if k in figures]
    ordered = [*first, *(k for k in figures if k not in first)]
    print(" ".join(f"{k}={figures[k]:.2f}" for k in ordered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
