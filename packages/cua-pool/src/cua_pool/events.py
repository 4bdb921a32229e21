"""cua-pool's bus topics and their payloads, in one place: the controller, the TUI and tests use these.

The controller checks each payload before it publishes (``check``): a drifted payload is a bug and
raises, in tests and in production alike, while a bus that cannot be reached never stops the pool.
The table in docs/bus-topics.md is written from here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cua_core import check_payload

__all__ = [
    "FIELDS_DOC",
    "HOST_BACK",
    "HOST_JOINED",
    "HOST_LOST",
    "JOB_ATTEMPT_FAILED",
    "JOB_CANCELLED",
    "JOB_ENDED",
    "JOB_FAILED",
    "JOB_MEMBER_RUNNING",
    "JOB_PLACED",
    "JOB_RESTARTING",
    "JOB_SUBMITTED",
    "JOB_SUCCEEDED",
    "PACKAGE",
    "TOPICS",
    "VERSION",
    "AttemptFailed",
    "HostBack",
    "HostJoined",
    "HostLost",
    "JobEnded",
    "JobPlaced",
    "JobRestarting",
    "JobSubmitted",
    "MemberRunning",
    "check",
    "job_ended",
]

PACKAGE = "cua-pool"
VERSION = 1  # the contract's: bump it when a topic or field is renamed, removed or changes meaning

HOST_JOINED = "pool.host.joined"
HOST_BACK = "pool.host.back"
HOST_LOST = "pool.host.lost"
JOB_SUBMITTED = "pool.job.submitted"
JOB_PLACED = "pool.job.placed"
JOB_MEMBER_RUNNING = "pool.job.member_running"
JOB_ATTEMPT_FAILED = "pool.job.attempt_failed"
JOB_RESTARTING = "pool.job.restarting"
JOB_SUCCEEDED = "pool.job.succeeded"
JOB_FAILED = "pool.job.failed"
JOB_CANCELLED = "pool.job.cancelled"

# A job's final state -> its topic.
JOB_ENDED = {"succeeded": JOB_SUCCEEDED, "failed": JOB_FAILED, "cancelled": JOB_CANCELLED}


class HostJoined(NamedTuple):
    """A computer's host agent registered (joining, or again after the agent restarted)."""

    host: str
    name: str
    address: str


class HostBack(NamedTuple):
    """A computer declared lost was heard from again and takes new work."""

    host: str


class HostLost(NamedTuple):
    """A computer missed its heartbeats or was removed; its members count as lost."""

    host: str
    reason: str


class JobSubmitted(NamedTuple):
    """A client submitted a job."""

    job: str
    file: str
    fn: str


class JobPlaced(NamedTuple):
    """An attempt of the job was placed: one member per host, rank 0 on the first."""

    job: str
    attempt: int
    hosts: list[str]


class MemberRunning(NamedTuple):
    """A host agent started a member of the job."""

    job: str
    member: str


class AttemptFailed(NamedTuple):
    """A member of the job's attempt failed or was lost; the gang is being stopped."""

    job: str
    attempt: int
    reason: str


class JobRestarting(NamedTuple):
    """The failed attempt's members are all down; the job waits to be placed again."""

    job: str
    attempt: int


class JobEnded(NamedTuple):
    """The job ended: succeeded, failed or cancelled (the topic says which)."""

    job: str


TOPICS: dict[str, type[Any]] = {
    HOST_JOINED: HostJoined,
    HOST_BACK: HostBack,
    HOST_LOST: HostLost,
    JOB_SUBMITTED: JobSubmitted,
    JOB_PLACED: JobPlaced,
    JOB_MEMBER_RUNNING: MemberRunning,
    JOB_ATTEMPT_FAILED: AttemptFailed,
    JOB_RESTARTING: JobRestarting,
    **dict.fromkeys(JOB_ENDED.values(), JobEnded),
}

FIELDS_DOC = {
    "host": "the host's id (`cua computers`)",
    "name": "the host's name",
    "address": "where the host agent's computer is reached",
    "reason": "why, in words",
    "job": "the job's id",
    "file": "the submitted file, as the client named it",
    "fn": "the function run in it",
    "attempt": "1 for the first attempt",
    "pool.job.restarting:attempt": "the attempt that comes next",
    "hosts": "the hosts of the attempt's members, by rank",
    "member": "the member's id",
}


def check(topic: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as published on ``topic``; a missing or unknown field, or a wrong type, raises ValueError."""
    return check_payload(TOPICS, topic, body, package=PACKAGE)


def job_ended(state: str) -> str:
    """The topic of a job that ended in ``state``; an unknown state is a bug and raises ValueError."""
    try:
        return JOB_ENDED[state]
    except KeyError:
        raise ValueError(f"a job cannot end in state {state!r}; it ends {', '.join(JOB_ENDED)}") from None
