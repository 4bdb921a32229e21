"""Clients of an env server, in Gymnasium's shape: ``reset -> (obs, info)``, ``step -> 5-tuple``.

env = EnvClient(computer.address)
obs, info = env.reset(options={"task": "path/to/task", "variant": 3})
obs, reward, terminated, truncated, info = env.step([Click(Point(500, 300))])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cua_core.actions import Action, action_to_dict
from cua_core.rpc import AsyncRpcClient, RpcClient

__all__ = ["AsyncEnvClient", "EnvClient", "StepResult"]

StepResult = tuple[dict[str, Any], float, bool, bool, dict[str, Any]]

_RESET_OPTIONS = {"task", "variant", "split", "max_steps", "obs", "a11y"}


def _reset_params(
    seed: int | None, options: Mapping[str, Any] | None, defaults: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    options = {**(defaults or {}), **(options or {})}
    unknown = sorted(set(options) - _RESET_OPTIONS)
    if unknown:
        raise ValueError(f"unknown reset option(s) {', '.join(unknown)}; known: {', '.join(sorted(_RESET_OPTIONS))}")
    if "task" not in options:
        raise ValueError("reset needs options={'task': <task name like sim/click-button, or path>, 'variant': <index>}")
    return {**options, "task": str(options["task"]), "seed": seed}


def _actions(actions: Action | Sequence[Action] | Sequence[Mapping[str, Any]]) -> list[Any]:
    items: list[Any] = list(actions) if isinstance(actions, list | tuple) else [actions]
    return [dict(a) if isinstance(a, Mapping) else action_to_dict(a) for a in items]


def _step_result(reply: dict[str, Any]) -> StepResult:
    return reply["observation"], reply["reward"], reply["terminated"], reply["truncated"], reply["info"]


class EnvClient:
    """Blocking client of one env server. ``step_timeout`` bounds every step (seconds)."""

    def __init__(
        self,
        address: str,
        *,
        step_timeout: float = 60.0,
        heartbeat_timeout: float = 5.0,
        defaults: Mapping[str, Any] | None = None,
    ) -> None:
        self.address = address
        self.defaults = dict(defaults or {})  # reset options used when a call leaves them out
        self.rpc = RpcClient(address, timeout=step_timeout, heartbeat_timeout=heartbeat_timeout, retries=1)

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        reply = self.rpc.call("reset", _reset_params(seed, options, self.defaults))
        return reply["observation"], reply["info"]

    def step(self, actions: Action | Sequence[Action] | Sequence[Mapping[str, Any]]) -> StepResult:
        return _step_result(self.rpc.call("step", {"actions": _actions(actions)}))

    def evaluate(self) -> float:
        return float(self.rpc.call("evaluate"))

    def solve(self) -> dict[str, Any]:
        return dict(self.rpc.call("solve"))

    def wrong(self, name: str) -> dict[str, Any]:
        """Play the task's declared wrong way ``name``; its steps and reward (which must be 0)."""
        return dict(self.rpc.call("wrong", {"name": name}))

    def observe(self) -> dict[str, Any]:
        return dict(self.rpc.call("observe", idempotent=True))

    def session(self, method: str, **params: Any) -> Any:
        """Call a Session method on the server (``screenshot``, ``windows``, ``read_file``, ...)."""
        return self.rpc.call(f"session.{method}", params)

    def info(self) -> dict[str, Any]:
        return dict(self.rpc.call("info", idempotent=True))

    def close(self) -> None:
        self.rpc.close()

    def __enter__(self) -> EnvClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEnvClient:
    """The asyncio twin of EnvClient, for agents that drive many environments from one loop."""

    def __init__(self, address: str, *, step_timeout: float = 60.0, heartbeat_timeout: float = 5.0) -> None:
        self.address = address
        self.rpc = AsyncRpcClient(address, timeout=step_timeout, heartbeat_timeout=heartbeat_timeout, retries=1)

    async def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        reply = await self.rpc.call("reset", _reset_params(seed, options))
        return reply["observation"], reply["info"]

    async def step(self, actions: Action | Sequence[Action] | Sequence[Mapping[str, Any]]) -> StepResult:
        return _step_result(await self.rpc.call("step", {"actions": _actions(actions)}))

    async def evaluate(self) -> float:
        return float(await self.rpc.call("evaluate"))

    async def solve(self) -> dict[str, Any]:
        return dict(await self.rpc.call("solve"))

    async def session(self, method: str, **params: Any) -> Any:
        return await self.rpc.call(f"session.{method}", params)

    async def close(self) -> None:
        await self.rpc.close()
