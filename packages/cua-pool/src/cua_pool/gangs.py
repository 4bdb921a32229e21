"""Placing jobs on hosts and moving gangs through their attempts.

A job's members are placed all-or-nothing on distinct hosts (one member per host, so LOCAL_RANK
is always 0); a job that cannot be placed whole stays pending. When any member of the current
attempt fails or its computer is lost, the others are told to stop, and once every member is
down the job either gets attempt n+1 or fails: a lost computer restarts the gang while
``max_restarts`` remain (3 by default), a failure of the job itself while ``retries`` remain (0
by default). Decisions are taken under the store's lock, so two events about one gang never race.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from cua_pool import events
from cua_pool.logs import LogStore
from cua_pool.store import JOB_DONE, MEMBER_DONE, Store, now

__all__ = ["Gangs", "never_fits", "rank_env"]

Notify = Callable[[str, dict[str, Any]], None]


def _free_gpus(host: dict[str, Any], live: list[dict[str, Any]]) -> list[int]:
    used = {g for m in live for g in m["gpus"]}
    return [g for g in host["gpus"] if g not in used]


def _capable(host: dict[str, Any], job: dict[str, Any]) -> bool:
    """Could ``host`` ever run one member of ``job``, were it up and idle?"""
    if job["accelerator"] == "gpu":
        return bool(len(host["gpus"]) >= max(1, job["gpu_count"]))
    if job["accelerator"] == "apple":
        return "apple" in {a["kind"] for a in host["accelerators"]}
    return True


def never_fits(job: dict[str, Any], hosts: list[dict[str, Any]]) -> str | None:
    """Why ``job`` cannot be placed even with every known host up and idle, or None if it can.

    A gang needs one host per member, so a job asking for more members than there are capable
    hosts would otherwise wait in silence until someone adds computers.
    """
    known = [h for h in hosts if h["state"] != "removed"]
    need = job["nodes_min"]
    if not known:
        return "the pool has no hosts yet; add one with `cua host setup --share spaces` on each computer"
    if _whole_gang(job, hosts):
        return None  # one host takes it all; its runtime (Ray) says in the log what it waits for
    if job.get("runtime") == "ray":
        return (
            "no host of the pool takes Ray gangs: install cua-pool's ray extra where a host agent runs "
            '(pip install "./packages/cua-pool[ray]") and restart that agent (`cua host stop; cua host start`)'
        )
    capable = [h for h in known if _capable(h, job)]
    if len(capable) >= need:
        return None
    count = f"{len(known)} host{'s' if len(known) != 1 else ''}"
    if len(known) < need:
        return (
            f"a gang of {need} needs {need} hosts (one member per host) and the pool has {count}; "
            "add hosts with `cua host setup --share spaces` on each, or ask for fewer with --nodes"
        )
    if job["accelerator"] == "gpu":
        gpus = max(1, job["gpu_count"])
        what = f"{gpus} GPU{'s' if gpus != 1 else ''}"
        most = max(len(h["gpus"]) for h in known)
        fix = (
            "ask for fewer with --nodes"
            if capable
            else f"ask for at most {most} with --gpus"
            if most
            else "add a host with GPUs, or use --accelerator cpu"
        )
    else:
        what = "an Apple accelerator"
        fix = "ask for fewer with --nodes" if capable else "add an Apple silicon host, or use --accelerator cpu"
    have = f"{len(capable)} of the pool's {len(known)} host(s) {'has' if len(capable) == 1 else 'have'} {what}"
    gang = f", and a gang of {need} needs {need} such hosts" if need > 1 else ""
    return f"{have}{gang}; {fix}"


def _whole_gang(job: dict[str, Any], hosts: list[dict[str, Any]]) -> bool:
    """Is ``job`` on a runtime that places gangs itself (a host registered it as such)?"""
    return any(job.get("runtime") in h.get("gang_runtimes", ()) for h in hosts if h["state"] != "removed")


def rank_env(job: dict[str, Any], attempt: dict[str, Any], member: dict[str, Any], hosts: list[str]) -> dict[str, str]:
    """What torch.distributed (env://), torchrun-style code and mlx's ring backend read."""
    world = attempt["world_size"]
    env = {
        "RANK": str(member["rank"]),
        "WORLD_SIZE": str(world),
        "LOCAL_RANK": "0",
        "LOCAL_WORLD_SIZE": "1",
        "GROUP_RANK": str(member["rank"]),
        "NODE_RANK": str(member["rank"]),
        "MASTER_ADDR": attempt["master_addr"],
        "MASTER_PORT": str(attempt["master_port"]),
        "MLX_RANK": str(member["rank"]),
        "MLX_WORLD_SIZE": str(world),
        "CUA_POOL_JOB": job["id"],
        "CUA_POOL_ATTEMPT": str(attempt["n"]),
        "CUA_POOL_RANK": str(member["rank"]),
        "CUA_POOL_MEMBER": member["id"],
    }
    if member["gpus"] or job["accelerator"] == "gpu":
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in member["gpus"])
    elif job["accelerator"] == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""  # a CPU member never sees a GPU another space may own
    return env


