"""What a host reports, and the hosts the pool refuses."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from poolkit import Cluster

from cua_pool import facts
from cua_pool.agent import HostAgent


def test_facts_of_this_linux_host() -> None:
    found = facts.host_facts()
    assert found["os_name"] == "Linux" and found["cpus"] == os.cpu_count() and found["memory"] > 0
    assert isinstance(found["load"], float)


def test_nvidia_gpus_are_read_from_nvidia_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "nvidia-smi"
    fake.write_text("#!/bin/sh\nprintf '0, NVIDIA H200, 143771\\n1, NVIDIA H200, 143771\\n'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.delenv("CUA_POOL_GPUS", raising=False)
    gpus = facts.nvidia_gpus()
    assert [(g["index"], g["name"]) for g in gpus] == [(0, "NVIDIA H200"), (1, "NVIDIA H200")]
    assert gpus[0]["memory"] == 143771 << 20
    assert facts.host_facts()["gpus"] == [0, 1]


def test_no_nvidia_smi_means_no_gpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUA_POOL_GPUS", raising=False)
    assert facts.nvidia_gpus() == []
    assert facts.apple_silicon() == []  # this is not a Mac


def test_apple_silicon_is_reported_on_an_arm_mac(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facts.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(facts.platform, "machine", lambda: "arm64")
    assert facts.apple_silicon()[0]["kind"] == "apple"


def test_a_windows_host_is_refused_with_a_way_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(facts.sys, "platform", "win32")
    with pytest.raises(RuntimeError, match=r"Windows host.*Linux or macOS.*WSL2"):
        HostAgent("ipc:///nowhere", host_id="w", name="w", home=tmp_path, max_spaces=1)


def test_the_controller_refuses_a_windows_host(cluster: Cluster) -> None:
    with pytest.raises(ValueError, match="Windows hosts cannot run spaces"):
        cluster.controller.register_host("w", "w", "10.0.0.9", "Windows", "AMD64", 4, 1 << 30, [], [], 2)
