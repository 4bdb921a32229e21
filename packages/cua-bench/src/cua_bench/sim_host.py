"""A sim host: one process that serves many environments, each its own env server.

One env server process per sim environment costs ~55-65 MiB, most of it the interpreter and the
modules every server imports alike; 1,000 of them do not fit a 24 GiB computer (issue 36). A host
imports those once and serves up to ``per_server`` environments (the sim backend's option), each
an ``EnvServer`` with its own address, session and event loop, so a client sees no difference.

It answers a control RPC on its own address, for the backend that started it:

- ``open(width, height) -> address``: a new environment, serving once this returns;
- ``close(address) -> bool``: close one (False when it was closed already, by its client say);
- ``envs() -> [address]``: those it serves;
- ``shutdown() -> bool``: close them all and exit.

Like an env server it exits on SIGTERM and Ctrl-C, and with ``--exit-with-parent`` when the
process that started it dies, closing every environment it serves.

    python -m cua_bench.sim_host --backend sim --address ipc:///run/user/0/cua/simhost-1.sock
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import resource
import sys
import threading
import uuid

from cua_bench.server import EnvServer, close_on_sigterm, pin_to_cpu, watch_parent
from cua_core import RpcServer, ipc_address

__all__ = ["SimHost", "main"]

log = logging.getLogger(__name__)


class _HostedEnvServer(EnvServer):
    """An env server that, closed by its client, is stopped by its host (a process of its own exits)."""

    host: SimHost

    async def close(self) -> bool:
        closed = await super().close()
        # Not on this thread: stopping joins the RPC server's threads, this one among them.
        threading.Thread(target=self.host.close, args=(self.address,), daemon=True).start()
        return closed


class SimHost:
    """The environments of one host process, and the control RPC that opens and closes them."""

    def __init__(self, address: str, backend: str = "sim") -> None:
        self.backend = backend
        self.stopping = threading.Event()
        self._envs: dict[str, EnvServer] = {}
        self._lock = threading.Lock()
        self.rpc = RpcServer(address, name="simhost", workers=4)
        self.rpc.register("open", self.open)
        self.rpc.register("close", self.close)
        self.rpc.register("envs", self.envs, inline=True)
        self.rpc.register("shutdown", self.shutdown, inline=True)

    @property
    def address(self) -> str:
        return self.rpc.address

    def start(self) -> SimHost:
        self.rpc.start()
        return self

    def open(self, width: int, height: int) -> str:
        """A new environment of ``width`` x ``height``; its env server's address, serving already."""
        from cua_bench.registry import backends

        session = backends()[self.backend].create_session(width=width, height=height)
        env = _HostedEnvServer(session, ipc_address(f"env-{uuid.uuid4().hex[:12]}"), backend=self.backend)
        env.host = self
        env.start()
        with self._lock:
            if self.stopping.is_set():  # shut down meanwhile: nobody will close this one
                env.stop()
                raise RuntimeError("this sim host is shutting down")
            self._envs[env.address] = env
        return env.address

    def close(self, address: str) -> bool:
        """Close the environment at ``address``; False when this host serves none there (any more)."""
        with self._lock:
            env = self._envs.pop(address, None)
        if env is None:
            return False
        env.stop()
        return True

    def envs(self) -> list[str]:
        with self._lock:
            return sorted(self._envs)

    def shutdown(self) -> bool:
        """Close every environment and exit (the main thread does it, after this reply)."""
        self.stopping.set()
        return True

    def stop(self) -> None:
        """Close every environment, then the control RPC and its socket file."""
        self.stopping.set()
        with self._lock:
            envs = list(self._envs.values())
            self._envs.clear()
        for env in envs:
            env.stop()
        self.rpc.close()
        if self.address.startswith("ipc://"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.address.removeprefix("ipc://"))


def _more_files() -> None:
    """Each environment holds some ten descriptors (its sockets and ZeroMQ's own): raise the soft limit
    to the hard one, as a host of 64 would pass a soft limit of 1024 on some systems."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cua_bench.sim_host", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="sim", help="whose Sessions to serve (a registered backend)")
    parser.add_argument("--address", required=True, help="where the control RPC listens: ipc://PATH")
    parser.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="exit, closing every environment, when the process that started this host dies",
    )
    parser.add_argument("--cpu", type=int, metavar="N", help="run on CPU N only, every thread of this host")
    parent = os.getppid()  # before anything else, as the env server reads it (cua_bench.server.main)
    args = parser.parse_args(argv)
    if args.cpu is not None:
        pin_to_cpu(parser, args.cpu)
    _more_files()
    logging.basicConfig(level=logging.INFO, format=f"simhost[{os.getpid()}] %(levelname)s %(message)s")
    host = SimHost(args.address, backend=args.backend)
    close_on_sigterm(host.stopping)
    host.start()
    if args.exit_with_parent:
        watch_parent(parent, host.stopping, "sim host")
    print(f"ready {host.address}", flush=True)
    try:
        host.stopping.wait()  # no timeout: an idle host wakes for nothing (see cua_bench.server.main)
    except KeyboardInterrupt:
        pass
    finally:
        host.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