def mlx_hostfile(attempt: dict[str, Any], addresses: list[str]) -> list[list[str]]:
    """mlx ring hostfile: one list of ``ip:port`` per rank, on ports after MASTER_PORT."""
    return [[f"{addr}:{attempt['master_port'] + 1 + rank}"] for rank, addr in enumerate(addresses)]


def _restart_policy(job: dict[str, Any], reason: str, *, lost: bool) -> tuple[str, bool, dict[str, int]]:
    """Whether a failed attempt is restarted: the job's reason, the decision and the counter used.

    A lost computer (missed heartbeats, or its agent no longer has the member) draws on
    ``max_restarts``; anything else (a non-zero exit, a member killed) on ``retries``."""
    if lost:
        used, limit = job["restarts"], job["max_restarts"]
        if used < limit:
            return reason, True, {"restarts": used + 1}
        times = f"{limit} time{'s' if limit != 1 else ''}"
        return (
            f"{reason}; not restarted: a lost computer restarts the gang at most {times} "
            f"(--max-restarts {limit}), and it has been restarted {used} time{'s' if used != 1 else ''} for one",
            False,
            {},
        )
    used, limit = job["failures"], job["retries"]
    if used < limit:
        return reason, True, {"failures": used + 1}
    if limit == 0:
        return f"{reason}; not retried: the job itself failed and --retries is 0", False, {}
    return f"{reason}; not retried: the job itself failed {used + 1} times and --retries is {limit}", False, {}


def _verdict(job: dict[str, Any], members: list[dict[str, Any]]) -> tuple[str, str, bool, dict[str, int]] | None:
    """How an attempt failed, from what its members have reported so far (None: none of them failed):
    the attempt's reason, the job's, whether it restarts and the budget that pays for it."""
    bad = [m for m in members if m["state"] in ("lost", "failed", "stopped") or (m["exit_code"] or 0) != 0]
    if not bad:
        return None
    # A lost computer is the pool's failure, not the job's: it restarts the gang from its own budget
    # (max_restarts, on by default), while --retries counts the job's failures.
    lost = next((m for m in bad if m["state"] == "lost"), None)
    first = lost or min(bad, key=lambda m: m["stop"])  # not one the pool stopped because another failed
    why = first["reason"] or f"exit code {first['exit_code']}"
    reason = f"rank {first['rank']} on host {first['host']}: {why}"
    return (reason, *_restart_policy(job, reason, lost=lost is not None))


