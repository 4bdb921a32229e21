"""The ``macos`` backend: each environment is a macOS virtual machine, made by Lume or tart on an Apple silicon Mac.

``cua-bench image build macos`` makes the *golden* VM once: the provider's image (Lume's
``macos-sequoia-vanilla``, Cirrus Labs' ``macos-sequoia-base`` for tart) pulled as a local VM, booted,
the env server's payload installed over SSH, shut down. Each environment is then a clone of it (an APFS
copy-on-write copy: seconds, little disk), configured (CPUs, memory, the display at the episode's
size), booted headless; over SSH the host hands it a CURVE key pair made here and starts the server as
a LaunchAgent in the logged-on user's GUI session (``guest.py``), and waits for the server to answer
on the guest's address, over CURVE.

Reset is a fresh clone: before every episode after the first, ``restore`` deletes the machine and
clones the golden VM again under the same name (neither provider offers a snapshot to revert to that
a running VM can return to). Nothing an episode did survives; the guest's address may change, and
``restore`` updates the computer's. Machines are recorded with the kit's owner labels in this host's
folder (``home``); ``prune`` removes those whose owner is gone.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import zmq.auth

from cua_bench import Backend, BackendError, Computer, Session
from cua_bench.backend_kit import (
    OWNER_LABEL,
    BuildResult,
    Capabilities,
    Option,
    hookimpl,
    labels,
    provisioning,
    server_settings,
    stale,
    wait_ready,
)
from cua_bench_macos import guest
from cua_bench_macos.lume import LUME_DEFAULT_URL
from cua_bench_macos.payload import build_payload, stored_payload
from cua_bench_macos.provider import INSTALL_HINT, Provider, choose_provider
from cua_core import CuaError, Register, load_or_create_keypair

__all__ = ["PREFIX", "MacosBackend"]

log = logging.getLogger(__name__)

PREFIX = "cua-env-"  # every machine this backend makes is named so; prune looks at no other VM


def default_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "cua-bench" / "macos"


class MacosBackend(Backend):
    name = "macos"
    # A fresh clone of the golden VM before every episode: the whole machine comes back, as a snapshot's would.
    capabilities = Capabilities(
        os="macos", shell=True, root=False, browser=False, apps=frozenset({"terminal", "editor", "files"}),
        snapshots=True,
    )  # fmt: skip
    options = (
        Option("provider", Literal["auto", "lume", "tart"], "auto", "auto: Lume when its API answers at lume_url, "
               "else tart when it is on PATH", "CUA_MACOS_PROVIDER"),
        Option("lume_url", str, LUME_DEFAULT_URL, "Lume's HTTP API (`lume serve`)", "CUA_MACOS_LUME_URL"),
        Option("image", str, "", "the image the golden VM is made from (empty: macos-sequoia-vanilla:latest on "
               "Lume, ghcr.io/cirruslabs/macos-sequoia-base:latest on tart)", "CUA_MACOS_IMAGE"),
        Option("golden", str, "cua-macos-golden", "the VM `cua-bench image build macos` prepares and machines "
               "clone", "CUA_MACOS_GOLDEN"),
        Option("memory", int, 8192, "each machine's memory in MiB", "CUA_MACOS_MEMORY"),
        Option("cpus", int, 4, "each machine's virtual CPUs", "CUA_MACOS_CPUS"),
        Option("boot_timeout", float, 600.0, "seconds from a clone to its env server answering",
               "CUA_MACOS_BOOT_TIMEOUT"),
        Option("ssh_user", str, "", "the guest's user (empty: lume on Lume's images, admin on tart's)",
               "CUA_MACOS_SSH_USER"),
        Option("ssh_password", str, "", "that user's password (empty: the image's documented default, lume or "
               "admin)", "CUA_MACOS_SSH_PASSWORD"),
        Option("ssh_key", str, "", "a private key to log in with instead of the password", "CUA_MACOS_SSH_KEY"),
        Option("guest_python", str, "python3.11", "the guest's Python 3.11 the server's venv is made from",
               "CUA_MACOS_GUEST_PYTHON"),
        Option("home", str, "", "this host's folder for the payload and the machines' records (empty: "
               "~/.local/share/cua-bench/macos)", "CUA_MACOS_HOME"),
    )  # fmt: skip

    @classmethod
    def create_session(cls, *, width: int, height: int) -> Session:
        """Inside a macOS guest (the server the LaunchAgent starts), the Mac's own desktop; elsewhere an error."""
        if sys.platform == "darwin":
            from cua_bench_macos.quartz import QuartzApi
            from cua_bench_macos.session import MacSession

            return MacSession(QuartzApi(), width=width, height=height)
        raise BackendError("the macos backend's session runs inside a macOS guest; on this host use --backend local")

    @classmethod
    def unavailable(cls) -> str | None:
        """Why no machine can start on this host, without a network call (backend choice asks before it picks
        this backend for a macOS task): an Apple silicon Mac, Lume or tart, and a golden VM's payload."""
        if (platform.system(), platform.machine()) != ("Darwin", "arm64"):
            return (f"macOS machines run on an Apple silicon Mac with Lume or tart (this host is {platform.system()}, "
                    f"{platform.machine()})")  # fmt: skip
        if shutil.which("lume") is None and shutil.which("tart") is None:
            return f"neither Lume nor tart is installed: {INSTALL_HINT}"
        try:
            home = cls().home
        except CuaError as exc:  # a variable of the wrong type (CUA_MACOS_HOME...): its message says which
            return str(exc)
        if stored_payload(home / "payload") is None:
            return "no golden VM has been built on this host: `cua-bench image build macos`"
        return None

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.home = Path(self.option("home")) if self.option("home") else default_home()
        self._provider: Provider | None = None

    def provider(self) -> Provider:
        """Lume or tart, as ``provider`` says; a BackendError naming how to install them when neither is here."""
        if self._provider is None:
            self._provider = choose_provider(self.option("provider"), self.option("lume_url"), self.home / "runs")
        return self._provider

    def _ssh(self, provider: Provider, ip: str) -> guest.Ssh:
        user = self.option("ssh_user") or provider.default_user
        password = self.option("ssh_password") or provider.default_password
        return guest.Ssh(ip, user, password=password, key=self.option("ssh_key"))

    # -- the golden VM -------------------------------------------------------------------------

    def build_image(
        self, *, rebuild_base: bool = False, variant: str | None = None, log: Callable[[str], None] = print
    ) -> BuildResult:
        """The golden VM from ``image``, with the payload installed (a previous golden VM is replaced)."""
        provider = self.provider()
        started = time.monotonic()
        tarball, digest = build_payload(self.home / "payload", log)
        golden, image = self.option("golden"), self.option("image") or provider.default_image
        if provider.exists(golden):
            log(f"replacing the golden VM {golden}")
            self._remove_vm(provider, golden)
        log(f"{provider.name}: {golden} from {image}")
        provider.create(image, golden)
        provider.start(golden)
        try:
            ip = provider.wait_ip(golden, self.option("boot_timeout"))
            ssh = self._ssh(provider, ip)
            ssh.wait(self.option("boot_timeout"))
            log(f"installing the env server in {golden} ({ip})")
            guest.install(ssh, tarball, digest, self.option("guest_python"))
        finally:
            provider.stop(golden)
        return BuildResult(golden, True, time.monotonic() - started, tarball.stat().st_size / 2**20)

    # -- machines ------------------------------------------------------------------------------

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        provider = self.provider()
        golden = self.option("golden")
        if stored_payload(self.home / "payload") is None or not provider.exists(golden):
            raise BackendError(f"no golden VM {golden!r} ({provider.name}) with its payload under {self.home}: "
                               "make it with `cua-bench image build macos`")  # fmt: skip
        name = f"{PREFIX}{uuid.uuid4().hex[:12]}"
        computer = Computer(self.name, "", width, height, None, {"vm": name, "provider": provider.name})
        with provisioning() as undo:
            self._record(name)
            undo.callback(self._forget, name)
            provider.clone(golden, name)
            undo.callback(self._remove_vm, provider, name)
            self._boot(provider, computer, max(timeout, self.option("boot_timeout")))
        return computer

    def _boot(self, provider: Provider, computer: Computer, timeout: float) -> None:
        """Configure, start and seed a cloned machine, then wait for its server (the address is set here)."""
        name = computer.info["vm"]
        provider.configure(name, self.option("cpus"), self.option("memory"), computer.width, computer.height)
        provider.start(name)
        ip = provider.wait_ip(name, timeout)
        computer.address, computer.info["ip"] = f"tcp://{ip}:{guest.GUEST_PORT}", ip
        ssh = self._ssh(provider, ip)
        ssh.wait(timeout)
        found = guest.probe(ssh)
        tarball, digest = stored_payload(self.home / "payload") or (None, "")
        if tarball is not None and found.payload != digest:  # the code changed since the golden VM was built
            log.warning("macOS VM %s: its payload is not this host's; installing it (rebuild the golden VM with "
                        "`cua-bench image build macos` to skip this)", name)  # fmt: skip
            guest.install(ssh, tarball, digest, self.option("guest_python"))
        key, public, secret = _keypair()
        guest.seed_keys(ssh, public, secret)
        computer.info["server_key"] = key
        allow = load_or_create_keypair().public.decode()  # this user's key: the one client the server accepts
        plist = guest.agent_plist(found.home, allow, computer.width, computer.height,
                                  server_settings(None, folders=False))  # fmt: skip
        guest.start_server(ssh, plist)
        wait_ready(
            lambda: self.health(computer, timeout=5.0),
            lambda: None if provider.running(name) else "the VM stopped",
            timeout=timeout, what=f"macOS VM {name} ({provider.name}, {ip})",
            detail=lambda: f"its env server's log ends:\n{guest.server_log(ssh)}", interval=1.0,
        )  # fmt: skip

    def restore(self, computer: Computer) -> None:
        """A fresh clone of the golden VM under the same name: nothing of the last episode survives."""
        provider = self.provider()
        name = computer.info["vm"]
        self._remove_vm(provider, name)
        provider.clone(self.option("golden"), name)
        self._boot(provider, computer, self.option("boot_timeout"))

    def failure(self, computer: Computer) -> str | None:
        name = computer.info.get("vm", "")
        try:
            if self.provider().running(name):
                return None
        except BackendError as exc:
            return f"the macOS VM {name} could not be asked for its state: {exc}"
        return f"the macOS VM {name} is not running ({computer.info.get('provider')})"

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        try:
            self._remove_vm(self.provider(), computer.info["vm"])
        finally:
            self._forget(computer.info["vm"])

    def prune(self, *, everything: bool = False) -> list[str]:
        """Remove machines of ours whose owner process is gone (all of ours with ``everything``). Where
        neither Lume nor tart is installed there can be none: nothing to do, and no error."""
        try:
            provider = self.provider()
        except BackendError:
            return []
        removed = []
        for name in provider.names():
            if name.startswith(PREFIX) and _stale(self._labels(name), everything):
                self._remove_vm(provider, name)
                self._forget(name)
                removed.append(name)
        return removed

    def _remove_vm(self, provider: Provider, name: str) -> None:
        if provider.running(name):
            provider.stop(name)
        provider.delete(name)

    def _record(self, name: str) -> None:
        folder = self.home / "machines"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps(labels(self.name, self.run_id), sort_keys=True))

    def _labels(self, name: str) -> dict[str, str]:
        try:
            return dict(json.loads((self.home / "machines" / f"{name}.json").read_text()))
        except (OSError, ValueError):
            return {}  # no record: made by a process that died before writing it, so its owner is gone

    def _forget(self, name: str) -> None:
        (self.home / "machines" / f"{name}.json").unlink(missing_ok=True)


def _keypair() -> tuple[str, bytes, bytes]:
    """A fresh CURVE key pair for a machine's server: its Z85 public key (what clients check the server by)
    and ZeroMQ's two certificate files (public, secret), as the server loads them."""
    with tempfile.TemporaryDirectory(prefix="cua-keys-") as scratch:
        public_file, secret_file = zmq.auth.create_certificates(scratch, "default")
        key = zmq.auth.load_certificate(public_file)[0].decode()
        return str(key), Path(public_file).read_bytes(), Path(secret_file).read_bytes()


def _stale(found: dict[str, str], everything: bool) -> bool:
    """The kit's ``stale``, where it can tell: its liveness check reads /proc, which macOS (the only host
    this backend's machines run on) does not have; there the kernel is asked (signal 0) instead."""
    if everything or os.path.isdir("/proc"):
        return stale(found, everything=everything)
    host, _, pid = found.get(OWNER_LABEL, ":").partition(":")
    if host != os.uname().nodename or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # another user's process: alive
    return False


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("macos", MacosBackend)
