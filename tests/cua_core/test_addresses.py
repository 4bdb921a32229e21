"""Where sockets go: the runtime folder, and socket paths that always fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from cua_core.addresses import ipc_address, runtime_dir


def test_a_long_tmpdir_gets_a_short_runtime_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    deep = tmp_path / ("work-" * 12) / ".tmp"  # a job's TMPDIR deep in its space
    deep.mkdir(parents=True)
    monkeypatch.delenv("CUA_RUNTIME_DIR")
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(deep))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    folder = runtime_dir()
    try:
        assert str(folder).startswith("/tmp/cua-") and len(str(folder)) < 40
        assert (folder.stat().st_mode & 0o777) == 0o700
        assert runtime_dir() == folder  # the same folder every time for the same TMPDIR
        assert ipc_address("env-0123456789ab").startswith(f"ipc://{folder}/")
    finally:
        folder.rmdir()


def test_a_short_xdg_runtime_dir_is_used_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    import tempfile

    short = Path(tempfile.mkdtemp(prefix="x", dir="/tmp"))
    monkeypatch.delenv("CUA_RUNTIME_DIR")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short))
    try:
        assert runtime_dir() == short / "cua"
    finally:
        shutil.rmtree(short)


def test_an_explicit_long_runtime_dir_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUA_RUNTIME_DIR", str(tmp_path / ("x" * 90)))
    with pytest.raises(
        ValueError, match="over the 103-byte unix socket limit; set CUA_RUNTIME_DIR to a shorter folder"
    ):
        ipc_address("env")


@pytest.fixture(scope="module")
def module_scoped_runtime() -> Path:
    from cua_core.addresses import runtime_dir

    return Path(runtime_dir())


def test_module_scoped_fixtures_use_a_private_runtime_dir_not_the_users(module_scoped_runtime: Path) -> None:
    # A module fixture (the local backend's computer, the Docker engine) starts before a test's own
    # folders exist; it used to get the user's real runtime folder.
    assert module_scoped_runtime.is_relative_to("/tmp") and module_scoped_runtime.parent.name.startswith("cua-s-")
