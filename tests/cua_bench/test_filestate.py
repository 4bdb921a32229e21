"""The file-state snapshot sees the whole end state: hidden paths, type, inode and links, mode and times."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from support.shell_home import Home, snap

from cua_bench.filestate import changes, from_wire, holders, is_copy, shell_snapshot, to_wire
from cua_core.errors import CuaError


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("alpha\n")
    (tmp_path / "docs" / "b.txt").write_text("beta\n")
    (tmp_path / ".config" / "app").mkdir(parents=True)
    (tmp_path / ".config" / "app" / "app.conf").write_text("x=1\n")
    return tmp_path


def test_hidden_paths_at_any_depth_are_seen(home: Path) -> None:
    found = snap(home)
    assert {"docs", "docs/a.txt", ".config", ".config/app", ".config/app/app.conf"} <= set(found)
    assert found["docs"].kind == "dir" and found["docs/a.txt"].kind == "file"
    assert found["docs/a.txt"].size == 6 and found["docs/a.txt"].links == 1


def test_rename_to_hidden_is_not_a_delete(home: Path) -> None:
    before = snap(home)
    os.rename(home / "docs" / "a.txt", home / "docs" / ".a.txt")
    after = snap(home)
    assert changes(before, after, expect=["docs/a.txt"]) == ["docs/.a.txt appeared"]
    assert holders(after, before["docs/a.txt"].sha256) == ["docs/.a.txt"]


def test_hard_link_symlink_and_copy(home: Path) -> None:
    before = snap(home)
    os.link(home / "docs" / "a.txt", home / "docs" / "hard.txt")
    os.symlink("a.txt", home / "docs" / "soft.txt")
    (home / "docs" / "copy.txt").write_bytes((home / "docs" / "a.txt").read_bytes())
    after = snap(home)
    sha = before["docs/a.txt"].sha256
    assert is_copy(after, "docs/copy.txt", sha)
    assert not is_copy(after, "docs/hard.txt", sha)  # two links, and the original's inode
    assert not is_copy(after, "docs/soft.txt", sha)  # a symlink
    # The original itself now has two links: a change even when the new names are expected.
    assert changes(before, after, expect=["docs/hard.txt", "docs/soft.txt", "docs/copy.txt"]) == [
        "docs/a.txt links 1 -> 2 (hard linked)"
    ]


def test_mode_mtime_and_replacement_are_changes(home: Path) -> None:
    before = snap(home)
    os.chmod(home / "docs" / "a.txt", 0o777)
    os.utime(home / "docs" / "b.txt", (1_000_000, 1_000_000))
    (home / ".config" / "app" / "app.conf").unlink()
    (home / ".config" / "app" / "app.conf").write_text("x=1\n")  # the same content, a new file
    found = changes(before, snap(home))
    assert any(c.startswith("docs/a.txt mode ") and c.endswith(" -> 777") for c in found)
    assert "docs/b.txt modification time changed" in found
    assert any(c.startswith(".config/app/app.conf") for c in found)


def test_caches_are_left_out_of_changes_but_not_of_holders(home: Path) -> None:
    before = snap(home)
    (home / ".cache").mkdir()
    os.rename(home / "docs" / "a.txt", home / ".cache" / "a.txt")
    after = snap(home)
    assert changes(before, after, expect=["docs/a.txt"]) == []
    assert holders(after, before["docs/a.txt"].sha256) == [".cache/a.txt"]


def test_a_cache_files_save_in_progress_is_not_a_change_but_its_look_alikes_are(home: Path) -> None:
    """GLib saves recently-used.xbel as ``recently-used.xbel.XXXXXX`` renamed over it: a snapshot taken
    mid-save saw that sibling "appear" and a CI oracle scored 0. The sibling of an ignored file is
    ignored; a longer or shorter suffix, or the sibling of a file that is not a cache, is not."""
    (home / ".local" / "share").mkdir(parents=True)
    (home / ".local" / "share" / "recently-used.xbel").write_text("<xbel/>")
    before = snap(home)
    for name in ("recently-used.xbel.U4SYZ3", "recently-used.xbel.U4SYZ", "recently-used.xbel.U4SYZ3x"):
        (home / ".local" / "share" / name).write_text("<xbel/>")
    (home / "docs" / "a.txt.U4SYZ3").write_text("alpha\n")
    assert changes(before, snap(home)) == [
        ".local/share/recently-used.xbel.U4SYZ appeared",
        ".local/share/recently-used.xbel.U4SYZ3x appeared",
        "docs/a.txt.U4SYZ3 appeared",
    ]


def test_a_folder_made_for_an_expected_path_is_not_a_change(home: Path) -> None:
    before = snap(home)
    (home / ".local" / "share" / "Trash" / "files").mkdir(parents=True)
    (home / ".local" / "share" / "other").mkdir()
    found = changes(before, snap(home), expect=[".local/share/Trash"])
    assert found == [".local/share/other appeared"]


def test_wire_form_round_trips(home: Path) -> None:
    found = snap(home)
    assert from_wire(to_wire(found)) == found


def test_a_folder_that_cannot_be_listed_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CuaError, match="cannot snapshot 'missing': no folder missing"):
        asyncio.run(shell_snapshot(Home(tmp_path), "missing"))


def test_a_usercustomize_left_in_home_cannot_rewrite_the_snapshot(home: Path) -> None:
    """The snapshot's Python runs as the desktop's user, whose home the agent writes: Python would
    import ``usercustomize`` from the home's user site-packages, and with it hide a file."""
    import sys

    site = home / ".local" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    site.mkdir(parents=True)
    (site / "usercustomize.py").write_text(
        "import os\n_walk = os.walk\n"
        "def walk(top, *a, **k):\n"
        "    for folder, dirs, files in _walk(top, *a, **k):\n"
        "        yield folder, dirs, [f for f in files if f != 'a.txt']\n"
        "os.walk = walk\n"
    )
    assert "docs/a.txt" in snap(home)


def test_libreoffices_lock_beside_a_document_is_not_a_change_but_a_copy_under_its_name_is(home: Path) -> None:
    """LibreOffice keeps ``.~lock.NAME#`` (one short line) beside each open document, made on open and
    moved on Save As; a document copied under such a name is still a stray file."""
    (home / "docs" / ".~lock.a.ods#").write_text(",user,host,06.12.2026 07:35,file:///home/user/.config;\n")
    before = snap(home)
    os.rename(home / "docs" / ".~lock.a.ods#", home / "docs" / ".~lock.a.xlsx#")
    (home / "docs" / ".~lock.b.ods#").write_bytes(b"PK" + b"x" * 2000)  # a document hidden as a lock
    (home / "docs" / ".~lock.c.ods").write_text("not a lock: no #\n")
    assert changes(before, snap(home)) == ["docs/.~lock.b.ods# appeared", "docs/.~lock.c.ods appeared"]


def test_a_lock_that_grows_into_a_document_is_a_change(home: Path) -> None:
    (home / "docs" / ".~lock.a.ods#").write_text(",user,host;\n")
    before = snap(home)
    (home / "docs" / ".~lock.a.ods#").write_bytes(b"PK" + b"x" * 2000)
    assert changes(before, snap(home)) == ["docs/.~lock.a.ods# content changed"]
