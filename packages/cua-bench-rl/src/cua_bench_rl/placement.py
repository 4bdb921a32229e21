"""Env workers on pool computers: a Backend whose computers are env servers run as pool jobs.

``provision`` submits a job (through the controller's RPC, as ``cua run`` does) that runs
``python -m cua_bench.server --curve`` of an inner backend (``sim``, ``local``) on a pool host,
listening on the address the pool knows that host by; the server allows only our key, prints its
address and its fresh public key on its ready line, and we read that line from the job's log.
Rollouts then reach the desktop directly over tcp + CURVE, never through the controller. A machine
backend (a VM: ``libvirt``) is placed alike: the job starts a machine on the host whose server listens
on the host's pool address and allows only our key, and tears it down when the job is cancelled.

The pool places jobs itself (least busy host first) and cannot pin one to a host, so a host
selector is kept by holding each job the pool put elsewhere until one lands on a chosen host;
those are cancelled at once.
"""

from __future__ import annotations

import io
import os
import re
import tarfile
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, ClassVar

from cua_bench import Backend, BackendError, Computer
from cua_bench_rl.env_server_job import JOB_FILE, JOB_FN, MACHINE_JOB_FN
from cua_core import ClientSecurity, CuaError, RpcClient, SecurityError, load_or_create_keypair

__all__ = ["PoolBackend"]

JOB_DONE = ("succeeded", "failed", "cancelled")
_READY = re.compile(r"^ready (tcp://\S+) server_key=(\S{40})\s*$", re.MULTILINE)
# The os a backend's capabilities name -> the pool's os_name (platform.system()) of hosts that serve it.
_HOST_OS = {"linux": "linux", "macos": "darwin", "windows": "windows"}


def _security(computer: Computer) -> ClientSecurity:
    """CURVE for a client of ``computer``: this machine's key pair (the one its server allows; the same
    as ``cua_bench_rl.workers.client_for`` uses) and the server's key from ``computer.info``."""
    key = computer.info.get("server_key")
    if not key:
        raise BackendError(
            f"computer {computer.address} has no info['server_key']; it was not provisioned by PoolBackend"
        )
    return ClientSecurity(load_or_create_keypair(), str(key).encode())


