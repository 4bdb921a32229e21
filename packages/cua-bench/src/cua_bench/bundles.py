"""Task folders travel by content: a task given as a path on the host reaches every env server.

A path is read where it was given (relative paths against the caller's working folder), named by a
digest of its files, and sent to the env server once; the server keeps it in a cache of its own and
loads the task from there. So a server in a container, a VM, on another computer, an isolated local
user who cannot read root's home, or one started before the folder was made all load the same files,
with no mount to set up; and an edited task gets a new digest, never a stale copy.

What travels: a task folder with everything under it (``__pycache__`` and ``.git`` left out), or for
one task file (an OSWorld JSON, a ``.py``) the folder it is in, whose name some formats read (the
OSWorld domain) and whose other files a task may name (OSWorld's ``files/gold.txt``, ``gold.py``).
A task that reads files outside its own folder must be given as a name the server resolves itself
(``sim/click-button``) or carry those files inside it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from cua_bench.tasks import TaskError

__all__ = ["MAX_BYTES", "PREFIX", "Bundle", "BundleCache", "bundle_of"]

log = logging.getLogger(__name__)

PREFIX = "content:"  # a reset's task given by content: ``content:<digest>/<folder>[/<file>]``
MAX_BYTES = 256 * 2**20  # a task folder bigger than this is refused by name (keep data out of the task)
MAX_FILES = 10_000  # so is one holding more files (a task file given from a home folder, say)
_SKIP = {"__pycache__", ".git"}
# A write stamps a file's change time from the kernel's coarse clock (one tick, at most 10 ms, behind the
# real one): a seal holds only paths last changed longer ago than this, so that any later write moves one.
_SETTLED_NS = 50_000_000


@dataclass(frozen=True)
class Bundle:
    """A task's files (by their path below the bundle's root), their digest, and the task's path there."""

    digest: str
    task: str  # the folder (or parent/file) to load, relative to the root
    files: dict[str, bytes]

    @property
    def ref(self) -> str:
        return f"{PREFIX}{self.digest}/{self.task}"


def _digest(files: dict[str, bytes]) -> str:
    whole = hashlib.sha256()
    for name in sorted(files):
        whole.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return whole.hexdigest()


def _signature(path: Path) -> tuple[tuple[str, int, int], ...]:
    """What changes when a file under ``path`` changes: its relative paths, sizes and mtimes (refused as
    soon as the folder is past the limits, before all of a large one is walked)."""
    found, total = [], 0
    for folder, subfolders, names in os.walk(path, followlinks=True):
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIP)
        for name in names:
            full = os.path.join(folder, name)
            st = os.stat(full)
            found.append((os.path.relpath(full, path), st.st_size, st.st_mtime_ns))
            total += st.st_size
            if total > MAX_BYTES or len(found) > MAX_FILES:
                raise TaskError(
                    f"task folder {path} holds more than {MAX_BYTES // 2**20} MiB or {MAX_FILES} files, more than a "
                    "task may carry to an env server: keep large data outside the task and fetch it in setup"
                )
    return tuple(sorted(found))


def bundle_of(path: str | Path) -> Bundle:
    """The bundle of the task at ``path`` on this computer (a folder or one file)."""
    resolved = Path(path).resolve()
    if not resolved.exists():
        raise TaskError(f"task path {str(path)!r} does not exist here (resolved to {resolved})")
    folder = resolved.parent if resolved.is_file() else resolved
    bundle = _folder_bundle(folder, _signature(folder))
    if resolved.is_file():  # the same files; the task is the one file among them
        return Bundle(bundle.digest, f"{bundle.task}/{resolved.name}", bundle.files)
    return bundle


@functools.lru_cache(maxsize=8)  # keyed by the signature: a reset reads a folder again only once it changed
def _folder_bundle(path: Path, signature: tuple[tuple[str, int, int], ...]) -> Bundle:
    task = path.name or "task"
    files = {f"{task}/{PurePosixPath(*Path(rel).parts)}": (path / rel).read_bytes() for rel, _, _ in signature}
    return Bundle(_digest(files), task, files)


