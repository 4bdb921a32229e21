"""The env server: one process per environment, next to the desktop it drives.

It loads task modules, runs their setup, evaluation and oracle against its Session, and serves
``reset``, ``step``, ``evaluate``, ``solve``, ``session.*`` and ``close`` over cua-core RPC. Every
backend runs this same server; a backend only decides where (here, in a container, in a VM) and
which Session it gets. Invalid actions are answered in ``info`` and the next observation — never by
crashing the server. A client on the same host may have RGB frames written into shared memory it
names at ``reset`` (``cua_bench.frames``) instead of sent on the socket.

    python -m cua_bench.server --backend sim --address ipc:///run/user/0/cua/env-1.sock
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from PIL import Image

from cua_bench.a11y_xml import to_osworld_xml
from cua_bench.adversary import Adversary
from cua_bench.backend_kit.capabilities import OS_PLUGINS, capabilities_of, os_family
from cua_bench.bundles import PREFIX as BUNDLE
from cua_bench.bundles import BundleCache
from cua_bench.frames import FrameError, FrameWriter
from cua_bench.server_curve import curve_from_flags
from cua_bench.session import Session
from cua_bench.spec import SPEC_VERSION, EpisodeSpec, Observes
from cua_bench.task_computer import task_computer
from cua_bench.tasks import Task, TaskError, TaskModule, load_task_module
from cua_bench.taskset import locate_task
from cua_bench.views import fit, scale_png, scale_rgb
from cua_bench.witnessed import PrefixDone, ReadingSession, RecordingSession
from cua_core import Action, ActionError, Done, Fail, RpcServer, ServerSecurity, action_from_dict, action_to_dict

__all__ = ["EnvServer", "close_on_sigterm", "main", "pin_to_cpu", "watch_parent"]

log = logging.getLogger(__name__)

# A sim host (cua_bench.sim_host) runs many env servers in one process, each resetting on its own
# thread: a task module is imported once per process, and a second reset importing it meanwhile
# would find it in sys.modules half executed. One import at a time, then; after the first, a load
# takes the module already there.
_LOADING = threading.Lock()


class EnvServer:
    """Serves one Session. All task code runs on the RPC server's event-loop thread, in order."""

    def __init__(
        self,
        session: Session,
        address: str,
        *,
        name: str = "env",
        security: ServerSecurity | None = None,
        backend: str | None = None,
    ) -> None:
        self.session = session
        self.backend = backend or type(session).__name__  # named in errors about what it cannot serve
        self.screen = (session.width, session.height)  # the size it started at: tasks that name none get it
        self.theme: str | None = None  # the look this episode's task asked for (Cua's provider "simulated")
        self.rpc = RpcServer(address, name=name, workers=2, security=security)
        self.task: Task | None = None
        self.module: TaskModule | None = None
        self.steps = 0
        self.max_steps = 50
        self.observes = Observes()  # what this episode's agent is shown (its EpisodeSpec's)
        self.recording = False  # the full screen too, for the recording, when the agent's view is less
        self.last_errors: list[str] = []
        self.action_log: list[dict[str, Any]] = []  # every action applied this episode (Task.history)
        self.frames: FrameWriter | None = None  # the shared-memory segment a client on this host gave
        self.shared_frames = False  # this episode's RGB frames go through ``frames``
        self.closed = threading.Event()
        self.adversary: Adversary | None = None  # cua-bench check's mutations (``adversary.*``)
        self.bundles = BundleCache()  # task folders sent by content (``cua_bench.bundles``)
        self.bundle: str | None = None  # the current task's bundle, when it came by content
        handlers: dict[str, Callable[..., Any]] = {
            "task_bundle": self.task_bundle,
            "reset": self.reset,
            "step": self.step,
            "evaluate": self.evaluate,
            "solve": self.solve,
            "wrong": self.wrong,
            "observe": self.observe,
            "close": self.close,
            "adversary.begin": self.adversary_begin,
            "adversary.plan": self.adversary_plan,
            "adversary.mutate": self.adversary_mutate,
            "adversary.restore": self.adversary_restore,
            "session.screenshot": self._session_screenshot,
            "session.accessibility_tree": self._session_call("accessibility_tree"),
            "session.windows": self._session_call("windows"),
            "session.launch": self._session_call("launch"),
            "session.read_file": self._session_call("read_file"),
            "session.read_bytes": self._session_call("read_bytes"),
            "session.write_file": self._session_call("write_file"),
            "session.file_exists": self._session_call("file_exists"),
            "session.directory_exists": self._session_call("directory_exists"),
            "session.list_dir": self._session_call("list_dir"),
            "session.clipboard": self._session_call("clipboard"),
            "session.set_clipboard": self._session_call("set_clipboard"),
            "session.run_command": self._session_run_command,
            "session.apply": self._session_apply,
        }
        for method, fn in handlers.items():
            self.rpc.register(method, fn)
        self.rpc.register("info", self.info, inline=True)

    @property
    def address(self) -> str:
        return self.rpc.address

    def start(self) -> EnvServer:
        self.rpc.start()
        return self

    def info(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "width": self.session.width,
            "height": self.session.height,
            "session": type(self.session).__name__,
            "task": self.task.to_dict() if self.task else None,
            "steps": self.steps,
            "protocol": SPEC_VERSION,
        }

    # -- episodes -------------------------------------------------------------------------------

    def task_bundle(self, digest: str, files: dict[str, bytes] | None = None) -> bool:
        """Whether this server holds the task bundle ``digest``; with ``files``, keep them as it first."""
        if files is not None:
            self.bundles.put(digest, files)
        return self.bundles.holds(digest)

    async def reset(
        self,
        spec: dict[str, Any] | None = None,
        frames: str | dict[str, Any] | None = None,
        record: bool = False,
        **old: Any,
    ) -> dict[str, Any]:
        """Start the episode ``spec`` describes (``EpisodeSpec.to_wire()``: a task name like
        ``sim/click-button`` or a path here, its variant and split, what the agent observes, its step
        limit and seed); returns the observation. The variant's ``computer`` block sets the screen size
        (back to the server's own size when it names none) and must name an OS this backend serves.

        ``record``: every observation also carries the full screen as PNG under ``recording`` when what
        the agent observes is not the whole screen (none, or scaled down). ``frames``: ``{"shm": PATH or
        None, "token": T}`` has RGB frames written into the client's shared-memory segment
        (``cua_bench.frames``); ``info["frames"]`` says which way they travel, and
        ``info["frames_refused"]`` why not through shared memory.

        Raises:
            ValueError: a client of an older protocol (loose ``task``/``obs`` options), or a bad spec.
            TaskError: no such task or variant, or a computer this backend does not serve.
        """
        if old or spec is None:
            raise ValueError(
                f"this env server speaks env protocol {SPEC_VERSION}: reset takes {{'spec': EpisodeSpec.to_wire()}}; "
                f"the client sent {', '.join(sorted(old)) or 'no spec'} (a cua-bench older than the server's: "
                "upgrade cua-bench where the client runs)"
            )
        episode = EpisodeSpec.from_wire(spec)
        task, variant, split = episode.task, episode.variant, episode.split
        self.bundle = task if task.startswith(BUNDLE) else None
        where = self.bundles.path(task) if self.bundle else locate_task(task)
        with _LOADING:
            module = load_task_module(where)
        split = module.resolve_split(split)
        chosen = module.variant(split, variant)
        await self._fit_computer(chosen)
        await self.session.reset(seed=episode.seed if episode.seed is not None else variant)
        self.module, self.task = module, chosen
        self.steps, self.last_errors, self.action_log = 0, [], []
        if self.adversary is not None:
            self.adversary.recording = False  # until this episode's adversary.begin
        self.max_steps = episode.max_steps or chosen.max_steps or 50
        self.observes, self.recording = episode.observes, bool(record)
        refused = self._negotiate_frames(frames)
        await module.run("setup_task", chosen, self.session)
        info: dict[str, Any] = {"task": chosen.to_dict(), "wrong_ways": sorted(module.wrong_ways(split))}
        info["platform"] = self.session.platform  # what a recording of this episode is labelled with
        info["frames"] = "shm" if self.shared_frames else "socket"
        if refused:
            info["frames_refused"] = refused
        return {"observation": await self.observation(), "info": info}

    async def _fit_computer(self, task: Task) -> None:
        """The variant's OS checked and its screen size applied, before the session is reset."""
        wanted = task_computer(task)
        serves = self.session.os_type
        if wanted.os_type is not None and os_family(wanted.os_type) != serves:
            raise TaskError(
                f"task {task.name} wants os_type {wanted.os_type}; backend {self.backend} serves {serves} "
                f"({_who_serves(os_family(wanted.os_type))})"
            )
        size = (wanted.width or self.screen[0], wanted.height or self.screen[1])
        if size != (self.session.width, self.session.height):
            await self.session.resize(*size)
        await self._apply_theme(wanted.theme)

    async def _apply_theme(self, theme: str | None) -> None:
        """A task's theme (``"provider": "simulated"`` with an ``os_type``: the OS its desktop should look
        like, not one it needs), before the session is reset: a session with a browser draws that
        desktop (``use_theme``: local, docker); another (the sim) draws its own, which it says once."""
        use_theme = getattr(self.session, "use_theme", None)
        if use_theme is not None:
            await use_theme(theme)
        elif theme is not None and self.theme != theme:
            log.info("the task asks for a %s-looking desktop; %s draws its own", theme, self.backend)
        self.theme = theme

    def _negotiate_frames(self, frames: str | dict[str, Any] | None) -> str | None:
        """Set this episode's frame transport; why shared memory was refused, when it was asked for."""
        self.shared_frames = False
        if frames is None or frames == "socket":
            return None
        if not isinstance(frames, dict) or not isinstance(frames.get("token"), str):
            raise ValueError(f"frames must be 'socket' or {{'shm': PATH, 'token': TOKEN}}, got {frames!r}")
        token, path = frames["token"], frames.get("shm")
        if self.frames is None or self.frames.token != token:
            if not isinstance(path, str):
                return "this server holds no shared-memory segment with that token (it restarted?)"
            try:
                writer = FrameWriter(path, token, self.session.width * self.session.height * 3)
            except (OSError, FrameError) as exc:
                return f"cannot map {path} here: {exc}"
            if self.frames is not None:
                self.frames.close()
            self.frames = writer
        self.shared_frames = True
        return None

    async def step(self, actions: list[dict[str, Any]]) -> dict[str, Any]:
        """Apply a batch; returns observation, reward, terminated, truncated, info (Gymnasium's five)."""
        if self.task is None:
            raise TaskError("step before reset: call reset(task=...) first")
        parsed: list[Action] = []
        invalid: dict[int, str] = {}
        applied: list[int] = []  # each applied action's index in the batch as sent, for its error message
        for i, raw in enumerate(actions if isinstance(actions, list) else [actions]):
            try:
                action = action_from_dict(raw)
            except (ActionError, TypeError, AttributeError) as exc:
                invalid[i] = str(exc)
                continue
            parsed.append(action)
            if not isinstance(action, Done | Fail):
                applied.append(i)
        to_apply = [a for a in parsed if not isinstance(a, Done | Fail)]
        errors = await self.session.apply(to_apply) if applied else []
        settled = await self.session.settle()
        self.steps += 1
        self.log(to_apply, errors)
        invalid |= {applied[j]: e for j, e in enumerate(errors) if e}
        self.last_errors = [f"action {i}: {invalid[i]}" for i in sorted(invalid)]
        invalid_list = self.last_errors
        ended = next((a for a in parsed if isinstance(a, Done | Fail)), None)
        terminated = ended is not None
        truncated = not terminated and self.steps >= self.max_steps
        reward = 0.0
        info: dict[str, Any] = {"invalid": invalid_list, "step": self.steps, "settle_ms": round(settled * 1000, 2)}
        if ended is not None:
            self.task.ended = action_to_dict(ended)  # how it ended is part of what is scored (OSWorld)
        if terminated or truncated:
            reward = await self.evaluate()
            info["reward"] = reward
        if ended is not None:
            info["ended"] = action_to_dict(ended)
        return {
            "observation": await self.observation(),
            "reward": reward,
            "terminated": terminated,
            "truncated": truncated,
            "info": info,
        }

    def log(self, actions: Sequence[Action], errors: Sequence[str | None], *, step: int | None = None) -> None:
        """Keep the actions that were applied (refused ones are not evidence of a method)."""
        padded = [*errors, *[None] * (len(actions) - len(errors))]
        for action, error in zip(actions, padded, strict=False):
            if not error:
                self.action_log.append({"step": self.steps if step is None else step, **action_to_dict(action)})

    async def evaluate(self) -> float:
        """The reward of the current state, in [0, 1]: a number, or a list of them (Cua Bench's
        ``[1.0]``), averaged as Cua Bench averages them. Anything else is an error naming the task."""
        if self.module is None or self.task is None:
            raise TaskError("evaluate before reset")
        self.task.history = list(self.action_log)
        self.task.why = []
        if self.bundle is not None:  # the agent's user can write the cache: what the evaluator reads is put back
            self.bundles.seal(self.bundle)
        watching = self.adversary if self.adversary is not None and self.adversary.recording else None
        session: Any = self.session if watching is None else ReadingSession(self.session, watching)
        value = await self.module.run("evaluate_task", self.task, session)
        values = list(value) if isinstance(value, list | tuple) else [value]
        if not values or not all(isinstance(v, int | float) and 0 <= v <= 1 for v in values):
            raise TaskError(
                f"task {self.task.name} ({self.module.path}) variant {self.task.variant}: @evaluate_task must "
                f"return a reward in [0, 1] or a non-empty list of them, like [1.0]; got {value!r}"
            )
        changed = self.bundles.broken(self.bundle) if self.bundle is not None else []
        if changed:  # what the evaluator read may not be what was sent: nothing it says can be trusted
            log.warning("task %s: its own files changed while it was evaluated, scored 0: %s", self.task.name, changed)
            self.task.explain(f"the task's own files changed while it was evaluated ({', '.join(changed[:5])})")
            return 0.0
        return float(sum(values) / len(values))

    async def solve(self, steps: int | None = None) -> dict[str, Any]:
        """Run the oracle; returns the steps it took (actions and observations) and the reward.

        ``steps=k`` plays only the oracle's first k steps (a curriculum's prefix: the agent starts
        past the early subgoals) and evaluates nothing: it returns ``played`` (k, or fewer when the
        oracle ended first), ``finished`` (the oracle ran to its end), each step's ``actions`` and
        the ``observation`` the agent starts from. The step counter moves on by ``played``, so the
        episode's step limit counts the prefix.
        """
        if self.module is None or self.task is None:
            raise TaskError("solve before reset")
        player = self.module.function("solve_task", self.task.split)
        if player is None:
            raise TaskError(f"{self.module.path}: this task has no @solve_task oracle")
        if steps is None:
            return await self._play(player)
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            raise ValueError(f"solve(steps=...) takes a number of oracle steps >= 0, got {steps!r}")
        recorder = RecordingSession(self.session, self, limit=steps, observe=False)
        finished = False
        if steps > 0:
            try:
                await self.module.call(player, self.task, recorder)
                finished = True
            except PrefixDone:
                pass
        self.steps += len(recorder.steps)
        self.last_errors = []
        return {
            "played": len(recorder.steps),
            "finished": finished,
            "steps": [{"actions": s["actions"], "errors": s["errors"]} for s in recorder.steps],
            "observation": await self.observation(),
        }

    async def wrong(self, name: str) -> dict[str, Any]:
        """Play the task's wrong way ``name`` (through actions only, like the oracle); its steps and reward."""
        if self.module is None or self.task is None:
            raise TaskError("wrong before reset")
        ways = self.module.wrong_ways(self.task.split)
        if name not in ways:
            known = ", ".join(sorted(ways)) or "none"
            raise TaskError(
                f"{self.module.path}: no wrong way {name!r} for split {self.task.split!r} (declared: {known})"
            )
        return await self._play(ways[name])

    async def _play(self, player: Callable[..., Any] | None) -> dict[str, Any]:
        """Run an oracle or a wrong way through actions only, recording each step; its steps and reward."""
        assert player is not None and self.task is not None and self.module is not None
        recorder = RecordingSession(self.session, self)
        await self.module.call(player, self.task, recorder)
        self.steps += len(recorder.steps)
        reward = await self.evaluate()
        return {"steps": recorder.steps, "reward": reward, "why": list(self.task.why)}

    # -- the adversary of ``cua-bench check`` (cua_bench.adversary) ---------------------------------

    async def adversary_begin(self) -> bool:
        """Right after reset: keep the files as setup left them, and watch what evaluation reads."""
        if self.task is None:
            raise TaskError("adversary.begin before reset")
        if self.adversary is None:
            self.adversary = Adversary(self.session)
        await self.adversary.begin()
        return True

    async def adversary_plan(self) -> list[str]:
        """After the oracle (and its evaluation): the mutations that apply to its end state."""
        if self.adversary is None:
            raise TaskError("adversary.plan before adversary.begin")
        return await self.adversary.plan(self.task)

    async def adversary_mutate(self, name: str) -> list[str]:
        """Apply mutation ``name`` to this episode's end state; what it did ([]: nothing applied)."""
        if self.adversary is None:
            raise TaskError("adversary.mutate before adversary.begin")
        return await self.adversary.mutate(name, self.task)

    async def adversary_restore(self) -> bool:
        """After a mutation of files only: the files back as the oracle left them; whether they are."""
        if self.adversary is None:
            raise TaskError("adversary.restore before adversary.begin")
        return await self.adversary.restore()

    async def observe(self, frames: str | None = None) -> dict[str, Any]:
        """The current observation; ``frames="socket"`` sends its frame inline whatever the episode
        negotiated (for a second client, which cannot read the first one's shared memory)."""
        return await self.observation(shared=frames != "socket")

    async def observation(self, *, shared: bool = True) -> dict[str, Any]:
        """What this episode's agent sees now (its spec's ``observes``); ``shared=False`` keeps the frame
        off shared memory (many observations in one reply)."""
        obs: dict[str, Any] = {
            "instruction": self.task.description if self.task else "",
            "step": self.steps,
            "width": self.session.width,
            "height": self.session.height,
            # The agent sees why its last actions were refused, in its next observation.
            "errors": self.last_errors,
        }
        bound, shown = self.observes.max_size, self.observes.screenshot
        scaled = fit((self.session.width, self.session.height), bound) is not None
        if shown == "rgb":
            ref = None
            writer = self.frames if shared and self.shared_frames else None
            key = self.session.frame_key() if writer is not None and not scaled else None
            if writer is not None and key is not None:  # the backend renders straight into the slot
                shape = (self.session.height, self.session.width, 3)
                ref = writer.write_into(shape, key, self.session.frame_into)
            if ref is None:
                frame = scale_rgb(await self._rgb(), bound)
                ref = writer.write(frame) if writer is not None else None
                if ref is None:
                    obs["screenshot"] = frame
            if ref is not None:
                obs["frame"] = ref  # the client swaps it for the pixels (cua_bench.client)
        elif shown == "png":
            full = await self.session.screenshot()
            obs["screenshot"] = scale_png(full, bound) if scaled else full
        if self.recording and (shown == "none" or scaled):
            obs["recording"] = full if shown == "png" else await self.session.screenshot()
        if self.observes.a11y is not None:
            nodes = await self.session.accessibility_tree()
            osworld = self.observes.a11y == "osworld"
            obs["a11y"] = to_osworld_xml(nodes, self.session.width, self.session.height) if osworld else nodes
        return obs

    async def _rgb(self) -> np.ndarray[Any, Any]:
        frame = self.session.frame()
        if frame is not None:
            return frame
        image = Image.open(io.BytesIO(await self.session.screenshot())).convert("RGB")
        return np.asarray(image)

    async def close(self) -> bool:
        if self.frames is not None:
            self.frames.close()
            self.frames = None
            self.shared_frames = False
        self.closed.set()  # last: the main thread then stops the RPC server, which drops later replies
        return True

    # -- session passthrough --------------------------------------------------------------------

    async def _session_screenshot(self) -> bytes:
        return await self.session.screenshot()

    async def _session_run_command(self, command: str, timeout: float = 30.0, check: bool = False) -> dict[str, Any]:
        result = await self.session.run_command(command, timeout, check=check)
        return dict(result)  # ours (returncode) and Cua Bench's keys (return_code, success)

    async def _session_apply(self, actions: list[dict[str, Any]], settle: bool = True) -> list[str | None]:
        """Actions from outside an episode's steps (a Cua computer-server client driving this computer):
        no step is counted, but they are logged as the episode's history, as an agent's would be."""
        parsed = [action_from_dict(raw) for raw in actions]
        errors = await self.session.apply(parsed)
        if settle:
            await self.session.settle()
        self.log(parsed, errors)
        return errors

    def _session_call(self, name: str) -> Callable[..., Any]:
        async def call(**params: Any) -> Any:
            return await getattr(self.session, name)(**params)

        call.__name__ = name
        return call

    def stop(self) -> None:
        """Stop serving and remove what it leaves: its task cache (it leaked one folder under /tmp per
        server before), its frame mapping and, for ``ipc://``, the socket file ZeroMQ leaves behind."""
        self.rpc.close()
        self.bundles.close()
        if self.frames is not None:
            self.frames.close()
            self.frames = None
        if self.address.startswith("ipc://"):  # nobody else may remove it
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.address.removeprefix("ipc://"))

    def serve_until_closed(self) -> None:
        self.start()
        try:
            self.closed.wait()  # no timeout: an idle server wakes for nothing (issue 36)
        finally:
            self.stop()