class PoolBackend(Backend):
    """Computers on pool hosts: ``PoolBackend("sim", hosts=["gpu-box-2"])``.

    ``inner``: the backend whose env server runs on the host (one that runs it on the host itself,
    such as ``sim`` or ``local``), or in a machine the host starts (a VM backend that takes the ``listen``
    and ``allow`` options, such as ``libvirt``: its server is reached at the host's pool address);
    ``options``: the inner backend's options on the host; ``hosts``: ``"any"`` or host names/ids; ``controller`` and
    ``controller_key``: which pool, as for ``cua`` (default: ``$CUA_POOL_CONTROLLER``, the paired
    one, else this computer's own). Each server allows only this machine's key pair (``cua-bus
    keys show``), which ``cua_bench_rl.workers.client_for`` connects with.
    """

    name = "pool"
    capabilities: ClassVar[dict[str, Any]] = {"remote": True}

    def __init__(
        self,
        inner: str = "sim",
        *,
        hosts: str | Sequence[str] = "any",
        controller: str | None = None,
        controller_key: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if not inner or not isinstance(inner, str):
            raise BackendError(f"inner backend must be a backend name such as 'sim', got {inner!r}")
        if inner == self.name:
            raise BackendError("PoolBackend's inner backend cannot be 'pool': name the backend the host runs")
        self.inner = inner
        self.hosts: list[str] | None = None if hosts == "any" else [hosts] if isinstance(hosts, str) else list(hosts)
        if self.hosts is not None and not self.hosts:
            raise BackendError("hosts=[] selects no host; pass 'any' or host names")
        self.controller = controller
        self.controller_key = controller_key
        self.inner_options = dict(options or {})
        self.machines = False  # set by _inner_capabilities: the inner backend's server runs in a machine

    # -- the Backend contract -------------------------------------------------------------------

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        deadline = time.monotonic() + timeout
        with self._connect() as pool:
            allowed = self._hosts_for(pool)
            args: list[Any] = [self.inner, width, height, load_or_create_keypair().public.decode()]
            if self.machines:
                args.append(self.inner_options)
            elif self.inner_options:
                raise BackendError(f"options go to a machine backend's hosts; {self.inner!r} takes them on the host")
            job, host = self._submit(pool, args, allowed, deadline)
            try:
                address, server_key = self._wait_ready(pool, job, deadline)
                computer = Computer(
                    self.name,
                    address,
                    width,
                    height,
                    info={"server_key": server_key, "job": job, "host": host, "host_name": allowed[host]},
                )
                computer.info["inner"] = self.inner
                computer.info["machine"] = self.machines
                if _on_this_host(address):  # frames through shared memory, as from a server started here
                    computer.info["frames"] = "shm"
                if not self.health(computer, timeout=max(2.0, min(10.0, deadline - time.monotonic()))):
                    raise BackendError(
                        f"the env server of pool job {job} said it listens on {address} but does not answer "
                        f"there over CURVE; is {address} reachable from this computer? Log tail:\n"
                        f"{_tail(self._log(pool, job))}"
                    )
            except BaseException:
                self._cancel(pool, job, wait=5.0)
                raise
        return computer

    def restore(self, computer: Computer) -> None:
        """A machine on a pool host cannot be reverted from here (its snapshot is the host's): the error makes
        the workers and the runner replace it with a fresh one, so no episode starts from another's machine."""
        if computer.info.get("machine"):
            raise BackendError(
                f"the {self.inner} machine of pool job {computer.info.get('job')} cannot be reverted from this "
                "computer: a fresh machine replaces it"
            )

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        """Close the server (its job then ends by itself) and cancel the job; wait until it is over."""
        job = str(computer.info.get("job", ""))
        if not job:
            raise BackendError(f"computer {computer.address} has no info['job']; it was not provisioned by PoolBackend")
        with self._connect() as pool:
            if pool.call("job.show", {"job": job})["job"]["state"] not in JOB_DONE:
                try:
                    with self._env_rpc(computer, 2.0) as env:
                        env.call("close")
                except CuaError:
                    pass  # unreachable: the cancel below stops it all the same
                if computer.info.get("machine"):  # its job takes the machine down itself once the server is gone:
                    self._until_done(pool, job, timeout / 2)  # a cancel's SIGKILL could leave the machine defined
            state = self._cancel(pool, job, wait=timeout)
        if state not in JOB_DONE:
            raise BackendError(
                f"pool job {job} (the env server at {computer.address}) is still {state} {timeout:g} s after "
                f"its cancel; stop it with `cua jobs cancel {job}`"
            )

    def _until_done(self, pool: RpcClient, job: str, wait: float) -> None:
        deadline = time.monotonic() + wait
        while pool.call("job.show", {"job": job})["job"]["state"] not in JOB_DONE and time.monotonic() < deadline:
            time.sleep(0.2)

    def health(self, computer: Computer, *, timeout: float = 2.0) -> bool:
        try:
            with self._env_rpc(computer, timeout) as env:
                return bool(env.call("rpc.ping") == "pong")
        except CuaError:
            return False

    def failure(self, computer: Computer) -> str | None:
        """Why the job behind ``computer`` ended (its host lost, say), from the pool."""
        try:
            with self._connect() as pool:
                job = pool.call("job.show", {"job": computer.info["job"]})["job"]
        except (CuaError, KeyError):
            return None
        if job["state"] in JOB_DONE or job["state"] in ("restarting", "failing"):
            return f"pool job {job['id']} {job['state']}" + (f": {job['reason']}" if job["reason"] else "")
        return None

    # -- the pool -------------------------------------------------------------------------------

    def _connect(self) -> RpcClient:
        """The controller's RPC; never starts a pool (provisioning must not leave daemons behind)."""
        try:
            from cua_pool import controller_target
            from cua_pool.config import client_security as pool_security
            from cua_pool.config import resolve
        except ImportError as exc:
            raise BackendError(
                f"PoolBackend needs cua-pool ({exc}): in a clone's root, pip install './packages/cua-bench-rl[pool]'"
            ) from exc

        address, key = controller_target(self.controller)
        target = resolve(address)
        fix = (
            "start it (`cua pool serve`; any `cua` command starts this computer's own pool) or name another "
            "with PoolBackend(controller=..., controller_key=...)"
        )
        if target.startswith("ipc://") and not os.path.exists(target.removeprefix("ipc://")):
            raise BackendError(f"no pool is running here: no controller socket at {target}; {fix}")
        try:
            security = pool_security(target, self.controller_key or key)
        except ValueError as exc:
            raise BackendError(str(exc)) from exc
        client = RpcClient(target, timeout=30.0, heartbeat_timeout=10.0, retries=1, security=security)
        try:
            client.call("rpc.ping", timeout=5.0)
        except SecurityError as exc:
            client.close()
            raise BackendError(
                f"the pool controller at {target} refused our pool key: pair this computer with "
                f"`cua host pair --controller {target} --controller-key KEY` and allow it there ({exc})"
            ) from exc
        except CuaError as exc:
            client.close()
            raise BackendError(f"no pool controller answers at {target} ({exc}); {fix}") from exc
        return client

    def _hosts_for(self, pool: RpcClient) -> dict[str, str]:
        """Host id -> name of the up hosts that are selected and can run the inner backend's server."""
        rows: list[dict[str, Any]] = pool.call("pool.computers")
        if self.hosts is not None:
            known = {h["id"] for h in rows} | {h["name"] for h in rows}
            unknown = [h for h in self.hosts if h not in known]
            if unknown:
                names = ", ".join(sorted(h["name"] for h in rows)) or "none"
                raise BackendError(f"no host {', '.join(unknown)} in the pool (its hosts: {names}); `cua computers`")
        why: list[str] = []
        allowed: dict[str, str] = {}
        want_os = _HOST_OS.get(str(self._inner_capabilities().get("os", "")).lower())
        for h in rows:
            if self.hosts is not None and h["id"] not in self.hosts and h["name"] not in self.hosts:
                continue
            if h["state"] != "up":
                why.append(f"{h['name']} is {h['state']}")
            elif want_os and str(h.get("os", "")).lower() != want_os:
                why.append(f"{h['name']} runs {h.get('os')}, and {self.inner} needs {want_os}")
            else:
                allowed[h["id"]] = h["name"]
        if not allowed:
            chosen = "any host" if self.hosts is None else f"hosts {', '.join(self.hosts)}"
            reasons = "; ".join(why) or "the pool has no hosts yet (`cua host setup --share spaces`)"
            raise BackendError(f"no pool host can serve backend {self.inner!r} ({chosen}): {reasons}")
        return allowed

    def _inner_capabilities(self) -> dict[str, Any]:
        """The inner backend's capabilities where it is installed here too (a host may have more backends)."""
        from cua_bench.registry import backends

        registry = backends()
        if self.inner not in registry:
            return {}
        found = registry[self.inner]
        serves_on_host = getattr(found.create_session, "__func__", None) is not getattr(
            Backend.create_session, "__func__", 0
        )
        self.machines = {"listen", "allow"} <= {option.name for option in getattr(found, "options", ())}
        if not serves_on_host and not self.machines:
            raise BackendError(
                f"backend {self.inner!r} runs its env server inside its own computer, reached only from the host "
                "it runs on; PoolBackend serves backends whose server runs on the host (sim, local) and machine "
                "backends whose server it can reach from here (listen and allow options: libvirt)"
            )
        return dict(found.capabilities)

    def _submit(self, pool: RpcClient, args: list[Any], allowed: dict[str, str], deadline: float) -> tuple[str, str]:
        """Submit until the pool places the job on an allowed host; (job, host id). Each job it put
        elsewhere is held meanwhile, so the next placement sees that host busier, then cancelled."""
        code = _job_code()
        fn = MACHINE_JOB_FN if self.machines else JOB_FN
        misplaced: list[str] = []
        hosts: list[dict[str, Any]] = pool.call("pool.computers")
        tries = 1 + sum(int(h["max_spaces"]) for h in hosts if h["state"] == "up" and h["id"] not in allowed)
        try:
            for _ in range(tries):
                job = str(
                    pool.call("job.submit", {"file": JOB_FILE, "fn": fn, "code": code, "args": args, "retries": 0})[
                        "id"
                    ]
                )
                try:
                    host = self._wait_placed(pool, job, deadline)
                except BaseException:
                    self._cancel(pool, job, wait=5.0)
                    raise
                if host in allowed:
                    return job, host
                misplaced.append(job)
            names = ", ".join(sorted(set(allowed.values())))
            raise BackendError(
                f"the pool kept placing the env server on hosts outside {names} ({tries} tries); free a space on "
                "one of them, or use hosts='any'"
            )
        finally:
            for job in misplaced:
                self._cancel(pool, job, wait=0.0)

    def _wait_placed(self, pool: RpcClient, job: str, deadline: float) -> str:
        reason = ""
        while True:
            info = pool.call("job.show", {"job": job})
            members = [m for m in info["members"] if m["attempt"] == info["job"]["attempt"]]
            if members:
                return str(members[0]["host"])
            reason = info["job"]["reason"] or reason
            if info["job"]["state"] in JOB_DONE:
                raise BackendError(f"pool job {job} {info['job']['state']} before it was placed: {reason}")
            if time.monotonic() > deadline:
                raise BackendError(f"pool job {job} was not placed in time: {reason or 'no reason given'}")
            time.sleep(0.1)

    def _wait_ready(self, pool: RpcClient, job: str, deadline: float) -> tuple[str, str]:
        """The address and server key on the job's ready line, read from its log as it arrives."""
        text, offset = "", 0
        while True:
            wait = max(0.0, min(2.0, deadline - time.monotonic()))
            reply = pool.call("job.logs", {"job": job, "rank": 0, "since": offset, "wait": wait}, timeout=wait + 30)
            chunk = reply["ranks"].get("0", {})
            text += bytes(chunk.get("data") or b"").decode(errors="replace")
            offset = int(chunk.get("offset", offset))
            found = _READY.search(text)
            if found:
                return found.group(1), found.group(2)
            if reply["state"] in JOB_DONE or reply["state"] in ("failing", "cancelling"):
                raise BackendError(
                    f"pool job {job} ended ({reply['state']}: {reply['reason'] or 'no reason'}) before its "
                    f"{self.inner} env server was ready. Log tail:\n{_tail(text)}"
                )
            if time.monotonic() >= deadline:
                raise BackendError(
                    f"the {self.inner} env server of pool job {job} did not say it was ready in time. Log tail:\n"
                    f"{_tail(text) or '(nothing yet: the host may still be starting it)'}"
                )

    def _log(self, pool: RpcClient, job: str) -> str:
        try:
            reply = pool.call("job.logs", {"job": job, "rank": 0})
            return bytes(reply["ranks"].get("0", {}).get("data") or b"").decode(errors="replace")
        except CuaError:
            return ""

    def _cancel(self, pool: RpcClient, job: str, *, wait: float) -> str:
        """Cancel ``job`` (whatever it is doing) and wait up to ``wait`` s for it to end; its state."""
        try:
            state = str(pool.call("job.cancel", {"job": job})["state"])
            deadline = time.monotonic() + wait
            while state not in JOB_DONE and time.monotonic() < deadline:
                time.sleep(0.05)
                state = str(pool.call("job.show", {"job": job})["job"]["state"])
            return state
        except CuaError as exc:
            return f"unknown ({exc})"

    def _env_rpc(self, computer: Computer, timeout: float) -> RpcClient:
        return RpcClient(
            computer.address,
            timeout=timeout,
            heartbeat_timeout=timeout,
            retries=0,
            security=_security(computer),
        )


def _job_code() -> bytes:
    """The job's code: this package's env_server_job.py, alone, as the tar.gz the pool unpacks."""
    source = resources.files("cua_bench_rl").joinpath("env_server_job.py").read_bytes()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo(JOB_FILE)
        info.size, info.mode, info.mtime = len(source), 0o644, int(time.time())
        tar.addfile(info, io.BytesIO(source))
    return buf.getvalue()


def _on_this_host(address: str) -> bool:
    """A server at a loopback address (a pool host that is this computer) can map our shared memory."""
    host = address.removeprefix("tcp://").rpartition(":")[0].strip("[]")
    return host in ("127.0.0.1", "::1", "localhost") or host.startswith("127.")


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])
