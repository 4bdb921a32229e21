"""The ``docker`` backend: each environment is a container running the local desktop and the env server.

The container holds the same Xvfb, openbox, apps and env server (``--backend local``) as the
``local`` backend, so tasks and rewards are the same; what it adds is isolation: resource limits,
no network by default, nothing of the host but two folders. The server listens on a unix socket
in a host folder bind-mounted into the container, so the host reaches it without any network.
Containers are labelled with the backend, the owning process and the run; ``prune`` removes
those whose owner is gone. A task given as a path here travels to the server by content
(``cua_bench.bundles``), so no task folder needs a mount; cua-bench's own tasksets are mounted
read-only at the paths they have here, plus ``CUA_DOCKER_MOUNTS`` (folders, ``:``-separated) for
other files a task reads at a host path.

Reset happens inside the container (the env server kills the apps and restores home: milliseconds),
not by replacing the container (seconds); a fresh container is started per environment.
Settings: the options in ``DockerBackend.options`` (``--backend-option KEY=VALUE``, or the constructor),
each also its environment variable: ``variant`` (``CUA_DOCKER_VARIANT``: ``default``; ``office``, the default
desktop plus the document apps (LibreOffice, gedit, galculator, File Roller, Evince), for the desktop
taskset's tasks on them; or ``osworld``: OSWorld's computer, whose env server runs as ``user`` with sudo,
so its containers may gain privileges through sudo inside; 4g of memory by default), ``image`` (the
variant's), ``memory`` (``2g``), ``cpus`` (``2``), ``pids`` (``1024``), ``network`` (``none``; ``host`` for
tasks that need the host's loopback) and ``mounts``.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cua_bench
from cua_bench import Backend, BackendError, Computer
from cua_bench.backend_kit import (
    APP_ALIASES,
    BACKEND_LABEL,
    COMPUTER_ENV,
    OWNER_LABEL,
    RUN_LABEL,
    TASK_SETTINGS,
    Capabilities,
    Option,
    hookimpl,
    labels,
    provisioning,
    resolve_options,
    server_settings,
    stale,
    wait_ready,
)
from cua_bench_docker.daemon import connect
from cua_bench_docker.image import VARIANTS, BuildResult, build_image, image_exists
from cua_core import Register, runtime_dir

__all__ = ["LABEL", "DockerBackend", "DockerSettings"]

LABEL, OWNER, RUN = BACKEND_LABEL, OWNER_LABEL, RUN_LABEL  # every container of ours carries them (the kit's)
SOCKET_IN_CONTAINER = "/run/cua"
ENV_ROOT_IN_CONTAINER = "/var/lib/cua/env"  # the env server's folders (home, task cache): off the /tmp reset empties


@dataclass(frozen=True)
class DockerSettings:
    variant: str = "default"
    image: str = ""  # the variant's tag when empty
    memory: str = ""  # 2g, 4g for osworld (LibreOffice and Chromium side by side) when empty
    cpus: float = 2.0
    pids: int = 1024
    network: str = "none"

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise BackendError(f"CUA_DOCKER_VARIANT must be one of {', '.join(VARIANTS)}, got {self.variant!r}")
        if not self.image:
            object.__setattr__(self, "image", VARIANTS[self.variant].tag)
        if not self.memory:
            object.__setattr__(self, "memory", "4g" if self.variant == "osworld" else "2g")

    @property
    def computer(self) -> bool:
        """OSWorld's computer: the env server drops to ``user``, whose sudo must be able to gain root."""
        return VARIANTS[self.variant].computer

    @classmethod
    def from_env(cls, **given: Any) -> DockerSettings:
        """The backend's options as ``given`` (checked), else as their CUA_DOCKER_* variables say, else defaults."""
        values = resolve_options(DockerBackend, given)
        return cls(**{name: values[name] for name in ("variant", "image", "memory", "cpus", "pids", "network")})


