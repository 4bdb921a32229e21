"""One snapshot of the files an evaluator judges, seen whole: hidden paths, type, inode, links, mode and times.

A reward that compares contents only can be earned by wrong work: a file renamed to ``.name`` is
not deleted, a hard link is not a copy, a file chmod'ed to 777 or touched is not untouched. So the
snapshot records every path under the folder, at any depth and dot-named or not, with what a
person (or ``ls -la``) would see of it, and ``changes`` compares all of it.

Paths that apps rewrite on their own may be left out of ``changes``, but only those named in
``CACHES``, each with the reason. Content checks (``holders``) still see them: a deleted file's
content hidden in a cache is still there.
"""

from __future__ import annotations

import glob
import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from fnmatch import fnmatchcase
from typing import Any

from cua_core import CuaError

__all__ = [
    "CACHES",
    "TRASH",
    "FileState",
    "Snapshot",
    "changes",
    "from_wire",
    "holders",
    "ignored",
    "is_copy",
    "office_lock",
    "shell_snapshot",
    "to_wire",
]


@dataclass(frozen=True)
class FileState:
    """What one path is. ``sha256`` is a file's content hash and a link's target ('' for the rest)."""

    kind: str  # "file", "dir", "link" or "other" (a socket, a fifo, a device)
    sha256: str = ""
    size: int = 0
    mode: int = 0  # the permission bits (0o644)
    inode: int = 0
    links: int = 1
    mtime_ns: int = 0


Snapshot = dict[str, FileState]
"""``{path relative to the snapshot's folder: FileState}``, every path under it."""

# Folders (relative to home) whose changes are not the agent's work; each says why. Nothing else
# is left out: an agent can write anywhere under home, so anything else it changed is a change.
CACHES: dict[str, str] = {
    ".cache": "XDG cache: fontconfig, Mesa shaders and thumbnails, rewritten by apps on their own",
    ".local/share/recently-used.xbel": "GTK's recent-files list, rewritten whenever a file dialog opens a file",
    ".config/dconf": "dconf's database, rewritten by GTK apps as they start (window sizes, last folders)",
    ".config/pulse": "PulseAudio's cookie, written by any app that probes for sound",
    ".config/gtk-3.0": "GTK 3's settings folder (bookmarks), made by the first GTK app that starts",
    ".local/share/gvfs-metadata": "GVFS file metadata, rewritten by file dialogs and PCManFM on their own",
    ".config/libreoffice": "LibreOffice's user profile: settings, recent documents and window states, written on "
    "every start, save and close",
}

TRASH = ".local/share/Trash"
"""Where PCManFM and GTK put deleted files: a task says whether a move to the trash counts as a delete."""

# Runs in the environment, as its user, from its home: one pass of lstat and sha256 over every path.
# It needs only python3, which every shell backend's env server has.
_SCRIPT = r"""
import hashlib, json, os, stat, sys
root = sys.argv[1]
if not os.path.isdir(root):
    sys.exit("no folder " + root)
out = {}
for top, dirs, files in os.walk(root):
    for name in dirs + files:
        path = os.path.join(top, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        digest, kind = "", "other"
        if stat.S_ISREG(st.st_mode):
            kind, h = "file", hashlib.sha256()
            try:
                with open(path, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                digest = h.hexdigest()
            except OSError:
                digest = "unreadable"
        elif stat.S_ISDIR(st.st_mode):
            kind = "dir"
        elif stat.S_ISLNK(st.st_mode):
            kind, digest = "link", os.readlink(path)
        rel = os.path.relpath(path, root)
        out[rel] = [kind, digest, st.st_size, stat.S_IMODE(st.st_mode), st.st_ino, st.st_nlink, st.st_mtime_ns]
json.dump(out, sys.stdout)
"""


def shell_command(folder: str) -> str:
    """The command ``shell_snapshot`` runs: the script above over ``folder`` (relative to home).

    ``-I`` (isolated): Python reads no ``usercustomize`` or user site-packages from the home it is
    asked to judge, nor PYTHON* variables, so a file the agent left there cannot rewrite the snapshot.
    """
    return f"python3 -I -c {shlex.quote(_SCRIPT)} {shlex.quote(folder)}"


async def shell_snapshot(session: Any, folder: str = ".") -> Snapshot:
    """Every path under ``folder`` (relative to home) of a session that has a shell.

    Raises ``CuaError`` naming the folder when it cannot be listed: an evaluator that silently saw
    nothing would pass any end state.
    """
    result = await session.run_command(shell_command(folder), timeout=60)
    if result.returncode != 0:
        raise CuaError(f"cannot snapshot {folder!r}: {result.stderr.strip()[:300] or 'exit ' + str(result.returncode)}")
    return from_wire(json.loads(result.stdout))