class Gangs:
    def __init__(self, store: Store, logs: LogStore, notify: Notify, wake_hosts: Callable[[], None]) -> None:
        self.store = store
        self.logs = logs
        self.notify = notify
        self.wake_hosts = wake_hosts

    # -- placement ----------------------------------------------------------------------------

    def schedule(self) -> None:
        """Place every pending job that fits now, oldest first."""
        placed = False
        with self.store.transaction():
            for job in self.store.active_jobs():
                if job["state"] == "pending":
                    placed = self._place(job) or placed
        if placed:
            self.wake_hosts()

    def _eligible(self, job: dict[str, Any]) -> list[tuple[dict[str, Any], list[int]]]:
        out = []
        for host in self.store.hosts():
            if host["state"] != "up":
                continue
            live = self.store.live_members_on(host["id"])
            if len(live) >= host["max_spaces"]:
                continue
            gpus: list[int] = []
            if job["accelerator"] == "gpu":
                free = _free_gpus(host, live)
                if len(free) < job["gpu_count"]:
                    continue
                gpus = free[: job["gpu_count"]]
            elif job["accelerator"] == "apple" and "apple" not in {a["kind"] for a in host["accelerators"]}:
                continue
            out.append((host, gpus, len(live)))
        out.sort(key=lambda item: (item[2], item[0]["load"], item[0]["joined"]))
        return [(h, g) for h, g, _ in out]

    def _whole(self, job: dict[str, Any]) -> list[tuple[dict[str, Any], list[int]]]:
        """For a runtime that places gangs itself: every rank (``--nodes`` MIN of them) on the least busy
        host that offers it; its runtime reserves the real resources, so spaces are not counted."""
        hosts = [h for h in self.store.hosts() if h["state"] == "up" and job["runtime"] in h["gang_runtimes"]]
        if not hosts:
            return []
        host = min(hosts, key=lambda h: (len(self.store.live_members_on(h["id"])), h["load"], h["joined"]))
        return [(host, [])] * job["nodes_min"]

    def _place(self, job: dict[str, Any]) -> bool:
        whole = _whole_gang(job, self.store.hosts())
        eligible = self._whole(job) if whole else self._eligible(job)
        n = min(job["nodes_max"], len(eligible))
        if n < job["nodes_min"]:
            want = job["nodes_min"]
            reason = f"waiting for {want} {job['accelerator']} host(s) with a free space; {len(eligible)} now"
            if whole:
                reason = f"waiting for a host that takes {job['runtime']} gangs to be up"
            never = never_fits(job, self.store.hosts())
            if never:
                reason += f" ({never})"
            if job["reason"] != reason:
                self.store.update("jobs", {"id": job["id"]}, reason=reason)
            return False
        chosen = eligible[:n]
        attempt_n = job["attempt"] + 1
        t = now()
        attempt = {
            "job": job["id"],
            "n": attempt_n,
            "state": "running",
            "world_size": n,
            "master_addr": chosen[0][0]["address"],
            "master_port": random.randint(20000, 39000),
            "started": t,
        }
        self.store.insert("attempts", attempt)
        for rank, (host, gpus) in enumerate(chosen):
            banner = (
                "" if attempt_n == 1 else f"--- cua-pool: attempt {attempt_n} of job {job['id']} on {host['name']} ---"
            )
            base = self.logs.begin(job["id"], rank, banner)
            self.store.insert(
                "members",
                {
                    "id": f"{job['id']}.{attempt_n}.{rank}",
                    "job": job["id"],
                    "attempt": attempt_n,
                    "rank": rank,
                    "host": host["id"],
                    "state": "assigned",
                    "gpus": gpus,
                    "log_base": base,
                    "started": t,
                },
            )
        self.store.update(
            "jobs", {"id": job["id"]}, state="running", attempt=attempt_n, reason="", started=job["started"] or t
        )
        self.notify(events.JOB_PLACED, {"job": job["id"], "attempt": attempt_n, "hosts": [h["id"] for h, _ in chosen]})
        return True

    # -- member and host events ---------------------------------------------------------------

    def member_done(self, member_id: str, state: str, exit_code: int | None, reason: str, result: Any = None) -> None:
        with self.store.transaction():
            member = self.store.member(member_id)
            if member is None or member["state"] in MEMBER_DONE:
                return
            if member["stop"] and state == "exited":
                state = "stopped"
            self.store.update(
                "members", {"id": member_id}, state=state, exit_code=exit_code, reason=reason, ended=now()
            )
            if result is not None and member["rank"] == 0:
                fmt, data = result
                self.store.update("jobs", {"id": member["job"]}, result=data, result_format=fmt)
            self.advance(member["job"])
        self.wake_hosts()

    def host_lost(self, host_id: str, reason: str) -> None:
        with self.store.transaction():
            self.store.update("hosts", {"id": host_id}, state="lost")
            jobs = set()
            for member in self.store.live_members_on(host_id):
                self.store.update("members", {"id": member["id"]}, state="lost", reason=reason, ended=now())
                jobs.add(member["job"])
            for job in sorted(jobs):
                self.advance(job)
        self.notify(events.HOST_LOST, {"host": host_id, "reason": reason})
        self.wake_hosts()

    def cancel(self, job_id: str) -> str:
        with self.store.transaction():
            job = self.store.job(job_id)
            assert job is not None
            if job["state"] in JOB_DONE:
                return str(job["state"])
            live = [m for m in self.store.members(job_id) if m["state"] not in MEMBER_DONE]
            for member in live:
                self.store.update("members", {"id": member["id"]}, stop=1)
            state = "cancelling" if live else "cancelled"
            self.store.update("jobs", {"id": job_id}, state=state, reason="cancelled by the user", ended=None)
            if state == "cancelled":
                self._finish(job_id, "cancelled")
        self.wake_hosts()
        return state

    def advance(self, job_id: str) -> None:
        """Move a job on after any change to its members."""
        job = self.store.job(job_id)
        if job is None or job["state"] in JOB_DONE or job["attempt"] == 0:
            return
        members = self.store.members(job_id, job["attempt"])
        down = all(m["state"] in MEMBER_DONE for m in members)
        state = job["state"]
        if state == "running":
            verdict = _verdict(job, members)
            if verdict is not None:
                reason, job_reason, retry, _ = verdict
                self.store.update(
                    "attempts", {"job": job_id, "n": job["attempt"]}, state="failed", reason=reason, ended=now()
                )
                for m in members:
                    if m["state"] not in MEMBER_DONE:
                        self.store.update("members", {"id": m["id"]}, stop=1)
                state = "restarting" if retry else "failing"
                self.store.update("jobs", {"id": job_id}, state=state, reason=job_reason)
                self.notify(events.JOB_ATTEMPT_FAILED, {"job": job_id, "attempt": job["attempt"], "reason": reason})
            elif down:
                self.store.update("attempts", {"job": job_id, "n": job["attempt"]}, state="succeeded", ended=now())
                self._finish(job_id, "succeeded")
                return
        if state in ("restarting", "failing") and down:
            # Decided again once every member is down, and only then counted: a rank whose peer's computer
            # died usually fails first (its collective breaks at once), while the loss itself is reported
            # seconds later; the gang was lost, and restarts from --max-restarts, not --retries.
            verdict = _verdict(job, members)
            assert verdict is not None  # a member failed, or the state would still be "running"
            reason, job_reason, retry, used = verdict
            self.store.update("attempts", {"job": job_id, "n": job["attempt"]}, reason=reason)
            self.store.update("jobs", {"id": job_id}, reason=job_reason, **used)
            if retry:
                self.store.update("jobs", {"id": job_id}, state="pending")
                self.notify(events.JOB_RESTARTING, {"job": job_id, "attempt": job["attempt"] + 1})
            else:
                self._finish(job_id, "failed")
        elif state == "cancelling" and down:
            self._finish(job_id, "cancelled")

    def _finish(self, job_id: str, state: str) -> None:
        topic = events.job_ended(state)  # an unknown state raises before anything is written
        self.store.update("jobs", {"id": job_id}, state=state, ended=now())
        self.notify(topic, {"job": job_id})
