"""cua-tui under a flood of bus events: key-press-to-render latency and publish-to-render lag.

Everything runs on this machine's bus, made private: ``CUA_RUNTIME_DIR`` (and ``CUA_CONFIG_DIR``)
point at a fresh folder under /tmp, a real ``Forwarder`` runs on a thread of this process at the
default addresses, and the app (``CuaTui(runs=[], feeds=True, images=False)``, headless through
Textual's ``run_test`` at 160x48) subscribes to it as it does for a user. A publisher in its own
process (so its CPU is not this process's GIL) publishes a paced mix at ``--rate`` events/s: 94 in
100 are ``env.step`` from 8 environments, 5 ``bench.episode.finished``, 1 ``rl.step.done``, every
body passing its package's ``check``. Another process answers ``session.screenshot`` at the
address the ``env.step`` events name, so the Envs screen fetches screenshots as it does live.

What is measured, with the Envs screen (the busiest: every ``env.step`` changes its table) on view:

- **Input latency**: the time from a key entering the app to the frame that shows its effect.
  The key is a ``down`` or ``up`` (alternating) on the environments table, handed to the app with
  ``driver.send_message(events.Key(...))``: the call Textual's terminal driver makes once it has
  parsed a key off stdin, so the key takes a real key's path through the app's message queues,
  but not the terminal read and escape-sequence parsing before it. The headless driver also skips
  encoding each frame into escape sequences and writing them to a terminal, so neither is in the
  figure. The clock stops in a ``call_after_refresh`` callback queued when the table's cursor moves:
  it runs once the screen has composed the frame with the moved cursor. (``pilot.press`` is not
  used: after each key it sleeps until the process's CPU looks idle, up to 1 s twice; measured here it
  took ~86 ms a key with nothing flowing and ~2 s under the load, so it would time its own waits.)
  Keys are spaced ~50 ms apart, start to start.
- **Event lag**: ``time.time()`` in the app's ``on_rendered`` hook (called after each batch of
  events is on screen) minus each event's publish time (the envelope's ``ts``, taken by the
  publisher), for every event published in the measured window.
- **Delivered**: events from that window that reached ``on_rendered``, per second of the window;
  the publisher reports how many it sent, so a loss or a pacing shortfall shows.

The baseline, measured in the same run on the same app and table: the same keys with no events
flowing (the table holds the same 8 environments). The last line is ``key=value`` pairs, starting
``tui_input_p99_ms_at_1k_eps=… tui_event_lag_p99_ms=…``. Targets: input p99 ≤ 100 ms, lag p99 ≤ 250 ms.

Run: .venv/bin/python bench/tui.py [--quick] [--rate 1000] [--presses 200]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import multiprocessing as mp
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.widgets import DataTable

    from cua_tui.app import CuaTui

ENVS = 8
TASKS = ("click-button", "enter-text", "choose-radio", "drag-to-target", "fill-form", "scroll-list")
ACTIONS = ("click(512, 300)", "type('hello world')", "key('ctrl+s')", "scroll(0, -3)", "drag((10, 20), (300, 40))")
EPISODE_STEPS = 12
BENCH_RUN, RL_RUN = "5f0c9a1e", "rl-3b7d21c4"
KEY_TIMEOUT_S = 5.0
WARMUP_S = 2.0
SETTLE_S = 1.5  # after the window: events published in it still being drawn


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- the other processes ----------------------------------------------------------------------


def _png() -> bytes:
    """A 1280x800 screenshot-sized PNG with some structure (a flat one would compress to nothing)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1280, 800), (236, 239, 244))
    draw = ImageDraw.Draw(image)
    for i in range(40):
        x, y = 30 * i % 1200, 17 * i % 760
        draw.rectangle((x, y, x + 80, y + 30), fill=(9 * i % 255, 90, 160))
        draw.text((20, 20 * i % 780), f"row {i} of the window", fill=(20, 20, 20))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _screenshot_server(address: str, ready: Any) -> None:
    from cua_core.rpc import RpcServer

    png = _png()
    server = RpcServer(address, name="bench-env")
    server.register("session.screenshot", lambda: png)
    server.start()
    ready.set()
    while True:
        time.sleep(3600)


