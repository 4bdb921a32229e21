"""`cua`: the pool from a terminal. Every command works on a local pool with no setup at all.

Pool and host commands live here; running and watching jobs live in ``cli_jobs``.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import click

from cua_core import CONTEXT, CuaError, CuaGroup
from cua_pool.client import stop_spaces
from cua_pool.config import (
    LOCAL,
    allow_list,
    client_security,
    host_config,
    keypair,
    resolve,
    save_client_config,
    save_host_config,
    server_security,
)
from cua_pool.daemons import hold_pidfile, running_pid, stop_pid
from cua_pool.paths import controller_home, host_home, local_controller_address

__all__ = ["main"]


class Context:
    def __init__(self, controller: str | None) -> None:
        self.controller = controller


@click.group(cls=CuaGroup, context_settings=CONTEXT)
@click.version_option(package_name="cua-pool")
@click.option("--controller", envvar="CUA_POOL_CONTROLLER", help="Controller address (default: this computer's pool).")
@click.option("-v", "--verbose", is_flag=True, help="Log debug messages.")
@click.pass_context
def main(ctx: click.Context, controller: str | None, verbose: bool) -> None:
    """Your computers as a pool: run functions in spaces, as gangs, with logs that outlive you."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, format="%(levelname)s %(name)s %(message)s")
    ctx.obj = Context(controller)


def fail(exc: BaseException) -> click.ClickException:
    message = exc.message if hasattr(exc, "message") and isinstance(exc.message, str) else str(exc)
    return click.ClickException(message)


# -- pool ---------------------------------------------------------------------------------------


@main.group()
def pool() -> None:
    """The controller: where hosts, jobs and logs are kept."""


@pool.command("serve")
@click.option("--address", "addresses", multiple=True, help="Also listen here, e.g. tcp://10.0.0.1:7070 (CURVE).")
@click.option("--no-ipc", is_flag=True, help="Do not listen on this computer's ipc socket.")
@click.option("--heartbeat-interval", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True)
@click.option(
    "--heartbeat-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=5.0,
    show_default=True,
    help="A host silent this long is lost.",
)
def pool_serve(addresses: tuple[str, ...], no_ipc: bool, heartbeat_interval: float, heartbeat_timeout: float) -> None:
    """Run the controller in the foreground (`cua` starts it by itself for a local pool)."""
    from cua_pool.controller import Controller

    wanted = ([] if no_ipc else [local_controller_address()]) + list(addresses)
    if not wanted:
        raise click.UsageError("nothing to listen on: drop --no-ipc or give --address")
    try:
        _lock = hold_pidfile(controller_home() / "controller.pid", "the pool controller")
        tcp = any(a.startswith("tcp://") for a in wanted)
        controller = Controller(
            wanted,
            security=server_security() if tcp else None,
            heartbeat_interval=heartbeat_interval,
            heartbeat_timeout=heartbeat_timeout,
        ).start()
    except (CuaError, OSError, ValueError, RuntimeError) as exc:
        raise fail(exc) from exc
    click.echo(
        f"cua pool controller on {', '.join(controller.addresses)} (pid {os.getpid()}, state in {controller.home})",
        err=True,
    )
    if tcp:
        click.echo(f"controller key {keypair().public.decode()}", err=True)
    _serve_until_signal(controller.close)


def _serve_until_signal(close: Any) -> None:
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    try:
        while not done.wait(0.5):
            pass
    finally:
        close()


@pool.command("status")
def pool_status() -> None:
    """Is the local controller running, and where."""
    pid = running_pid(controller_home() / "controller.pid")
    if pid is None:
        click.echo("controller: stopped (it starts on first use)")
        return
    click.echo(f"controller: running, pid {pid}, {local_controller_address()}")


@pool.command("stop")
def pool_stop() -> None:
    """Stop only the local controller: jobs and the host agent run on, and the next command starts
    it again with nothing lost. `cua pool down` stops everything instead."""
    pid = running_pid(controller_home() / "controller.pid")
    if pid is None:
        raise CuaError(
            "the local controller is not running; nothing to stop "
            "(`cua pool down` stops the host agent and the spaces' members too)"
        )
    stop_pid(pid)
    click.echo(f"controller: stopped (pid {pid})")
    if running_pid(host_home() / "agent.pid") is not None:
        click.echo("host agent: still running, with its jobs (`cua pool down` stops them too)")


@pool.command("down")
def pool_down() -> None:
    """Stop every pool process of this computer: the controller, the host agent and the members
    running in its spaces (SIGTERM, SIGKILL after 3 s).

    Their jobs are reported as ended (failed, or retried while --retries remain) when the pool
    next starts, with every line they logged; the next `cua` command starts the pool again.
    """
    from cua_pool.client import down

    stopped, problems = down()
    for line in stopped:
        click.echo(line)
    if problems:
        raise CuaError("not everything stopped: " + "; ".join(problems))
    if not stopped:
        raise CuaError("nothing to stop: no pool controller, host agent or space member runs on this computer")
    if any(line.startswith("member ") for line in stopped):
        click.echo("their jobs are reported as ended, with their logs, when the pool next starts")