def _who_serves(family: str) -> str:
    """Which installed backends declare ``family``, or where its machines are to come from (``OS_PLUGINS``)."""
    from cua_bench.backend_choice import backend_unavailable
    from cua_bench.registry import backends

    registry = backends()
    serving = [name for name in registry.names() if capabilities_of(registry[name]).os == family]
    if not serving:
        return f"no installed backend serves {family}: " + OS_PLUGINS.get(family, "none is known")
    problems = {name: backend_unavailable(name) for name in serving}
    ready = [name for name, problem in problems.items() if problem is None]
    if ready:
        return f"choose one that serves it with --backend: {', '.join(ready)}"
    return "; ".join(
        f"backend {name} serves {family} but cannot start here: {problem}" for name, problem in problems.items()
    )


def pin_to_cpu(parser: argparse.ArgumentParser, cpu: int) -> None:
    """Run every thread of this process on CPU ``cpu`` (``--cpu``); a parser error when it cannot."""
    if not hasattr(os, "sched_getaffinity"):
        parser.error("--cpu: this platform cannot bind a process to a CPU (Linux can)")
    allowed = sorted(os.sched_getaffinity(0))
    if cpu not in allowed:
        parser.error(f"--cpu {cpu}: this process may run on CPUs {allowed} only")
    # Threads started later inherit it; those already running (numpy's BLAS pool) are set one by one.
    for thread in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(thread), {cpu})