def _bodies(screen: str) -> Any:
    """An endless, realistic mix: (topic, body) pairs, 94 env.step : 5 episode.finished : 1 rl.step.done."""
    from cua_bench import events as bench_events
    from cua_bench_rl import events as rl_events

    steps = [0] * ENVS
    episodes = [0] * ENVS
    rewards = [0.0] * ENVS
    finished = rl_step = n = 0
    while True:
        n += 1
        if n % 100 == 0:
            rl_step += 1
            yield rl_events.STEP_DONE, {
                "run": RL_RUN, "step": rl_step, "reward_mean": 0.4 + (rl_step % 50) / 100, "reward_std": 0.3,
                "success": 0.35, "loss": 0.8 / (1 + rl_step / 100), "kl": 0.01, "policy_version": rl_step,
                "steps_per_s": 940.0, "episodes": 32, "buffer_size": 4, "groups_dropped": 1, "stale_dropped": 0,
            }  # fmt: skip
        elif n % 20 == 10:
            finished += 1
            task = TASKS[finished % len(TASKS)]
            variant = finished % 100
            ok = finished % 3 != 0
            yield bench_events.EPISODE_FINISHED, {
                "run": BENCH_RUN, "episode": f"{task}/test/{variant}", "task": task, "variant": variant,
                "reward": 1.0 if ok else 0.0, "status": "ok", "steps": EPISODE_STEPS, "error": None,
            }  # fmt: skip
        else:
            w = n % ENVS
            steps[w] += 1
            if steps[w] > EPISODE_STEPS:
                steps[w], rewards[w] = 1, 0.0
                episodes[w] += 1
            task = TASKS[(w + episodes[w]) % len(TASKS)]
            variant = (w * 7 + episodes[w]) % 100
            rewards[w] += 0.1 if steps[w] % 4 == 0 else 0.0
            yield bench_events.ENV_STEP, {
                "run": BENCH_RUN, "env": f"w{w}", "address": screen, "episode": f"{task}/test/{variant}",
                "task": task, "variant": variant, "step": steps[w], "action": ACTIONS[n % len(ACTIONS)],
                "reward": rewards[w], "done": steps[w] == EPISODE_STEPS,
            }  # fmt: skip


def _publisher(address: str, screen: str, rate: float, ready: Any, go: Any, stop: Any, sent: Any) -> None:
    """Publish one env.step per environment (so the table has its rows), then, from ``go`` until
    ``stop``, the mix at ``rate`` events/s paced by the clock (a late event is sent at once, so
    the rate holds on average). What it sent goes into ``sent`` at the end."""
    from cua_bench import events as bench_events
    from cua_bench_rl import events as rl_events
    from cua_core.events import Publisher

    checks = {
        **dict.fromkeys(bench_events.TOPICS, bench_events.check),
        **dict.fromkeys(rl_events.TOPICS, rl_events.check),
    }
    pub = Publisher(address)
    if not pub.wait_subscribed(10):
        raise RuntimeError("no subscriber reached the publisher")
    bodies = _bodies(screen)
    pub.publish(bench_events.RUN_STARTED, bench_events.check(bench_events.RUN_STARTED, {
        "run": BENCH_RUN, "folder": "/tmp/runs/bench", "episodes": 600, "todo": 600, "agent": "oracle",
        "taskset": "sim", "backend": "sim", "split": "test",
    }))  # fmt: skip
    pub.publish(rl_events.RUN_STARTED, rl_events.check(rl_events.RUN_STARTED, {
        "run": RL_RUN, "folder": "/tmp/runs/rl", "trainer": "grpo", "policy": "tiny", "tasks": 25,
        "group_size": 8, "workers": 8, "step": 0,
    }))  # fmt: skip
    envs: set[str] = set()
    prelude = 2
    while len(envs) < ENVS:
        topic, body = next(bodies)
        prelude += 1
        pub.publish(topic, checks[topic](topic, body))
        if topic == bench_events.ENV_STEP:
            envs.add(body["env"])
    ready.set()
    go.wait()
    start = time.time()
    count = 0
    while not stop.is_set():
        due = start + count / rate
        now = time.time()
        if due > now:
            time.sleep(due - now)
        topic, body = next(bodies)
        pub.publish(topic, checks[topic](topic, body))
        count += 1
    sent.put({"prelude": prelude, "start": start, "end": time.time(), "sent": count})
    pub.close()


# -- the app ----------------------------------------------------------------------------------


