"""``_archive``'s reader: every member of a good archive by content, and a clear ``ArchiveError``
(never a crash, never a file written) for corrupt, truncated, hostile or mislabelled ones."""

from __future__ import annotations

import gzip
import io
import lzma
import stat
import tarfile
import zipfile

import pytest

from cua_bench_tasks_desktop._archive import (
    MAX_MEMBER,
    MAX_MEMBERS,
    ArchiveError,
    archive_bytes,
    format_of,
    read_archive,
)

FILES = {"a.txt": "alpha\n", "docs/b.md": "beta\n"}


@pytest.mark.parametrize("fmt", ["zip", "tar", "tar.gz", "tar.bz2", "tar.xz"])
def test_reads_every_member_of_each_format(fmt: str) -> None:
    archive = read_archive(archive_bytes(fmt, FILES))
    assert archive.format == fmt
    assert archive.files == {name: text.encode() for name, text in FILES.items()}
    assert archive.folders == frozenset({"docs"})


def test_format_is_by_content_not_name() -> None:
    # a tar.gz's bytes are a tar.gz whatever the file is called
    assert format_of(archive_bytes("tar.gz", FILES)) == "tar.gz"
    assert format_of(b"just some text\n") is None
    with pytest.raises(ArchiveError, match="not a zip"):
        read_archive(b"just some text\n")


def _tar(members: list[tarfile.TarInfo], data: bytes = b"") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        for info in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return out.getvalue()


def _info(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    if kind == tarfile.SYMTYPE:
        info.linkname = "/etc/passwd"
    return info


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/evil", "a/../../evil", "./a.txt", "a\\..\\evil"])
def test_tar_traversal_is_refused(name: str) -> None:
    with pytest.raises(ArchiveError, match="plain relative path"):
        read_archive(gzip.compress(_tar([_info(name, size=2)], b"hi")))


@pytest.mark.parametrize("name", ["../evil.txt", "/abs.txt"])
def test_zip_traversal_is_refused(name: str) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(name, "x")
    with pytest.raises(ArchiveError, match="plain relative path"):
        read_archive(out.getvalue())


def test_links_and_devices_are_refused() -> None:
    with pytest.raises(ArchiveError, match="link or a device"):
        read_archive(_tar([_info("link", tarfile.SYMTYPE)]))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        info = zipfile.ZipInfo("link")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    with pytest.raises(ArchiveError, match="link or a device"):
        read_archive(out.getvalue())


def test_a_huge_member_is_refused_without_expanding_it() -> None:
    big = b"\0" * (MAX_MEMBER + 1)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros", big)
    with pytest.raises(ArchiveError, match="expands"):
        read_archive(out.getvalue())
    with pytest.raises(ArchiveError, match=r"expands past|bytes"):
        read_archive(lzma.compress(_tar([_info("zeros", size=len(big))], big) * 5))


def test_a_zip_that_lies_about_its_size_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros", b"\0" * (MAX_MEMBER + 10))
    data = bytearray(out.getvalue())
    # the central directory's uncompressed size, set to 10: the reader must still stop at its bound
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    with pytest.raises(ArchiveError):
        read_archive(bytes(data))


def test_too_many_members_are_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for index in range(MAX_MEMBERS + 1):
            archive.writestr(f"f{index}", "")
    with pytest.raises(ArchiveError, match="more than"):
        read_archive(out.getvalue())


@pytest.mark.parametrize("fmt", ["zip", "tar.gz", "tar.bz2", "tar.xz"])
def test_truncated_archives_are_refused(fmt: str) -> None:
    data = archive_bytes(fmt, FILES)
    with pytest.raises(ArchiveError):
        read_archive(data[: len(data) // 2])


@pytest.mark.parametrize("fmt", ["tar.gz", "tar.bz2", "tar.xz"])
def test_trailing_data_after_a_stream_is_refused(fmt: str) -> None:
    with pytest.raises(ArchiveError, match=r"follow|corrupt"):
        read_archive(archive_bytes(fmt, FILES) + b"extra bytes")


def test_corrupt_bytes_are_an_archive_error() -> None:
    data = bytearray(archive_bytes("zip", {"a.txt": "alpha " * 50}))
    data[40:60] = b"\xff" * 20  # inside the member's compressed data
    with pytest.raises(ArchiveError):
        read_archive(bytes(data))
    with pytest.raises(ArchiveError):
        read_archive(b"\x1f\x8b" + b"\0" * 50)


def test_a_compressed_non_tar_is_refused() -> None:
    with pytest.raises(ArchiveError, match="no tar"):
        read_archive(gzip.compress(b"plain text, not a tar" * 30))


def test_duplicate_members_are_refused() -> None:
    with pytest.raises(ArchiveError, match="twice"):
        read_archive(_tar([_info("a.txt", size=2), _info("a.txt", size=2)], b"hi"))
