"""The controller: the pool's state, served over cua-core RPC, with `pool.*` events on the bus.

Clients (the `cua` CLI) submit and watch jobs; host agents register, long-poll for work
(``host.work``, which doubles as the heartbeat), report their members and ship logs. Everything
that matters is in SQLite before a reply leaves, so a kill -9 loses nothing: on restart the hosts
get a fresh heartbeat window and their agents, which never stopped their members, simply carry on.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cua_core import BusAddresses, Publisher, RpcServer, ServerSecurity
from cua_pool import events
from cua_pool.checkpoint_store import CheckpointStore
from cua_pool.gangs import Gangs
from cua_pool.hosts import HostService
from cua_pool.logs import LogStore
from cua_pool.paths import controller_home
from cua_pool.store import JOB_DONE, Store, now

__all__ = ["ACCELERATORS", "DEFAULT_MAX_RESTARTS", "Controller", "new_job_id"]

log = logging.getLogger(__name__)

ACCELERATORS = ("cpu", "gpu", "apple")
MAX_CODE = 64 << 20
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# What a client may name a job by: a whole id or the start of one. Ids are ``p-<fn>-<8 hex>``
# (Cua's form, e.g. p-finetune-1a2b3c4d) and, in pools older than that, 10 hex characters; both
# stay valid, and neither holds anything but [a-z0-9-], so an id is always a safe file name.
_JOB_ID = re.compile(r"[a-z0-9][a-z0-9-]{3,63}")
_LABEL_MAX = 40
# Restarts of a gang when one of its computers is lost, unless the job says otherwise.
DEFAULT_MAX_RESTARTS = 3


def new_job_id(fn: str, name: str | None = None) -> str:
    """``p-<label>-<8 hex>``: the label is ``name`` or else the function's name (its last part, for
    ``Class.method``), lower case, each run of characters outside [a-z0-9] one dash, at most 40
    characters ("job" when nothing is left), then 32 random bits."""
    text = (name or fn.rsplit(".", 1)[-1]).lower()
    label = re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:_LABEL_MAX].strip("-") or "job"
    return f"p-{label}-{os.urandom(4).hex()}"


class Controller(HostService):
    def __init__(
        self,
        addresses: str | list[str],
        *,
        home: Path | None = None,
        security: ServerSecurity | None = None,
        heartbeat_interval: float = 1.0,
        heartbeat_timeout: float = 5.0,
        bus: BusAddresses | None = None,
    ) -> None:
        if heartbeat_timeout <= heartbeat_interval:
            raise ValueError(
                f"heartbeat_timeout ({heartbeat_timeout} s) must be longer than heartbeat_interval "
                f"({heartbeat_interval} s), or every host would be declared lost"
            )
        self.home = home or controller_home()
        self.home.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.store = Store(self.home / "pool.db")
        self.logs = LogStore(self.home / "logs")
        self.checkpoints = CheckpointStore(self.store, self.home / "checkpoints")
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_timeout = heartbeat_timeout
        self._work = threading.Condition()
        self._work_version = 0
        self._pub_lock = threading.Lock()
        self._publisher: Publisher | None = None
        try:
            self._publisher = Publisher((bus or BusAddresses.default()).publish)
        except Exception as exc:  # the bus is optional: the pool works without anyone listening
            log.warning("not publishing pool events: %s", exc)
        self.gangs = Gangs(self.store, self.logs, self._notify, self._wake_hosts)
        if isinstance(addresses, str):
            addresses = [addresses]
        # One server per address: CURVE (when given) on tcp, none on the private ipc socket.
        self.servers = [
            RpcServer(a, security=None if a.startswith("ipc://") else security, workers=64, name="pool-controller")
            for a in addresses
        ]
        self._stop = threading.Event()
        self._monitor: threading.Thread | None = None
        methods: dict[str, Callable[..., Any]] = {
            "pool.status": self.status,
            "pool.computers": self.computers,
            "job.submit": self.submit,
            "job.list": self.list_jobs,
            "job.show": self.show,
            "job.cancel": self.cancel,
            "job.result": self.result,
            "job.logs": self.read_logs,
            "host.register": self.register_host,
            "host.work": self.host_work,
            "host.report": self.host_report,
            "host.logs": self.host_logs,
            "host.code": self.host_code,
            "host.remove": self.remove_host,
            "ckpt.save": self.checkpoints.save,
            "ckpt.latest": self.checkpoints.latest,
            "ckpt.load": self.checkpoints.load,
        }
        for name, fn in methods.items():
            for server in self.servers:
                server.register(name, fn)

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> Controller:
        # After a restart every host gets a full heartbeat window to reach us again.
        t = now()
        for host in self.store.hosts():
            if host["state"] == "up":
                self.store.update("hosts", {"id": host["id"]}, last_seen=t)
        for server in self.servers:
            server.start()
        self._monitor = threading.Thread(target=self._watch, name="pool-monitor", daemon=True)
        self._monitor.start()
        self.gangs.schedule()
        return self

    @property
    def address(self) -> str:
        return self.servers[0].address

    @property
    def addresses(self) -> list[str]:
        return [server.address for server in self.servers]

    def close(self) -> None:
        self._stop.set()
        self._wake_hosts()
        if self._monitor is not None:
            self._monitor.join(timeout=5)
        for server in self.servers:
            server.close()
        if self._publisher is not None:
            self._publisher.close()
        self.store.close()

    def _watch(self) -> None:
        while not self._stop.wait(min(0.2, self.heartbeat_interval / 2)):
            try:
                deadline = now() - self.heartbeat_timeout
                for host in self.store.hosts():
                    if host["state"] == "up" and host["last_seen"] < deadline:
                        gone = now() - host["last_seen"]
                        self.gangs.host_lost(host["id"], f"host {host['name']} missed heartbeats for {gone:.1f} s")
                self.gangs.schedule()
            except Exception:
                log.exception("pool monitor")

    def _notify(self, topic: str, body: dict[str, Any]) -> None:
        # Checked before the transport's try: a payload that drifted from cua_pool.events is a bug
        # and raises, while a bus that cannot take the event never stops the pool.
        events.check(topic, body)
        if self._publisher is None:
            return
        with self._pub_lock:
            try:
                self._publisher.publish(topic, body)
            except Exception as exc:
                log.debug("event %s not published: %s", topic, exc)

    def _wake_hosts(self) -> None:
        with self._work:
            self._work_version += 1
            self._work.notify_all()

    # -- clients ------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        return {
            "addresses": self.addresses,
            "pid": os.getpid(),
            "home": str(self.home),
            "heartbeat_interval": self.heartbeat_interval,
            "heartbeat_timeout": self.heartbeat_timeout,
        }

    def submit(
        self,
        file: str,
        fn: str,
        code: bytes,
        args: list[Any] | None = None,
        env: dict[str, str] | None = None,
        nodes_min: int = 1,
        nodes_max: int = 1,
        accelerator: str = "cpu",
        gpus: int = 1,
        retries: int = 0,
        limits: dict[str, int] | None = None,
        runtime: str = "process",
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        name: str | None = None,
    ) -> dict[str, Any]:
        """``max_restarts``: gang restarts when a computer is lost; ``retries``: when the job itself
        fails. ``name`` labels the id in place of the function's name (space_job's jobs)."""
        env = dict(env or {})
        code = bytes(code)  # a large blob arrives as a read-only view of its frame
        _check_submission(file, fn, code, env, nodes_min, nodes_max, accelerator, gpus, retries)
        if not isinstance(max_restarts, int) or max_restarts < 0:
            raise ValueError(f"--max-restarts {max_restarts}: must be >= 0")
        job_id = new_job_id(fn, name)
        while self.store.job(job_id) is not None:  # 32 random bits: a clash is rare, never silent
            job_id = new_job_id(fn, name)
        (self.home / "code").mkdir(mode=0o700, exist_ok=True)
        tmp = self.home / "code" / f"{job_id}.tmp"
        tmp.write_bytes(code)
        tmp.replace(self.home / "code" / f"{job_id}.tar.gz")
        self.store.insert(
            "jobs",
            {
                "id": job_id,
                "file": file,
                "fn": fn,
                "args": list(args or []),
                "env": env,
                "nodes_min": nodes_min,
                "nodes_max": nodes_max,
                "accelerator": accelerator,
                "gpu_count": gpus if accelerator == "gpu" else 0,
                "retries": retries,
                "max_restarts": max_restarts,
                "limits": dict(limits or {}),
                "runtime": runtime,
                "state": "pending",
                "submitted": now(),
            },
        )
        self._notify(events.JOB_SUBMITTED, {"job": job_id, "file": file, "fn": fn})
        self.gangs.schedule()
        row = self.store.job(job_id)
        assert row is not None
        # The state and the reason a job waits, so a client can say at once why nothing runs yet.
        return {"id": job_id, "state": row["state"], "reason": row["reason"]}

    def _job(self, job: str) -> dict[str, Any]:
        if not isinstance(job, str) or not _JOB_ID.fullmatch(job):
            raise ValueError(f"{job!r} is not a job id; `cua jobs` lists them")
        row = self.store.job(job)
        if row is None:
            matches = [j["id"] for j in self.store.jobs(1000) if j["id"].startswith(job)]
            if len(matches) == 1:
                row = self.store.job(matches[0])
            elif matches:
                raise ValueError(f"job id {job!r} is ambiguous: it starts {', '.join(matches)}")
        if row is None:
            raise LookupError(f"no job {job!r} in this pool; `cua jobs` lists them")
        row.pop("result", None)
        return row

    def list_jobs(self, limit: int = 100) -> list[dict[str, Any]]:
        return self.store.jobs(limit)

    def show(self, job: str) -> dict[str, Any]:
        row = self._job(job)
        names = {h["id"]: h["name"] for h in self.store.hosts()}
        members = self.store.members(row["id"])
        for m in members:
            m["host_name"] = names.get(m["host"], m["host"])
        spaces = {sp["member"]: sp for sp in self.store.spaces(row["id"])}
        for m in members:
            m["space"] = spaces.get(m["id"])
        return {"job": row, "attempts": self.store.attempts(row["id"]), "members": members}

    def cancel(self, job: str) -> dict[str, Any]:
        """``was``: the state before, so a client can tell a cancel from one that found the job ended."""
        row = self._job(job)
        return {"id": row["id"], "was": row["state"], "state": self.gangs.cancel(row["id"])}

    def result(self, job: str) -> dict[str, Any]:
        row = self._job(job)
        full = self.store.one("SELECT result, result_format FROM jobs WHERE id = ?", row["id"])
        assert full is not None
        return {"id": row["id"], "state": row["state"], "format": full["result_format"], "data": full["result"]}

    def read_logs(
        self,
        job: str,
        offsets: dict[str, int] | None = None,
        rank: int | None = None,
        since: int = 0,
        wait: float = 0.0,
    ) -> dict[str, Any]:
        """Each rank's bytes from its offset in ``offsets`` (else from ``since``), every rank unless
        ``rank`` names one; with ``wait``, block until something new arrives or the job ends."""
        row = self._job(job)
        job_id = row["id"]
        if rank is not None and not 0 <= rank < row["nodes_max"]:
            last = row["nodes_max"] - 1
            raise ValueError(f"job {job_id} has no rank {rank}: its ranks are 0{f'..{last}' if last else ''}")
        wait = min(max(wait, 0.0), 5.0)
        deadline = time.monotonic() + wait
        while True:
            version = self.logs.version
            out: dict[str, Any] = {}
            ranks = [rank] if rank is not None else self.logs.ranks(job_id)
            hosts = self._rank_hosts(job_id)
            for r in ranks:
                start = int((offsets or {}).get(str(r), since))
                data, end = self.logs.read(job_id, r, start)
                out[str(r)] = {"data": data, "offset": end, "host": hosts.get(r, "?")}
            state = self.store.job(job_id)
            assert state is not None
            has_data = any(v["data"] for v in out.values())
            remaining = deadline - time.monotonic()
            if has_data or remaining <= 0 or state["state"] in JOB_DONE or self._stop.is_set():
                return {"state": state["state"], "reason": state["reason"], "ranks": out}
            self.logs.wait(version, min(remaining, 0.5))

    def _rank_hosts(self, job_id: str) -> dict[int, str]:
        names = {h["id"]: h["name"] for h in self.store.hosts()}
        out: dict[int, str] = {}
        for m in self.store.members(job_id):  # later attempts overwrite earlier ones
            out[m["rank"]] = names.get(m["host"], m["host"])
        return out

    def computers(self) -> list[dict[str, Any]]:
        out = []
        for host in self.store.hosts():
            live = self.store.live_members_on(host["id"])
            host["jobs"] = sorted({m["job"] for m in live})
            host["spaces"] = len(live)
            host["free_gpus"] = _free(host["gpus"], live)
            out.append(host)
        return out


def _free(gpus: list[int], live: list[dict[str, Any]]) -> list[int]:
    used = {g for m in live for g in m["gpus"]}
    return [g for g in gpus if g not in used]


def _check_submission(
    file: str,
    fn: str,
    code: bytes,
    env: dict[str, str],
    nodes_min: int,
    nodes_max: int,
    accelerator: str,
    gpus: int,
    retries: int,
) -> None:
    if not file or "/" in file or file.startswith("."):
        raise ValueError(f"job file {file!r} must be a plain file name inside the shipped folder")
    if not all(part.isidentifier() for part in fn.split(".")):
        raise ValueError(f"{fn!r} is not a function name; write FILE::FUNCTION, e.g. train.py::main")
    if not isinstance(code, bytes) or len(code) > MAX_CODE:
        raise ValueError(f"the job's code archive must be at most {MAX_CODE >> 20} MiB")
    if not 1 <= nodes_min <= nodes_max:
        raise ValueError(f"--nodes {nodes_min}:{nodes_max}: need 1 <= MIN <= MAX")
    if accelerator not in ACCELERATORS:
        raise ValueError(f"--accelerator {accelerator!r}: choose one of {', '.join(ACCELERATORS)}")
    if accelerator == "gpu" and gpus < 1:
        raise ValueError(f"--gpus {gpus}: a gpu member needs at least 1 GPU")
    if retries < 0:
        raise ValueError(f"--retries {retries}: must be >= 0")
    for key, value in env.items():
        if not _ENV_KEY.fullmatch(key) or not isinstance(value, str):
            raise ValueError(f"--env {key}={value!r}: names are letters, digits and '_', values are text")