class Probe:
    """What the app's hook and the key timing collect."""

    def __init__(self) -> None:
        self.rendered: list[tuple[float, float]] = []  # (publish ts, rendered at)
        self.recording = False

    def on_rendered(self, stamps: list[float]) -> None:
        if self.recording:
            now = time.time()
            self.rendered.extend((ts, now) for ts in stamps)


class KeyTimer:
    """Times keys on a table: from a key's arrival to the frame that shows the cursor it moved."""

    def __init__(self, app: CuaTui, table: DataTable[Any]) -> None:
        self.app, self.table = app, table
        self.press = 0  # which key a frame answers: a late frame of a timed-out key must not stop the next
        self.moved = asyncio.Event()
        self.drawn_at = 0.0
        app.screen.watch(table, "cursor_coordinate", self._cursor_moved, init=False)

    def _cursor_moved(self, _old: object, _new: object) -> None:
        # Runs as the table handles the key; the callback once the screen has composed the next frame.
        self.table.call_after_refresh(self._drawn, self.press)

    def _drawn(self, press: int) -> None:
        if press == self.press:
            self.drawn_at = time.perf_counter()
            self.moved.set()

    async def run(self, presses: int, spacing: float) -> tuple[list[float], int]:
        """Milliseconds per key, ``presses`` keys ``spacing`` s apart; a key that moves nothing within
        KEY_TIMEOUT_S counts as that long."""
        from textual import events

        driver = self.app._driver
        assert driver is not None
        self.table.focus()
        latencies: list[float] = []
        timeouts = 0
        for _ in range(presses):
            key = "down" if self.table.cursor_row == 0 else "up"
            self.press += 1
            self.moved.clear()
            start = time.perf_counter()
            driver.send_message(events.Key(key, None))
            try:
                await asyncio.wait_for(self.moved.wait(), KEY_TIMEOUT_S)
                latencies.append((self.drawn_at - start) * 1000)
            except TimeoutError:
                timeouts += 1
                latencies.append(KEY_TIMEOUT_S * 1000)
            left = spacing - (time.perf_counter() - start)
            if left > 0:
                await asyncio.sleep(left)
        return latencies, timeouts


def _app(probe: Probe) -> CuaTui:
    """The app as a user starts it, minus run folders (none here) and pictures (the headless driver draws none)."""
    from cua_tui.app import CuaTui

    app = CuaTui(runs=[], feeds=True, images=False)
    app.on_rendered = probe.on_rendered
    return app