class BundleCache:
    """An env server's bundles, in a folder of its own (made on first use, removed by ``close``).

    The folder is the server's user's, and so, on an isolated or container desktop, the agent's too: a
    terminal there can edit a cached task's files (the answer a setup reads, a helper an evaluator
    imports) between episodes or during one. So the cache keeps each bundle's files in memory as sent,
    and ``path`` (each reset) and ``restore`` (before each evaluation) put back any that differ on disk,
    remove what was added (compiled ``__pycache__`` included: a planted .pyc passes for its source), and
    log what they found.

    A process the agent leaves running can still write a file between that put-back and the evaluator's
    read, and put it back after. So ``seal`` notes every path's inode and change time (which the kernel
    sets on each write, rename or chmod, and no user can set back), and ``broken`` names what moved since:
    the server scores such an evaluation 0."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._sent: dict[str, dict[str, bytes]] = {}  # each bundle's files, the copy on disk is checked against
        self._seals: dict[str, dict[str, tuple[int, int, int, int]] | None] = {}  # None: it never held still
        self._lock = threading.Lock()

    def _folder(self) -> Path:
        if self._root is None:
            where = os.environ.get("CUA_LOCAL_ROOT")
            if where:
                # Off the machine's /tmp, which an isolated or container environment's tasks use and reset
                # empties; named as the local backend names a server's folders (env-<pid>-...), so its
                # teardown removes this too when the server is killed before it could.
                self._root = Path(where) / f"env-{os.getpid()}-tasks"
                self._root.mkdir(parents=True, exist_ok=True)
            else:
                _remove_dead_caches()
                self._root = Path(tempfile.mkdtemp(prefix=f"cua-tasks-{os.getpid()}-"))
        return self._root

    def holds(self, digest: str) -> bool:
        return digest in self._sent

    def put(self, digest: str, files: dict[str, bytes]) -> None:
        """Keep ``files`` as bundle ``digest``, after checking that they are what the digest says."""
        if not _valid_digest(digest):
            raise TaskError(f"task bundle digest {digest!r} is not a sha256 hex digest")
        if sum(len(data) for data in files.values()) > MAX_BYTES:
            raise TaskError(f"task bundle {digest[:12]} is larger than {MAX_BYTES // 2**20} MiB")
        if _digest(files) != digest:
            raise TaskError(f"task bundle {digest[:12]}: the files sent do not match their digest")
        for name in files:
            _safe(name)  # every name checked before anything is written
        with self._lock:
            if digest not in self._sent:
                # A task's own imports must not write compiled files into its folder: one appearing while a
                # seal holds would read as a change, and the agent's user could plant one as well.
                sys.dont_write_bytecode = True
                self._write(digest, files)
                self._sent[digest] = dict(files)

    def _write(self, digest: str, files: dict[str, bytes]) -> None:
        """The bundle's folder made anew from ``files``: written aside, then swapped in whole."""
        root = self._folder()
        root.chmod(0o700)  # the agent may have taken write access away from its owner, who can give it back
        staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
        for name, data in files.items():
            target = staging / _safe(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        there = root / digest
        if there.exists() or there.is_symlink():
            gone = Path(tempfile.mkdtemp(prefix=".replaced-", dir=root))
            there.rename(gone / digest)
            _remove(gone)
        staging.rename(there)

    def restore(self, ref: str) -> list[str]:
        """Bundle ``ref``'s folder on disk made what was sent again; the paths found changed, added or
        missing, which a warning names too (``__pycache__`` folders are removed and not named: Python writes them
        on import)."""
        digest = ref.removeprefix(PREFIX).partition("/")[0]
        with self._lock:
            files = self._sent.get(digest)
            if files is None:
                return []
            there = self._folder() / digest
            same: dict[str, bool] = {}  # each path found: whether it is the plain file sent, byte for byte
            caches: list[Path] = []
            if there.is_dir() and not there.is_symlink():
                for folder, subfolders, names in os.walk(there):
                    caches += [Path(folder) / d for d in subfolders if d == "__pycache__"]
                    subfolders[:] = [d for d in subfolders if d != "__pycache__"]
                    for name in names + [d for d in subfolders if os.path.islink(os.path.join(folder, d))]:
                        full = Path(folder) / name
                        rel = full.relative_to(there).as_posix()
                        same[rel] = rel in files and _holds(full, files[rel])
            differ = sorted(name for name in set(files) | set(same) if not same.get(name, False))
            for cache in caches:
                _remove(cache)
            if differ:
                log.warning("task bundle %s: files changed since it was sent, put back: %s", digest[:12], differ[:10])
                self._write(digest, files)
            return differ

    def seal(self, ref: str, tries: int = 5) -> list[str]:
        """``restore``, then note each path's inode and change time once every one was last changed more
        than a clock tick ago; returns what was put back."""
        digest = ref.removeprefix(PREFIX).partition("/")[0]
        there = self._folder() / digest
        differ = self.restore(ref)
        self._seals[digest] = None
        for _ in range(tries):
            now = time.time_ns()
            entries = _entries(there)
            settled = max((changed for _, _, changed, _ in entries.values()), default=0) < now - _SETTLED_NS
            if settled and not self.restore(ref):  # and after noting them, the content is still what was sent
                self._seals[digest] = entries
                break
            time.sleep(_SETTLED_NS / 1e9)
        return differ

    def broken(self, ref: str) -> list[str]:
        """The paths of bundle ``ref`` written, replaced, added or removed since its ``seal`` (or
        ``["<the whole bundle>"]`` when it never held still long enough to be sealed)."""
        digest = ref.removeprefix(PREFIX).partition("/")[0]
        if digest not in self._seals:
            return []
        sealed = self._seals[digest]
        if sealed is None:
            return ["<the whole bundle>"]
        now = _entries(self._folder() / digest)
        return sorted(name for name in set(sealed) | set(now) if sealed.get(name) != now.get(name))

    def path(self, ref: str) -> Path:
        """The folder (or file) a ``content:`` task reference loads from."""
        digest, _, task = ref.removeprefix(PREFIX).partition("/")
        if not self.holds(digest):
            raise TaskError(
                f"task {ref!r}: no bundle {digest[:12]} was sent to this env server (an EnvClient sends a task "
                "path's files before its reset; a client of another version may not)"
            )
        self.restore(ref)
        return self._folder() / digest / _safe(task)

    def close(self) -> None:
        if self._root is not None:
            _remove(self._root)
            self._root = None
        self._sent.clear()


def _remove_dead_caches() -> None:
    """The caches of this user's servers that died without closing theirs (a ``kill -9``): named with
    their pid, so each new cache removes those whose process is gone."""
    if os.name == "nt":  # os.kill(pid, 0) there sends CTRL_C_EVENT, not a liveness probe: leave them
        return
    for folder in Path(tempfile.gettempdir()).glob("cua-tasks-*-*"):
        pid = folder.name.split("-")[2]
        try:
            if not pid.isdigit() or folder.stat().st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (PermissionError, FileNotFoundError):
            pass  # another user's process has that pid now (alive), or another server removed it


def _entries(there: Path) -> dict[str, tuple[int, int, int, int]]:
    """Every path under ``there`` (``there`` itself as ``.``), links not followed: its type, inode, the time
    its inode last changed and its modification time (Windows reports a file's creation as its change
    time: there only the modification time, which its owner can set back, tells a write)."""
    found: dict[str, tuple[int, int, int, int]] = {}
    try:
        for path in [there, *(Path(d) / n for d, subs, names in os.walk(there) for n in subs + names)]:
            st = os.lstat(path)
            found[path.relative_to(there).as_posix()] = (
                stat.S_IFMT(st.st_mode),
                st.st_ino,
                st.st_ctime_ns,
                st.st_mtime_ns,
            )
    except FileNotFoundError:
        pass  # removed under the walk: what is missing is what differs
    return found


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a plain file (not followed if a link) holding ``data``: read only when its size is
    that of ``data``, so that a huge file planted there is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a fifo opens without a writer
    except OSError:
        return False
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        return stat.S_ISREG(st.st_mode) and st.st_size == len(data) and fh.read(len(data) + 1) == data


def _remove(path: Path) -> None:
    """``path`` and what is under it, folders whose write access was taken away included."""

    def writable_again(function: object, name: str, exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            function(name)  # type: ignore[operator]

    shutil.rmtree(path, onerror=writable_again)


def _valid_digest(digest: str) -> bool:
    return len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)


def _safe(name: str) -> Path:
    """``name`` as a relative path that stays below the bundle's root (no absolute path, no ``..``)."""
    parts = PurePosixPath(name).parts
    if not parts or name.startswith("/") or any(p in ("..", ".", "") for p in parts):
        raise TaskError(f"task bundle: {name!r} is not a relative path inside the task")
    return Path(*parts)
