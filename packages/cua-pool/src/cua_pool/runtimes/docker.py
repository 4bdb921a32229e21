"""The ``docker`` runtime: a member is a container (docker SDK), its space mounted at /space.

The image only needs ``python3``: the runner (standard library only) is mounted read-only, and
the member's output and exit status land in the space exactly as with the ``process`` runtime, so
the agent ships logs, notices the end and re-adopts containers after a restart the same way (the
container id is in the space's member.json). Containers use the host's network, so the gang's
MASTER_ADDR and the agent's checkpoint socket on 127.0.0.1 work unchanged. Choose the image with
``cua run --image IMAGE`` (default ``$CUA_POOL_DOCKER_IMAGE``, else ``python:3.11-slim``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from cua_core import Register
from cua_pool import runner
from cua_pool.hookspecs import hookimpl
from cua_pool.spaces import Handle, Space, SpaceRuntime

__all__ = ["DockerRuntime"]

DEFAULT_IMAGE = "python:3.11-slim"
_SCRIPT = (
    "python3 /cua/runner.py >> /space/out.log 2>&1; code=$?; "
    "echo $code > /space/exit_code.tmp && mv /space/exit_code.tmp /space/exit_code; exit $code"
)
# Host paths in the environment become their places inside the container.
_INSIDE = {
    "HOME": "/space/work",
    "TMPDIR": "/space/work/.tmp",
    "CUA_POOL_SPACE": "/space",
    "CUA_POOL_RESULT": "/space/result",
    "MLX_HOSTFILE": "/space/hostfile.json",
}
_HOST_ONLY = ("PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH")


class DockerRuntime:
    name = "docker"

    def __init__(self, client: Any = None) -> None:
        if client is None:
            try:
                import docker
            except ImportError as exc:
                raise RuntimeError(
                    "the docker space runtime needs the docker SDK: "
                    "pip install './packages/cua-pool[docker]' from a clone of cua"
                ) from exc
            try:
                client = docker.from_env()
                client.ping()
            except Exception as exc:
                raise RuntimeError(
                    f"no Docker engine reachable (DOCKER_HOST={os.environ.get('DOCKER_HOST', 'default')}): {exc}"
                ) from exc
        self.client = client

    def start(self, space: Space, env: dict[str, str]) -> Handle:
        from docker.types import DeviceRequest

        spec = space.read_meta()["spec"]
        inside = {k: v for k, v in env.items() if k not in _HOST_ONLY}
        inside.update(_INSIDE)
        image = env.get("CUA_POOL_IMAGE") or os.environ.get("CUA_POOL_DOCKER_IMAGE") or DEFAULT_IMAGE
        options: dict[str, Any] = {}
        if spec.get("gpus"):
            options["device_requests"] = [
                DeviceRequest(device_ids=[str(g) for g in spec["gpus"]], capabilities=[["gpu"]])
            ]
            inside["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(len(spec["gpus"])))
        memory = spec.get("limits", {}).get("memory_mb")
        if memory:
            options["mem_limit"] = f"{int(memory)}m"
        container = self.client.containers.run(
            image,
            None,
            entrypoint=["sh", "-c", _SCRIPT],  # the image's own entrypoint would wrap our command
            detach=True,
            name=f"cua-space-{space.id}",
            labels={"cua-pool.member": space.id},
            working_dir="/space/work",
            environment=inside,
            network_mode="host",
            volumes={
                str(space.root): {"bind": "/space", "mode": "rw"},
                str(runner.__file__): {"bind": "/cua/runner.py", "mode": "ro"},
            },
            **options,
        )
        return Handle("docker", 0, "", {"container": container.id, "image": image})

    def _container(self, handle: Handle) -> Any:
        from docker.errors import NotFound

        try:
            return self.client.containers.get(handle.extra["container"])
        except NotFound:
            return None

    def running(self, space: Space, handle: Handle) -> bool:
        container = self._container(handle)
        return container is not None and container.status in ("created", "running", "restarting")

    def exit_code(self, space: Space, handle: Handle) -> int | None:
        try:
            return int(space.exit_file.read_text().strip())
        except (OSError, ValueError):
            container = self._container(handle)
            if container is None:
                return None
            code = container.attrs.get("State", {}).get("ExitCode")
            return None if code is None else int(code)

    def stop(self, space: Space, handle: Handle, force: bool) -> None:
        from docker.errors import APIError

        container = self._container(handle)
        if container is None:
            return
        try:
            if force:
                container.remove(force=True)  # killed if still running, and gone
            else:
                container.kill(signal="SIGTERM")
        except APIError:
            pass

    def describe(self) -> str:
        return "docker container"


@hookimpl
def cua_pool_register_space_runtimes(register: Register[Callable[..., SpaceRuntime]]) -> None:
    register("docker", DockerRuntime)