def to_wire(snapshot: Snapshot) -> dict[str, list[Any]]:
    """A snapshot as plain lists (msgpack, JSON, ``task.scratch``)."""
    return {path: list(asdict(state).values()) for path, state in snapshot.items()}


def from_wire(data: Mapping[str, Any]) -> Snapshot:
    return {path: FileState(*row) for path, row in data.items()}


def _inside(path: str, prefixes: Iterable[str]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def ignored(path: str, caches: Iterable[str] = CACHES) -> bool:
    """``path`` is one of ``caches``, inside one, or one's save in progress. GLib saves a file (GTK's
    recent-files list among them) as ``NAME.XXXXXX`` renamed over NAME, so a snapshot taken mid-save
    sees that sibling: a CI oracle scored 0 on ``recently-used.xbel.U4SYZ3`` "appearing"."""
    caches = [p.rstrip("/") for p in caches]
    return _inside(path, caches) or any(fnmatchcase(path, f"{glob.escape(p)}.??????") for p in caches)


OFFICE_LOCK_BYTES = 512
"""The most a LibreOffice lock file holds (one line: user, host, time, profile URL; ~70-150 bytes)."""


def office_lock(path: str, state: FileState | None) -> bool:
    """``.~lock.NAME#``: the lock LibreOffice keeps beside each document it has open (made on open, moved
    on Save As, removed on close). Only a small plain file of that name is one, so a copy of a document
    hidden under such a name is still a change."""
    name = path.rsplit("/", 1)[-1]
    return (
        name.startswith(".~lock.")
        and name.endswith("#")
        and state is not None
        and state.kind == "file"
        and state.size <= OFFICE_LOCK_BYTES
    )


def _differs(old: FileState, new: FileState) -> str | None:
    """How a path that is in both snapshots changed, or None. A folder's size and times move with
    its children, which are compared one by one, so a folder compares by kind, inode and mode."""
    if old.kind != new.kind:
        return f"is now a {new.kind}, was a {old.kind}"
    if old.inode != new.inode:
        return "was replaced (a new inode)"
    if old.mode != new.mode:
        return f"mode {old.mode:o} -> {new.mode:o}"
    if old.kind == "dir":
        return None
    if old.sha256 != new.sha256:
        return "content changed" if old.kind == "file" else "target changed"
    if old.links != new.links:
        return f"links {old.links} -> {new.links} (hard linked)"
    if old.mtime_ns != new.mtime_ns:
        return "modification time changed"
    return None


def changes(
    before: Snapshot, after: Snapshot, *, expect: Iterable[str] = (), ignore: Iterable[str] = CACHES
) -> list[str]:
    """What changed between two snapshots, outside the paths in ``expect`` and ``ignore`` (and what
    is inside them): paths removed, paths that appeared, and paths whose kind, inode, mode, content,
    link count or modification time differ. Empty when nothing else changed."""
    expect, ignore = [p.rstrip("/") for p in expect], [p.rstrip("/") for p in ignore]

    def skipped(path: str) -> bool:
        return (
            _inside(path, expect)
            or ignored(path, ignore)
            or (
                (office_lock(path, before.get(path)) or path not in before)
                and (office_lock(path, after.get(path)) or path not in after)
            )
        )

    def holds_skipped(path: str) -> bool:
        # A folder that appeared to hold an expected or ignored path (``.local/share`` for the trash)
        return after[path].kind == "dir" and any(p.startswith(path + "/") for p in (*expect, *ignore))

    found = [f"{p} was removed" for p in sorted(set(before) - set(after)) if not skipped(p)]
    found += [f"{p} appeared" for p in sorted(set(after) - set(before)) if not skipped(p) and not holds_skipped(p)]
    for path in sorted(set(before) & set(after)):
        how = None if skipped(path) else _differs(before[path], after[path])
        if how:
            found.append(f"{path} {how}")
    return found


def holders(snapshot: Snapshot, sha256: str, *, outside: Iterable[str] = ()) -> list[str]:
    """The files that hold the content ``sha256``, outside ``outside`` (hidden and cached ones included)."""
    skip = [p.rstrip("/") for p in outside]
    return sorted(
        path
        for path, state in snapshot.items()
        if state.kind == "file" and state.sha256 == sha256 and not _inside(path, skip)
    )


def is_copy(snapshot: Snapshot, path: str, sha256: str) -> bool:
    """``path`` is a file of its own holding ``sha256``: a regular file with one link, whose inode no
    other path shares (a hard link or a symlink to the original is not a copy)."""
    state = snapshot.get(path)
    if state is None or state.kind != "file" or state.sha256 != sha256 or state.links != 1:
        return False
    return not any(p != path and s.inode == state.inode and s.kind == "file" for p, s in snapshot.items())
