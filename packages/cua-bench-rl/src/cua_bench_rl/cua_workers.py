"""Cua's RL worker API (``cua_bench.workers`` in trycua/cua) as a thin layer over cua-bench-rl.

A training script written for Cua imports ``create_workers``, ``cleanup_workers``, ``WorkerPool``,
``WorkerHandle``, ``CBEnvWorkerClient``, ``MultiTurnDataloader``, ``ReplayBuffer`` and
``create_dataloader_from_urls`` from ``cua_bench.workers``; that module resolves them here. Each is
an adapter with Cua's names, parameters and return shapes over our own pieces, never a second
implementation:

=========================== ====================================================================
Cua                         here
=========================== ====================================================================
``create_workers``          ``EnvWorkers(backend, n).start()``: one env server per worker
``cleanup_workers``         ``EnvWorkers.close()`` of every pool the handles belong to
``WorkerHandle``            one ``Worker`` of an ``EnvWorkers`` (``api_url`` = its env server address)
``WorkerPool``              ``EnvWorkers`` as Cua's async context manager
``CBEnvWorkerClient``       ``EnvClient`` with Cua's reset/step shapes and prompt strings
``MultiTurnDataloader``     ``RolloutLoader`` (group size 1) + ``ReplayBuffer``
``ReplayBuffer``            our ``ReplayBuffer`` (in memory) holding Cua's steps as episodes
``create_dataloader_from_urls`` ``MultiTurnDataloader`` over env server addresses
=========================== ====================================================================

Where Cua's semantics cannot be matched, the closest honest behaviour is taken and said:

* Cua starts FastAPI worker servers at ``http://`` URLs, each holding up to two envs behind an IP
  allowlist. We start env servers (one env each) at ``ipc://`` or ``tcp://`` addresses; access
  is the backend's (a private socket file, or CURVE keys beyond this host), so ``allowed_ips``
  and ``host`` are accepted and not applied. An ``http(s)://`` URL is refused with a clear error.
* The dataloader's batches hold the turns that are waiting, *up to* ``batch_size`` (Cua waits for
  exactly ``batch_size``); ``worker_id`` numbers a turn within its batch, and ``async_step``
  routes actions back by ``meta_info["uid"]``.
* Without a ``tokenizer`` a batch carries Cua's prompt strings (``obs``) and ``async_step`` takes
  the responses as strings; with one, ``input_ids``/``attention_mask``/``position_ids`` are made
  as Cua makes them (left padded to ``max_prompt_length``; tensors when torch is installed).
  ``processor``/``is_multi_modal`` are not applied (the images stay in the prompt strings).
* Cua's history has two client shapes, and both are taken: keywords (``server_url=..``,
  ``reset(env_path, task_index, split)``, a float in [0, 1] a fraction of the screen and an int a
  pixel) and one ``env_config`` dict (``reset()`` draws from its ``task_configs``, ints are
  thousandths of the screen as in ``click(500,500)``). The dataloader reads responses the way the
  client form of its ``env_configs`` does. Prompts always carry the instruction tags; invalid or
  unreadable text is taken as ``done()`` (the ``env_config`` client of Cua's took ``wait()``).
* ``ReplayBuffer`` capacity counts finished episodes, not steps; ``sample`` returns Cua's
  ``(worker_id, env_ret, meta_info)`` step tuples with discounted returns.
* ``sample_from_buffer`` returns what is there (up to ``batch_size``) rather than blocking: our
  envs wait for the policy's actions, so waiting for more inside the call could never end.
"""

from __future__ import annotations

import ast
import asyncio
import base64
import io
import logging
import random
import re
import subprocess
import threading
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from cua_bench import Backend, BackendError, Computer, EnvClient, EpisodeSpec, Observes
from cua_bench_rl.buffer import ReplayBuffer as _GroupBuffer
from cua_bench_rl.loader import RolloutLoader, TurnBatch, episode_spec
from cua_bench_rl.rollouts import Decision, Group, Rollout, Taken, Turn, spec_of_key
from cua_bench_rl.workers import EnvWorkers, client_for
from cua_core import COORD_MAX, Action, ActionError, RpcError, action_from_dict, from_pixels, parse_actions

__all__ = [
    "CBEnvWorkerClient",
    "MultiTurnDataloader",
    "ReplayBuffer",
    "WorkerHandle",
    "WorkerPool",
    "cleanup_workers",
    "create_dataloader_from_urls",
    "create_workers",
    "cua_actions",
    "wait_for_workers",
]

log = logging.getLogger(__name__)

_OUR_SCHEMES = ("ipc://", "tcp://", "inproc://")


def _check_address(url: str) -> str:
    if not isinstance(url, str) or not url.startswith(_OUR_SCHEMES):
        hint = ""
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            hint = (
                " Cua's HTTP worker servers are not spoken here: our workers are env servers, and "
                "create_workers (or WorkerPool) starts them and gives their addresses as WorkerHandle.api_url."
            )
        raise ValueError(f"{url!r} is not an env server address (ipc://, tcp:// or inproc://).{hint}")
    return url


# Pools create_workers started: an address of theirs is known, with what connecting needs (a server
# beyond this host carries its CURVE key in computer.info["server_key"]).
_POOLS: weakref.WeakSet[EnvWorkers] = weakref.WeakSet()