def close_on_sigterm(closed: threading.Event) -> None:
    """Set ``closed`` on SIGTERM (main thread only). The handler runs on the main thread, which may be
    inside ``closed.wait()`` holding the event's own lock; setting it from the handler could then
    deadlock, so a short-lived thread sets it once the main thread lets go."""
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=closed.set, daemon=True).start())


def watch_parent(parent: int, closed: threading.Event, what: str) -> None:
    """Set ``closed`` once process ``parent`` (the one that started this one) is gone.

    On Linux a thread blocks on the parent's pidfd, which becomes readable when it exits, so the
    watch costs no wake-ups (issue 36: hundreds of idle servers on one computer); elsewhere (macOS,
    kernels before 5.3) it falls back to looking at ``os.getppid()`` twice a second.
    """

    def gone() -> None:
        log.warning("the process that started this %s (pid %d) is gone: closing", what, parent)
        closed.set()

    try:
        pidfd = os.pidfd_open(parent)
    except (AttributeError, OSError):  # no pidfd here, or the parent is gone already (ESRCH)
        pidfd = None
    # Opened after the parent died (and its pid reused): this process was reparented meanwhile.
    if os.getppid() != parent:
        if pidfd is not None:
            os.close(pidfd)
        gone()
        return

    def wait() -> None:
        if pidfd is not None:
            watch = select.poll()  # not select(): a host's descriptors may pass FD_SETSIZE
            watch.register(pidfd, select.POLLIN)
            try:
                watch.poll()  # readable once the parent has exited
            finally:
                os.close(pidfd)
            gone()
            return
        while not closed.wait(0.5):
            if os.getppid() != parent:
                gone()
                return

    threading.Thread(target=wait, name="parent-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cua_bench.server", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="sim", help="whose Session to serve (a registered backend)")
    parser.add_argument(
        "--address",
        required=True,
        help="where to listen: ipc://PATH or tcp://127.0.0.1:PORT; any other tcp address needs --curve "
        "(PORT '*' takes a free one; the ready line says which)",
    )
    parser.add_argument(
        "--curve",
        action="store_true",
        help="authenticate and encrypt with CURVE: serve with this machine's key pair and accept the clients "
        "in its allow-list (`cua-bus keys show`) and --allow; the ready line adds server_key=KEY",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="KEY",
        help="also accept this client key, for this server only (repeatable); write --allow=KEY, as a key "
        "may start with '-'",
    )
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="close when the process that started this server dies (backends start their servers so)",
    )
    parser.add_argument(
        "--cpu",
        type=int,
        metavar="N",
        help="run on CPU N only, every thread of this server (the sim backend's servers are started so)",
    )
    # Read before the ready line: a starter killed the moment it reads that line would otherwise be
    # gone already, and init taken for the parent to outlive (seen under load: the server lived on).
    parent = os.getppid()
    args = parser.parse_args(argv)
    security = curve_from_flags(parser, args)
    if args.cpu is not None:
        pin_to_cpu(parser, args.cpu)
    logging.basicConfig(level=logging.INFO, format=f"env[{os.getpid()}] %(levelname)s %(message)s")
    from cua_bench.registry import backends

    session = backends()[args.backend].create_session(width=args.width, height=args.height)
    server = EnvServer(session, args.address, security=security, backend=args.backend)
    close_on_sigterm(server.closed)
    server.start()
    if args.exit_with_parent:
        # Whoever started this server for its computer may die (a kill -9): nobody will tear it down
        # then, so it closes itself rather than live on as an orphan.
        watch_parent(parent, server.closed, "env server")
    key = f" server_key={security.keypair.public.decode()}" if security is not None else ""
    print(f"ready {server.address}{key}", flush=True)
    started = time.monotonic()
    try:
        # No timeout: SIGTERM's handler, Ctrl-C and the parent's watcher all end this wait, and an
        # idle server must not wake on a timer (issue 36). A blocking lock acquire on POSIX lets
        # signal handlers run, so SIGTERM and SIGINT still reach this thread.
        server.closed.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    log.debug("served for %.1f s", time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
