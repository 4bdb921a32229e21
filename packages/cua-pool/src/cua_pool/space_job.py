"""``space_job``: Cua's long-running job inside one Space, over this pool's detached jobs.

Cua documents jobs as one tool, ``space_job``, with an ``action``: ``start`` returns at once with
the job's id and state, the job keeps running when the client goes, and its log is readable from
any byte offset. Here a job is a pool job of one member (``cua run --detach`` underneath): the
command runs under ``/bin/sh -c`` in its own space, its output is the job's log (``cua jobs logs
ID -f`` follows it too), its exit status is the job's, and ``cancel`` stops its process session.
It is never restarted unless asked (``max_restarts`` for a lost computer, ``retries`` for a
non-zero exit), as a command that already ran halfway may not be safe to run again.

What differs from Cua's tool, and says so rather than pretending:

- ``space`` names where it runs: ``None`` or ``"local"`` / ``"local:NAME"`` (this computer's
  pool, which picks a host with a free space); any other Space is refused.
- ``cwd`` is a folder on *this* computer that is shipped into the space (at most 64 MiB, tooling
  folders left out) and the command runs in its copy; without it the command runs in an empty
  space folder.
- ``notify`` needs a Space thread to post to, which this pool has not: ``notify=True`` is refused
  with the way to follow the job instead.
"""

from __future__ import annotations

import io
import tarfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cua_core import RemoteError
from cua_pool.controller import MAX_CODE

__all__ = ["ACTIONS", "space_job"]

ACTIONS = ("start", "status", "logs", "cancel", "list")
RUNNER = "_cua_space_job.py"
_SKIP = {".git", "__pycache__", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
_RUNNER_CODE = textwrap.dedent(
    '''\
    """Runs a space_job's command under /bin/sh -c; its output is the job's log."""

    import subprocess
    import sys


    def run(command):
        sys.stdout.flush()
        code = subprocess.call(["/bin/sh", "-c", command])
        if code != 0:
            raise SystemExit(code if code > 0 else 128 - code)  # killed by a signal: 128 + its number
        return {"exit": 0}
    '''
)


@contextmanager
def _client(address: str | None, controller_key: str | None) -> Iterator[Any]:
    from cua_pool.client import connect, controller_target

    target, key = controller_target(address)
    client = connect(target, controller_key or key, timeout=30.0)
    try:
        yield client
    finally:
        client.close()


def _call(client: Any, method: str, params: dict[str, Any]) -> Any:
    try:
        return client.call(method, params)
    except RemoteError as exc:
        raise ValueError(exc.message) from exc


def _pack(cwd: Path | None) -> bytes:
    def skip(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = Path(info.name).parts
        return None if any(p in _SKIP for p in parts) or info.name.endswith(".pyc") else info

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as tar:
        if cwd is not None:
            if (cwd / RUNNER).exists():
                raise ValueError(f"{cwd / RUNNER}: space_job ships its own file by that name; rename yours")
            for child in sorted(cwd.iterdir()):
                tar.add(child, arcname=child.name, filter=skip)
        data = _RUNNER_CODE.encode()
        info = tarfile.TarInfo(RUNNER)
        info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
        tar.addfile(info, io.BytesIO(data))
    out = buf.getvalue()
    if len(out) > MAX_CODE:
        raise ValueError(f"cwd {cwd} packs to {len(out) >> 20} MiB, over {MAX_CODE >> 20} MiB")
    return out


def _status(info: dict[str, Any]) -> dict[str, Any]:
    job = info["job"]
    last = [m for m in info["members"] if m["attempt"] == job["attempt"]]
    member = last[0] if last else None
    exit_code = member["exit_code"] if member else None
    started, ended = job["started"], job["ended"]
    return {
        "job": job["id"],
        "name": job["env"].get("CUA_SPACE_JOB_NAME", job["fn"]),
        "state": job["state"],
        "exit": exit_code,
        "reason": job["reason"],
        "attempt": job["attempt"],
        "started": started,
        "ended": ended,
        "duration": None if started is None else (ended or time.time()) - started,
    }


def space_job(
    action: str,
    *,
    job: str | None = None,
    name: str | None = None,
    command: str | None = None,
    cwd: str | Path | None = None,
    notify: bool = False,
    offset: int = 0,
    space: str | None = None,
    env: dict[str, str] | None = None,
    max_restarts: int = 0,
    retries: int = 0,
    limit: int = 20,
    address: str | None = None,
    controller_key: str | None = None,
) -> Any:
    """One ``space_job`` action; each returns plain data (JSON-able), as Cua's tool does.

    - ``start`` (``command``, optional ``name``, ``cwd``, ``env``): ``{"job", "name", "state",
      "reason"}`` at once; the job runs on when this process exits.
    - ``status`` (``job``): ``{"job", "name", "state", "exit", "reason", "attempt", "started",
      "ended", "duration"}``; ``exit`` is None until it ends (and for a cancelled job).
    - ``logs`` (``job``, ``offset``): ``{"job", "state", "data", "offset"}``: the log's text from
      byte ``offset`` and the offset to ask for next.
    - ``cancel`` (``job``): ``{"job", "was", "state"}``.
    - ``list``: the space jobs among the pool's newest ``limit`` jobs, each as ``status`` gives it.
    """
    if action not in ACTIONS:
        raise ValueError(f"space_job action {action!r}: one of {', '.join(ACTIONS)}")
    if space is not None and space != "local" and not space.startswith("local:"):
        raise ValueError(
            f"space {space!r}: this pool runs space jobs on its own hosts; use space=None or 'local[:NAME]'"
        )
    if notify:
        raise ValueError(
            "notify needs a Space thread, which this pool has not; follow the job with "
            "`cua jobs logs ID -f` (exits when it ends) or space_job('status', job=ID)"
        )
    if action in ("status", "logs", "cancel") and not job:
        raise ValueError(f"space_job {action!r} needs job=ID")
    with _client(address, controller_key) as client:
        if action == "start":
            if not command or not isinstance(command, str):
                raise ValueError("space_job 'start' needs command='...' (run under /bin/sh -c)")
            folder = None if cwd is None else Path(cwd).expanduser().resolve()
            if folder is not None and not folder.is_dir():
                raise ValueError(f"cwd {cwd}: not a folder")
            label = name or command.split()[0].rsplit("/", 1)[-1]
            reply = _call(
                client,
                "job.submit",
                {
                    "file": RUNNER,
                    "fn": "run",
                    "code": _pack(folder),
                    "args": [command],
                    "env": {**(env or {}), "CUA_SPACE_JOB_NAME": name or command},
                    "retries": retries,
                    "max_restarts": max_restarts,
                    "name": label,
                },
            )
            return {"job": reply["id"], "name": name or command, "state": reply["state"], "reason": reply["reason"]}
        if action == "status":
            return _status(_call(client, "job.show", {"job": job}))
        if action == "cancel":
            return _call(client, "job.cancel", {"job": job})
        if action == "logs":
            reply = _call(client, "job.logs", {"job": job, "rank": 0, "since": int(offset)})
            part = reply["ranks"].get("0", {"data": b"", "offset": int(offset)})
            full = _call(client, "job.show", {"job": job})["job"]["id"]
            return {
                "job": full,
                "state": reply["state"],
                "data": bytes(part["data"]).decode(errors="replace"),
                "offset": part["offset"],
            }
        rows = _call(client, "job.list", {"limit": limit})
        return [_status(_call(client, "job.show", {"job": r["id"]})) for r in rows if r["file"] == RUNNER]
