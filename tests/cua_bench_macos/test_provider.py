"""Choosing Lume or tart, and bad input: an unknown provider, neither tool here, no golden VM. Each error
names the fix, and comes before anything costly (a payload build, a clone, a file written)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cua_bench_macos.backend as backend_module
from cua_bench import BackendError
from cua_bench.backend_choice import backend_unavailable
from cua_bench.backend_kit import capabilities_of
from cua_bench.registry import backends
from cua_bench_macos import INSTALL_HINT, LumeClient, MacosBackend, TartClient, choose_provider
from cua_core.options import OptionError


def test_an_unknown_provider_is_refused_naming_the_choices() -> None:
    with pytest.raises(OptionError, match=r"provider=parallels: provider must be one of auto, lume, tart"):
        MacosBackend(provider="parallels")
    with pytest.raises(BackendError, match="provider 'vmware' is not one of auto, lume, tart"):
        choose_provider("vmware", "http://127.0.0.1:1", Path("/nonexistent"))


def test_an_unknown_provider_in_the_variable_is_refused_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_MACOS_PROVIDER", "vmware")
    backend = MacosBackend()
    with pytest.raises(OptionError, match=r"CUA_MACOS_PROVIDER must be one of auto, lume, tart, got 'vmware'"):
        backend.provider()


def test_neither_lume_nor_tart_is_an_error_naming_both_and_how_to_install_them_before_anything_costly(
    ssh: Any, no_lume: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_payload(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the payload was built before the provider was checked")

    monkeypatch.setattr(backend_module, "build_payload", no_payload)
    home = tmp_path / "home"
    backend = MacosBackend(lume_url=no_lume, home=str(home))
    for call in (backend.build_image, backend.provision):
        with pytest.raises(BackendError) as caught:
            call()
        message = str(caught.value)
        assert f"neither Lume (no API at {no_lume}) nor tart (not on PATH)" in message
        assert "libs/lume/scripts/install.sh" in message and "brew install cirruslabs/cli/tart" in message
    assert not home.exists() and ssh.calls() == []


def test_a_named_provider_that_is_missing_says_so(ssh: Any, no_lume: str, tmp_path: Path) -> None:
    with pytest.raises(BackendError, match=rf"Lume's API does not answer at {no_lume}: start it with `lume serve`"):
        choose_provider("lume", no_lume, tmp_path)
    with pytest.raises(BackendError, match=r"tart is not on PATH: install Lume .* or use provider=lume"):
        choose_provider("tart", no_lume, tmp_path)


def test_auto_takes_lume_when_it_answers_else_tart(lume: Callable[[str], Any], no_lume: str, tmp_path: Path) -> None:
    replay = lume("lume_build")
    chosen = choose_provider("auto", replay.url, tmp_path, which=lambda name: "/opt/homebrew/bin/tart")
    assert isinstance(chosen, LumeClient) and chosen.url == replay.url
    fallback = choose_provider("auto", no_lume, tmp_path, which=lambda name: "/opt/homebrew/bin/tart")
    assert isinstance(fallback, TartClient) and fallback.binary == "/opt/homebrew/bin/tart"


def test_provision_without_a_golden_vm_says_to_build_it(
    tart: Callable[[str], Any], no_lume: str, tmp_path: Path
) -> None:
    replay = tart("tart_build")  # its first answer: `tart list` with no VMs
    backend = MacosBackend(lume_url=no_lume, home=str(tmp_path / "home"))
    with pytest.raises(BackendError, match=r"no golden VM 'cua-macos-golden' \(tart\).*cua-bench image build macos"):
        backend.provision()
    assert [call[0] for call in replay.calls()] == []  # no payload: refused before asking tart anything


def test_prune_without_lume_or_tart_has_nothing_to_do(ssh: Any, no_lume: str, tmp_path: Path) -> None:
    assert MacosBackend(lume_url=no_lume, home=str(tmp_path)).prune(everything=True) == []


@pytest.mark.skipif(sys.platform == "darwin", reason="off macOS only")
def test_off_a_mac_backend_choice_is_told_why_the_backend_cannot_run() -> None:
    """So a macOS task on this host is not sent to a backend that cannot start (cb's choice skips it)."""
    problem = backend_unavailable("macos")
    assert problem is not None and problem.startswith("macOS machines run on an Apple silicon Mac with Lume or tart")


def test_on_a_mac_without_a_golden_vm_backend_choice_is_told_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("platform.system", lambda: "Darwin")
    monkeypatch.setattr("platform.machine", lambda: "arm64")
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert MacosBackend.unavailable() == f"neither Lume nor tart is installed: {INSTALL_HINT}"
    monkeypatch.setattr("shutil.which", lambda name: f"/opt/homebrew/bin/{name}")
    monkeypatch.setenv("CUA_MACOS_HOME", str(tmp_path))
    assert MacosBackend.unavailable() == "no golden VM has been built on this host: `cua-bench image build macos`"
    (tmp_path / "payload").mkdir()
    (tmp_path / "payload" / "payload.tar.gz").write_bytes(b"x")
    (tmp_path / "payload" / "payload.sha256").write_text("ab\n")
    assert MacosBackend.unavailable() is None


@pytest.mark.skipif(sys.platform == "darwin", reason="off macOS only")
def test_the_session_is_only_made_inside_a_macos_guest() -> None:
    with pytest.raises(BackendError, match="runs inside a macOS guest; on this host use --backend local"):
        MacosBackend.create_session(width=1024, height=768)


def test_the_backend_registers_by_entry_point_and_declares_macos() -> None:
    assert backends()["macos"] is MacosBackend
    declared = capabilities_of(MacosBackend)
    assert declared.os == "macos" and declared.shell and not declared.root
    assert {option.name for option in MacosBackend.options} >= {
        "provider", "lume_url", "image", "memory", "cpus", "boot_timeout", "ssh_user", "ssh_password"
    }  # fmt: skip
