"""The guest's payload: the kit's server payload for Apple silicon plus this plugin with its entry point, in a
reproducible archive (the same bytes for the same content: a golden VM's stamp stays valid)."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path
from typing import Any

import pytest

import cua_bench_macos.payload as payload_module
from cua_bench_macos import MACOS_PLATFORMS, build_payload, stored_payload


def test_the_payload_holds_the_wheels_our_packages_and_this_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Any] = []

    def fake_server_payload(folder: Path, *, log: Any, platforms: Any) -> None:  # pip download needs the network
        asked.append(platforms)
        (folder / "wheels").mkdir()
        (folder / "wheels" / "pyzmq-27.3.0-cp311-cp311-macosx_10_15_universal2.whl").write_bytes(b"wheel")
        (folder / "lib").mkdir()

    monkeypatch.setattr(payload_module, "server_payload", fake_server_payload)
    assert stored_payload(tmp_path / "p") is None
    tarball, digest = build_payload(tmp_path / "p", log=lambda line: None)
    assert asked == [MACOS_PLATFORMS] == [("macosx_14_0_arm64",)]
    assert stored_payload(tmp_path / "p") == (tarball, digest)
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(tarball.read_bytes()))) as tar:
        names = tar.getnames()
        assert {m.mtime for m in tar.getmembers()} == {0}
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        text = tar.extractfile(entry_points).read().decode()  # type: ignore[union-attr]
    assert (
        "lib/cua_bench_macos/session.py" in names
        and "wheels/pyzmq-27.3.0-cp311-cp311-macosx_10_15_universal2.whl" in names
    )
    assert "macos = cua_bench_macos.backend" in text  # the server inside finds --backend macos
    again, same = build_payload(tmp_path / "q", log=lambda line: None)
    assert same == digest and again.read_bytes() == tarball.read_bytes()
