"""The controller's side of the host agents: joining, long-polled work, reports, log shipping.

A mixin of :class:`cua_pool.controller.Controller`, kept apart because it is the protocol between
controller and agents, while the controller module holds what clients see.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from cua_pool import events
from cua_pool.gangs import Gangs, mlx_hostfile, rank_env
from cua_pool.logs import LogStore
from cua_pool.store import MEMBER_DONE, Store, now

__all__ = ["HostService"]


class HostService:
    # Set by Controller.__init__.
    store: Store
    logs: LogStore
    gangs: Gangs
    home: Path
    heartbeat_interval: float
    heartbeat_timeout: float
    _work: threading.Condition
    _work_version: int
    _stop: threading.Event

    def _notify(self, topic: str, body: dict[str, Any]) -> None:
        raise NotImplementedError

    def _job(self, job: str) -> dict[str, Any]:
        raise NotImplementedError

    def register_host(
        self,
        host_id: str,
        name: str,
        address: str,
        os_name: str,
        arch: str,
        cpus: int,
        memory: int,
        accelerators: list[dict[str, Any]],
        gpus: list[int],
        max_spaces: int,
        load: float = 0.0,
        gang_runtimes: list[str] | None = None,
    ) -> dict[str, Any]:
        if os_name not in ("Linux", "Darwin"):
            raise ValueError(f"host {name}: {os_name} hosts cannot run spaces; cua-pool supports Linux and macOS hosts")
        if max_spaces < 1:
            raise ValueError(f"host {name}: max_spaces must be >= 1, got {max_spaces}")
        t = now()
        existing = self.store.host(host_id)
        row = {
            "id": host_id,
            "name": name,
            "address": address,
            "os": os_name,
            "arch": arch,
            "cpus": cpus,
            "memory": memory,
            "accelerators": accelerators,
            "gpus": gpus,
            "max_spaces": max_spaces,
            "gang_runtimes": list(gang_runtimes or ()),
            "load": load,
            "state": "up",
            "joined": existing["joined"] if existing else t,
            "last_seen": t,
        }
        # Announced before the row makes the host placeable: a job submitted meanwhile (another RPC
        # thread) could otherwise be "placed" on it before the world heard that it "joined".
        self._notify(events.HOST_JOINED, {"host": host_id, "name": name, "address": address})
        self.store.upsert("hosts", row)
        self.gangs.schedule()
        return {"heartbeat_interval": self.heartbeat_interval, "heartbeat_timeout": self.heartbeat_timeout}

    def _seen(self, host_id: str) -> dict[str, Any]:
        host = self.store.host(host_id)
        if host is None or host["state"] == "removed":
            raise LookupError(f"host {host_id} is not registered with this controller; its agent registers again")
        if host["state"] == "lost":
            # Back after being declared lost: its old members were already given up on (the agent
            # is told to stop them), the host itself can take new work.
            self.store.update("hosts", {"id": host_id}, state="up", last_seen=now())
            self._notify(events.HOST_BACK, {"host": host_id})
        else:
            self.store.update("hosts", {"id": host_id}, last_seen=now())
        return host

    def host_work(
        self, host_id: str, have: list[str], waiting: list[str] | None = None, wait: float = 0.0
    ) -> dict[str, Any]:
        """Members this host should start and those it should stop; blocks up to ``wait`` for news.

        ``waiting`` are members the agent is already stopping or that ended: repeating them is
        no news, so they do not cut the wait short."""
        deadline = time.monotonic() + min(max(wait, 0.0), 10.0)
        while True:
            with self._work:
                version = self._work_version
            self._seen(host_id)
            start, stop = self._work_for(host_id, set(have))
            remaining = deadline - time.monotonic()
            if start or set(stop) - set(waiting or ()) or remaining <= 0 or self._stop.is_set():
                return {"start": start, "stop": stop}
            with self._work:
                if self._work_version == version:
                    self._work.wait(min(remaining, self.heartbeat_interval))

    def _work_for(self, host_id: str, have: set[str]) -> tuple[list[dict[str, Any]], list[str]]:
        start = []
        for m in self.store.live_members_on(host_id):
            if m["id"] in have:
                continue
            if m["stop"]:
                # Told to stop and not on the host (cancelled before the agent started it): nothing runs,
                # so it is over; else it would hold a space and keep its job "cancelling" for ever.
                self.gangs.member_done(m["id"], "stopped", None, "stopped before the host started it")
            elif m["state"] == "assigned":
                start.append(self._spec(m))
            else:  # it was running here and the agent no longer has it
                self.gangs.member_done(m["id"], "lost", None, "the host agent no longer has this member")
        # Spaces the agent no longer holds were deleted by it.
        for held in self.store.all("SELECT member FROM spaces WHERE host = ? AND state != 'removed'", host_id):
            if held["member"] not in have:
                self.store.update("spaces", {"member": held["member"]}, state="removed", updated=now())
        stop = []
        for member_id in sorted(have):
            row = self.store.member(member_id)
            if row is None or row["stop"] or row["state"] in MEMBER_DONE or row["host"] != host_id:
                stop.append(member_id)
        return start, stop

    def _spec(self, member: dict[str, Any]) -> dict[str, Any]:
        job = self.store.job(member["job"])
        assert job is not None
        job.pop("result", None)
        attempt = self.store.one("SELECT * FROM attempts WHERE job = ? AND n = ?", member["job"], member["attempt"])
        assert attempt is not None
        gang = self.store.members(member["job"], member["attempt"])
        addresses = []
        for m in gang:
            host = self.store.host(m["host"])
            addresses.append(host["address"] if host else "")
        env = {**job["env"], **rank_env(job, attempt, member, addresses)}
        return {
            "id": member["id"],
            "job": job["id"],
            "attempt": member["attempt"],
            "rank": member["rank"],
            "file": job["file"],
            "fn": job["fn"],
            "args": job["args"],
            "env": env,
            "gpus": member["gpus"],
            "limits": job["limits"],
            "runtime": job["runtime"],
            "accelerator": job["accelerator"],
            "gpu_count": job["gpu_count"],
            "mlx_hostfile": mlx_hostfile(attempt, addresses),
        }

    def host_report(self, host_id: str, members: list[dict[str, Any]], load: float = 0.0) -> dict[str, Any]:
        self._seen(host_id)
        self.store.update("hosts", {"id": host_id}, load=load)
        for report in members:
            m = self.store.member(report["id"])
            if m is None:
                continue
            if report.get("space"):
                self._record_space(host_id, report)
            if report["state"] == "running":
                if m["state"] == "assigned":
                    self.store.update("members", {"id": m["id"]}, state="running")
                    self._notify(events.JOB_MEMBER_RUNNING, {"job": m["job"], "member": m["id"]})
            elif report["state"] in ("exited", "failed", "lost"):
                result = None
                if report.get("result_format"):
                    result = (report["result_format"], bytes(report.get("result") or b""))
                self.gangs.member_done(
                    m["id"], report["state"], report.get("exit_code"), report.get("reason", ""), result
                )
        return {"ok": True}

    def _record_space(self, host_id: str, report: dict[str, Any]) -> None:
        """Where each member's space is and how its runtime finds it (for `cua jobs show`)."""
        space = report["space"]
        t = now()
        old = self.store.one("SELECT created FROM spaces WHERE member = ?", report["id"])
        self.store.upsert(
            "spaces",
            {
                "member": report["id"],
                "host": host_id,
                "path": space["path"],
                "runtime": space["runtime"],
                "handle": space["handle"],
                "state": report["state"],
                "created": old["created"] if old else t,
                "updated": t,
            },
        )

    def host_logs(self, host_id: str, member: str, offset: int, data: bytes) -> dict[str, Any]:
        """Append a member's log bytes at ``offset`` of its own log; returns where to continue.

        ``accept: False`` tells the agent this member's output no longer belongs in the job's logs
        (its attempt was abandoned), so it stops shipping it."""
        m = self.store.member(member)
        job = self.store.job(m["job"]) if m else None
        if m is None or job is None or m["host"] != host_id or m["attempt"] != job["attempt"] or m["state"] == "lost":
            return {"accept": False, "next": offset}
        end = self.logs.append(m["job"], m["rank"], m["log_base"] + offset, bytes(data))
        return {"accept": True, "next": end - m["log_base"]}

    def host_code(self, job: str) -> bytes:
        path = self.home / "code" / f"{self._job(job)['id']}.tar.gz"
        return path.read_bytes()

    def remove_host(self, host_id: str) -> dict[str, Any]:
        host = self.store.host(host_id)
        if host is None:
            raise LookupError(f"no host {host_id} in this pool; `cua computers` lists them")
        self.gangs.host_lost(host_id, f"host {host['name']} was removed from the pool")
        self.store.update("hosts", {"id": host_id}, state="removed")
        return {"removed": host_id}