async def _bench(args: argparse.Namespace, runtime: str) -> dict[str, float]:
    from textual.widgets import DataTable

    from cua_core.events import BusAddresses, Forwarder

    ctx = mp.get_context("spawn")
    screen_address = f"ipc://{runtime}/shot.sock"
    shot_ready = ctx.Event()
    shots = ctx.Process(target=_screenshot_server, args=(screen_address, shot_ready), daemon=True)
    shots.start()
    addresses = BusAddresses.default()
    forwarder = Forwarder(addresses).start()
    ready, go, stop, sent = ctx.Event(), ctx.Event(), ctx.Event(), ctx.Queue()
    publisher = ctx.Process(
        target=_publisher, args=(addresses.publish, screen_address, args.rate, ready, go, stop, sent), daemon=True
    )
    probe = Probe()
    app = _app(probe)
    try:
        if not shot_ready.wait(30):
            raise RuntimeError("the screenshot server did not start")
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.press("4")
            if app.current_mode != "envs":
                raise RuntimeError(f"key 4 left {app.screen!r} on view, not the Envs screen")
            table = app.screen.query_one("#envs", DataTable)
            publisher.start()  # after the app subscribed: the publisher waits for a subscription
            deadline = time.monotonic() + 30
            while not ready.is_set() or table.row_count < ENVS:
                if time.monotonic() > deadline or not publisher.is_alive():
                    raise RuntimeError(f"the Envs table shows {table.row_count} of {ENVS} environments")
                await asyncio.sleep(0.05)
            print(f"idle: {args.presses} keys, no events flowing", flush=True)
            keys = KeyTimer(app, table)
            cpu, wall = time.process_time(), time.perf_counter()
            idle, idle_timeouts = await keys.run(args.presses, args.spacing)
            cpu_idle = (time.process_time() - cpu) / (time.perf_counter() - wall)
            print(f"loaded: {args.rate:,.0f} events/s, {WARMUP_S:.0f} s warm-up, then {args.presses} keys", flush=True)
            go.set()
            await asyncio.sleep(WARMUP_S)
            probe.recording = True
            window_start = time.time()
            cpu = time.process_time()
            loaded, loaded_timeouts = await keys.run(args.presses, args.spacing)
            window_end = time.time()
            cpu_loaded = (time.process_time() - cpu) / (window_end - window_start)
            stop.set()
            report: dict[str, float] = await asyncio.to_thread(sent.get, True, 10)
            await asyncio.sleep(SETTLE_S)  # the last events are still on their way to the screen
            probe.recording = False
            events_seen = app.model.events
    finally:
        stop.set()
        go.set()
        publisher.join(10)
        for proc in (publisher, shots):
            if proc.is_alive():
                proc.kill()
        forwarder.close()
    rate_sent = report["sent"] / (report["end"] - report["start"])
    lost = int(report["prelude"] + report["sent"]) - events_seen
    window = [(ts, at) for ts, at in probe.rendered if window_start <= ts < window_end]
    lags = [(at - ts) * 1000 for ts, at in window]
    seconds = window_end - window_start
    delivered = len(window) / seconds
    print(f"events: published {rate_sent:,.0f}/s on average; {events_seen:,} reached the app, {lost} lost")
    print(f"CPU of this process (app, bus reader, forwarder): {cpu_idle:.0%} of a core idle, {cpu_loaded:.0%} loaded")
    print(f"events published in the {seconds:.1f} s window and drawn: {len(window):,} = {delivered:,.0f}/s")
    for name, values, timeouts in (("idle", idle, idle_timeouts), ("loaded", loaded, loaded_timeouts)):
        print(
            f"input {name:6}: p50 {statistics.median(values):6.1f} ms  p90 {_percentile(values, 0.9):6.1f} ms"
            f"  p99 {_percentile(values, 0.99):6.1f} ms  max {max(values):6.1f} ms  timeouts {timeouts}"
        )
    idle_p99, loaded_p99 = _percentile(idle, 0.99), _percentile(loaded, 0.99)
    p50_ratio = statistics.median(loaded) / statistics.median(idle)
    print(f"input loaded/idle: p99 {loaded_p99 / idle_p99:.2f}, p50 {p50_ratio:.2f}")
    print(
        f"event lag: p50 {statistics.median(lags):6.1f} ms  p90 {_percentile(lags, 0.9):6.1f} ms"
        f"  p99 {_percentile(lags, 0.99):6.1f} ms  max {max(lags):6.1f} ms"
    )
    return {
        "tui_input_p99_ms_at_1k_eps": loaded_p99,
        "tui_event_lag_p99_ms": _percentile(lags, 0.99),
        "events_per_s_delivered": delivered,
        "events_per_s_published": rate_sent,
        "input_p99_ms_idle": idle_p99,
        "input_p99_ratio": loaded_p99 / idle_p99,
        "input_p50_ms_at_1k_eps": statistics.median(loaded),
        "input_p50_ms_idle": statistics.median(idle),
        "event_lag_p50_ms": statistics.median(lags),
        "events_lost": lost,
        "app_cpu_loaded": cpu_loaded,
        "key_timeouts": idle_timeouts + loaded_timeouts,
    }


def _fmt(key: str, value: float) -> str:
    if key.startswith("events") or key == "key_timeouts":
        return f"{value:.0f}"
    return f"{value:.2f}" if key.startswith("app_cpu") else f"{value:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="60 keys each way, for a smoke run")
    parser.add_argument("--rate", type=float, default=1000.0, help="events/s while loaded (default 1000)")
    parser.add_argument("--presses", type=int, default=200, help="keys each way (default 200)")
    parser.add_argument("--spacing", type=float, default=0.05, help="seconds between keys, start to start")
    args = parser.parse_args()
    if args.quick:
        args.presses = 60
    runtime = tempfile.mkdtemp(prefix="cua-tb-", dir="/tmp")  # short: ipc paths must fit ~100 bytes
    os.environ["CUA_RUNTIME_DIR"] = runtime
    os.environ["CUA_CONFIG_DIR"] = os.path.join(runtime, "config")
    for name in ("CUA_BUS_PUBLISH", "CUA_BUS_SUBSCRIBE", "CUA_POOL_CONTROLLER", "CUA_POOL_CONTROLLER_KEY"):
        os.environ.pop(name, None)
    try:
        figures = asyncio.run(_bench(args, runtime))
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    print(" ".join(f"{k}={_fmt(k, v)}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