def _known(address: str, width: int, height: int) -> Computer:
    """The computer at ``address`` if a live pool of ``create_workers`` holds it, else a bare one."""
    for pool in list(_POOLS):
        for worker in pool:
            if worker.address == address:
                return worker.computer
    return Computer("given", address, width, height)


# -- workers -------------------------------------------------------------------------------------


@dataclass(eq=False)
class WorkerHandle:
    """Cua's handle of one running worker: ``worker_id`` (``w0``, ``w1``, ...), ``port`` (0 for an
    ``ipc://`` address), ``process`` (the env server's ``Popen`` where the backend runs it on this
    host, else None) and ``api_url`` (the env server's address, for ``CBEnvWorkerClient``)."""

    pool: EnvWorkers = field(repr=False)
    index: int

    @property
    def worker_id(self) -> str:
        return f"w{self.index}"

    @property
    def api_url(self) -> str:
        return self.pool[self.index].address  # follows a replacement

    @property
    def port(self) -> int:
        found = re.search(r":(\d+)$", self.api_url)
        return int(found.group(1)) if found else 0

    @property
    def process(self) -> subprocess.Popen[str] | None:
        if not self.pool._workers:  # cleaned up
            return None
        handle = self.pool[self.index].computer.handle
        return handle if isinstance(handle, subprocess.Popen) else None

    async def health_check(self, timeout: float = 5.0) -> bool:
        """The env server answers a ping within ``timeout`` seconds."""
        computer = self.pool[self.index].computer
        return await asyncio.to_thread(self.pool.healthy, computer, timeout=timeout)

    def stop(self) -> None:
        """Tear this worker's computer down (``cleanup_workers`` closes the whole pool)."""
        computer = self.pool[self.index].computer
        try:
            self.pool.backend.teardown(computer)
        except Exception as exc:
            log.warning("stopping env worker %s at %s failed: %s", self.worker_id, computer.address, exc)

    @property
    def is_running(self) -> bool:
        if not self.pool._workers:  # cleaned up
            return False
        process = self.process
        if process is not None:
            return process.poll() is None
        return self.pool.healthy(self.pool[self.index].computer, timeout=2.0)


async def create_workers(
    n_workers: int,
    allowed_ips: Sequence[str] | None = None,
    startup_timeout: float = 30.0,
    host: str = "0.0.0.0",
    *,
    backend: str | Backend = "sim",
    width: int = 1280,
    height: int = 800,
) -> list[WorkerHandle]:
    """Start ``n_workers`` env servers of ``backend`` (one env each) in parallel; their handles.

    Cua's ``allowed_ips`` and ``host`` are accepted and not applied: access to an env server is the
    backend's (a private ``ipc://`` socket, or CURVE keys beyond this host). A worker that fails to
    start tears the others down and raises (``BackendError``, a ``RuntimeError`` in Cua)."""
    if allowed_ips:
        log.info("create_workers: allowed_ips %s not applied (env server access is the backend's)", list(allowed_ips))
    pool = EnvWorkers(backend, n_workers, width=width, height=height, start_timeout=startup_timeout)
    await asyncio.to_thread(pool.start)
    _POOLS.add(pool)
    return [WorkerHandle(pool, i) for i in range(n_workers)]


async def cleanup_workers(workers: Sequence[WorkerHandle]) -> None:
    """Stop every worker: each pool the handles belong to is closed (all its env servers)."""
    pools: list[EnvWorkers] = []
    for handle in workers:
        if all(handle.pool is not p for p in pools):
            pools.append(handle.pool)
    for pool in pools:
        await asyncio.to_thread(pool.close)


async def wait_for_workers(workers: Sequence[WorkerHandle], timeout: float | None = None) -> None:
    """Wait until every worker's env server has stopped (``asyncio.TimeoutError`` past ``timeout``)."""

    async def gone(handle: WorkerHandle) -> None:
        while handle.is_running:
            await asyncio.sleep(0.1)

    await asyncio.wait_for(asyncio.gather(*(gone(h) for h in workers)), timeout)


class WorkerPool:
    """Cua's pool of workers as an (async) context manager: ``workers`` and ``urls`` inside it."""

    def __init__(
        self,
        n_workers: int,
        allowed_ips: Sequence[str] | None = None,
        startup_timeout: float = 30.0,
        host: str = "0.0.0.0",
        *,
        backend: str | Backend = "sim",
        width: int = 1280,
        height: int = 800,
    ) -> None:
        self.n_workers, self.allowed_ips = n_workers, list(allowed_ips or [])
        self.startup_timeout, self.host = startup_timeout, host
        self.backend, self.width, self.height = backend, width, height
        self._workers: list[WorkerHandle] = []

    async def __aenter__(self) -> WorkerPool:
        self._workers = await create_workers(
            self.n_workers, self.allowed_ips, self.startup_timeout, self.host,
            backend=self.backend, width=self.width, height=self.height,
        )  # fmt: skip
        return self

    async def __aexit__(self, *exc: object) -> None:
        await cleanup_workers(self._workers)

    @property
    def workers(self) -> list[WorkerHandle]:
        return self._workers

    @property
    def urls(self) -> list[str]:
        return [w.api_url for w in self._workers]

    async def health_check_all(self) -> dict[str, bool]:
        return {w.worker_id: await w.health_check() for w in self._workers}


# -- actions and prompts -------------------------------------------------------------------------

_ACTION_TAGS = re.compile(r"<\|action_start\|>(.*?)<\|action_end\|>", re.DOTALL)
_CUA_CALL = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$", re.DOTALL)


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text.strip("'\"")  # Cua writes bare words: key(enter), scroll(down,3)