# -- host ---------------------------------------------------------------------------------------


@main.group()
def host() -> None:
    """This computer as a host of the pool."""


@host.command("setup")
@click.option("--share", type=click.Choice(["spaces"]), required=True, help="What this computer shares: spaces.")
@click.option("--max-spaces", type=click.IntRange(min=1), help="At most this many spaces at once (default: CPUs).")
@click.option("--controller", "controller", help="The pool's controller (default: this computer's own pool).")
@click.option("--controller-key", help="The controller's public key (`cua host pair` on the controller prints it).")
@click.option("--advertise", help="The address other hosts reach this one at (default: the route to the controller).")
@click.option("--name", help="This host's name in the pool (default: the host name).")
@click.option("--no-start", is_flag=True, help="Only write the settings.")
def host_setup(
    share: str,
    max_spaces: int | None,
    controller: str | None,
    controller_key: str | None,
    advertise: str | None,
    name: str | None,
    no_start: bool,
) -> None:
    """Share this computer with a pool and start its host agent."""
    from cua_pool.client import default_host_config, start_agent, start_controller
    from cua_pool.facts import check_supported

    try:
        check_supported()
        target = controller or LOCAL
        client_security(resolve(target), controller_key)  # refuse a remote controller without its key now
        old = host_config() or {}
        config = default_host_config(
            target,
            max_spaces=max_spaces,
            controller_key=controller_key,
            advertise=advertise,
            name=name,
            share=[share],
        )
        if old.get("host_id"):
            config["host_id"] = old["host_id"]
        save_host_config(config)
        if no_start:
            click.echo(f"host {config['name']}: settings saved to {host_home() / 'host.json'}")
            return
        pid = running_pid(host_home() / "agent.pid")
        if pid is not None:
            stop_pid(pid)
        if target == LOCAL:
            start_controller()
        start_agent()
    except (CuaError, OSError, ValueError, RuntimeError) as exc:
        raise fail(exc) from exc
    click.echo(
        f"host {config['name']} ({config['host_id']}): sharing spaces (max {config['max_spaces']}) with {target}"
    )


@host.command("run", hidden=True)
def host_run() -> None:
    """Run the host agent in the foreground (what `cua host setup` starts in the background)."""
    from cua_pool.agent import HostAgent

    config = host_config()
    if config is None:
        raise click.ClickException("this computer is not set up as a host; run `cua host setup --share spaces`")
    try:
        _lock = hold_pidfile(host_home() / "agent.pid", "the host agent")
        address = resolve(config["controller"])
        agent = HostAgent(
            address,
            host_id=config["host_id"],
            name=config["name"],
            home=host_home(),
            max_spaces=int(config["max_spaces"]),
            advertise=config.get("advertise"),
            security=client_security(address, config.get("controller_key")),
        ).start()
    except (CuaError, OSError, ValueError, RuntimeError) as exc:
        raise fail(exc) from exc
    click.echo(f"host agent {config['name']} for {address}", err=True)
    _serve_until_signal(agent.close)


@host.command("status")
@click.option("--json", "as_json", is_flag=True)
def host_status(as_json: bool) -> None:
    """This computer's host settings and whether its agent runs."""
    from cua_pool.facts import host_facts
    from cua_pool.runtimes.process import ProcessRuntime

    config = host_config()
    pid = running_pid(host_home() / "agent.pid")
    isolation = ProcessRuntime().describe()
    info = {
        "configured": config is not None,
        "agent_pid": pid,
        "isolation": isolation,
        **(config or {}),
        **host_facts(),
    }
    if as_json:
        click.echo(json.dumps(info))
        return
    if config is None:
        click.echo("not set up as a host (`cua host setup --share spaces`)")
        return
    state = f"running (pid {pid})" if pid else "stopped"
    click.echo(f"host {config['name']} ({config['host_id']}): agent {state}")
    click.echo(
        f"controller {config['controller']}, shares {', '.join(config['share'])}, max {config['max_spaces']} spaces"
    )
    accel = ", ".join(a.get("name", a["kind"]) for a in info["accelerators"]) or "none"
    click.echo(
        f"{info['os_name']}/{info['arch']}, {info['cpus']} cpus, {info['memory'] >> 20} MiB, accelerators: {accel}"
    )


