"""Clients of an env server, in Gymnasium's shape: ``reset -> (obs, info)``, ``step -> 5-tuple``.

env = EnvClient(computer.address)
obs, info = env.reset(options=EpisodeSpec("path/to/task", variant=3))  # a path here travels by content
obs, reward, terminated, truncated, info = env.step([Click(Point(500, 300))])

On an ``ipc://`` address (same host) RGB frames come through shared memory by default
(``cua_bench.frames``): the observation's ``screenshot`` is then a read-only array over the
segment, which stays as it is for as long as the caller keeps it (``np.array(obs["screenshot"])``
gives a copy to draw on). ``frames="socket"`` keeps them on the socket. A server that
listens beyond this host takes ``security=`` (CURVE keys, ``cua_core.security.ClientSecurity``);
``cua_bench.connect.client_for(computer)`` sets it from a provisioned computer.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cua_bench.bundles import PREFIX, Bundle, bundle_of
from cua_bench.frames import FrameError, FrameReader
from cua_bench.spec import SPEC_VERSION, EpisodeSpec
from cua_core import (
    Action,
    AsyncRpcClient,
    ClientSecurity,
    CuaError,
    RemoteError,
    RpcClient,
    action_to_dict,
)

__all__ = ["FRAME_MODES", "AsyncEnvClient", "EnvClient", "StepResult"]

log = logging.getLogger(__name__)

StepResult = tuple[dict[str, Any], float, bool, bool, dict[str, Any]]

_SPEC_FIELDS = ("task", "variant", "split", "observes", "max_steps", "seed")
_TRANSPORT = ("frames", "record")  # how this episode's observations travel, not what it is
# auto: shared memory on an ipc:// address (the server is on this host), the socket otherwise.
FRAME_MODES = ("auto", "shm", "socket")


def _check_frames(mode: object) -> str:
    if mode not in FRAME_MODES:
        raise ValueError(f"frames must be one of {', '.join(FRAME_MODES)}, got {mode!r}")
    return str(mode)


def _reset_params(
    seed: int | None, options: EpisodeSpec | Mapping[str, Any] | None, defaults: Mapping[str, Any] | None = None
) -> tuple[EpisodeSpec, dict[str, Any]]:
    """The episode a reset asks for, and its transport options (``frames``, ``record``).

    ``options`` is an ``EpisodeSpec`` or a mapping of its fields (``observes`` as an ``Observes`` or
    its text, like ``"png,a11y"``) with the transport options beside them."""
    if isinstance(options, EpisodeSpec):
        spec, transport = options, {}
    else:
        fields = {**(defaults or {}), **(options or {})}
        transport = {name: fields.pop(name) for name in _TRANSPORT if name in fields}
        unknown = sorted(set(fields) - set(_SPEC_FIELDS))
        if unknown:
            hint = (
                " (what the agent observes is one option: observes='png,a11y')"
                if {"obs", "a11y"} & set(unknown)
                else ""
            )
            raise ValueError(
                f"unknown reset option(s) {', '.join(unknown)}{hint}; known: {', '.join(_SPEC_FIELDS + _TRANSPORT)}"
            )
        if "task" not in fields:
            raise ValueError(
                "reset needs options={'task': <task name like sim/click-button, or path>, 'variant': <index>}"
            )
        spec = EpisodeSpec(**{**fields, "task": str(fields["task"])})
    return (spec if seed is None else spec.with_(seed=seed)), transport


def _older_server(address: str, exc: RemoteError) -> CuaError | None:
    """A server of env protocol 1 refuses the ``spec`` parameter: say so, rather than its TypeError."""
    if exc.remote_type == "BadRequest" and "'spec'" in str(exc):
        return CuaError(
            f"the env server at {address} speaks an older env protocol than this client's ({SPEC_VERSION}): "
            "upgrade cua-bench where the server runs (its image or VM, for docker and libvirt)"
        )
    return None


def _task_bundle(task: str) -> Bundle | None:
    """The bundle of a reset's task when it is a path on this computer; None for a name (the server
    resolves it) or a task already given by content."""
    if task.startswith(PREFIX) or not os.path.exists(task):
        return None
    return bundle_of(task)


def _actions(actions: Action | Sequence[Action] | Sequence[Mapping[str, Any]]) -> list[Any]:
    items: list[Any] = list(actions) if isinstance(actions, list | tuple) else [actions]
    return [dict(a) if isinstance(a, Mapping) else action_to_dict(a) for a in items]


@functools.cache
def _copiers() -> ThreadPoolExecutor:
    """Threads that copy frames out of shared memory for asyncio clients (one pool per process)."""
    return ThreadPoolExecutor(4, thread_name_prefix="frame-copy")


def _socket_owner(address: str) -> int | None:
    """Who owns the server's unix socket, when a root client should hand its segment to them: an
    isolated local environment's server runs as a user of its own and could not write root's."""
    if os.geteuid() != 0 or not address.startswith("ipc://"):
        return None
    try:
        return os.stat(address.removeprefix("ipc://")).st_uid
    except OSError:
        return None


class _Frames:
    """How frames reach one client: its shared-memory segment, once the server has taken it."""

    def __init__(self, address: str, mode: str) -> None:
        self.address = address
        self.mode = _check_frames(mode)
        self.reader: FrameReader | None = None
        self.held = False  # the server has mapped our segment (later resets name it by token only)
        self.refused: str | None = None  # why the server could not map it; we stop asking

    def prepare(self, params: dict[str, Any]) -> bool:
        """Put the ``frames`` reset parameter in ``params``; True when shared memory is asked for."""
        mode = _check_frames(params.pop("frames", self.mode))
        if mode == "auto":
            mode = "shm" if self.address.startswith("ipc://") else "socket"
        if mode != "shm" or self.refused is not None:
            return False  # the parameter stays out: the server sends frames on the socket
        if self.reader is None:
            try:
                self.reader, self.held = FrameReader(owner=_socket_owner(self.address)), False
            except OSError as exc:  # a full or unwritable /dev/shm: the socket still works
                self.refused = f"cannot create a shared-memory segment: {exc}"
                log.warning("frames from %s travel on the socket: %s", self.address, self.refused)
                return False
        params["frames"] = self.reader.offer(known=self.held)
        return True

    def settle(self, info: dict[str, Any]) -> None:
        """After a reset that asked for shared memory: map the segment (and unlink its name), or give up."""
        assert self.reader is not None
        if info.get("frames") == "shm":
            self.reader.attach()
            self.held = True
            return
        self.refused = str(info.get("frames_refused", "the server does not write frames to shared memory"))
        log.info("frames from %s travel on the socket: %s", self.address, self.refused)
        self.drop()

    def failed(self) -> None:
        """A reset that asked for shared memory raised: a segment the server never took is removed."""
        if self.reader is not None and not self.held:
            self.drop()

    def resolve(self, obs: dict[str, Any]) -> dict[str, Any]:
        ref = obs.pop("frame", None)
        if ref is not None:
            obs["screenshot"] = self._reader().read(ref)
        elif self.reader is not None and self.reader.attached:
            self.reader.give_back()  # inline (no slot was free): free the ones dropped since
        return obs

    async def resolve_async(self, obs: dict[str, Any]) -> dict[str, Any]:
        """``resolve``, with a copy (a client keeping every slot it may) on a worker thread: numpy lets
        go of the GIL while it copies, and one event loop driving many environments would otherwise
        do every copy itself, in turn (16 environments stepped 10% faster so, on two busy cores)."""
        ref = obs.pop("frame", None)
        if ref is not None:
            reader = self._reader()
            if reader.copies_next(ref):
                obs["screenshot"] = await asyncio.get_running_loop().run_in_executor(_copiers(), reader.read, ref)
            else:
                obs["screenshot"] = reader.read(ref)
        elif self.reader is not None and self.reader.attached:
            self.reader.give_back()
        return obs

    def _reader(self) -> FrameReader:
        if self.reader is None or not self.reader.attached:
            raise FrameError(
                f"{self.address} sent a shared-memory frame this client never asked for "
                "(another client negotiated it); observe(frames='socket') gets it inline",
            )
        return self.reader

    @property
    def attached(self) -> bool:
        return self.reader is not None and self.reader.attached

    def drop(self) -> None:
        if self.reader is not None:
            self.reader.close()
        self.reader, self.held = None, False


class EnvClient:
    """Blocking client of one env server. ``step_timeout`` bounds every step (seconds).

    ``frames``: ``auto`` (shared memory on ipc://), ``shm`` or ``socket``; a reset option of the
    same name overrides it for one episode."""

    def __init__(
        self,
        address: str,
        *,
        step_timeout: float = 60.0,
        heartbeat_timeout: float = 5.0,
        defaults: Mapping[str, Any] | None = None,
        frames: str = "auto",
        security: ClientSecurity | None = None,
    ) -> None:
        self.address = address
        self.defaults = dict(defaults or {})  # reset options used when a call leaves them out
        self._frames = _Frames(address, frames)
        self.rpc = RpcClient(
            address, timeout=step_timeout, heartbeat_timeout=heartbeat_timeout, retries=1, security=security
        )
        self._sent: set[str] = set()  # task bundles this server holds

    @property
    def shared_frames(self) -> bool:
        """Frames of this episode come through shared memory."""
        return self._frames.attached

    def reset(
        self, *, seed: int | None = None, options: EpisodeSpec | Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        spec, params = _reset_params(seed, options, self.defaults)
        found = _task_bundle(spec.task)
        if found is not None:  # a path here: its files go to the server, which may not see this computer's
            if found.digest not in self._sent and not self.rpc.call("task_bundle", {"digest": found.digest}):
                self.rpc.call("task_bundle", {"digest": found.digest, "files": found.files})
            self._sent.add(found.digest)
            spec = spec.with_(task=found.ref)
        params["spec"] = spec.to_wire()
        asked = self._frames.prepare(params)
        try:
            reply = self.rpc.call("reset", params)
        except RemoteError as exc:
            self._frames.failed()
            older = _older_server(self.address, exc)
            if older is not None:
                raise older from exc
            raise
        except BaseException:
            self._frames.failed()
            raise
        if asked:
            self._frames.settle(reply["info"])
        return self._frames.resolve(reply["observation"]), reply["info"]

    def step(self, actions: Action | Sequence[Action] | Sequence[Mapping[str, Any]]) -> StepResult:
        reply = self.rpc.call("step", {"actions": _actions(actions)})
        obs = self._frames.resolve(reply["observation"])
        return obs, reply["reward"], reply["terminated"], reply["truncated"], reply["info"]

    def evaluate(self) -> float:
        return float(self.rpc.call("evaluate"))

    def solve(self, steps: int | None = None) -> dict[str, Any]:
        """Play the task's oracle; ``steps=k`` only its first k steps (a curriculum prefix: no
        evaluation; the reply's ``observation`` is where the agent starts)."""
        if steps is None:
            return dict(self.rpc.call("solve"))
        reply = dict(self.rpc.call("solve", {"steps": steps}))
        reply["observation"] = self._frames.resolve(reply["observation"])
        return reply

    def wrong(self, name: str) -> dict[str, Any]:
        """Play the task's declared wrong way ``name``; its steps and reward (which must be 0)."""
        return dict(self.rpc.call("wrong", {"name": name}))

    def observe(self) -> dict[str, Any]:
        obs = dict(self.rpc.call("observe", idempotent=True))
        if "frame" in obs and not self._frames.attached:
            obs = dict(self.rpc.call("observe", {"frames": "socket"}, idempotent=True))
        return self._frames.resolve(obs)

    def session(self, method: str, **params: Any) -> Any:
        """Call a Session method on the server (``screenshot``, ``windows``, ``read_file``, ...)."""
        return self.rpc.call(f"session.{method}", params)

    def adversary(self, step: str, **params: Any) -> Any:
        """``cua-bench check``'s adversary on the server: ``begin`` (after reset), ``plan`` (after the
        oracle), ``mutate`` (``name=``); see ``cua_bench.adversary``."""
        return self.rpc.call(f"adversary.{step}", params)

    def info(self) -> dict[str, Any]:
        return dict(self.rpc.call("info", idempotent=True))

    def close(self) -> None:
        try:
            self._frames.drop()
        finally:
            self.rpc.close()

    def __enter__(self) -> EnvClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEnvClient:
    """The asyncio twin of EnvClient, for agents that drive many environments from one loop."""

    def __init__(
        self,
        address: str,
        *,
        step_timeout: float = 60.0,
        heartbeat_timeout: float = 5.0,
        frames: str = "auto",
        security: ClientSecurity | None = None,
    ) -> None:
        self.address = address
        self._frames = _Frames(address, frames)
        self.rpc = AsyncRpcClient(
            address, timeout=step_timeout, heartbeat_timeout=heartbeat_timeout, retries=1, security=security
        )
        self._sent: set[str] = set()  # task bundles this server holds

    @property
    def shared_frames(self) -> bool:
        return self._frames.attached

    async def reset(
        self, *, seed: int | None = None, options: EpisodeSpec | Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        spec, params = _reset_params(seed, options)
        found = await asyncio.to_thread(_task_bundle, spec.task)  # reads files: not on the loop
        if found is not None:
            if found.digest not in self._sent and not await self.rpc.call("task_bundle", {"digest": found.digest}):
                await self.rpc.call("task_bundle", {"digest": found.digest, "files": found.files})
            self._sent.add(found.digest)
            spec = spec.with_(task=found.ref)
        params["spec"] = spec.to_wire()
        asked = self._frames.prepare(params)
        try:
            reply = await self.rpc.call("reset", params)
        except RemoteError as exc:
            self._frames.failed()
            older = _older_server(self.address, exc)
            if older is not None:
                raise older from exc
            raise
        except BaseException:
            self._frames.failed()
            raise
        if asked:
            self._frames.settle(reply["info"])
        return await self._frames.resolve_async(reply["observation"]), reply["info"]

    async def step(self, actions: Action | Sequence[Action] | Sequence[Mapping[str, Any]]) -> StepResult:
        reply = await self.rpc.call("step", {"actions": _actions(actions)})
        obs = await self._frames.resolve_async(reply["observation"])
        return obs, reply["reward"], reply["terminated"], reply["truncated"], reply["info"]

    async def evaluate(self) -> float:
        return float(await self.rpc.call("evaluate"))

    async def solve(self, steps: int | None = None) -> dict[str, Any]:
        """See :meth:`EnvClient.solve`."""
        if steps is None:
            return dict(await self.rpc.call("solve"))
        reply = dict(await self.rpc.call("solve", {"steps": steps}))
        reply["observation"] = await self._frames.resolve_async(reply["observation"])
        return reply

    async def observe(self) -> dict[str, Any]:
        obs = dict(await self.rpc.call("observe", idempotent=True))
        if "frame" in obs and not self._frames.attached:
            obs = dict(await self.rpc.call("observe", {"frames": "socket"}, idempotent=True))
        return await self._frames.resolve_async(obs)

    async def session(self, method: str, **params: Any) -> Any:
        return await self.rpc.call(f"session.{method}", params)

    async def close(self) -> None:
        try:
            self._frames.drop()
        finally:
            await self.rpc.close()