def _coord(x: Any, y: Any, screen: tuple[int, int] | None, thousandths: bool) -> list[float]:
    """One of Cua's points in ours ([0, 1000] on each axis). Cua's keyword-form client reads a float
    in [0, 1] as a fraction of the screen and any other number as pixels of the screenshot; its
    ``env_config`` form reads numbers as thousandths of the screen, which ours are already."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (x, y)):
        raise ActionError(f"a point needs two numbers, got ({x!r}, {y!r})")
    if thousandths:
        return [float(x), float(y)]
    fractions = [isinstance(v, float) and 0.0 <= v <= 1.0 for v in (x, y)]
    if all(fractions):
        return [x * COORD_MAX, y * COORD_MAX]
    if screen is None:
        raise ActionError(f"pixel coordinates ({x}, {y}) need the screen size; give fractions in [0, 1]")
    point = from_pixels(x, y, *screen)
    return [point.x, point.y]


def _cua_dict(name: str, args: list[Any], screen: tuple[int, int] | None, thousandths: bool) -> dict[str, Any] | None:
    """Our action dict for one of Cua's calls (None: not one of Cua's forms)."""
    n = len(args)
    if name in ("click", "right_click", "right_single", "double_click", "left_double") and n == 2:
        button = "right" if name.startswith("right") else "left"
        clicks = 2 if name in ("double_click", "left_double") else 1
        return {
            "kind": "click",
            "coordinate": _coord(args[0], args[1], screen, thousandths),
            "button": button,
            "clicks": clicks,
        }
    if name == "drag" and n == 4:
        return {
            "kind": "drag",
            "start": _coord(args[0], args[1], screen, thousandths),
            "end": _coord(args[2], args[3], screen, thousandths),
        }
    if name == "scroll" and n == 2 and isinstance(args[0], str):  # scroll(direction, amount)
        return {"kind": "scroll", "direction": args[0], "amount": int(args[1])}
    if name == "scroll" and n == 3 and isinstance(args[2], str):  # scroll(x, y, direction): a fixed amount
        return {"kind": "scroll", "direction": args[2], "coordinate": _coord(args[0], args[1], screen, thousandths)}
    if name == "type" and n >= 1:
        return {"kind": "type", "text": ",".join(str(a) for a in args)}
    if name in ("key", "hotkey") and n >= 1:
        keys = [k for a in args for k in str(a).split("+")] if n > 1 or "+" in str(args[0]) else [str(args[0])]
        return {"kind": "key", "keys": keys}
    if name == "wait" and n <= 1:
        return {"kind": "wait", "duration": float(args[0]) if args else 1.0}
    if name == "call_user" and n == 0:
        return {"kind": "wait", "duration": 1.0}  # Cua has no equivalent either: it waits
    if name == "done" and n == 0:
        return {"kind": "done"}
    if name == "fail" and n == 0:
        return {"kind": "fail"}
    return None


def _dict_call(action: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """Cua's action dicts (``{"type": "ClickAction", "x": .., "y": ..}``) as a call."""
    kind = str(action.get("type") or action.get("action_type") or "").lower().replace("_", "")
    kind = kind.removesuffix("action")
    x, y = action.get("x", 0), action.get("y", 0)
    calls: dict[str, Callable[[], tuple[str, list[Any]]]] = {
        "click": lambda: ("click", [x, y]),
        "rightclick": lambda: ("right_click", [x, y]),
        "doubleclick": lambda: ("double_click", [x, y]),
        "drag": lambda: ("drag", [action.get(k, 0) for k in ("from_x", "from_y", "to_x", "to_y")]),
        "scroll": lambda: ("scroll", [str(action.get("direction", "up")), int(action.get("amount", 1))]),
        "type": lambda: ("type", [str(action.get("text", ""))]),
        "key": lambda: ("key", [str(action.get("key", ""))]),
        "hotkey": lambda: ("hotkey", [str(k) for k in action.get("keys", [])]),
        "wait": lambda: ("wait", [action.get("seconds", 1.0)]),
        "done": lambda: ("done", []),
        "fail": lambda: ("fail", []),
    }
    if kind not in calls:
        raise ActionError(f"unknown Cua action type {action.get('type')!r}; known: {', '.join(sorted(calls))}")
    return calls[kind]()


def _split_args(text: str) -> list[Any]:
    if not text.strip():
        return []
    try:  # a well-formed argument list (quoted strings may hold commas)
        parsed = ast.literal_eval(f"({text},)")
        return list(parsed)
    except (ValueError, SyntaxError):
        return [_literal(a.strip()) for a in text.split(",")]


