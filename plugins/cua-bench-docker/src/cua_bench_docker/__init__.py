"""cua-bench's ``docker`` backend: the local desktop in a container.

Installed with ``pip install './packages/cua-bench[docker]'`` from a clone of cua.
"""

from __future__ import annotations

from cua_bench_docker.backend import DockerBackend, DockerSettings
from cua_bench_docker.daemon import connect
from cua_bench_docker.image import BASE_IMAGE, IMAGE, BuildResult, build_image

__all__ = ["BASE_IMAGE", "IMAGE", "BuildResult", "DockerBackend", "DockerSettings", "build_image", "connect"]