def task_mounts(extra: str | None = None) -> list[str]:
    """Host folders the container sees read-only at the same path: cua-bench's own (the conformance task),
    every registered taskset's folder, the folders the task layer's settings name (``TASK_SETTINGS``:
    OSWorld's file mirror), and ``CUA_DOCKER_MOUNTS``."""
    registered = cua_bench.registry.tasksets()
    folders = [str(Path(cua_bench.__file__).parent)]
    folders += [str(Path(registered[name]).resolve()) for name in registered.names()]
    extra = os.environ.get("CUA_DOCKER_MOUNTS", "") if extra is None else extra
    for key, is_folder in TASK_SETTINGS.items():
        value = os.environ.get(key)
        if is_folder and value:
            if not os.path.isdir(value):
                raise BackendError(f"{key}={value} is not a folder here; the docker backend mounts it into containers")
            folders.append(os.path.abspath(value))
    named = [entry for entry in extra.split(":") if entry]
    missing = [folder for folder in named if not os.path.isdir(folder)]
    if missing:
        raise BackendError(f"CUA_DOCKER_MOUNTS names folders that do not exist: {', '.join(missing)}")
    return list(dict.fromkeys(folders + named))


class DockerBackend(Backend):
    name = "docker"
    # The local backend's desktop (its root is ``user``'s sudo in the osworld variant only, so not declared).
    capabilities = Capabilities(os="linux", shell=True, browser=True, apps=frozenset(APP_ALIASES))
    options = (
        Option("variant", Literal["default", "office", "osworld"], "default", "the image: default, office (with "
               "LibreOffice, gedit, galculator, File Roller and Evince, for the desktop taskset's tasks on them), or "
               "osworld (OSWorld's computer: user `user` with sudo, its apps; 4g of memory by default)",
               "CUA_DOCKER_VARIANT"),
        Option("image", str, "", "the image containers start from (empty: the variant's)", "CUA_DOCKER_IMAGE"),
        Option("memory", str, "", "memory limit, swap included (empty: 2g, 4g for osworld)", "CUA_DOCKER_MEMORY"),
        Option("cpus", float, 2.0, "CPU limit", "CUA_DOCKER_CPUS"),
        Option("pids", int, 1024, "process limit", "CUA_DOCKER_PIDS"),
        Option("network", Literal["none", "host"], "none", "none (loopback only), or host for tasks that need "
               "the host's loopback", "CUA_DOCKER_NETWORK"),
        Option("mounts", str, "", "more host folders to mount read-only at their paths (:-separated)",
               "CUA_DOCKER_MOUNTS"),
    )  # fmt: skip

    def __init__(self, settings: DockerSettings | None = None, **options: Any) -> None:
        super().__init__(**options)
        given = {name: value for name, value in self.given_options.items() if name != "mounts"}
        self.settings = settings or DockerSettings.from_env(**given)
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = connect()
        return self._client

    def provision(self, *, width: int = 1280, height: int = 800, timeout: float = 60.0) -> Computer:
        import docker.errors

        settings, client = self.settings, self.client
        if not image_exists(client, settings.image):
            how = "" if settings.variant == "default" else f" --variant {settings.variant}"
            raise BackendError(
                f"the image {settings.image} is missing: build it with `cua-bench image build docker{how}`"
            )
        name = f"cua-env-{uuid.uuid4().hex[:12]}"
        sockets = runtime_dir() / "docker" / name
        with provisioning() as undo:
            sockets.mkdir(parents=True, mode=0o700)
            undo.callback(shutil.rmtree, sockets, ignore_errors=True)
            volumes = {str(sockets): {"bind": SOCKET_IN_CONTAINER, "mode": "rw"}}
            mounts = task_mounts(self.given_options.get("mounts"))
            volumes |= {folder: {"bind": folder, "mode": "ro"} for folder in mounts}
            try:
                container = client.containers.run(
                    settings.image,
                    ["--backend", "local", "--address", f"ipc://{SOCKET_IN_CONTAINER}/env.sock",
                     "--width", str(width), "--height", str(height)],
                    name=name, detach=True, init=True, labels=labels(self.name, self.run_id),
                    network_mode=settings.network, mem_limit=settings.memory, memswap_limit=settings.memory,
                    nano_cpus=int(settings.cpus * 1e9), pids_limit=settings.pids, shm_size="256m",
                    security_opt=[] if settings.computer else ["no-new-privileges"], volumes=volumes,
                    environment=_passed_env(settings.computer),
                )  # fmt: skip
            except docker.errors.DockerException as exc:
                raise BackendError(f"docker could not start a container of {settings.image}: {exc}") from exc
            computer = Computer(self.name, f"ipc://{sockets}/env.sock", width, height, container, {"container": name})
            undo.callback(self.teardown, computer)
            self._wait_ready(computer, timeout)
        return computer

    def _wait_ready(self, computer: Computer, timeout: float) -> None:
        """Until the env server answers a ping; a container that exits or stays silent is an error."""
        container = computer.handle
        socket = Path(computer.address.removeprefix("ipc://"))

        def stopped() -> str | None:
            container.reload()
            if container.status not in ("exited", "dead"):
                return None
            return self.failure(computer) or f"exit code {container.attrs['State'].get('ExitCode')}"

        wait_ready(
            lambda: socket.exists() and self.health(computer, timeout=1.0),
            stopped,
            timeout=timeout,
            what=f"container {container.name}",
            detail=lambda: f"its log ends:\n{_log_tail(container)}",
        )

    def failure(self, computer: Computer) -> str | None:
        """Why the container stopped, when it did: killed for memory, or its exit code."""
        import docker.errors

        try:
            computer.handle.reload()
        except docker.errors.DockerException:
            return "the container is gone"
        state = computer.handle.attrs.get("State", {})
        if state.get("OOMKilled"):
            return f"OOM-killed at its memory limit of {self.settings.memory}; raise CUA_DOCKER_MEMORY"
        if state.get("Status") in ("exited", "dead"):
            return f"the container exited with code {state.get('ExitCode')}"
        return None

    def teardown(self, computer: Computer, *, timeout: float = 10.0) -> None:
        import docker.errors

        name = computer.info["container"]
        try:
            computer.handle.remove(force=True)
        except docker.errors.NotFound:
            pass
        except docker.errors.DockerException as exc:  # the runner and prune catch a backend's errors, not docker's
            raise BackendError(f"docker: could not remove container {name}: {exc}") from exc
        finally:
            shutil.rmtree(runtime_dir() / "docker" / name, ignore_errors=True)

    def prune(self, *, everything: bool = False) -> list[str]:
        """Remove containers of ours whose owner process is gone (all of ours with ``everything``)."""
        import docker.errors

        removed = []
        try:
            for container in self.client.containers.list(all=True, filters={"label": f"{LABEL}={self.name}"}):
                if stale(container.labels, everything=everything):
                    container.remove(force=True)
                    shutil.rmtree(runtime_dir() / "docker" / container.name, ignore_errors=True)
                    removed.append(container.name)
        except docker.errors.DockerException as exc:
            done = f" (removed {', '.join(removed)} before)" if removed else ""
            raise BackendError(f"docker: prune stopped: {exc}{done}") from exc
        return removed

    def build_image(
        self, *, rebuild_base: bool = False, variant: str | None = None, log: Callable[[str], None] = print
    ) -> BuildResult:
        """``variant`` (default: the settings'); its tag is the settings' image only for the settings' variant."""
        variant = variant or self.settings.variant
        tag = self.settings.image if variant == self.settings.variant else None
        return build_image(self.client, variant=variant, tag=tag, rebuild_base=rebuild_base, log=log)


def _passed_env(computer: bool) -> dict[str, str]:
    """The host's settings of the env server inside (settle tuning, and the task layer's, with folders
    made absolute as they are mounted), so both backends behave alike.

    The container's /tmp is the environment's own (``PRIVATE_TMP``), as ``run_command`` sees it: the
    session's file calls take /tmp there too, and reset empties it, so the server's folders live off
    it. (OSWorld's computer, ``computer``, is a whole machine already: its /tmp and home are the real ones.)"""
    if computer:  # OSWorld's computer's own settings (the kit's, which its VM gets too)
        return server_settings(None, folders=True) | COMPUTER_ENV
    return server_settings(ENV_ROOT_IN_CONTAINER, folders=True)


def _log_tail(container: Any, lines: int = 20) -> str:
    try:
        return bytes(container.logs(tail=lines)).decode("utf-8", "replace").rstrip() or "(empty)"
    except Exception:  # the container may be gone already
        return "(unavailable)"


@hookimpl
def cua_bench_register_backends(register: Register[type[Backend]]) -> None:
    register("docker", DockerBackend)