def cua_actions(
    action: str | Mapping[str, Any], *, screen: tuple[int, int] | None = None, thousandths: bool = False
) -> list[Action]:
    """Our actions for one of Cua's, inside ``<|action_start|>..<|action_end|>`` or not: its
    action strings (``click``, ``right_click``/``right_single``, ``double_click``/``left_double``,
    ``drag``, ``scroll(direction,amount)``/``scroll(x,y,direction)``, ``type``, ``key``,
    ``hotkey(ctrl+c)``/``hotkey(ctrl,c)``, ``wait``, ``call_user``, ``done``), its action dicts
    (``{"type": "ClickAction", "x": .., "y": ..}``), or our own action text.

    Coordinates, as Cua's clients read them: by default a float in [0, 1] is a fraction of the
    screen and any other number a pixel of the ``screen`` (width, height); ``thousandths`` (Cua's
    ``env_config`` client) reads them as [0, 1000], as ours are. ``ActionError`` for the unreadable."""
    if isinstance(action, Mapping):
        name, args = _dict_call(action)
    elif isinstance(action, str):
        found = _ACTION_TAGS.search(action)
        text = found.group(1).strip() if found else action.strip()
        call = _CUA_CALL.match(text)
        if call is None:
            return parse_actions(text)
        name, args = call.group(1), _split_args(call.group(2))
    else:
        raise ActionError(f"a Cua action is a string or a dict, got {type(action).__name__}")
    translated = _cua_dict(name, args, screen, thousandths)
    if translated is None:
        if isinstance(action, Mapping):
            raise ActionError(f"cannot read Cua action {dict(action)!r}")
        return parse_actions(text)  # our own syntax (click(x=.., y=..), key("ctrl+c"), ...)
    return [action_from_dict(translated)]


def _action_text(action: str | Mapping[str, Any]) -> str:
    if isinstance(action, str):
        return action
    name, args = _dict_call(action)
    return f"{name}({','.join(str(a) for a in args)})"


