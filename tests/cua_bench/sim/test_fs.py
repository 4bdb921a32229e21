"""The sim desktop's in-memory file system."""

from __future__ import annotations

import pytest

from cua_bench.sim import VirtualFS


def test_write_read_list_and_parents_are_created() -> None:
    fs = VirtualFS()
    fs.write("/home/user/projects/a/notes.txt", "hi")
    fs.write("/home/user/projects/b.bin", b"\x00\x01")
    assert fs.read_text("/home/user/projects/a/notes.txt") == "hi"
    assert fs.read("/home/user/projects/b.bin") == b"\x00\x01"
    assert fs.list("/home/user/projects") == ["a", "b.bin"]  # folders first, then files
    assert fs.is_dir("/home/user/projects/a") and fs.is_file("/home/user/projects/b.bin")
    assert "Documents" in fs.listdir("/home/user")
    assert list(fs.walk()) == ["/home/user/projects/a/notes.txt", "/home/user/projects/b.bin"]


def test_rename_file_by_name_and_folder_by_path_moves_its_contents() -> None:
    fs = VirtualFS()
    fs.write("/home/user/d/x.txt", "x")
    fs.rename("/home/user/d/x.txt", "y.txt")
    assert fs.exists("/home/user/d/y.txt") and not fs.exists("/home/user/d/x.txt")
    fs.rename("/home/user/d", "/home/user/e")
    assert fs.read_text("/home/user/e/y.txt") == "x"
    assert not fs.exists("/home/user/d")


def test_errors_are_the_builtin_os_errors() -> None:
    fs = VirtualFS()
    fs.write("/tmp/a", "1")
    fs.write("/tmp/b", "2")
    with pytest.raises(FileNotFoundError):
        fs.read("/tmp/missing")
    with pytest.raises(IsADirectoryError):
        fs.read("/tmp")
    with pytest.raises(FileExistsError):
        fs.rename("/tmp/a", "b")
    with pytest.raises(ValueError, match="not a valid file name"):
        fs.rename("/tmp/a", "x/y")
    with pytest.raises(ValueError, match="into itself"):
        fs.rename("/home/user", "/home/user/Documents/user")
    with pytest.raises(FileNotFoundError):
        fs.write("/nope/file", "x", parents=False)
    with pytest.raises(ValueError, match="absolute"):
        fs.write("relative.txt", "x")
    with pytest.raises(OSError, match="not empty"):
        fs.delete("/tmp", recursive=False)


def test_delete_and_change_notifications() -> None:
    fs = VirtualFS()
    seen: list[int] = []
    fs.subscribe(lambda: seen.append(fs.version))
    fs.write("/tmp/x/y.txt", "1")
    fs.delete("/tmp/x")
    assert not fs.exists("/tmp/x/y.txt") and not fs.exists("/tmp/x")
    assert seen == sorted(seen) and len(seen) == 3  # mkdir /tmp/x, write, delete
