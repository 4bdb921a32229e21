"""The docker backend's declared capabilities and options, without an engine (the client connects lazily)."""

from __future__ import annotations

import typing

import pytest

from cua_bench.backend_kit import Capabilities, parse_options
from cua_bench_docker import DockerBackend, DockerSettings
from cua_bench_docker.image import VARIANTS
from cua_core.options import OptionError


def test_docker_declares_the_local_desktops_capabilities() -> None:
    declared = DockerBackend.capabilities
    assert isinstance(declared, Capabilities)
    assert (declared.os, declared.shell, declared.browser, declared.root) == ("linux", True, True, False)
    assert {"terminal", "editor", "files", "spreadsheet"} <= declared.apps


def test_the_variant_option_takes_exactly_the_images_variants() -> None:
    (variant,) = [option for option in DockerBackend.options if option.name == "variant"]
    assert typing.get_args(variant.type) == tuple(VARIANTS)


def test_the_office_image_is_the_default_desktop_plus_the_document_apps_and_their_readers() -> None:
    default, office = VARIANTS["default"], VARIANTS["office"]
    assert office.dockerfile == default.dockerfile and not office.computer and not office.metrics and office.office
    assert set(office.packages) - set(default.packages) == {
        "libreoffice-calc", "libreoffice-writer", "libreoffice-impress", "libreoffice-gtk3", "gedit", "galculator",
        "file-roller", "zip", "unzip", "xz-utils", "evince", "inkscape", "gimp", "thunderbird",
        "vlc", "qgis", "blender", "kate", "libreoffice-draw", "ffmpeg",
    }  # fmt: skip


def test_options_override_the_variables_and_are_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_DOCKER_MEMORY", "3g")
    monkeypatch.setenv("CUA_DOCKER_CPUS", "1.5")
    monkeypatch.delenv("CUA_DOCKER_VARIANT", raising=False)
    monkeypatch.delenv("CUA_DOCKER_IMAGE", raising=False)
    assert (DockerBackend().settings.memory, DockerBackend().settings.cpus) == ("3g", 1.5)
    backend = DockerBackend(**parse_options(DockerBackend, ["memory=4g", "pids=64", "variant=osworld"]))
    assert backend.settings == DockerSettings(variant="osworld", memory="4g", cpus=1.5, pids=64)


def test_bad_options_and_variables_say_what_they_take(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(OptionError, match=r"backend 'docker' has no option 'memroy'; did you mean 'memory'\?"):
        parse_options(DockerBackend, ["memroy=4g"])
    with pytest.raises(OptionError, match=r"pids=many: pids must be an integer \(int\)"):
        parse_options(DockerBackend, ["pids=many"])
    with pytest.raises(OptionError, match=r"network must be one of none, host"):
        DockerBackend(network="bridge")
    monkeypatch.setenv("CUA_DOCKER_NETWORK", "bridge")
    with pytest.raises(OptionError, match=r"CUA_DOCKER_NETWORK must be one of none, host, got 'bridge'"):
        DockerSettings.from_env()


def test_an_engine_error_in_teardown_or_prune_is_a_backend_error() -> None:
    # The runner and `cua-bench prune` handle a backend's own errors; docker's escaped them and killed a worker.
    import docker.errors

    from cua_bench import BackendError, Computer

    class Refusing:
        name = "cua-x"
        labels: typing.ClassVar[dict[str, str]] = {}

        def remove(self, force: bool) -> None:
            raise docker.errors.APIError("500 Server Error: device or resource busy")

    class Client:
        class containers:  # docker's own attribute name
            @staticmethod
            def list(**_: object) -> list[Refusing]:
                return [Refusing()]

    backend = DockerBackend()
    computer = Computer("docker", "ipc:///nowhere", 1280, 800, handle=Refusing(), info={"container": "cua-x"})
    with pytest.raises(BackendError, match="could not remove container cua-x: 500 Server Error"):
        backend.teardown(computer)
    backend._client = Client()
    with pytest.raises(BackendError, match="prune stopped: 500 Server Error"):
        backend.prune(everything=True)