def _jpeg_b64(screenshot: Any, width: int, height: int) -> str:
    image: Image.Image
    if isinstance(screenshot, bytes | bytearray | memoryview):
        image = Image.open(io.BytesIO(bytes(screenshot)))
    else:
        image = Image.fromarray(np.asarray(screenshot))
    if image.size != (width, height):
        image = image.resize((width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=85)
    return base64.b64encode(out.getvalue()).decode("ascii")


def _vision(observation: Mapping[str, Any], width: int, height: int) -> str:
    shot = observation.get("screenshot")
    return "" if shot is None else f"<|vision_start|>{_jpeg_b64(shot, width, height)}<|vision_end|>"


def _action_tag(text: str) -> str:
    found = _ACTION_TAGS.search(text)
    return found.group(0) if found else f"<|action_start|>{text}<|action_end|>"


def _prompt(instruction: str, steps: Sequence[str], max_hist: int) -> str:
    kept = list(steps)[-(max_hist * 2) :] if len(steps) > max_hist * 2 else list(steps)
    return f"<|instruction|>{instruction}<|instruction_end|>" + "".join(kept)


# -- the client ----------------------------------------------------------------------------------


def _screen_size(observation: Mapping[str, Any]) -> tuple[int, int] | None:
    shot = observation.get("screenshot")
    if shot is None:
        return None
    if isinstance(shot, bytes | bytearray | memoryview):
        size: tuple[int, int] = Image.open(io.BytesIO(bytes(shot))).size  # reads the header only
        return size
    array = np.asarray(shot)
    return int(array.shape[1]), int(array.shape[0])


@dataclass
class CBEnvWorkerClient:
    """Cua's client of one worker, over our ``EnvClient``: ``reset`` and ``step(action)`` return
    Cua's ``(env_ret, meta_info)``; ``obs`` is Cua's prompt string (the instruction, then JPEG
    screenshots at ``img_w`` x ``img_h`` between vision tags and the actions between action tags,
    the last ``max_hist`` pairs). ``server_url`` is an env server address (``WorkerHandle.api_url``);
    ``env_path`` a task name (``sim/click-button``) or folder; ``timeout`` bounds each step (s).

    Both of Cua's shapes: keywords (``CBEnvWorkerClient(server_url=.., img_w=..)``, then
    ``reset(env_path, task_index, split)``; an integer coordinate is a pixel, a float in [0, 1] a
    fraction) or one ``env_config`` dict (``CBEnvWorkerClient({"server_url": .., "task_configs":
    [..], "max_step": .., ...})``, then ``reset()`` draws one of its ``task_configs``; an integer
    coordinate is in thousandths of the screen, as in Cua's ``click(500,500)``)."""

    server_url: str | Mapping[str, Any]
    img_w: int = 1920
    img_h: int = 1080
    max_step: int = 50
    max_hist: int = 10
    timeout: int = 300
    task_configs: list[dict[str, Any]] = field(default_factory=list)

    env_id: int | None = field(default=None, init=False)
    uid: str | None = field(default=None, init=False)
    step_count: int = field(default=0, init=False)
    done: bool = field(default=False, init=False)
    prompt: dict[str, Any] | None = field(default=None, init=False)
    _client: EnvClient | None = field(default=None, init=False, repr=False)
    _screen: tuple[int, int] | None = field(default=None, init=False, repr=False)
    _thousandths: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.server_url, Mapping):  # Cua's env_config form
            config = dict(self.server_url)
            unknown = sorted(set(config) - {"server_url", "task_configs", "img_w", "img_h", "max_step", "max_hist",
                                             "timeout"})  # fmt: skip
            if unknown:
                raise ValueError(f"unknown env_config key(s) {', '.join(unknown)}")
            self.server_url = str(config.get("server_url", ""))
            self.task_configs = [dict(t) for t in config.get("task_configs", [])]
            for key in ("img_w", "img_h", "max_step", "max_hist", "timeout"):
                if key in config:
                    setattr(self, key, int(config[key]))
            self._thousandths = True
        _check_address(self.server_url)

    @property
    def address(self) -> str:
        return str(self.server_url)

    def _env(self) -> EnvClient:
        if self._client is None:
            computer = _known(self.address, self.img_w, self.img_h)
            self._client = client_for(computer, step_timeout=float(self.timeout))
        return self._client

    def _obs(self) -> str:
        return "" if self.prompt is None else _prompt(self.prompt["instruction"], self.prompt["steps"], self.max_hist)

    def reset(
        self, env_path: str | None = None, task_index: int = 0, split: str = "train"
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode of ``env_path`` (variant ``task_index``), or of one of ``task_configs``
        drawn at random when no ``env_path`` is given (Cua's ``env_config`` form)."""
        if env_path is None:
            if not self.task_configs:
                raise ValueError("reset() without env_path draws from task_configs, and this client has none")
            drawn = random.choice(self.task_configs)
            env_path, task_index, split = drawn["env_path"], drawn.get("task_index", 0), drawn.get("split", "train")
        spec = episode_spec(EpisodeSpec(str(env_path), int(task_index), split), Observes(), self.max_step)
        observation, info = self._env().reset(options=spec)
        self.env_id, self.uid, self.step_count, self.done = 0, str(uuid.uuid4()), 0, False
        self._screen = _screen_size(observation)
        self.prompt = {
            "instruction": str(info["task"]["description"]),
            "steps": [_vision(observation, self.img_w, self.img_h)],
        }
        return {"obs": self._obs(), "done": False, "is_init": True}, {"uid": self.uid}

    def step(self, action: str | Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.env_id is None or self.prompt is None:
            raise RuntimeError("Environment not initialized. Call reset() first.")
        if self.done:
            raise RuntimeError("Episode is done. Call reset() to start a new episode.")
        prev_obs = self._obs()
        actions = cua_actions(action, screen=self._screen, thousandths=self._thousandths)
        text = _action_text(action)
        observation, reward, terminated, truncated, info = self._env().step(actions)
        self.step_count += 1
        self.done = bool(terminated or truncated)
        self.prompt["steps"] += [_action_tag(text), _vision(observation, self.img_w, self.img_h)]
        return {
            "prev_obs": prev_obs,
            "action": _action_tag(text),
            "obs": self._obs(),
            "reward": float(info.get("reward", reward)) if self.done else float(reward),
            "done": self.done,
            "is_init": False,
        }, {"uid": self.uid}

    def get_screenshot(self) -> bytes:
        """The current screen as PNG bytes."""
        if self.env_id is None:
            raise RuntimeError("Environment not initialized. Call reset() first.")
        shot = self._env().observe()["screenshot"]
        if isinstance(shot, bytes | bytearray | memoryview):
            return bytes(shot)
        out = io.BytesIO()
        Image.fromarray(np.asarray(shot)).save(out, format="PNG")
        return out.getvalue()

    def shutdown(self) -> None:
        """Close this client (the env server belongs to whoever started it: ``cleanup_workers``)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        self.env_id = None

    def health_check(self) -> dict[str, Any]:
        try:
            healthy = self._env().rpc.call("rpc.ping") == "pong"
        except RpcError as exc:
            return {"status": "unhealthy", "address": self.address, "error": str(exc)}
        return {"status": "healthy" if healthy else "unhealthy", "address": self.address}


# -- the replay buffer ---------------------------------------------------------------------------


def _spec_of(task: str) -> EpisodeSpec:
    """The episode a step's ``meta_info["task"]`` names: an episode key (``sim/click-button/train/3``,
    as our dataloader's steps carry) or else a task name (Cua's own steps), variant 0 of train."""
    try:
        return spec_of_key(task)
    except ValueError:
        return EpisodeSpec(task or "cua", 0, "train")


def _turn_prompt(turn: Turn, width: int, height: int, max_hist: int, *, upto: int | None = None) -> str:
    steps: list[str] = []
    for taken in turn.history[:upto]:
        steps += [_vision(taken.turn.observation, width, height), _action_tag(taken.decision.text or "")]
    steps.append(_vision(turn.observation, width, height))
    return _prompt(turn.instruction, steps, max_hist)


class ReplayBuffer:
    """Cua's replay buffer over ours: ``add(worker_id, env_ret, meta_info)`` collects an episode's
    steps by ``meta_info["uid"]`` and keeps it once ``done``; ``sample(batch_size)`` returns Cua's
    ``(worker_id, env_ret, meta_info)`` steps with discounted returns (``gamma``), only the last
    of each episode with ``only_keep_outcome``. ``capacity`` counts episodes (ours keeps whole
    episodes), not steps as Cua's does."""

    def __init__(
        self, capacity: int = 10000, gamma: float = 1.0, only_keep_outcome: bool = False, balance_thres: float = 0.1
    ) -> None:
        self.capacity, self.gamma = capacity, gamma
        self.only_keep_outcome, self.balance_thres = only_keep_outcome, balance_thres
        self.groups = _GroupBuffer(capacity=capacity, max_staleness=None)
        self.episode_buffer: dict[str, list[tuple[Any, dict[str, Any], dict[str, Any]]]] = {}
        self._shape = (1920, 1080, 10)  # image size and history of prompts made from our turns

    def add(
        self, worker_id: Any, env_ret: Mapping[str, Any] | None = None, meta_info: Mapping[str, Any] | None = None
    ) -> None:
        """One step: ``add(worker_id, env_ret, meta_info)``, or Cua's other form ``add((worker_id, env_ret,
        meta_info))``."""
        if env_ret is None and meta_info is None and isinstance(worker_id, tuple) and len(worker_id) == 3:
            worker_id, env_ret, meta_info = worker_id
        if not isinstance(env_ret, Mapping) or not isinstance(meta_info, Mapping):
            raise TypeError("add takes (worker_id, env_ret, meta_info), or one such tuple")
        uid = str(meta_info.get("uid", "unknown"))
        self.episode_buffer.setdefault(uid, []).append((worker_id, dict(env_ret), dict(meta_info)))
        if env_ret.get("done", False):
            steps = self.episode_buffer.pop(uid)
            task = _spec_of(str(meta_info.get("task", "cua")))
            episode = Rollout(uid, task, "")
            for number, (wid, ret, meta) in enumerate(steps):
                turn = Turn(uid, task, "", number, {"cua_step": (wid, ret, meta)})
                episode.turns.append(Taken(turn, Decision([], [], [], text=str(ret.get("action", ""))),
                                           float(ret.get("reward", 0.0))))  # fmt: skip
            episode.reward = float(steps[-1][1].get("reward", 0.0))
            self.groups.add(Group(task, [episode]))

    def add_group(self, group: Group) -> None:
        """Keep a finished group of our rollouts (what ``MultiTurnDataloader`` does)."""
        self.groups.add(group)

    def _steps(self, episode: Rollout) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
        rewards = [t.reward for t in episode.turns]
        returns = [0.0] * len(rewards)
        following = 0.0
        for i in range(len(rewards) - 1, -1, -1):
            following = rewards[i] + (self.gamma * following if i < len(rewards) - 1 else 0.0)
            returns[i] = following
        out = []
        width, height, max_hist = self._shape
        for i, taken in enumerate(episode.turns):
            last = i == len(episode.turns) - 1
            if "cua_step" in taken.turn.observation:
                wid, ret, meta = taken.turn.observation["cua_step"]
                ret = {**ret, "reward": returns[i]}
            else:
                after = episode.turns[i + 1].turn if not last else None
                prev_obs = _turn_prompt(taken.turn, width, height, max_hist)
                obs = _turn_prompt(after, width, height, max_hist) if after is not None else prev_obs
                wid, meta = -1, {"uid": episode.id, "task": episode.task.key, "step": taken.turn.step}
                ret = {
                    "prev_obs": prev_obs,
                    "action": _action_tag(taken.decision.text or ""),
                    "obs": obs,
                    "reward": returns[i],
                    "done": last,
                    "is_init": False,
                }
            if last or not self.only_keep_outcome:
                out.append((wid, ret, meta))
        return out

    def _all(self) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
        return [s for g in self.groups.groups() for e in g.episodes for s in self._steps(e)]

    def sample(self, batch_size: int) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
        steps = self._all()
        return self.groups.rng.sample(steps, min(batch_size, len(steps)))

    def get_balance_stats(self) -> tuple[int, int]:
        rewards = [ret["reward"] for _, ret, _ in self._all()]
        below = sum(r < self.balance_thres for r in rewards)
        return below, len(rewards) - below

    def clear(self) -> None:
        self.groups = _GroupBuffer(capacity=self.capacity, max_staleness=None)
        self.episode_buffer = {}

    def __len__(self) -> int:
        return sum(1 if self.only_keep_outcome else len(e.turns) for g in self.groups.groups() for e in g.episodes)


# -- the dataloader ------------------------------------------------------------------------------


class _Given(Backend):
    """Env servers started elsewhere, handed out by address; never torn down or replaced here."""

    name = "given"

    def __init__(self, addresses: Sequence[str]) -> None:
        self.addresses = list(addresses)
        self._next = 0
        self._lock = threading.Lock()

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        with self._lock:
            if self._next >= len(self.addresses):
                raise BackendError(
                    "an env server given by address died and cannot be replaced from here; "
                    "start the workers with create_workers so they are replaced"
                )
            address, self._next = self.addresses[self._next], self._next + 1
        return _known(address, width, height)

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        return None  # the servers belong to whoever started them (cleanup_workers)


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


class MultiTurnDataloader:
    """Cua's multi-turn dataloader over our ``RolloutLoader``: iterate for batches of pending turns,
    answer them with ``async_step(batch_return)``; finished episodes fill ``replay``
    (``sample_from_buffer``). ``env_configs``: one dict per env server, ``{"server_url": address}``
    plus ``CBEnvWorkerClient``'s ``img_w``/``img_h``/``max_step``/``max_hist``; ``task_configs``:
    ``[{"env_path": task, "task_index": variant, "split": split}, ...]``, drawn at random per
    episode. See the module docstring for where it differs from Cua's."""

    def __init__(
        self,
        env_class: type = CBEnvWorkerClient,
        env_configs: Sequence[Mapping[str, Any]] = (),
        tokenizer: Any = None,
        processor: Any = None,
        is_multi_modal: bool = False,
        batch_size: int = 8,
        replay_capacity: int = 10000,
        replay_reward_discount: float = 0.9,
        max_prompt_length: int = 1024,
        max_response_length: int = 1024,
        only_keep_outcome_in_replay: bool = False,
        task_configs: Sequence[Mapping[str, Any]] | None = None,
        *,
        seed: int = 0,
    ) -> None:
        if not (isinstance(env_class, type) and issubclass(env_class, CBEnvWorkerClient)):
            raise TypeError(
                f"env_class must be CBEnvWorkerClient (the rollouts use our env clients), got {env_class!r}"
            )
        if not env_configs:
            raise ValueError("env_configs needs one {'server_url': <env server address>} per env")
        # Cua's env_config form puts task_configs in each env's config (ours draw from their union).
        per_env = [t for c in env_configs for t in c.get("task_configs", [])]
        self._thousandths = any("task_configs" in c for c in env_configs)
        task_configs = list(task_configs or []) or per_env
        if not task_configs:
            raise ValueError(
                "task_configs is required: [{'env_path': 'sim/click-button', 'task_index': 0, 'split': 'train'}, ...]"
            )
        self.num_envs = len(env_configs)
        if not 1 <= batch_size <= self.num_envs:
            raise ValueError(f"batch_size ({batch_size}) must be between 1 and num_envs ({self.num_envs})")
        first = dict(env_configs[0])
        self.img_w, self.img_h = int(first.get("img_w", 1920)), int(first.get("img_h", 1080))
        self.max_hist = int(first.get("max_hist", 10))
        max_step = int(first.get("max_step", 50))
        self.batch_size = batch_size
        self._tokenizer, self._processor, self._is_multi_modal = tokenizer, processor, is_multi_modal
        self._max_prompt_length, self._max_response_length = max_prompt_length, max_response_length
        self.replay = ReplayBuffer(replay_capacity, replay_reward_discount, only_keep_outcome_in_replay)
        self.replay._shape = (self.img_w, self.img_h, self.max_hist)
        tasks = list(
            dict.fromkeys(
                EpisodeSpec(str(t.get("env_path", "")), int(t.get("task_index", 0)), str(t.get("split", "train")))
                for t in task_configs
            )
        )
        addresses = [_check_address(str(c.get("server_url", ""))) for c in env_configs]
        self.workers = EnvWorkers(_Given(addresses), self.num_envs).start()
        self.loader = RolloutLoader(
            self.workers,
            tasks,
            group_size=1,
            observes=Observes("png"),
            max_steps=max_step,
            seed=seed,
            episode_retries=0,
        ).start()
        self._batches: Iterator[TurnBatch] = self.loader.batches(max_batch=batch_size, wait=0.05)
        self._pending: dict[str, tuple[TurnBatch, list[Any]]] = {}  # uid -> its batch, and the answers so far
        self._running_reward = 0.0
        self._closed = False

    # -- Cua's surface ---------------------------------------------------------------------------

    def __iter__(self) -> MultiTurnDataloader:
        return self

    def __next__(self) -> dict[str, Any]:
        self._collect()
        batch = next(self._batches)  # StopIteration when the loader ends
        answers: list[Any] = [None] * len(batch)
        for turn in batch.turns:
            self._pending[turn.episode] = (batch, answers)
        obs = [_turn_prompt(t, self.img_w, self.img_h, self.max_hist) for t in batch.turns]
        out: dict[str, Any] = {
            "obs": obs,
            "worker_id": np.array(range(len(obs)), dtype=object),
            "meta_info": np.array(
                [{"uid": t.episode, "task": t.task.key, "step": t.step} for t in batch.turns], dtype=object
            ),
        }
        if self._tokenizer is not None:
            out.update(self._tokenize(obs, self._max_prompt_length, left=True))
        return out

    def async_step(self, batch_return: Mapping[str, Any]) -> None:
        """Send the policy's actions back: ``responses`` (strings, or token ids decoded with the
        tokenizer, Cua's way) and ``meta_info`` of the batch they answer."""
        metas = list(batch_return["meta_info"])
        responses = self._responses(batch_return)
        if len(responses) != len(metas):
            raise ValueError(f"async_step: {len(responses)} responses for {len(metas)} meta_info entries")
        touched: list[tuple[TurnBatch, list[Any]]] = []
        for meta, text in zip(metas, responses, strict=True):
            uid = str(meta["uid"])
            if uid not in self._pending:
                raise ValueError(f"async_step: no pending turn of episode {uid!r} (answered already, or not from here)")
            batch, answers = self._pending.pop(uid)
            position = next(i for i, t in enumerate(batch.turns) if t.episode == uid)
            answers[position] = self._decision(text, batch.turns[position])
            if all(b is not batch for b, _ in touched):
                touched.append((batch, answers))
        for batch, answers in touched:
            if all(a is not None for a in answers):
                batch.respond(answers)
        self._collect()

    def sample_from_buffer(self, batch_size: int | None = None) -> dict[str, Any]:
        self._collect()
        steps = self.replay.sample(batch_size or self.batch_size)
        out: dict[str, Any] = {
            "prev_obs": [ret["prev_obs"] for _, ret, _ in steps],
            "action": [ret["action"] for _, ret, _ in steps],
            "reward": np.array([ret["reward"] for _, ret, _ in steps], dtype=np.float32),
            "worker_id": np.array([w for w, _, _ in steps], dtype=object),
            "meta_info": np.array([m for _, _, m in steps], dtype=object),
        }
        if self._tokenizer is not None and steps:
            prompts = self._tokenize(out["prev_obs"], self._max_prompt_length, left=True)
            answers = self._tokenize(out["action"], self._max_response_length, left=False)
            out["responses"] = answers["input_ids"]
            torch = _torch()
            if torch is not None:
                out["input_ids"] = torch.cat([prompts["input_ids"], answers["input_ids"]], dim=1)
                out["attention_mask"] = torch.cat([prompts["attention_mask"], answers["attention_mask"]], dim=1)
            else:
                out["input_ids"] = [a + b for a, b in zip(prompts["input_ids"], answers["input_ids"], strict=True)]
                out["attention_mask"] = [
                    a + b for a, b in zip(prompts["attention_mask"], answers["attention_mask"], strict=True)
                ]
        return out

    def clear_replay_buffer(self) -> None:
        self.replay.clear()

    def get_balance_stats(self) -> tuple[int, int]:
        return self.replay.get_balance_stats()

    def calculate_outcome_reward(self) -> float:
        rewards = [float(e.reward or 0.0) for g in self.replay.groups.groups() for e in g.episodes]
        return float(np.mean(rewards)) if rewards else 0.0

    def print_examples(self, n: int = 2) -> None:
        for _, ret, _ in self.replay.sample(n):
            print(ret["obs"] if "obs" in ret else ret.get("prev_obs", ""))

    def print_stats_in_replay_buffer(self) -> None:
        """Cua's line: the buffer's size, its episodes, and how many steps each holds (count-episodes)."""
        per_uid: dict[str, int] = {}
        for _, _, meta in self.replay._all():
            per_uid[str(meta.get("uid"))] = per_uid.get(str(meta.get("uid")), 0) + 1
        histogram: dict[int, int] = {}
        for count in per_uid.values():
            histogram[count] = histogram.get(count, 0) + 1
        counts = ", ".join(f"{c}-{histogram[c]}" for c in sorted(histogram))
        print(
            f"Replay buffer size: {len(self.replay)}. Number of uids: {len(per_uid)}. "
            f"Histogram of item counts per uid in replay buffer (x-y): {counts}"
        )

    def running_outcome_reward(self) -> float:
        return self._running_reward

    @property
    def stats(self) -> dict[str, float]:
        """Our loader's counters (episodes, env_steps, replaced, ...)."""
        return self.loader.stats

    def close(self) -> None:
        """Stop the rollouts; the env servers stay up for whoever started them (``cleanup_workers``)."""
        if self._closed:
            return
        self._closed = True
        self.loader.close()
        self.workers.close()

    def __enter__(self) -> MultiTurnDataloader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers ---------------------------------------------------------------------------------

    def _collect(self) -> None:
        for group in self.loader.pop_groups():
            self.replay.add_group(group)
            for episode in group.episodes:
                self._running_reward = 0.99 * self._running_reward + 0.01 * float(episode.reward or 0.0)

    def _decision(self, text: str, turn: Turn) -> Decision:
        try:
            actions = cua_actions(text, screen=_screen_size(turn.observation), thousandths=self._thousandths)
        except ActionError as exc:
            log.warning("unreadable action %r taken as done(), as Cua does: %s", text[:200], exc)
            actions = cua_actions("done()")
        if not actions:
            actions = cua_actions("done()")
        return Decision(actions, [], [], text=text)

    def _responses(self, batch_return: Mapping[str, Any]) -> list[str]:
        responses = batch_return["responses"]
        if len(responses) and isinstance(responses[0], str):
            return [str(r) for r in responses]
        if self._tokenizer is None:
            raise TypeError("async_step got token ids but the dataloader has no tokenizer: pass responses as strings")
        texts = []
        for i, ids in enumerate(responses):
            prompt_length = len(batch_return["prompts"][i])
            valid = int(sum(batch_return["attention_mask"][i][prompt_length:]))
            texts.append(str(self._tokenizer.decode(list(ids)[:valid], skip_special_tokens=False)))
        return texts

    def _tokenize(self, texts: Sequence[str], length: int, *, left: bool) -> dict[str, Any]:
        pad = self._tokenizer.pad_token_id
        pad = self._tokenizer.eos_token_id if pad is None else pad
        ids_rows, masks = [], []
        for text in texts:
            ids = list(self._tokenizer.encode(text, add_special_tokens=False))
            ids = ids[-length:] if left else ids[:length]
            fill = [pad] * (length - len(ids))
            mask = [1] * len(ids)
            ids_rows.append(fill + ids if left else ids + fill)
            masks.append([0] * len(fill) + mask if left else mask + [0] * len(fill))
        positions = [[max(0, p) for p in np.cumsum(m) - 1] for m in masks]
        torch = _torch()
        if torch is None:
            return {"input_ids": ids_rows, "attention_mask": masks, "position_ids": positions}
        return {
            "input_ids": torch.tensor(ids_rows, dtype=torch.int64),
            "attention_mask": torch.tensor(masks, dtype=torch.int64),
            "position_ids": torch.tensor(positions, dtype=torch.int64),
        }


def create_dataloader_from_urls(
    worker_urls: Sequence[str],
    task_configs: Sequence[Mapping[str, Any]],
    tokenizer: Any = None,
    processor: Any = None,
    is_multi_modal: bool = False,
    batch_size: int = 8,
    **kwargs: Any,
) -> MultiTurnDataloader:
    """A ``MultiTurnDataloader`` over env server addresses (``WorkerPool.urls``); an ``http(s)://``
    URL of Cua's worker servers is refused with a clear error."""
    img: dict[str, Any] = {k: kwargs.pop(k) for k in ("img_w", "img_h", "max_step", "max_hist") if k in kwargs}
    return MultiTurnDataloader(
        env_class=CBEnvWorkerClient,
        env_configs=[{"server_url": _check_address(url), **img} for url in worker_urls],
        task_configs=task_configs,
        tokenizer=tokenizer,
        processor=processor,
        is_multi_modal=is_multi_modal,
        batch_size=batch_size,
        **kwargs,
    )
