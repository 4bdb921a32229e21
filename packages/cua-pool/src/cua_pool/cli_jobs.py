"""`cua run`, `cua jobs ...` and `cua computers`."""

from __future__ import annotations

import ast
import difflib
import io
import json
import sys
import tarfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from cua_core import CuaError, RemoteError, RpcTimeout
from cua_pool.controller import DEFAULT_MAX_RESTARTS

__all__ = ["register"]

MAX_CODE = 64 << 20
DONE = ("succeeded", "failed", "cancelled")
RECONNECT = 60.0  # how long `logs -f` waits for a restarting controller
_SKIP = {".git", "__pycache__", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def _client(ctx: click.Context, timeout: float = 30.0) -> Any:
    from cua_pool.client import connect, controller_target

    try:
        address, key = controller_target(ctx.obj.controller if ctx.obj else None)
        return connect(address, key, timeout=timeout)
    except (CuaError, OSError, ValueError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from exc


def _call(client: Any, method: str, params: dict[str, Any], timeout: float | None = None) -> Any:
    try:
        return client.call(method, params, timeout=timeout)
    except RemoteError as exc:
        raise click.ClickException(exc.message) from exc
    except CuaError as exc:
        raise click.ClickException(str(exc)) from exc


def pack_code(path: Path) -> bytes:
    """The job's file and its folder, as a tar.gz (tooling folders left out)."""

    def skip(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = Path(info.name).parts
        return None if any(p in _SKIP for p in parts) or info.name.endswith(".pyc") else info

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as tar:
        for child in sorted(path.parent.iterdir()):
            tar.add(child, arcname=child.name, filter=skip)
    data = buf.getvalue()
    if len(data) > MAX_CODE:
        raise click.ClickException(
            f"the job's folder {path.parent} packs to {len(data) >> 20} MiB, over {MAX_CODE >> 20} MiB; "
            "move the job file to a folder holding only its code"
        )
    return data


def parse_target(target: str) -> tuple[Path, str]:
    file, sep, fn = target.partition("::")
    if not sep or not file or not fn:
        raise click.BadParameter(f"{target!r}: write FILE::FUNCTION, e.g. train.py::main", param_hint="TARGET")
    path = Path(file)
    if not path.is_file():
        raise click.BadParameter(f"{file}: no such file", param_hint="TARGET")
    check_function(path, fn)
    return path.resolve(), fn


def _bindings(body: list[ast.stmt]) -> Iterator[tuple[str, bool]]:
    """Names a module binds at its top level, each with whether it is a function definition.

    Blocks that run at import (``if``, ``try``, ``with``, loops) count; bodies of functions and
    classes do not. A star import yields ``("*", False)``: it may bind anything.
    """
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, True
        elif isinstance(node, ast.ClassDef):
            yield node.name, False
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                yield (alias.asname or alias.name.split(".")[0]), False
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield name.id, False
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, []):
                    inner = child.body if isinstance(child, ast.ExceptHandler | ast.match_case) else [child]
                    yield from _bindings(inner)


def check_function(path: Path, fn: str) -> None:
    """Refuse a target whose file does not define ``fn``, before anything is shipped.

    The file is read with ``ast``, never imported: it may need packages only the pool's hosts
    have, and importing it here would run its top-level code on the wrong computer.
    """
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as exc:
        raise click.BadParameter(
            f"{path}, line {exc.lineno}: {exc.msg}; fix the file first", param_hint="TARGET"
        ) from None
    except (OSError, ValueError) as exc:
        raise click.BadParameter(f"{path}: cannot read it as Python ({exc})", param_hint="TARGET") from None
    head = fn.split(".", maxsplit=1)[0]
    bound = list(_bindings(tree.body))
    if any(name in (head, "*", "__getattr__") for name, _ in bound):
        return  # found, or the module makes names at run time (a star import, a module __getattr__)
    functions = sorted({name for name, is_def in bound if is_def})
    close = difflib.get_close_matches(head, functions, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    listed = f"its top-level functions: {', '.join(functions)}" if functions else "it defines no top-level function"
    raise click.BadParameter(f"{path} defines no {head!r}; {hint}{listed}", param_hint="TARGET")


def check_runtime(runtime: str) -> None:
    """The runtime must be one this computer's plugins register; a typo would fail on the host."""
    from cua_core import PluginError
    from cua_pool.registry import space_runtimes

    try:
        factory = space_runtimes()[runtime]
    except PluginError as exc:
        raise click.BadParameter(
            f"{exc}; plugins add runtimes through cua_pool_register_space_runtimes", param_hint="--runtime"
        ) from None
    if getattr(factory, "places_gangs", False):
        raise click.BadParameter(f"{runtime} places whole gangs: use --on {runtime}", param_hint="--runtime")


def parse_on(text: str) -> tuple[str, str]:
    """``--on``: ``pool``, or ``ray`` with an optional cluster address after a colon."""
    where, sep, address = text.partition(":")
    if where == "pool" and not sep:
        return "pool", ""
    if where == "ray":
        if sep and not address.strip():
            raise click.BadParameter("nothing after the colon: write --on ray or --on ray:HOST:PORT", param_hint="--on")
        return "ray", address.strip()
    raise click.BadParameter(f"{text!r}: choose pool, ray or ray:HOST:PORT", param_hint="--on")


def parse_nodes(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition(":")
    try:
        nodes = (int(lo), int(hi)) if sep else (int(lo), int(lo))
    except ValueError:
        raise click.BadParameter(f"{text!r}: write N or MIN:MAX, e.g. 2 or 2:4", param_hint="--nodes") from None
    if not 1 <= nodes[0] <= nodes[1]:
        raise click.BadParameter(f"{text!r}: need 1 <= MIN <= MAX", param_hint="--nodes")
    return nodes


def parse_env(items: tuple[str, ...]) -> dict[str, str]:
    env = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r}: write KEY=VALUE", param_hint="--env")
        env[key] = value
    return env


def parse_arg(text: str) -> Any:
    """JSON when it parses (numbers, lists, quoted strings), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class LogPrinter:
    """Prints whole lines as they arrive, each prefixed with its rank and host unless one rank is shown."""

    def __init__(self, prefix: bool) -> None:
        self.prefix = prefix
        self.partial: dict[str, bytes] = {}
        self.lines = 0

    def feed(self, rank: str, host: str, data: bytes, flush: bool = False) -> None:
        buf = self.partial.get(rank, b"") + data
        lines = buf.split(b"\n")
        rest = lines.pop()
        if flush and rest:
            lines.append(rest)
            rest = b""
        self.partial[rank] = rest
        out = sys.stdout
        self.lines += len(lines)
        for line in lines:
            text = line.decode(errors="replace")
            out.write(f"[rank {rank} {host}] {text}\n" if self.prefix else text + "\n")
        if lines:
            out.flush()


def _logs_call(client: Any, params: dict[str, Any], patient: bool) -> Any:
    """One ``job.logs`` call; a follower waits out a controller restart instead of giving up."""
    deadline = time.monotonic() + (RECONNECT if patient else 0)
    while True:
        try:
            return client.call("job.logs", params, timeout=30)
        except RemoteError as exc:
            raise click.ClickException(exc.message) from exc
        except RpcTimeout as exc:  # ServerLost included: the controller died or restarts
            if time.monotonic() > deadline:
                raise click.ClickException(str(exc)) from exc
            time.sleep(0.5)


class Waiting:
    """Says on stderr why a job waits, once per reason: silence while pending looks like a hang."""

    def __init__(self, job: str) -> None:
        self.job = job
        self.said = ""

    def __call__(self, state: str, reason: str) -> None:
        if state != "pending":
            if self.said and state not in DONE:
                click.echo(f"job {self.job} {state}", err=True)
            self.said = ""
            return
        why = reason or "waiting to be placed"
        if why != self.said:
            click.echo(f"job {self.job} pending: {why}", err=True)
            self.said = why


def follow(
    client: Any,
    job: str,
    rank: int | None,
    since: int,
    follow_live: bool,
    on_state: Callable[[str, str], None] | None = None,
) -> tuple[str, str, int]:
    """Print the job's logs from ``since``; with ``follow_live`` until the job ends.

    Returns the job's last state, reason and how many lines were printed. ``on_state(state,
    reason)`` hears the job's state after every reply (to say why it waits).
    """
    offsets: dict[str, int] = {}
    printer = LogPrinter(prefix=rank is None)
    hosts: dict[str, str] = {}
    while True:
        params = {"job": job, "offsets": offsets, "rank": rank, "since": since, "wait": 2.0 if follow_live else 0.0}
        reply = _logs_call(client, params, follow_live)
        if on_state is not None:
            on_state(str(reply["state"]), str(reply.get("reason") or ""))
        got = False
        for r, part in sorted(reply["ranks"].items(), key=lambda kv: int(kv[0])):
            hosts[r] = part["host"]
            if part["data"]:
                got = True
                printer.feed(r, part["host"], bytes(part["data"]))
            offsets[r] = part["offset"]
        done = reply["state"] in ("succeeded", "failed", "cancelled")
        if not follow_live or (done and not got):
            for r in printer.partial:
                printer.feed(r, hosts.get(r, "?"), b"", flush=True)
            return str(reply["state"]), str(reply.get("reason") or ""), printer.lines


@click.command("run", context_settings={"ignore_unknown_options": False})
@click.argument("target")
@click.argument("args", nargs=-1)
@click.option("--nodes", default="1", show_default=True, help="N, or MIN:MAX hosts, all-or-nothing.")
@click.option("--accelerator", type=click.Choice(["cpu", "gpu", "apple"]), default="cpu", show_default=True)
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True, help="GPUs per member (gpu).")
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Restarts when the job itself fails (a member exits non-zero).",
)
@click.option(
    "--max-restarts",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_RESTARTS,
    show_default=True,
    help="Gang restarts when one of its computers is lost (0: fail instead).",
)
@click.option("--env", "env", multiple=True, help="KEY=VALUE for every member (repeatable).")
@click.option("--memory-mb", type=click.IntRange(min=16), help="Address-space limit per member, MiB.")
@click.option("--runtime", default="process", show_default=True, help="Space runtime: process, docker, or a plugin's.")
@click.option("--image", help="Container image for --runtime docker (it needs python3).")
@click.option(
    "--on",
    "on",
    default="pool",
    show_default=True,
    metavar="pool|ray[:ADDRESS]",
    help="Where the gang runs: the pool's hosts, one member each, or a Ray cluster as one placement group "
    "(one member per node; ADDRESS as `ray start` printed it, default the cluster on the agent's computer).",
)
@click.option("--detach", is_flag=True, help="Print the job id and return; the job runs on.")
@click.pass_context
def run(
    ctx: click.Context,
    target: str,
    args: tuple[str, ...],
    nodes: str,
    accelerator: str,
    gpus: int,
    retries: int,
    max_restarts: int,
    env: tuple[str, ...],
    memory_mb: int | None,
    runtime: str,
    image: str | None,
    on: str,
    detach: bool,
) -> None:
    """Run FILE::FUNCTION [ARGS...] in spaces; stream its logs (rank 0's return value is kept)."""
    path, fn = parse_target(target)
    lo, hi = parse_nodes(nodes)
    source = ctx.get_parameter_source
    where, ray_address = parse_on(on)
    if where == "ray":
        if source("runtime") is click.core.ParameterSource.COMMANDLINE or image:
            raise click.BadParameter(
                "on Ray each member is a Ray actor: --runtime and --image apply to the pool's hosts", param_hint="--on"
            )
        if lo != hi:
            raise click.BadParameter(
                f"a gang on Ray has a fixed size (one member per node): --nodes N, not {nodes}", param_hint="--nodes"
            )
        if accelerator == "apple":
            raise click.BadParameter(
                "Ray places cpu and gpu members; apple runs on the pool's hosts", param_hint="--on"
            )
        runtime = "ray"  # checked where it runs: the host agent that drives the cluster
    else:
        check_runtime(runtime)
    if source("gpus") is click.core.ParameterSource.COMMANDLINE and accelerator != "gpu":
        raise click.BadParameter(f"--gpus applies to --accelerator gpu, not {accelerator}", param_hint="--gpus")
    if image and runtime == "process":
        raise click.BadParameter("--image needs a container runtime: add --runtime docker", param_hint="--image")
    params = {
        "file": path.name,
        "fn": fn,
        "code": pack_code(path),
        "args": [parse_arg(a) for a in args],
        "env": {
            **parse_env(env),
            **({"CUA_POOL_IMAGE": image} if image else {}),
            **({"CUA_RAY_ADDRESS": ray_address} if ray_address else {}),
        },
        "nodes_min": lo,
        "nodes_max": hi,
        "accelerator": accelerator,
        "gpus": gpus,
        "retries": retries,
        "max_restarts": max_restarts,
        "limits": {"memory_mb": memory_mb} if memory_mb else {},
        "runtime": runtime,
    }
    _submit(ctx, params, detach)


def _submit(ctx: click.Context, params: dict[str, Any], detach: bool) -> None:
    """Submit a job (once the pool could ever place it) and, unless ``detach``, stream its logs to its end:
    exit status 1 when it did not succeed, 130 on Ctrl-C (the job runs on)."""
    with _client(ctx) as client:
        from cua_pool.gangs import never_fits

        accelerator = params["accelerator"]
        gpus = params["gpus"] if accelerator == "gpu" else 0
        spec = {"nodes_min": params["nodes_min"], "accelerator": accelerator, "gpu_count": gpus}
        spec["runtime"] = params["runtime"]
        never = never_fits(spec, _call(client, "pool.computers", {}))
        if never:
            raise click.ClickException(f"this job could never start in this pool: {never}")
        reply = _call(client, "job.submit", params)
        job = reply["id"]
        waiting = Waiting(job)
        if detach:
            click.echo(job)
            waiting(str(reply.get("state", "")), str(reply.get("reason") or ""))
            return
        click.echo(f"job {job} submitted; `cua jobs logs {job} -f` to follow, Ctrl-C leaves it running", err=True)
        waiting(str(reply.get("state", "")), str(reply.get("reason") or ""))
        try:
            state = follow(client, job, None, 0, True, waiting)[0]
        except KeyboardInterrupt:
            click.echo(f"\nleft job {job} running; `cua jobs logs {job} -f` follows it again", err=True)
            ctx.exit(130)  # it has not finished: a script must not take this for a success
    click.echo(f"job {job} {state}", err=True)
    if state != "succeeded":
        ctx.exit(1)


@click.group("jobs", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def jobs(ctx: click.Context, as_json: bool) -> None:
    """List jobs (newest first); subcommands show, follow, cancel and fetch one."""
    if ctx.invoked_subcommand is not None:
        return
    with _client(ctx) as client:
        rows = _call(client, "job.list", {})
    if as_json:
        click.echo(json.dumps(rows))
        return
    if not rows:
        click.echo("no jobs in this pool yet; `cua run FILE::FUNCTION` submits one", err=True)
        return
    width = max(11, *(len(j["id"]) + 1 for j in rows))
    click.echo(f"{'ID':<{width}} {'STATE':<11} {'NODES':<6} {'ACCEL':<6} {'TRY':<4} {'AGE':>7}  TARGET")
    for j in rows:
        nodes = str(j["nodes_min"]) if j["nodes_min"] == j["nodes_max"] else f"{j['nodes_min']}:{j['nodes_max']}"
        age = _age(j["submitted"])
        click.echo(
            f"{j['id']:<{width}} {j['state']:<11} {nodes:<6} {j['accelerator']:<6} {j['attempt']:<4} {age:>7}  "
            f"{j['file']}::{j['fn']}"
        )


@jobs.command("show")
@click.argument("job")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def show(ctx: click.Context, job: str, as_json: bool) -> None:
    """A job's members and attempts."""
    with _client(ctx) as client:
        info = _call(client, "job.show", {"job": job})
    if as_json:
        click.echo(json.dumps(info))
        return
    j = info["job"]
    click.echo(
        f"job {j['id']}  {j['file']}::{j['fn']}  {j['state']}  attempt {j['attempt']}  "
        f"(retries {j['failures']}/{j['retries']} for the job's failures, "
        f"restarts {j['restarts']}/{j['max_restarts']} for lost computers)"
    )
    if j["reason"]:
        click.echo(f"  reason: {j['reason']}")
    for a in info["attempts"]:
        extra = f"  ({a['reason']})" if a["reason"] else ""
        click.echo(
            f"  attempt {a['n']}: {a['state']}, world {a['world_size']}, "
            f"master {a['master_addr']}:{a['master_port']}{extra}"
        )
        for m in (m for m in info["members"] if m["attempt"] == a["n"]):
            code = "" if m["exit_code"] is None else f" exit {m['exit_code']}"
            gpus = f" gpus {m['gpus']}" if m["gpus"] else ""
            click.echo(f"    rank {m['rank']} on {m['host_name']}: {m['state']}{code}{gpus}")


@jobs.command("logs")
@click.argument("job")
@click.option("-f", "--follow", "follow_live", is_flag=True, help="Keep printing until the job ends.")
@click.option("--rank", type=click.IntRange(min=0), help="Only this rank, without prefixes.")
@click.option("--since", type=click.IntRange(min=0), default=0, help="Start at this byte offset of each rank's log.")
@click.pass_context
def logs(ctx: click.Context, job: str, follow_live: bool, rank: int | None, since: int) -> None:
    """A job's logs: every rank's lines prefixed `[rank R host]`, or one rank's."""
    with _client(ctx) as client:
        state, reason, printed = follow(client, job, rank, since, follow_live, Waiting(job) if follow_live else None)
    if not printed and not follow_live:  # an empty answer would look like a job that printed nothing
        where = f"rank {rank}" if rank is not None else "any rank"
        since_text = f" from byte {since}" if since else ""
        why = f": {reason}" if reason and state not in ("running", "succeeded") else ""
        click.echo(f"no log lines from {where}{since_text} of job {job} ({state}{why})", err=True)
    if follow_live and state != "succeeded":
        ctx.exit(1)  # as `cua run`: following to the end reports how the job ended


@jobs.command("cancel")
@click.argument("job")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=15.0,
    show_default=True,
    help="Wait this long for every member.",
)
@click.pass_context
def cancel(ctx: click.Context, job: str, timeout: float) -> None:
    """Stop every member of a job (SIGTERM, then SIGKILL after a grace period)."""
    with _client(ctx) as client:
        reply = _call(client, "job.cancel", {"job": job})
        if reply["state"] in ("succeeded", "failed") or reply.get("was") in DONE:
            raise click.ClickException(f"job {reply['id']} had already {reply['state']}; nothing to cancel")
        deadline = time.monotonic() + timeout
        state = reply["state"]
        while state not in DONE and time.monotonic() < deadline:
            time.sleep(0.1)
            state = _call(client, "job.show", {"job": reply["id"]})["job"]["state"]
    click.echo(f"job {reply['id']}: {state}")
    if state not in DONE:
        raise click.ClickException(f"job {reply['id']} still has members running after {timeout:g} s")


@jobs.command("result")
@click.argument("job")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the value here.")
@click.pass_context
def result(ctx: click.Context, job: str, output: Path | None) -> None:
    """Rank 0's return value: JSON printed (or written with -o); a pickled value needs -o."""
    with _client(ctx) as client:
        reply = _call(client, "job.result", {"job": job})
    if reply["format"] is None:
        raise click.ClickException(_no_result(reply["id"], reply["state"]))
    if output is not None:
        output.write_bytes(bytes(reply["data"]))
        click.echo(f"wrote {len(reply['data'])} bytes ({reply['format']}) to {output}", err=True)
    elif reply["format"] == "json":
        click.echo(bytes(reply["data"]).decode())
    else:
        raise click.ClickException(
            f"job {reply['id']}'s result is a pickle ({len(reply['data'])} bytes); save it with -o FILE"
        )


@click.command("computers")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def computers(ctx: click.Context, as_json: bool) -> None:
    """The pool's hosts: state, os/arch, load, jobs, accelerators."""
    with _client(ctx) as client:
        rows = _call(client, "pool.computers", {})
    if as_json:
        click.echo(json.dumps(rows))
        return
    if not rows:
        click.echo("no hosts in this pool yet; `cua host setup --share spaces` on a computer adds it", err=True)
        return
    click.echo(
        f"{'NAME':<16} {'STATE':<8} {'OS/ARCH':<16} {'CPUS':>4} {'LOAD':>5} {'SPACES':>7}  {'ACCELERATORS':<20} JOBS"
    )
    for h in rows:
        accel = ",".join(a.get("name", a["kind"]) for a in h["accelerators"]) or "-"
        spaces = f"{h['spaces']}/{h['max_spaces']}"
        click.echo(
            f"{h['name']:<16} {h['state']:<8} {h['os'] + '/' + h['arch']:<16} {h['cpus']:>4} {h['load']:>5.2f} "
            f"{spaces:>7}  {accel:<20} {','.join(h['jobs']) or '-'}"
        )


def register(main: click.Group) -> None:
    """Add ``run``, ``jobs`` (with ``show``, ``logs``, ``cancel``, ``result``) and ``computers`` to ``main``."""
    for command in (run, jobs, computers):
        main.add_command(command)


def _no_result(job: str, state: str) -> str:
    """Why a job holds no result, by its state: only a job that succeeded can have one."""
    if state == "cancelled":
        return f"job {job} was cancelled, so it has no result"
    if state == "failed":
        return f"job {job} failed, so it has no result; `cua jobs show {job}` says why"
    if state == "succeeded":
        return f"job {job} succeeded but has no result: rank 0's return value never reached the controller"
    return f"job {job} is {state} and has no result yet; `cua jobs logs {job} -f` follows it to the end"


def _age(ts: float) -> str:
    s = max(0, int(time.time() - ts))
    return f"{s}s" if s < 120 else f"{s // 60}m" if s < 7200 else f"{s // 3600}h"
