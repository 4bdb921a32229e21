"""The tart client against a fake ``tart`` replaying fixtures/tart_*.json (written from tart's documentation and
its commands' help): each command is the documented argv, in order, and tart's output is read as documented."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cua_bench import BackendError
from cua_bench_macos import TartClient

GOLDEN = "cua-macos-golden"


def client(tmp_path: Path) -> TartClient:
    binary = shutil.which("tart")
    assert binary is not None and binary.startswith(str(tmp_path))  # the fake, first on PATH
    return TartClient(tmp_path / "runs", binary)


def test_a_golden_vm_is_cloned_from_the_image_run_headless_addressed_and_stopped(
    tart: Callable[[str], Any], tmp_path: Path
) -> None:
    replay = tart("tart_build")
    tart_ = client(tmp_path)
    assert tart_.names() == []
    tart_.create("ghcr.io/cirruslabs/macos-sequoia-base:latest", GOLDEN)
    tart_.start(GOLDEN)
    assert tart_.wait_ip(GOLDEN, 600) == "192.168.64.3"
    tart_.stop(GOLDEN)  # `tart run` ends with its VM: the client waits for it
    assert tart_.procs == {}
    replay.check()
    assert ["run", "--no-graphics", GOLDEN] in replay.calls()


def test_running_reads_tarts_json_list(tart: Callable[[str], Any], tmp_path: Path) -> None:
    tart("tart_prune")
    tart_ = client(tmp_path)
    assert tart_.names() == [GOLDEN, "cua-env-000000dead01", "cua-env-000000a11ve2", "my-own-vm"]
    assert tart_.running("cua-env-000000dead01")


def test_a_failing_command_is_an_error_quoting_tart(tart: Callable[[str], Any], tmp_path: Path) -> None:
    replay = tart("tart_build")
    with pytest.raises(BackendError, match=r"`.*tart delete x` failed \(exit 99\)"):
        client(tmp_path).delete("x")  # not the transcript's first call: the fake refuses it
    with pytest.raises(AssertionError, match="unexpected `tart delete x`"):
        replay.check()


def test_tart_not_installed_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="brew install cirruslabs/cli/tart"):
        TartClient(tmp_path, str(tmp_path / "no-tart")).names()