@host.command("stop")
def host_stop() -> None:
    """Stop the host agent until `cua host start`; its running spaces keep running and are adopted
    then. `cua pool down` stops the spaces' members too."""
    config = host_config()
    enabled = config is not None and config.get("enabled", True)
    if config is not None:
        config["enabled"] = False
        save_host_config(config)
    pid = running_pid(host_home() / "agent.pid")
    if pid is None:
        if not enabled:
            raise CuaError("the host agent is not running and is already stopped; nothing to stop")
        click.echo("host agent: not running; it now stays stopped until `cua host start`")
        return
    stop_pid(pid)
    click.echo(f"host agent: stopped (pid {pid})")


@host.command("start")
def host_start() -> None:
    """Start the host agent again with the saved settings."""
    from cua_pool.client import start_agent, start_controller

    config = host_config()
    if config is None:
        raise click.ClickException("this computer is not set up as a host; run `cua host setup --share spaces`")
    running = running_pid(host_home() / "agent.pid")
    if running is not None and config.get("enabled", True):
        raise CuaError(f"the host agent already runs (pid {running}); nothing to start")
    config["enabled"] = True
    save_host_config(config)
    try:
        if config["controller"] == LOCAL:
            start_controller()
        pid = start_agent()
    except (CuaError, OSError, RuntimeError) as exc:
        raise fail(exc) from exc
    click.echo(f"host agent: running (pid {pid})")


@host.command("remove")
@click.pass_obj
def host_remove(obj: Context) -> None:
    """Leave the pool: stop the agent and its spaces, and forget this host's settings."""
    from cua_core import RpcClient

    config = host_config()
    if config is None:
        raise click.ClickException("this computer is not set up as a host; nothing to remove")
    config["enabled"] = False  # first, so nothing starts the agent again while we remove it
    save_host_config(config)
    pid = running_pid(host_home() / "agent.pid")
    if pid is not None:
        stop_pid(pid)
    target = config["controller"]
    try:
        if target != LOCAL or running_pid(controller_home() / "controller.pid") is not None:
            address = resolve(target)
            security = client_security(address, config.get("controller_key"))
            with RpcClient(address, timeout=10, retries=0, security=security) as client:
                client.call("host.remove", {"host_id": config["host_id"]})
    except (CuaError, OSError, ValueError) as exc:
        click.echo(f"warning: the controller was not told: {exc}", err=True)
    stop_spaces()
    (host_home() / "host.json").unlink(missing_ok=True)
    click.echo(f"host {config['name']}: removed from the pool")


@host.command("pair")
@click.option("--allow", "allow", help="On the controller: accept this host's or client's public key.")
@click.option("--comment", default="", help="A note stored with an allowed key (e.g. the host's name).")
@click.option("--controller", "controller", help="On a host or client: the controller's address to remember.")
@click.option("--controller-key", help="On a host or client: the controller's public key to remember.")
def host_pair(allow: str | None, comment: str, controller: str | None, controller_key: str | None) -> None:
    """Exchange CURVE keys between a controller and a host or client.

    \b
    On the host:        cua host pair --controller tcp://CTRL:7070 --controller-key CKEY
                        (prints this computer's key, HKEY)
    On the controller:  cua host pair --allow HKEY
    """
    try:
        mine = keypair().public.decode()
        if allow:
            allowed = allow_list()
            if allow.encode() in allowed:
                raise CuaError(f"{allow} is already allowed ({allowed.path}); nothing changed")
            allowed.add(allow, comment)
            click.echo(f"allowed {allow} {comment}".rstrip())
        if controller or controller_key:
            if not (controller and controller_key):
                raise click.UsageError("give both --controller and --controller-key")
            client_security(controller, controller_key)
            save_client_config({"controller": controller, "controller_key": controller_key})
            click.echo(f"paired with controller {controller}")
    except CuaError as exc:
        raise fail(exc) from exc
    click.echo(f"this computer's pool key: {mine}")
    if controller:
        click.echo(f"on the controller, run: cua host pair --allow {mine}")


@main.command("tui", add_help_option=False, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def tui(ctx: click.Context) -> None:
    """Watch the pool, jobs, runs and live environments (cua-tui; its own flags follow, see --help).

    It runs the ``cua-tui`` program rather than importing it: the pool depends on cua-core only, and
    the TUI on everything it watches."""
    # Beside this interpreter first: a venv's scripts are there whether or not the venv is on PATH.
    beside = Path(sys.executable).with_name("cua-tui")
    program = str(beside) if beside.is_file() else shutil.which("cua-tui")
    if program is None:
        raise click.ClickException(
            "`cua tui` needs the cua-tui program: `pip install -e tui` in the cua checkout "
            "(the README's setup installs it)"
        )
    controller = ctx.obj.controller
    args = [program, *(["--controller", controller] if controller else []), *ctx.args]
    ctx.exit(subprocess.call(args))


from cua_pool import cli_jobs  # noqa: E402  (registers the job commands on `main`)

cli_jobs.register(main)

if __name__ == "__main__":
    sys.exit(main())
